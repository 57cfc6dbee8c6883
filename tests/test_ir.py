"""The IR on its own: printer, verifier, reference interpreter, builder and names.

Graphs are built by hand with ``GraphBuilder`` (or, to break invariants on purpose, with
``Node``/``Graph`` directly) and also taken from compiled functions, where the reference
interpreter must agree with the generated code.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.api import GradFunction
from st_autodiff.ir.graph import Graph, GraphBuilder, Loc, Node
from st_autodiff.ir.interpret import InterpreterError, interpret
from st_autodiff.ir.names import Namespace
from st_autodiff.ir.ops import Op
from st_autodiff.ir.printer import print_graph
from st_autodiff.ir.types import Type, type_of
from st_autodiff.ir.verify import VerifyError, verify
from st_autodiff.transforms import STAGES, Options

F64_34 = Type("array", "float64", (3, 4))
LOC = Loc("/some/where/model.py", 7, 5, "    y = x * 2.0")


def small_graph() -> Graph:
    b = GraphBuilder("f")
    x = b.arg("x", F64_34)
    w = b.arg("w", Type("array", "float64", (4,)))
    y = b.emit(Op.MUL, [x, b.const(2.0)], name="y", loc=LOC,
               type=F64_34)
    z = b.emit(Op.MUL, [y, w], name="y", type=F64_34)  # a second "y": printed as y_1
    s = b.emit(Op.SUM, [z], {"keepdims": True, "axis": 1}, type=Type("array", "float64",
                                                                      (3, 1)))
    g = b.emit(Op.MUL, [s, b.const(1.0)], loc=LOC, role="MulBackward0",
               type=Type("array", "float64", (3, 1)))
    return b.finish([s, g])


# --- printer --------------------------------------------------------------------------


def test_printer_format():
    assert print_graph(small_graph()) == (
        "graph f(%x: f64[3,4], %w: f64[4]) -> f64[3,1], f64[3,1]:\n"
        "  %y: f64[3,4] = mul %x, 2.0                        # model.py:7\n"
        "  %y_1: f64[3,4] = mul %y, %w\n"
        "  %t0: f64[3,1] = sum[axis=1, keepdims=True] %y_1\n"
        "  %t1: f64[3,1] = mul %t0, 1.0                      # model.py:7 MulBackward0\n"
        "  return %t0, %t1\n")


def test_printer_is_deterministic_and_path_free():
    text = print_graph(small_graph())
    assert text == print_graph(small_graph())
    assert "/some/where" not in text and "0x" not in text


def test_printed_params_are_sorted_with_defaults():
    b = GraphBuilder("f")
    x = b.arg("x", F64_34)
    n = b.emit(Op.SUM, [x], {"keepdims": True, "axis": 0})
    assert [k for k, _ in n.params] == ["axis", "keepdims"]
    assert "sum[axis=0, keepdims=True] %x" in print_graph(b.finish([n]))
    m = b.emit(Op.SUM, [x])
    assert "sum[axis=None, keepdims=False] %x" in print_graph(b.finish([m]))


def test_unknown_types_print_as_question_marks():
    b = GraphBuilder("f")
    x = b.arg("x")
    n = b.emit(Op.TANH, [x])
    assert print_graph(b.finish([n])) == (
        "graph f(%x: ?) -> ?:\n  %t0: ? = tanh %x\n  return %t0\n")


def test_types_print_compactly():
    assert str(type_of(np.zeros((2, 3), np.float32))) == "f32[2,3]"
    assert str(type_of(np.zeros((), np.int64))) == "i64[]"
    assert str(Type("array", "float64", None)) == "f64[?]"
    assert str(type_of(2.0)) == "float" and str(type_of(3)) == "int"


def test_compiled_graphs_print_identically_twice():
    def f(x, w):
        h = np.tanh(x @ w)
        return np.sum(h * h)

    x, w = np.ones((4, 3)), np.ones((3, 2))
    a, b = st.grad(f, wrt=(0, 1)), st.grad(f, wrt=(0, 1))
    a(x, w)
    b(x, w)
    assert a.ir == b.ir and a.adjoint_ir == b.adjoint_ir
    assert a.ir.splitlines()[0] == "graph f(%x: f64[4,3], %w: f64[3,2]) -> f64[]:"


# --- verifier -------------------------------------------------------------------------


def arg(id_: int, name: str) -> Node:
    return Node(id_, Op.ARG, (), (("name", name),), Type("array", "float64", (3,)), name)


def test_verifier_accepts_a_good_graph():
    verify(small_graph())


def test_verifier_rejects_use_before_def():
    x = arg(0, "x")
    late = Node(2, Op.NEG, (x,))
    early = Node(1, Op.TANH, (late,))
    with pytest.raises(VerifyError, match="reads #2 before it is defined"):
        verify(Graph("g", (x,), (x, early, late), (late,)))


def test_verifier_rejects_self_reference():
    x = arg(0, "x")
    ghost = Node(1, Op.NEG, (x,))
    n = Node(1, Op.TANH, (ghost,))  # same id as itself, but another object
    with pytest.raises(VerifyError, match="before it is defined"):
        verify(Graph("g", (x,), (x, n), (n,)))


def test_verifier_rejects_duplicate_ids():
    x = arg(0, "x")
    a = Node(1, Op.NEG, (x,))
    b = Node(1, Op.TANH, (x,))
    with pytest.raises(VerifyError, match="node id 1 appears twice"):
        verify(Graph("g", (x,), (x, a, b), (b,)))


def test_verifier_rejects_ids_that_are_not_dense():
    x = arg(0, "x")
    a = Node(5, Op.NEG, (x,))
    with pytest.raises(VerifyError, match="ids must be dense"):
        verify(Graph("g", (x,), (x, a), (a,)))


@pytest.mark.parametrize("op, n_inputs", [(Op.NEG, 2), (Op.ADD, 1), (Op.ADD, 3),
                                          (Op.MATMUL, 0)])
def test_verifier_rejects_wrong_arity(op, n_inputs):
    x = arg(0, "x")
    n = Node(1, op, (x,) * n_inputs)
    with pytest.raises(VerifyError, match=f"{n_inputs} inputs, expected"):
        verify(Graph("g", (x,), (x, n), (n,)))


def test_verifier_accepts_variadic_ops():
    x = arg(0, "x")
    n = Node(1, Op.STACK, (x, x, x), (("axis", 0),))
    verify(Graph("g", (x,), (x, n), (n,)))


def test_verifier_rejects_unsorted_params():
    x = arg(0, "x")
    n = Node(1, Op.SUM, (x,), (("keepdims", False), ("axis", 0)))
    with pytest.raises(VerifyError, match="params are not sorted"):
        verify(Graph("g", (x,), (x, n), (n,)))


def test_verifier_rejects_an_arg_node_that_is_not_an_argument():
    x, y = arg(0, "x"), arg(1, "y")
    n = Node(2, Op.ADD, (x, y))
    with pytest.raises(VerifyError, match="arg node #1 is not a graph argument"):
        verify(Graph("g", (x,), (x, y, n), (n,)))


def test_verifier_rejects_an_output_from_elsewhere():
    x = arg(0, "x")
    stranger = Node(0, Op.NEG, (x,))
    with pytest.raises(VerifyError, match="output #0 is not a node of the graph"):
        verify(Graph("g", (x,), (x,), (stranger,)))


def mlp(w, b, x):
    h = np.tanh(x @ w + b)
    return np.mean(h**2)


def gather_max(x, i):
    return np.max(x[i] / (1.0 + x[[0, 0]].sum()))


def reshape_and_broadcast(x, d, n):
    y = (x.reshape(n, -1) / d) ** 2
    return np.sum(np.where(y > 0.5, y, np.exp(y)), axis=None)


FUNCTIONS = [
    (mlp, (0, 1, 2), (np.linspace(-1, 1, 6).reshape(3, 2), np.ones(2),
                      np.linspace(0, 2, 12).reshape(4, 3))),
    (gather_max, 0, (np.array([3.0, 1.0, 2.0]), np.array([2, 0, 2]))),
    (reshape_and_broadcast, (0, 1), (np.linspace(0.1, 2.0, 12), np.array([[1.0, 2.0, 4.0]]),
                                     4)),
]


@pytest.mark.parametrize("fn, wrt, args", FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("optimize", [True, False])
def test_every_pass_output_verifies(fn, wrt, args, optimize):
    g = GradFunction(fn, wrt, "grad", False, Options(optimize=optimize, verify=True))
    g(*args)  # raises VerifyError if any pass broke an invariant
    assert list(g.stages()) == list(STAGES)


# --- interpreter ----------------------------------------------------------------------


@pytest.mark.parametrize("fn, wrt, args", FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_interpreter_matches_generated_code(fn, wrt, args):
    g = st.value_and_grad(fn, wrt=wrt)
    value, grads = g(*args)
    (compiled,) = g._compiled.values()
    primal_out = interpret(compiled.primal, *args)
    np.testing.assert_allclose(primal_out[0], value, rtol=1e-14)
    joint_out = interpret(compiled.joint, *args, 1.0)
    np.testing.assert_allclose(joint_out[0], value, rtol=1e-14)
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert len(joint_out) == 1 + len(grads)
    for got, want in zip(joint_out[1:], grads):
        np.testing.assert_allclose(got, want, rtol=1e-14)


def test_interpreter_error_names_the_node_and_the_source_line():
    b = GraphBuilder("f")
    x = b.arg("x", Type("array", "float64", (2, 3)))
    w = b.arg("w", Type("array", "float64", (3, 2)))
    n = b.emit(Op.MATMUL, [x, w], loc=LOC)
    graph = b.finish([n])
    np.testing.assert_allclose(interpret(graph, np.ones((2, 3)), np.ones((3, 2)))[0],
                               np.full((2, 2), 3.0))
    with pytest.raises(InterpreterError, match=r"while executing matmul node #2 at "
                                               r"/some/where/model.py:7:5: ValueError"):
        interpret(graph, np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(TypeError, match="f takes 2 arguments, got 1"):
        interpret(graph, np.ones((2, 3)))


# --- builder --------------------------------------------------------------------------


def test_shape_of_a_typed_value_folds_to_a_constant():
    b = GraphBuilder("f")
    x = b.arg("x", F64_34)
    s = b.emit(Op.SHAPE, [x])
    assert s.op is Op.CONST and s.param("value") == (3, 4)
    rows = b.emit(Op.ITEM, [s], {"index": 0})
    assert rows.op is Op.CONST and rows.param("value") == 3


def test_shape_of_an_untyped_value_stays_a_node():
    b = GraphBuilder("f")
    x = b.arg("x")
    s = b.emit(Op.SHAPE, [x])
    assert s.op is Op.SHAPE


def test_int_arithmetic_on_constants_folds():
    b = GraphBuilder("f")
    five = b.emit(Op.ADD, [b.const(2), b.const(3)])
    assert five.op is Op.CONST and five.param("value") == 5
    ten = b.emit(Op.MUL, [five, b.const(2)])
    assert ten.op is Op.CONST and ten.param("value") == 10
    assert b.emit(Op.FLOORDIV, [ten, b.const(3)]).param("value") == 3


def test_float_arithmetic_on_constants_is_not_folded():
    b = GraphBuilder("f")
    n = b.emit(Op.MUL, [b.const(2.0), b.const(3.0)])
    assert n.op is Op.MUL  # floats keep their rounding at run time, in the user's dtype


def test_constants_are_shared():
    b = GraphBuilder("f")
    assert b.const(2.0) is b.const(2.0)
    assert b.const(2) is not b.const(2.0)
    assert b.const((3, 4)) is b.const((3, 4))


def test_builder_with_example_values_types_every_node():
    b = GraphBuilder("f", evaluate=lambda op, ins, params: {
        Op.MUL: lambda: ins[0] * ins[1], Op.SUM: lambda: np.sum(ins[0], axis=params["axis"])
    }[op]())
    x = b.arg("x", F64_34, np.ones((3, 4)))
    y = b.emit(Op.MUL, [x, b.const(2.0)])
    s = b.emit(Op.SUM, [y], {"axis": 0})
    assert y.type == F64_34 and s.type == Type("array", "float64", (4,))
    np.testing.assert_allclose(b.values[s], np.full(4, 6.0))


def test_rename_names_a_value_until_something_reads_it():
    b = GraphBuilder("f")
    x = b.arg("x", F64_34)
    y = b.emit(Op.NEG, [x])
    y = b.rename(y, "y")
    assert y.name == "y" and b.nodes[y.id] is y
    z = b.emit(Op.TANH, [y])
    assert b.rename(y, "again").name == "y"  # already read: the name stays
    assert b.rename(x, "renamed").name == "x"  # arguments keep their names
    assert z.inputs == (y,)


def test_nodes_read_like_grad_fn_records():
    b = GraphBuilder("f")
    x = b.arg("x", F64_34)
    n = b.emit(Op.MUL, [x, x])
    assert n.name_of_backward() == "MulBackward0"
    assert n.next_functions == (x, x)
    assert b.emit(Op.MATMUL, [x, x]).name_of_backward() == "MmBackward0"


# --- names ----------------------------------------------------------------------------


def test_namespace_names_values_like_the_design_says():
    ns = Namespace("_t")
    assert [ns.fresh(n) for n in ("z", "z", None, "z", None)] == ["z", "z_1", "_t0", "z_2",
                                                                  "_t1"]


def test_namespace_avoids_keywords_builtins_and_backend_globals():
    ns = Namespace("_t", {"f_grad"})
    assert ns.fresh("sum") == "sum_1"
    assert ns.fresh("lambda") == "lambda_1"
    assert ns.fresh("xp") == "xp_1" and ns.fresh("rt") == "rt_1"
    assert ns.fresh("f_grad") == "f_grad_1"


def test_namespace_temporaries_skip_taken_names():
    ns = Namespace("_t")
    assert ns.fresh("_t0") == "_t0"
    assert ns.fresh(None) == "_t1"
    assert ns.fresh("z_1") == "z_1"
    assert ns.fresh("z") == "z"
    assert ns.fresh("z") == "z_2"  # z_1 was taken by a source name
