"""Type rules (``ir/infer``) against the kernels they describe.

For every op, many inputs of varied kinds: the real kernel ``run(op, np, inputs, params)``
and ``infer(op, abstract_of(inputs), params)`` must agree on dtype, shape and "NumPy
scalar or 0-d array" (``abstract_of`` of the result), or both refuse; with an input's
shape forgotten, the rule's answer must stay compatible (same dtype, the same shape or
``None``).  Plus: every op has a rule, the cost of a rule does not grow with the data,
and Hypothesis draws shapes and dtypes for elementwise ops and reductions.
"""

from __future__ import annotations

import tracemalloc
import warnings
from typing import Any

import numpy as np
import pytest
from test_infer_cases import (
    A,
    cast_cases,
    creation_cases,
    elementwise_cases,
    fft_cases,
    index_cases,
    linalg_cases,
    list_cases,
    reduction_cases,
    shape_cases,
    softmax_cases,
    structure_cases,
)

from st_autodiff.ir.abstract import Abstract, NotKnown, abstract_of
from st_autodiff.ir.infer import RULES, NoTypeRule, infer
from st_autodiff.ir.kernels import compiling, run
from st_autodiff.ir.ops import OP_INFO, Op
from st_autodiff.ir.types import Type

_REDUCE = {Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY, Op.ALL,
           Op.LOGSUMEXP, Op.ARGMAX, Op.ARGMIN, Op.CUMSUM, Op.CUMPROD}
_CREATE = {Op.ZEROS, Op.ONES, Op.FULL, Op.EYE, Op.ARANGE, Op.LINSPACE, Op.ZEROS_LIKE,
           Op.ONES_LIKE, Op.FULL_LIKE}
_SHAPES = {Op.RESHAPE, Op.RAVEL, Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS, Op.EXPAND_DIMS,
           Op.SQUEEZE, Op.BROADCAST_TO, Op.CONCATENATE, Op.STACK, Op.HSTACK, Op.VSTACK,
           Op.SPLIT, Op.TILE, Op.REPEAT, Op.FLIP, Op.ROLL, Op.PAD, Op.SORT, Op.ARGSORT,
           Op.TAKE, Op.TAKE_ALONG_AXIS, Op.TRIU, Op.TRIL, Op.DIAG, Op.DIAGONAL, Op.TRACE,
           Op.NONZERO, Op.UNBROADCAST}
_LINALG = {Op.MATMUL, Op.DOT, Op.VDOT, Op.INNER, Op.OUTER, Op.TENSORDOT, Op.EINSUM,
           Op.NORM, Op.INV, Op.SOLVE, Op.DET, Op.SLOGDET, Op.CHOLESKY, Op.EIGH, Op.EIGVALSH,
           Op.SVD, Op.SVDVALS,
           Op.QR, Op.EIG, Op.EIGVALS, Op.LU, Op.MATRIX_EXP}  # the last line: linalg family
_INDEX = {Op.GETITEM, Op.SETITEM, Op.INDEX_ADD, Op.SCATTER_ADD}
_LISTS = {op for op in Op if op.value.startswith("list")}
_STRUCT = {Op.TUPLE, Op.ITEM, Op.SHAPE, Op.STOP_GRADIENT, Op.PY_FLOAT, Op.PY_INT, Op.PY_BOOL,
           Op.CONST}
_STRUCT.add(Op.NO_DERIVATIVE)  # stats: identity
#: the fft family's ops on real pairs
_FFT = {Op.FFT_C2C, Op.FFT_R2C, Op.FFT_C2R, Op.CMUL, Op.CDIV}
#: ops whose result shape counts a runtime list's items: typed with an unknown shape
_UNKNOWN_SHAPE = {Op.LIST_STACK, Op.LIST_CATENATE, Op.NONZERO}


def cases_for(op: Op) -> list:
    if OP_INFO[op].elementwise and op not in (Op.SIGMOID, Op.RELU) or op in (
            Op.SIGMOID, Op.RELU):
        return elementwise_cases(op)
    if op in _REDUCE:
        return reduction_cases(op)
    if op in (Op.SOFTMAX, Op.LOG_SOFTMAX):
        return softmax_cases(op)
    if op in _CREATE:
        return creation_cases(op)
    if op in (Op.ASTYPE, Op.ASARRAY):
        return cast_cases(op)
    if op in _SHAPES:
        return shape_cases(op)
    if op in _LINALG:
        return linalg_cases(op)
    if op in _INDEX:
        return index_cases(op)
    if op in _LISTS:
        return list_cases(op)
    if op in _STRUCT:
        return structure_cases(op)
    if op in _FFT:
        return fft_cases(op)
    raise AssertionError(f"no test cases for {op}")


def _params(op: Op, given: dict) -> dict:
    full = OP_INFO[op].param_defaults
    full.update(given)
    return full


def _abstract_inputs(inputs: tuple, keep: tuple) -> tuple:
    return tuple(v if i in keep else abstract_of(v) for i, v in enumerate(inputs))


def _run(op: Op, inputs: tuple, params: dict) -> Any:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(op, np, inputs, params)


def _forget(a: Any) -> Any:
    """``a`` with every array shape forgotten (lists and tuples item by item)."""
    if isinstance(a, Abstract) and a.type.kind == "array":
        return Abstract(Type("array", a.type.dtype, None))
    if isinstance(a, (tuple, list)):
        return type(a)(_forget(v) for v in a)
    return a


def _has_abstract(v: Any) -> bool:
    if isinstance(v, Abstract):
        return True
    return isinstance(v, (tuple, list)) and any(_has_abstract(x) for x in v)


def _unknown_numbers(v: Any) -> Any:
    """Python ints and bools computed from runtime values: typed, their value unknown."""
    if isinstance(v, bool):
        return Abstract(Type("bool"))
    if isinstance(v, int):
        return Abstract(Type("int"))
    return v


def _same_error(real: BaseException, got: BaseException) -> bool:
    """The rule refuses as NumPy does: the same class, or the same builtin base."""
    if isinstance(got, type(real)):
        return True
    return any(isinstance(real, b) and isinstance(got, b) for b in (
        ValueError, TypeError, IndexError, ZeroDivisionError))


def check_case(op: Op, inputs: tuple, given: dict, keep: tuple) -> str | None:
    """Compare the rule and the kernel on one case; a failure's description or None."""
    params = _params(op, given)
    try:
        expected = abstract_of(_run(op, inputs, params))
        real_exc = None
    except Exception as exc:  # noqa: BLE001  (the rule must refuse alike)
        real_exc = exc
    abstract = _abstract_inputs(inputs, keep)
    try:
        got = infer(op, abstract, params)
    except NoTypeRule as exc:
        return f"NoTypeRule: {exc}"
    except NotKnown:  # the type depends on a value (NumPy < 2.3's fast power paths)
        return None if op is Op.POW else "NotKnown"
    except Exception as exc:  # noqa: BLE001
        if real_exc is not None and _same_error(real_exc, exc):
            return None
        return f"infer raised {exc!r}, kernel gave {real_exc!r}"
    if real_exc is not None:
        return f"kernel raised {real_exc!r}, infer gave {got}"
    if op in _UNKNOWN_SHAPE:
        expected = _forget(expected)
    if _has_abstract(abstract) and got != expected:
        expected = _unknown_numbers(expected)  # (unless the rule knows it: a list's len)
    if got != expected:
        return f"infer gave {got}, kernel {expected}"
    return None


def _describe(inputs: tuple, params: dict) -> str:
    parts = [f"{type(v).__name__}{getattr(v, 'shape', '')}:{getattr(v, 'dtype', '')}"
             if hasattr(v, "dtype") else repr(v) for v in inputs]
    return f"({', '.join(parts)}) {params}"


RULED = sorted((op for op in Op if op in RULES and op not in (Op.CALL, Op.CALL_VJP,
                                                              Op.OPAQUE_CALL)),
               key=lambda o: o.value)


@pytest.mark.parametrize("op", RULED, ids=lambda o: o.value)
def test_rule_matches_kernel(op: Op) -> None:
    failures = []
    for inputs, given, keep in cases_for(op):
        msg = check_case(op, inputs, given, keep)
        if msg:
            failures.append(f"{_describe(inputs, given)}: {msg}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:15])


def _unknown_variants(inputs: tuple, keep: tuple):
    """Each abstract array input in turn with its shape forgotten."""
    abstract = _abstract_inputs(inputs, keep)
    for i, a in enumerate(abstract):
        if isinstance(a, Abstract) and a.type.kind == "array" and not a.generic:
            yield i, abstract[:i] + (Abstract(Type("array", a.type.dtype, None)),) + \
                abstract[i + 1:]


def _compatible(got: Any, expected: Any) -> bool:
    """``got`` says no more than ``expected`` and nothing against it."""
    if isinstance(expected, (tuple, list)):
        if isinstance(got, Abstract) and got.type.kind in ("tuple", "list"):
            return True
        return type(got) is type(expected) and len(got) == len(expected) and all(
            _compatible(g, e) for g, e in zip(got, expected))
    if isinstance(got, Abstract) and isinstance(expected, Abstract):
        if got.type.kind != expected.type.kind or got.type.dtype != expected.type.dtype:
            return False
        if got.type.shape is None:
            return not got.generic
        return got == expected
    if isinstance(got, Abstract) and got.type.kind == "int":
        return isinstance(expected, int)
    if isinstance(got, Abstract) and got.type.kind == "bool":  # (bool(x): py_bool)
        return isinstance(expected, bool)
    return got == expected


@pytest.mark.parametrize("op", RULED, ids=lambda o: o.value)
def test_rule_with_unknown_shapes(op: Op) -> None:
    """An input of unknown shape: the same dtype; the shape known or None; never wrong."""
    failures = []
    for inputs, given, keep in cases_for(op):
        params = _params(op, given)
        try:
            expected = abstract_of(_run(op, inputs, params))
        except Exception:  # noqa: BLE001  (a refused case says nothing here)
            continue
        for i, abstract in _unknown_variants(inputs, keep):
            try:
                got = infer(op, abstract, params)
            except NoTypeRule:
                if op is Op.NONZERO:
                    continue  # the rank decides how many arrays: no rule without it
                if op is Op.UNBROADCAST and not expected.type.is_float:
                    continue  # summed (bool -> int64) or not: only the shapes say
                failures.append(f"{_describe(inputs, given)} #{i}: NoTypeRule")
                continue
            except NotKnown:  # the type depends on a value (NumPy < 2.3's fast powers)
                if op is not Op.POW:
                    failures.append(f"{_describe(inputs, given)} #{i}: NotKnown")
                continue
            except Exception as exc:  # noqa: BLE001
                failures.append(f"{_describe(inputs, given)} #{i}: raised {exc!r}")
                continue
            if not _compatible(got, expected):
                failures.append(f"{_describe(inputs, given)} #{i}: {got} vs {expected}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:15])


def test_abstract_python_numbers() -> None:
    """Runtime ints and bools (typed, value unknown) in elementwise ops."""
    i, b, f = Abstract(Type("int")), Abstract(Type("bool")), abstract_of(2.5)
    assert infer(Op.ADD, (i, 3), {}) == i
    assert infer(Op.ADD, (i, 2.5), {}) == f
    assert infer(Op.MUL, (b, b), {}) == i
    assert infer(Op.LT, (i, 2.5), {}) == b
    assert infer(Op.DIV, (i, i), {}) == f
    assert infer(Op.ADD, (A((3,), "float32"), i), {}) == abstract_of(A((3,), "float32"))
    assert infer(Op.ADD, (abstract_of(np.float32(1.0)), f), {}) == abstract_of(np.float32(1))
    assert infer(Op.ADD, (2, 3), {}) == 5  # static values are evaluated exactly
    assert infer(Op.POW, (i, 2), {}) == i and infer(Op.POW, (i, -1), {}) == f
    with pytest.raises(NoTypeRule):  # an int or a float: the exponent's sign decides
        infer(Op.POW, (3, i), {})
    assert infer(Op.POW, (2.5, i), {}) == f


def test_nep50_weak_python_scalars() -> None:
    f32 = abstract_of(A((3,), "float32"))
    i8 = abstract_of(np.ones(3, np.int8))
    assert infer(Op.MUL, (f32, abstract_of(2.5)), {}).type.dtype == "float32"
    assert infer(Op.ADD, (i8, 1), {}).type.dtype == "int8"
    assert infer(Op.ADD, (i8, abstract_of(1.5)), {}).type.dtype == "float64"
    with pytest.raises(OverflowError):
        infer(Op.ADD, (i8, 1000), {})


def test_getitem_with_runtime_parts() -> None:
    x = abstract_of(A((4, 5)))
    i = Abstract(Type("int"))
    assert infer(Op.GETITEM, (x, i), {"index": (("in", 0),)}) == abstract_of(A((5,)))
    got = infer(Op.GETITEM, (x, i, i), {"index": (("in", 0), ("in", 1))})
    assert got == abstract_of(np.float64(1.0))
    sl = infer(Op.GETITEM, (x, i), {"index": (("slice", ("in", 0), None, None),)})
    assert sl == Abstract(Type("array", "float64", None))
    mask = abstract_of(A((4, 5)) > 1)
    assert infer(Op.GETITEM, (x, mask), {"index": (("in", 0),)}).shape is None
    t = (abstract_of(A((2,))), abstract_of(2.5))
    assert infer(Op.GETITEM, (t,), {"index": (1,)}) == abstract_of(2.5)


def test_data_dependent_shapes_are_unknown() -> None:
    i = Abstract(Type("int"))
    assert infer(Op.ARANGE, (i, None, None), _params(Op.ARANGE, {})).shape is None
    f = abstract_of(0.5)
    assert infer(Op.ARANGE, (f, 3.0, f), _params(Op.ARANGE, {})) == Abstract(
        Type("array", "float64", None))
    assert infer(Op.ZEROS, ((i, 3),), _params(Op.ZEROS, {})).shape is None
    assert infer(Op.RESHAPE, (abstract_of(A((6,))), (i, -1)), {}).shape is None
    parts = infer(Op.NONZERO, (abstract_of(A((3, 4))),), {})
    assert len(parts) == 2 and all(p.shape is None and p.type.dtype == "int64"
                                   for p in parts)
    full = infer(Op.SUM, (Abstract(Type("array", "float32", None)),), _params(Op.SUM, {}))
    assert full == abstract_of(np.float32(1.0))


def test_runtime_lists() -> None:
    item = abstract_of(A((3,)))
    xs = Abstract(Type("list"), item=item)
    assert infer(Op.LIST_GET, (xs, Abstract(Type("int"))), {}) == item
    assert infer(Op.LIST_LEN, (xs,), {}) == Abstract(Type("int"))
    stacked = infer(Op.LIST_STACK, (xs,), {"axis": 0})
    assert stacked == Abstract(Type("array", "float64", None))
    assert infer(Op.LIST_SUM, (xs,), {}).type.dtype == "float64"
    assert infer(Op.LIST_ZEROS, (xs,), {}).item == item
    assert infer(Op.LIST_CONCAT, ([item], xs), {}).item == item
    assert infer(Op.LIST_ADD, (xs, xs), {}).item == item
    assert infer(Op.LIST_ADD, (xs, [item, item]), {}).item == item
    assert infer(Op.LIST_ADD, (xs, abstract_of(2.5)), {}).item == item
    assert infer(Op.LIST_INDEX_ADD, (xs, Abstract(Type("int")), item), {}) == xs
    assert infer(Op.LIST_GATHER, (xs, xs, None, Abstract(Type("list"))), {}).item == item
    pieces = infer(Op.LIST_SPLIT_LIKE, (abstract_of(A((5, 3))), xs), {"axis": 0})
    assert pieces.type.kind == "list" and pieces.item == Abstract(Type("array", "float64",
                                                                      None))
    big = infer(Op.LIST_UNSTACK, (abstract_of(np.broadcast_to(1.0, (10 ** 6, 2))),),
                {"axis": 0})
    assert big.type.kind == "list" and big.item == abstract_of(A((2,)))


def _spec_cases() -> list:
    f3 = Type("array", "float64", (3,))
    return [f3, Type("float", "float64", ()), Type("array", "float32", (2, 2)),
            (f3, Type("float", "float64", ())), [f3, Type("int")]]


@pytest.mark.parametrize("spec", _spec_cases(), ids=str)
def test_call_typed_by_out_type(spec: Any) -> None:
    def boom(*args: Any) -> Any:
        raise AssertionError("a user's function ran while typing")

    params = {"fn": boom, "out_type": spec}
    with compiling():
        expected = abstract_of(run(Op.CALL, np, (A((3,)),), params))
    if isinstance(expected, list):
        expected = [_unknown_numbers(v) for v in expected]
    assert infer(Op.CALL, (abstract_of(A((3,))),), params) == expected


def test_call_with_shape_dtype_and_unknown_type() -> None:
    import st_autodiff as st

    params = {"fn": print, "out_type": st.ShapeDtype((2, 3), np.float32)}
    assert infer(Op.CALL, (), params) == abstract_of(A((2, 3), "float32"))
    params["out_type"] = st.ShapeDtype(None, np.float64)
    assert infer(Op.CALL, (), params) == Abstract(Type("array", "float64", None))
    params["out_type"] = (st.ShapeDtype((), np.float64), float)
    assert infer(Op.CALL, (), params) == (abstract_of(np.zeros(())), abstract_of(1.0))
    params["out_type"] = None
    with pytest.raises(NoTypeRule):
        infer(Op.CALL, (), params)


def test_call_vjp_gradients_typed_like_arguments() -> None:
    args = (A((3,)), A((3,)), A((2, 2), "float32"), 2.5, np.float64(1.0), A((3,), "int64"),
            3)
    params = {"fn": None}
    with compiling():
        expected = abstract_of(run(Op.CALL_VJP, np, args, params))
    assert infer(Op.CALL_VJP, abstract_of(args), params) == expected


def test_opaque_call_typed_by_its_rule_never_run() -> None:
    """A passed-through call (print, a draw) is typed by the type lowering gave it; the
    kernel refuses to run it while compiling."""

    def boom(*args: Any) -> Any:
        raise AssertionError("a passed-through call ran while typing")

    params = {"fn": boom, "out_type": Type("array", "float64", (3,))}
    assert infer(Op.OPAQUE_CALL, (abstract_of(A((3,))),), params) == abstract_of(A((3,)))
    assert infer(Op.OPAQUE_CALL, (), {"fn": boom, "out_type": Type("none")}) is None
    with pytest.raises(NotKnown):
        infer(Op.OPAQUE_CALL, (), {"fn": boom, "out_type": None})
    with compiling(), pytest.raises(ValueError):
        run(Op.OPAQUE_CALL, np, (), params)


def test_regions_have_no_rule() -> None:
    for op in (Op.IF, Op.FOR, Op.WHILE, Op.ARG):
        with pytest.raises(NoTypeRule):
            infer(op, (), {})


def test_every_op_has_a_rule() -> None:
    """A new op without a type rule fails here (regions are typed from their bodies)."""
    missing = [op.value for op in Op if op not in RULES and op not in (
        Op.IF, Op.FOR, Op.WHILE, Op.ARG)]
    assert not missing, f"ops without a type rule in ir/infer: {missing}"
    untested = [op.value for op in RULED if not cases_for(op)]
    assert not untested


def _huge(dtype: str, shape: tuple) -> Abstract:
    return Abstract(Type("array", dtype, shape))


def test_cost_does_not_depend_on_data_size() -> None:
    """Typing ops on a 10**9-element array allocates nothing of its size."""
    big, mat = _huge("float64", (10 ** 9,)), _huge("float32", (10 ** 5, 10 ** 4))
    i = Abstract(Type("int"))
    calls = [
        (Op.EXP, (big,), {}), (Op.ADD, (big, 2.5), {}), (Op.MUL, (mat, _huge("float32",
                                                                              (10 ** 4,))), {}),
        (Op.SUM, (big,), _params(Op.SUM, {})), (Op.CUMSUM, (mat,), {"axis": 0}),
        (Op.MATMUL, (mat, _huge("float32", (10 ** 4, 10 ** 5))), {}),
        (Op.RESHAPE, (big, (-1, 1000)), {}), (Op.TRANSPOSE, (mat,), {"axes": None}),
        (Op.BROADCAST_TO, (big, (4, 10 ** 9)), {}), (Op.CONCATENATE, (big, big), {"axis": 0}),
        (Op.GETITEM, (big, i), {"index": (("slice", 10, None, 3),)}),
        (Op.GETITEM, (mat, _huge("int64", (10 ** 8,))), {"index": (("in", 0),)}),
        (Op.TILE, (big,), {"reps": (3, 2)}), (Op.SORT, (big,), {"axis": -1}),
        (Op.ZEROS, ((10 ** 9, 10),), {"dtype": None}), (Op.ARANGE, (0, 10 ** 10, 1),
                                                         {"dtype": None}),
        (Op.EINSUM, (mat, mat), {"subscripts": "ij,ij->i"}), (Op.PAD, (big,), {
            "pad_width": 3, "constant_values": 0}),
        (Op.SETITEM, (big, 1.0), {"index": (("slice", None, None, 2),)}),
        (Op.LIST_UNSTACK, (big,), {"axis": 0}), (Op.DIAG, (big,), {"k": 0}),
        (Op.SPLIT, (big,), {"indices_or_sections": 4, "axis": 0}),
        (Op.SOFTMAX, (mat,), {"axis": -1}), (Op.NORM, (mat,), _params(Op.NORM, {"axis": 1})),
    ]
    tracemalloc.start()
    try:
        for op, inputs, params in calls:
            infer(op, inputs, _params(op, params))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"peak {peak} bytes"
    assert infer(Op.DIAG, (big,), {"k": 0}).shape == (10 ** 9, 10 ** 9)


_Z = np.zeros
ERROR_CASES = [
    (Op.ADD, (_Z(3), _Z(4)), {}), (Op.MUL, (_Z((2, 3)), _Z((4, 1, 2))), {}),
    (Op.MATMUL, (_Z((3, 4)), _Z((5,))), {}), (Op.DOT, (_Z((3, 4)), _Z((5, 2))), {}),
    (Op.RESHAPE, (_Z((2, 3)), (4,)), {}), (Op.RESHAPE, (_Z((2, 3)), (4, -1)), {}),
    (Op.SUM, (_Z((2, 3)),), {"axis": 2}), (Op.CONCATENATE, (_Z((2, 3)), _Z((2, 4))), {}),
    (Op.GETITEM, (_Z((2, 3)),), {"index": (5,)}), (Op.GETITEM, (_Z((2, 3)),),
                                                   {"index": (0, 0, 0)}),
    (Op.SETITEM, (_Z((2, 3)), _Z(4)), {"index": (0,)}), (Op.BROADCAST_TO, (_Z(3), (4,)), {}),
    (Op.STACK, (_Z(3), _Z(4)), {}), (Op.INV, (_Z((3, 4)),), {}),
    (Op.SPLIT, (_Z(5),), {"indices_or_sections": 2}),
    (Op.EINSUM, (_Z(3), _Z(4)), {"subscripts": "i,i"}), (Op.SOLVE, (_Z((3, 3)), _Z((4, 2))), {}),
    (Op.SWAPAXES, (_Z((2, 3)),), {"axis1": 0, "axis2": 2}),
]


@pytest.mark.parametrize("op,inputs,given", ERROR_CASES, ids=lambda v: getattr(v, "value", ""))
def test_errors_read_like_numpy(op: Op, inputs: tuple, given: dict) -> None:
    """A shape the op refuses: the same exception class and message as NumPy's."""
    params = _params(op, given)
    with pytest.raises(Exception) as real:
        run(op, np, inputs, params)
    with pytest.raises(type(real.value)) as got:
        infer(op, abstract_of(inputs), params)
    assert str(got.value) == str(real.value)


def test_getitem_with_abstract_index_arrays() -> None:
    """Index arrays known only by type: their shapes place the advanced dimensions."""
    x = A((4, 5, 6))
    i2, j3 = np.array([0, 2]), np.array([[1], [2], [3]])
    cases = [((("in", 0),), (i2,)), ((("in", 0), ("in", 1)), (i2, j3)),
             ((("slice", None, None, None), ("in", 0)), (j3,)),
             ((0, ("slice", None, None, None), ("in", 0)), (i2,)),
             ((Ellipsis, ("in", 0)), (j3,))]
    for index, dyn in cases:
        expected = abstract_of(run(Op.GETITEM, np, (x, *dyn), {"index": index}))
        assert infer(Op.GETITEM, abstract_of((x, *dyn)), {"index": index}) == expected
    mask = abstract_of(A((4, 5)) > 1)
    got = infer(Op.GETITEM, (abstract_of(x), mask), {"index": (("in", 0),)})
    assert got == Abstract(Type("array", "float64", None))


def test_unknown_dtype_has_no_rule() -> None:
    with pytest.raises(NoTypeRule):
        infer(Op.EXP, (Abstract(Type("array", None, (3,))),), {})


def test_memoised_lists_are_fresh() -> None:
    xs = [abstract_of(A((3,)))]
    first = infer(Op.LIST_CONCAT, (xs, xs), {})
    first.append(None)
    assert infer(Op.LIST_CONCAT, (xs, xs), {}) == xs + xs


def test_docstring_examples() -> None:
    import doctest

    import st_autodiff.ir.infer as module

    result = doctest.testmod(module)
    assert result.attempted and not result.failed
