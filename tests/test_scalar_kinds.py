"""The kind of a 0-d value (Python number, NumPy scalar, 0-d array) as the compiler infers it.

The table runs the real operation (Python's operator, the NumPy function, the array method)
on sample values of every kind and compares ``type()`` of the result with what the type
rules say, for every op of ``CHECKED_OPS``: the set the compiler trusts to answer
``isinstance``/``type``/``np.isscalar`` of computed values.  Then end to end: queries of
computed values are answered as NumPy would (values and gradients against central
differences), and stay located refusals where the kind is not known.
"""

from __future__ import annotations

import itertools
import math
import operator
import warnings
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, UnsupportedSyntaxError
from st_autodiff.ir.abstract import NotKnown, abstract_of, evaluate
from st_autodiff.ir.kernels import _INFIX, _PREFIX
from st_autodiff.ir.ops import OP_INFO, Op, Spelling
from st_autodiff.ir.scalar_kinds import (
    CHECKED_METHODS,
    CHECKED_OPS,
    NUMPY_INPUT_OPS,
    numpy_objects,
    value_kind,
)
from st_autodiff.testing import check_grads
from st_autodiff.transforms.calls import METHODS, bind
from st_autodiff.transforms.kind_calls import CHECKED_DECOMPOSITIONS

#: samples of every kind: Python numbers, NumPy scalars (two precisions: NumPy 2's
#: promotion keeps float32 against a Python float), 0-d arrays and 1-d arrays
FLOATS = [0.75, np.float64(0.75), np.float32(0.75), np.array(0.75), np.array([0.75, 0.5])]
INTS = [3, np.int64(3), np.array(3), np.array([3, 2])]
BOOLS = [True, np.bool_(True), np.array(True), np.array([True, False])]
SAMPLES = FLOATS + INTS + BOOLS + [np.ones((2, 2))]



def _split(args: tuple) -> tuple[tuple, dict]:
    """Positional arguments and keywords (a dict last, where a case has one)."""
    if args and isinstance(args[-1], dict):
        return args[:-1], args[-1]
    return args, {}


def _real(fn: Any, args: tuple) -> Any:
    pos, kw = _split(args)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*pos, **kw)


def _depends_on_values(fn: Any, args: tuple) -> bool:
    """Whether ``fn``'s result type changes with the values of NumPy-scalar or 0-d array
    arguments (NumPy < 2.3's ``array ** e`` fast path for e in 2, 0.5, -1, 0, 1)."""
    kinds = set()
    for value in (3, 2, 0.5, -1, 0, 1):
        changed = tuple(np.asarray(value).astype(a.dtype)[()] if isinstance(a, np.generic)
                        else np.full(a.shape, value, a.dtype) if isinstance(a, np.ndarray)
                        else a for a in args)
        try:
            real = _real(fn, changed)
        except Exception:  # noqa: BLE001, S112  (NumPy refuses this value)
            continue
        kinds.add((value_kind(real), getattr(real, "dtype", None)))
    return len(kinds) > 1


def _inferred(op: Op, args: tuple, what: str) -> Any:
    pos, kw = _split(args)
    inputs, params = bind(op, list(pos), dict(kw), what)
    full = OP_INFO[op].param_defaults
    full.update(params)
    abstract = tuple(abstract_of(a) if not isinstance(a, (bool, int)) else a for a in inputs)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(op, abstract, full)


def _cases() -> list[tuple[str, Op, Any]]:
    """(name, op, the real callable) for every spelling of every checked op."""
    cases = []
    for op in sorted(CHECKED_OPS, key=lambda o: o.value):
        info = OP_INFO[op]
        if info.spelling is Spelling.INFIX:
            cases.append((f"operator {info.infix}", op, _INFIX[info.infix]))
        elif info.spelling is Spelling.PREFIX:
            cases.append((f"operator unary {info.infix}", op, _PREFIX[info.infix]))
        for obj in numpy_objects(op):
            cases.append((f"np.{getattr(obj, '__name__', op.value)}", op, obj))
    for name in sorted(CHECKED_METHODS):
        cases.append((f"ndarray.{name}", METHODS[name], _method(name)))
    return cases


def _method(name: str) -> Any:
    return lambda x, *rest, **kw: getattr(x, name)(*rest, **kw)


CASES = _cases()


#: static arguments after the first runtime one, for ops that take some
EXTRA: dict[Op, list[tuple]] = {
    Op.RESHAPE: [((-1,),), ((),), ((1, 1),)], Op.ASTYPE: [("float32",), ("float64",)],
    Op.MOVEAXIS: [(0, 0), (0, 1)], Op.EXPAND_DIMS: [(0,)], Op.SWAPAXES: [(0, 0)],
    Op.BROADCAST_TO: [((2,),), ((),)], Op.TAKE: [(0,), (-1,), (np.int64(0),)],
    **{op: [(), (None,), (0,), (-1,), ((0, 1),)] for op in (
        Op.CUMSUM, Op.CUMPROD, Op.ARGMAX, Op.ARGMIN, Op.SQUEEZE)},
    **{op: [(), (None,), (0,), (-1,), ((0, 1),), (None, {"keepdims": True}),
            (0, {"keepdims": True})] for op in (
        Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY, Op.ALL)},
    Op.ROUND: [(), (0,), (2,)], Op.TRANSPOSE: [(), (None,)],
}


def _argument_lists(op: Op) -> list[tuple]:
    if op in EXTRA:
        return [(x, *extra) for x in SAMPLES for extra in EXTRA[op]]
    return list(itertools.product(SAMPLES, repeat=len(OP_INFO[op].inputs)))


def test_every_checked_op_is_in_the_table() -> None:
    reached = {op for _, op, _ in CASES}
    missing = CHECKED_OPS - reached - {Op.GETITEM}  # (its own table below)
    assert not missing, f"checked ops without a case: {sorted(o.value for o in missing)}"


@pytest.mark.parametrize("name,op,fn", CASES, ids=[c[0] for c in CASES])
def test_kind_rule_matches_numpy(name: str, op: Op, fn: Any) -> None:
    checked = 0
    method = name.startswith("ndarray.")
    for args in _argument_lists(op):
        if method and not hasattr(args[0], "dtype"):
            continue  # a Python number has no array methods
        try:
            real = _real(fn, args)
        except Exception:  # noqa: BLE001  (NumPy refuses it: nothing to compare)
            continue
        try:
            inferred = _inferred(op, args, name)
        except NotKnown:
            # only where the installed NumPy's answer depends on a value the types don't give
            assert _depends_on_values(fn, args), f"{name}{args!r}: NotKnown, yet NumPy " \
                "gives one type for every value"
            checked += 1
            continue
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"{name}{args!r}: NumPy gives {type(real).__name__}, the rule "
                        f"raised {exc!r}")
        got, want = value_kind(inferred), value_kind(real)
        assert got == want, f"{name}{tuple(type(a).__name__ for a in args)}: NumPy " \
            f"gives {type(real).__name__}, the rule {inferred!r}"
        if want != "python":
            dtype = getattr(inferred, "dtype", None)
            assert dtype == real.dtype, f"{name}{args!r}: dtype {dtype} vs {real.dtype}"
        checked += 1
    assert checked, f"{name}: no sample combination ran"


_INDEXES = [(0,), (), (Ellipsis,), (None,), (("slice", None, None, None),), (0, None),
            (("in", 0),)]


_NUMPY_BOOLS = [v for v in BOOLS if not isinstance(v, bool)] + [np.array([[True, False]])]
_BIT_OPERATORS = {Op.LOGICAL_AND: operator.and_, Op.LOGICAL_OR: operator.or_,
                  Op.LOGICAL_XOR: operator.xor, Op.LOGICAL_NOT: operator.invert}


@pytest.mark.parametrize("op", sorted(NUMPY_INPUT_OPS, key=lambda o: o.value),
                         ids=lambda o: o.value)
def test_logical_kind_matches_numpy_for_numpy_inputs(op: Op) -> None:
    # the spellings lowered to the op: the NumPy function, and & | ^ ~ on masks
    arity = len(OP_INFO[op].inputs)
    checked = 0
    for fn in [*numpy_objects(op), _BIT_OPERATORS[op]]:
        for args in itertools.product(_NUMPY_BOOLS, repeat=arity):
            real = _real(fn, args)
            inferred = _inferred(op, args, op.value)
            assert value_kind(inferred) == value_kind(real), \
                f"{fn}{tuple(type(a).__name__ for a in args)}: NumPy gives " \
                f"{type(real).__name__}, the rule {inferred!r}"
            checked += 1
    assert checked


def test_logical_of_python_bools_is_not_the_ops_kind() -> None:
    # why NUMPY_INPUT_OPS exclude Python inputs: the op's kind is NumPy's, Python's differs
    assert type(True | False) is bool
    assert value_kind(_inferred(Op.LOGICAL_OR, (True, False), "|")) != "python"


@pytest.mark.parametrize("index", _INDEXES, ids=repr)
def test_getitem_kind_matches_numpy(index: tuple) -> None:
    from st_autodiff.ir.abstract import Abstract
    from st_autodiff.ir.kernels import build_index
    from st_autodiff.ir.types import Type

    checked = 0
    for x in [*SAMPLES, np.ones((2, 2)), np.ones((2, 2), np.float32)]:
        for i in ([0, np.int64(0), np.array(0)] if ("in", 0) in index else [None]):
            dyn = () if i is None else (i,)
            try:
                real = x[build_index(index, dyn)]
            except Exception:  # noqa: BLE001  (NumPy refuses it)
                continue
            runtime = () if i is None else (Abstract(Type("int")) if type(i) is int
                                             else abstract_of(i),)
            inferred = evaluate(Op.GETITEM, (abstract_of(x), *runtime), {"index": index})
            assert value_kind(inferred) == value_kind(real), \
                f"{type(x).__name__}{getattr(x, 'shape', '')}[{index}]: NumPy gives " \
                f"{type(real).__name__}, the rule {inferred!r}"
            checked += 1
    assert checked


# --- end to end ---------------------------------------------------------------------------

X = np.array([0.3, -0.7, 1.2])


def _grad_case(make: Any) -> Any:
    def f(x: np.ndarray) -> Any:
        v = make(x)
        if isinstance(v, np.ndarray):
            return np.sum(x ** 2) * 5.0
        if type(v) is float:
            return np.sum(x ** 2) * 2.0
        if np.isscalar(v):
            return np.sum(x ** 2) * 3.0
        return np.sum(x ** 2) * 7.0
    return f


def _full_reduction(x: np.ndarray) -> Any:
    return np.sum(x)


def _method_reduction(x: np.ndarray) -> Any:
    return x.mean()


def _item_of_1d(x: np.ndarray) -> Any:
    return x[1]


def _ufunc_of_numpy_scalar(x: np.ndarray) -> Any:
    return np.exp(x[0])


def _python_float_op_numpy_scalar(x: np.ndarray) -> Any:
    return 2.0 * np.sum(x)


def _asarray_of_numpy_scalar(x: np.ndarray) -> Any:
    return np.asarray(np.sum(x))


def _array_of_numpy_scalar(x: np.ndarray) -> Any:
    return np.array(np.sum(x))


def _op_on_0d_array(x: np.ndarray) -> Any:
    return np.asarray(np.sum(x)) + 1.0


def _empty_index_of_0d_array(x: np.ndarray) -> Any:
    return np.asarray(np.sum(x))[()]


def _ellipsis_of_0d_array(x: np.ndarray) -> Any:
    return np.asarray(np.sum(x))[...]


def _comparison_of_numpy_scalars(x: np.ndarray) -> Any:
    return x[0] < x[1]


def _dot_of_1d(x: np.ndarray) -> Any:
    return np.dot(x, x)


def _python_float_32_promotion(x: np.ndarray) -> Any:
    return np.float32(2.0) * 0.5 + np.sum(x)  # (a constant float32 scalar, NumPy 2 rules)


E2E = [_full_reduction, _method_reduction, _item_of_1d, _ufunc_of_numpy_scalar,
       _python_float_op_numpy_scalar, _asarray_of_numpy_scalar, _array_of_numpy_scalar,
       _op_on_0d_array, _empty_index_of_0d_array, _ellipsis_of_0d_array,
       _comparison_of_numpy_scalars, _dot_of_1d, _python_float_32_promotion]


@pytest.mark.parametrize("make", E2E, ids=[m.__name__ for m in E2E])
def test_queries_of_computed_values(make: Any) -> None:
    # f's factor is 2, 3, 5 by the kind NumPy gives: the gradient tells which branch ran
    f = _grad_case(make)
    check_grads(f, [X], lambda x: [st.grad(f)(x)])


@pytest.mark.parametrize("fn", CHECKED_DECOMPOSITIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(3,), (2, 3), (1, 1, 3)])
def test_checked_decompositions(fn: Any, shape: tuple) -> None:
    def f(x: np.ndarray) -> Any:
        v = fn(x, x)
        if isinstance(v, np.ndarray):
            return np.sum(v) * 5.0
        if np.isscalar(v):
            return v * 3.0
        return v * 7.0

    x = np.linspace(-1.0, 1.0, math.prod(shape)).reshape(shape)
    check_grads(f, [x], lambda x: [st.grad(f)(x)])


def test_python_arguments_and_arithmetic() -> None:
    def f(x: np.ndarray, s: float) -> Any:
        t = s * 2.0 + 1.0  # Python arithmetic on Python numbers stays Python
        if isinstance(t, float) and not isinstance(t, np.generic):
            return np.sum(x) * t
        return np.sum(x) * 0.0

    check_grads(lambda x: f(x, 0.5), [X], lambda x: [st.grad(f)(x, 0.5)])
    assert np.allclose(st.grad(f)(X, 0.5), 2.0)


def test_float_and_math_results_are_python_floats() -> None:
    # float(v) and math.exp(v) are Python floats (a weak scalar in NumPy's promotion):
    # their kind is known, and queries of it are answered as Python answers them
    def f(x: np.ndarray) -> Any:
        v = float(np.sum(x))
        w = math.exp(x[0])
        return np.sum(x) * (2.0 if isinstance(v, float) and type(w) is float else 3.0)

    np.testing.assert_allclose(st.grad(f)(X), np.full_like(X, 2.0))


def test_unknown_kind_stays_a_located_refusal() -> None:
    def f(x: np.ndarray) -> Any:
        v = np.float64(x[0])  # lowered as astype: a 0-d array where NumPy gives a scalar
        return np.sum(x) * (2.0 if type(v) is np.float64 else 3.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(X)
    assert "test_scalar_kinds.py" in str(info.value)
    assert "depends on whether a runtime value is a Python number" in str(info.value)


def test_dtype_of_a_python_float_argument_is_an_attribute_error() -> None:
    def f(x: np.ndarray, s: float) -> Any:
        return np.sum(x) * s.dtype.itemsize

    with pytest.raises(CompileError) as info:
        st.grad(f)(X, 0.5)
    assert "'float' object has no attribute 'dtype'" in str(info.value)
    assert "test_scalar_kinds.py" in str(info.value)


def test_in_place_update_of_a_0d_array_keeps_it_an_array() -> None:
    def f(x: np.ndarray) -> Any:
        a = np.asarray(np.sum(x))
        a += 1.0  # NumPy writes into the 0-d array: it stays an ndarray
        if isinstance(a, np.ndarray):
            return np.sum(x) * 5.0
        return np.sum(x) * 3.0

    try:
        g = st.grad(f)(X)
    except UnsupportedSyntaxError as exc:  # refused, located: never the wrong branch
        assert "test_scalar_kinds.py" in str(exc)
        return
    assert np.allclose(g, 5.0)


def test_python_not_of_a_number_is_not_the_logical_op() -> None:
    def f(x: np.ndarray, s: float) -> Any:
        b = not s  # a Python bool, lowered as np.logical_not (a NumPy bool)
        return np.sum(x) * (2.0 if type(b) is bool else 3.0)

    try:
        g = st.grad(f)(X, 0.5)
    except UnsupportedSyntaxError as exc:
        assert "test_scalar_kinds.py" in str(exc)
        return
    assert np.allclose(g, 2.0)


def test_math_functions_give_python_floats() -> None:
    def f(x: np.ndarray, s: float) -> Any:
        v = math.sqrt(s)  # a Python float (lowered as np.sqrt)
        return np.sum(x) * (2.0 if type(v) is float else 3.0)

    try:
        g = st.grad(f)(X, 0.5)
    except UnsupportedSyntaxError as exc:
        assert "test_scalar_kinds.py" in str(exc)
        return
    assert np.allclose(g, 2.0)


# --- in-place updates inside a loop on a parameter the function made fresh -----------------


def _scaled_fresh(c: np.ndarray) -> np.ndarray:
    c = np.array(c, copy=True)  # the caller's array is no longer what c holds
    for _ in range(2):
        c *= 2.0
    return c


def _scaled_fresh_plus(c: np.ndarray) -> np.ndarray:
    c = c + 0.0
    if c.shape[0] > 1:
        c *= 3.0
    return c


def _scaled_view(c: np.ndarray) -> np.ndarray:
    c = c[1:]  # a view: NumPy writes into the caller's array
    for _ in range(2):
        c *= 2.0
    return c


def test_in_place_update_in_a_loop_of_a_fresh_copy() -> None:
    def f(x: np.ndarray) -> Any:
        return np.sum(_scaled_fresh(x) ** 2) + np.sum(_scaled_fresh_plus(x) * x)

    check_grads(f, [X], lambda x: [st.grad(f)(x)])


def test_in_place_update_in_a_loop_of_a_view_stays_refused() -> None:
    def f(x: np.ndarray) -> Any:
        return np.sum(_scaled_view(x) ** 2)

    with pytest.raises(UnsupportedSyntaxError, match="in-place update of 'c'"):
        st.grad(f)(X)


# --- identity and type of objects a known constructor made -----------------------------------


def test_generator_is_never_a_module_and_is_a_generator() -> None:
    def f(x: np.ndarray) -> Any:
        rng = np.random.default_rng(0)
        if rng is None or rng is np.random:
            return np.sum(x) * 7.0
        if isinstance(rng, np.random.Generator) and type(rng) is np.random.Generator and \
                not isinstance(rng, (np.random.RandomState, int)):
            return np.sum(x ** 2)
        return np.sum(x) * 3.0

    check_grads(f, [X], lambda x: [st.grad(f)(x)])


def test_logger_subclass_check_stays_refused() -> None:
    import logging

    def f(x: np.ndarray) -> Any:
        lg = logging.getLogger()  # a RootLogger: a subclass of the class known here
        return np.sum(x) * (2.0 if isinstance(lg, logging.RootLogger) else 3.0)

    try:
        g = st.grad(f)(X)
    except UnsupportedSyntaxError as exc:
        assert "test_scalar_kinds.py" in str(exc)
        return
    assert np.allclose(g, 2.0)


def test_mask_operators_on_numpy_bools_and_python_boolean_operators() -> None:
    def f(x: np.ndarray) -> Any:
        m = (x[0] > 0.0) | (x[1] > 0.0)  # NumPy bools: a NumPy bool
        k = x[0] > 0.0 and x[1] > 0.0  # Python's `and`: an operand, kind not the op's
        if isinstance(m, np.bool_) and not isinstance(m, np.ndarray):
            return np.sum(x ** 2) + (0.0 * x[2] if k is None else 0.0)
        return np.sum(x) * 3.0

    check_grads(f, [X], lambda x: [st.grad(f)(x)])

    def g(x: np.ndarray) -> Any:
        k = x[0] > 0.0 and x[1] > 0.0
        return np.sum(x) * (2.0 if isinstance(k, np.bool_) else 3.0)

    with pytest.raises(UnsupportedSyntaxError, match="depends on whether a runtime value"):
        st.grad(g)(X)


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.float32, np.float64])
def test_fabs_takes_the_float_type_of_its_ufunc_loop(dtype: Any) -> None:
    """np.fabs of integers is a float (it was once the abs op, which keeps int64)."""
    k = np.array([-2, 3]).astype(dtype)

    want = np.fabs(k).dtype  # NumPy's own answer, outside the compiler

    def f(x: Any, k: Any) -> Any:
        y = np.fabs(k)
        return np.sum(x * y) + (1.0 if y.dtype == want else 100.0)

    x = np.array([0.5, -1.5])
    value, grad = st.value_and_grad(f)(x, k)
    assert value == pytest.approx(np.sum(x * np.abs(k)) + 1.0)
    assert grad == pytest.approx(np.abs(k).astype(float))
    g = st.grad(lambda x: np.sum(np.fabs(x - 1.0) ** 3))
    assert g(x) == pytest.approx(3 * np.abs(x - 1.0) ** 2 * np.sign(x - 1.0))
