"""Wrong results and bad refusals found by a fourth outside hunt (library functions
imported at test time and patterns users write), one test per root cause.  Gradients are
compared with float64 central differences, and with JAX where it is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers_agree import agrees, jax64

import st_autodiff as st

_jax = jax64
_agrees = agrees


# --- np.clip(x, lo, hi) with lo > hi somewhere: NumPy gives hi there (minimum(maximum(x,
# lo), hi)), but the rule sent the gradient to lo where x < lo, and to both lo and hi where
# hi < x < lo; the JVP rule likewise --------------------------------------------------------

_A = np.array([0.5, 2.0, 0.0, 1.1, -0.3])
_LO = np.array([1.5, 1.2, -1.0, 1.3, -0.5])
_HI = np.array([1.0, 1.0, 1.0, 1.0, 0.2])


def _clip3(x: Any, lo: Any, hi: Any) -> Any:
    return np.sum(np.clip(x, lo, hi) * np.arange(1.0, 6.0))


def test_clip_with_the_lower_bound_above_the_upper() -> None:
    for i in range(3):
        _agrees(_clip3, _A, _LO, _HI, argnums=i)
    grads = st.grad(_clip3, argnums=(0, 1, 2))(_A, _LO, _HI)
    np.testing.assert_array_equal(grads[1], [0.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(grads[2], [1.0, 2.0, 0.0, 4.0, 0.0])
    tangents = (np.ones(5), 2 * np.ones(5), 3 * np.ones(5))
    _, t = st.jvp(_clip3, (_A, _LO, _HI), tangents)
    np.testing.assert_allclose(t, sum(float(np.sum(g * d)) for g, d in zip(grads, tangents)))
    jax = _jax()
    ref = jax.grad(lambda x, lo, hi: (jax.numpy.clip(x, lo, hi) * np.arange(1.0, 6.0)).sum(),
                   argnums=(0, 1, 2))(_A, _LO, _HI)
    for mine, theirs in zip(grads, ref):
        np.testing.assert_allclose(mine, np.asarray(theirs))


# --- np.flip (flipud, fliplr, rot90) returns a view in NumPy, but was not among the ops
# whose result may share memory: `s = np.flip(b); s[0] = v` left b unchanged (and a write
# into np.flip(argument) was allowed), silently wrong; now refused like squeeze/.T -------

_X6 = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])


def _write_into_flip(a: Any) -> Any:
    b = a * 2.0
    s = np.flip(b)
    s[0] = 4.0 * a[2]
    return np.sum(b * a)


def _write_into_rot90(a: Any) -> Any:
    b = np.outer(a[:3], a[:2])
    s = np.rot90(b)
    s[0, 0] = 4.0 * a[2]
    return np.sum(b)


def _write_into_flipped_argument(a: Any) -> Any:
    s = np.flipud(a)
    s[0] = 7.0
    return np.sum(a ** 2)


@pytest.mark.parametrize("fn", [_write_into_flip, _write_into_rot90,
                                _write_into_flipped_argument])
def test_write_into_a_flipped_view_is_refused(fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError, match="view") as info:
        st.value_and_grad(fn)(_X6.copy())
    assert "hunt4_regressions.py:" in str(info.value)


def _flip_copied(a: Any) -> Any:
    b = a * 2.0
    s = np.flip(b).copy()
    s[0] = 4.0 * a[2]
    return np.sum(b * a) + np.sum(s * a)


def test_write_into_a_copy_of_a_flipped_view() -> None:
    _agrees(_flip_copied, _X6)


# --- a tuple assignment whose later value is a view of an array an earlier target writes:
# `b[0], b[1] = b[1], b[0]` on rows assigns the changed row b[0] to b[1] in NumPy (both
# rows end up equal), but was lowered as a swap; now refused with a hint.  On a 1-d array
# the items are scalars (copies) and the swap stays ------------------------------------------

def _swap_rows(a: Any) -> Any:
    b = a.reshape(3, 2) * 1.0
    b[0], b[1] = b[1], b[0]
    return np.sum(b * np.arange(6.0).reshape(3, 2))


def _rotate_rows(a: Any) -> Any:
    m = a.reshape(3, 2) * 1.0
    m[:-1], m[-1] = m[1:], m[0]
    return np.sum(m * np.arange(6.0).reshape(3, 2))


def _swap_nested(a: Any) -> Any:
    b = a.reshape(3, 2) * 1.0
    (b[0], b[2]), y = (b[2] * 1.0, a[:2]), b[0]
    return np.sum(b) + np.sum(y * a[:2])


@pytest.mark.parametrize("fn", [_swap_rows, _rotate_rows, _swap_nested])
def test_tuple_assignment_reading_a_view_after_a_write_is_refused(
        fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError, match="right of this assignment") as info:
        st.value_and_grad(fn)(_X6)
    assert "hunt4_regressions.py:" in str(info.value)


def _swap_items(a: Any) -> Any:
    b = a * 1.0
    b[0], b[1] = b[1], b[0]
    b[:-1], b[-1] = b[1:], b[0]
    return np.sum(b * np.arange(6.0))


def _swap_row_copies(a: Any) -> Any:
    b = a.reshape(3, 2) * 1.0
    b[0], b[1] = b[1].copy(), b[0].copy()
    b[[1, 2]] = b[[2, 1]]
    return np.sum(b * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("fn", [_swap_items, _swap_row_copies])
def test_tuple_assignment_of_copies(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, _X6)


# --- a generator passed to a pure Python function that is run while compiling
# (np.indices(len(x) for x in arrays), as sklearn's extmath.cartesian does) reached it as
# the compiler's own generator record: "TypeError: 'GeneratorValue' object is not
# iterable"; math.prod/math.fsum of a generator were refused ------------------------------

def _indices_of_a_generator(a: Any) -> Any:
    arrays = [a[:2], a[2:5]]
    shape = (len(x) for x in arrays)
    ix = np.indices(shape).reshape(2, -1)
    return np.sum(a[ix[0]] * a[ix[1] + 2]) * np.prod(np.zeros(tuple(len(x) for x in arrays)
                                                             ).shape)


def _math_of_a_generator(a: Any) -> Any:
    import math  # noqa: PLC0415

    return np.sum(a ** 2) * math.prod(len(x) for x in [a, a[1:]]) + \
        math.fsum(float(k) for k in range(3)) * a[0]


@pytest.mark.parametrize("fn", [_indices_of_a_generator, _math_of_a_generator])
def test_generator_passed_to_a_function_run_while_compiling(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, _X6)


def test_sklearn_cartesian() -> None:
    extmath = pytest.importorskip("sklearn.utils.extmath")

    def f(a: Any) -> Any:
        return np.sum(extmath.cartesian([a[:2], a[2:5]]) ** 2 * np.array([1.0, 3.0]))

    _agrees(f, _X6)


# --- an op that fails on the types and shapes of its inputs (a[10] of a length-5 array,
# shapes that do not broadcast) inside a try whose handler catches it: Python runs the
# handler on every call, the compiler refused the function ("getitem failed on the example
# arguments ... the function itself fails for these inputs") -------------------------------

def _index_error_caught(a: Any) -> Any:
    try:
        return a[10]
    except IndexError:
        return np.sum(a ** 2)


def _broadcast_error_caught(a: Any) -> Any:
    b = a[:3] + 1.0
    try:
        v = a + b
    except ValueError:
        v = a * b[0]
    return np.sum(v ** 2)


@pytest.mark.parametrize("fn", [_index_error_caught, _broadcast_error_caught])
def test_shape_error_caught_by_a_static_try(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, _X6)


def _index_error_not_caught(a: Any) -> Any:
    try:
        return a[10]
    except KeyError:
        return np.sum(a)


def test_shape_error_not_caught_stays_an_evaluation_error() -> None:
    with pytest.raises(st.errors.EvaluationError, match="IndexError") as info:
        st.grad(_index_error_not_caught)(_X6)
    assert isinstance(info.value, st.errors.StaticRaiseError)
    assert "hunt4_regressions.py:" in str(info.value)


# --- builtin max(a, b)/min(a, b) of scalars was NumPy's maximum/minimum: Python returns
# the first item unless the second compares greater (less), so max(x, nan) is x, not nan;
# and max(array, 0.0), which Python refuses (truth value of an array is ambiguous), was
# silently elementwise ---------------------------------------------------------------------

def _builtin_max_min(a: Any) -> Any:
    return max(a[0], np.nan) + min(a[1], float("nan")) + max(a[2], a[3], 0.5) * \
        min(0.1, a[0] ** 2)


def test_builtin_max_min_of_scalars_keep_the_first_item() -> None:
    with np.errstate(invalid="ignore"):
        _agrees(_builtin_max_min, _X6)
        v = st.value_and_grad(_builtin_max_min)(_X6)[0]
    assert not np.isnan(v)
    np.testing.assert_allclose(st.grad(_builtin_max_min)(_X6)[:2], [1.0 + 2 * 0.3 * 2.0, 1.0])


def test_builtin_max_of_an_array_is_refused() -> None:
    def f(a: Any) -> Any:
        return np.sum(max(a, 0.0))

    with pytest.raises(st.StAutodiffError, match="more than one element") as info:
        st.grad(f)(_X6)
    assert "hunt4_regressions.py:" in str(info.value)


# --- __import__("math") / importlib.import_module("scipy.special") inside the function:
# imports by name were runtime values ("arrays have no supported attribute 'sqrt'", or
# importlib's frozen source unreadable); they run while compiling, as import statements do

def _import_by_name(a: Any) -> Any:
    import importlib  # noqa: PLC0415

    m = __import__("math")
    special = importlib.import_module("scipy.special")
    return m.sqrt(a[3]) * a[0] + np.sum(special.expit(a))


def test_imports_by_name() -> None:
    _agrees(_import_by_name, _X6)


# --- np.nansum(x, where=m) and np.nansum(x, initial=v) dropped both keywords (the
# decomposition's binding swallowed them): the sum of every entry, silently ------------------

_XN = np.array([0.3, -1.2, np.nan, 2.0, -0.4, 1.1])


def _nansum_where(a: Any) -> Any:
    return np.nansum(a, where=a > 0) + np.nansum(a[:4] ** 2, initial=2.0)


def test_nansum_where_and_initial() -> None:
    value, grad = st.value_and_grad(_nansum_where)(_XN)
    assert value == pytest.approx(_nansum_where(_XN), rel=1e-12)
    np.testing.assert_allclose(grad, [1.6, -2.4, np.nan, 5.0, 0.0, 1.0])  # 2 * nan
    _agrees(_nansum_where, _X6)
    jax = _jax()
    ref = jax.grad(lambda a: jax.numpy.nansum(a, where=a > 0) +
                   jax.numpy.nansum(a[:4] ** 2, initial=2.0))(_X6)
    np.testing.assert_allclose(st.grad(_nansum_where)(_X6), np.asarray(ref))


# --- where= and initial= of reductions (np.sum(x, where=m), np.mean(x, where=m),
# x.max(axis=-1, initial=0.0) as numpy.linalg.matrix_rank writes it, x.sum(dtype=...))
# were refused ("unsupported keyword argument"); np.max(float32, initial=np.float64(v))
# was float64 -------------------------------------------------------------------------------

_M = np.array([[1, 1, 0, 1], [0, 1, 1, 1], [1, 0, 1, 1]], bool)


def _masked_reductions(a: Any) -> Any:
    x = a.reshape(3, 4) if a.size == 12 else a
    return (np.sum(np.sum(x, axis=0, where=_M) ** 2) + np.sum(x ** 2, initial=3.0) +
            np.prod(x[0], where=x[0] > -0.5) + np.max(x, axis=1, where=_M, initial=-5.0).sum()
            + np.mean(x, where=_M) + np.var(x, axis=0, where=_M, ddof=1).sum() +
            np.std(x, axis=1, where=_M, keepdims=True).sum() + x.sum(where=x > 0) +
            (x.max(axis=-1, keepdims=True, initial=0.0) ** 2).sum())


def test_where_and_initial_of_reductions() -> None:
    x = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1, 0.45, -0.8, 1.6, -0.2, 0.9, 0.6])
    _agrees(_masked_reductions, x)
    jax = _jax()
    jnp = jax.numpy

    def ref(a: Any) -> Any:
        x = a.reshape(3, 4)
        return (jnp.sum(jnp.sum(x, axis=0, where=_M) ** 2) + jnp.sum(x ** 2, initial=3.0) +
                jnp.prod(x[0], where=x[0] > -0.5) +
                jnp.max(x, axis=1, where=_M, initial=-5.0).sum() + jnp.mean(x, where=_M) +
                jnp.var(x, axis=0, where=_M, ddof=1).sum() +
                jnp.std(x, axis=1, where=_M, keepdims=True).sum() + x.sum(where=x > 0) +
                (x.max(axis=-1, keepdims=True, initial=0.0) ** 2).sum())

    np.testing.assert_allclose(st.grad(_masked_reductions)(x), np.asarray(jax.grad(ref)(x)),
                               rtol=1e-10)
    np.testing.assert_allclose(st.hessian(_masked_reductions)(x),
                               np.asarray(jax.hessian(ref)(x)), rtol=1e-8, atol=1e-10)


def test_matrix_rank_and_sum_dtype_method() -> None:
    def f(a: Any) -> Any:
        return np.linalg.matrix_rank(a.reshape(3, 4)) * np.sum(a ** 2) + \
            a.sum(dtype=np.float64) * a[0]

    _agrees(f, np.linspace(-1.0, 1.3, 12) ** 3)
    x32 = np.array([0.3, -1.2, 0.7], np.float32)
    value, grad = st.value_and_grad(lambda a: a.sum(dtype=np.float64))(x32)
    assert np.asarray(value).dtype == np.float64 and grad.dtype == np.float32


def _max_initial_f64(a: Any) -> Any:
    return np.max(a, initial=np.float64(0.5))


def _sum_where_initial_f64(a: Any) -> Any:
    return np.sum(a, where=a > 0, initial=np.float64(0.5))


def _mean_where(a: Any) -> Any:
    return np.mean(a, where=a > 0)


@pytest.mark.parametrize("fn", [_max_initial_f64, _sum_where_initial_f64, _mean_where])
def test_initial_is_cast_to_the_dtype(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.7], np.float32)
    value, grad = st.value_and_grad(fn)(x)
    assert np.asarray(value).dtype == np.asarray(fn(x)).dtype == np.float32
    assert grad.dtype == np.float32


def test_max_where_without_initial_is_numpys_error() -> None:
    with pytest.raises(st.StAutodiffError, match="identity") as info:
        st.grad(lambda a: np.max(a, where=a > 0))(_X6)
    assert "hunt4_regressions.py:" in str(info.value)


# --- np.sort(x, kind="stable") / np.sort(x, stable=True) and np.var(x, correction=1)
# were refused ("unsupported keyword argument"); the algorithm does not change the
# sorted values, and correction is the Array API's name for ddof ----------------------------

def _sort_kind_and_correction(a: Any) -> Any:
    return np.sum(np.sort(a, kind="stable") * np.arange(6.0)) + \
        np.sum(np.sort(a, stable=True) * a) + np.var(a, correction=1) + \
        np.std(a.reshape(2, 3), axis=0, correction=1).sum()


def test_sort_kind_and_var_correction() -> None:
    _agrees(_sort_kind_and_correction, _X6)


# --- math.sqrt/log of a negative number, math.exp of a large one: Python raises
# ValueError ("math domain error") or OverflowError ("math range error"); the compiled
# code, lowered to NumPy's sqrt/log/exp, returned NaN or inf silently --------------------

def _math_calls(a: Any) -> Any:
    import math  # noqa: PLC0415

    s = 0.0
    for v in a[:3]:
        s = s + math.sqrt(v) * math.exp(a[3])
    return s + math.log(a[4]) + math.floor(a[5]) * a[0]


_POS = np.array([0.5, 2.0, 0.3, 1.5, 0.8, 2.5])


def test_math_domain_and_range_errors_raise_as_in_python() -> None:
    _agrees(_math_calls, _POS)
    np.testing.assert_allclose(st.hessian(_math_calls)(_POS)[0, 0],
                               -0.25 * 0.5 ** -1.5 * np.exp(1.5), rtol=1e-10)
    cases = [(0, -0.5, ValueError, "math domain error"), (4, 0.0, ValueError, "math domain"),
             (3, 800.0, OverflowError, "math range error"),
             (5, np.nan, ValueError, "NaN to integer")]
    for i, v, cls, text in cases:
        x = _POS.copy()
        x[i] = v
        with pytest.raises(cls, match=text), np.errstate(all="ignore"):
            _math_calls(x)
        with pytest.raises(cls, match=text), np.errstate(all="ignore"):
            st.value_and_grad(_math_calls)(x)


# --- int(x) / round(x) of a runtime NaN or infinity: Python raises ValueError
# ("cannot convert float NaN to integer") or OverflowError; the compiled cast gave an
# arbitrary integer (-9223372036854775808) silently --------------------------------------

def _int_of_data(a: Any) -> Any:
    return a[1] * int(a[0] * 10) + round(a[2]) * a[3]


def test_int_and_round_of_nan_or_inf_raise() -> None:
    x = np.array([0.33, -1.2, 0.7, 2.0])
    _agrees(_int_of_data, x)
    for bad, cls in ((np.nan, ValueError), (np.inf, OverflowError)):
        for i in (0, 2):
            y = x.copy()
            y[i] = bad
            with pytest.raises(cls, match="cannot convert float"):
                _int_of_data(y)
            with pytest.raises(cls, match="cannot convert float"), np.errstate(all="ignore"):
                st.value_and_grad(_int_of_data)(y)


# --- a slice of a tuple argument (a default ``shapes=(a, b)`` of a lambda, a pytree
# argument): ``t[1:]`` was refused ("tuples can only be indexed with an integer"), so
# ``d.logpdf(x, s, *shapes[1:])`` could not be differentiated -----------------------------

def _tuple_slices(a: Any, t: Any = (1.5, 2.0, 3.0)) -> Any:
    u = t[:2]
    return a[0] * sum(v ** 2 for v in t[1:]) + a[1] * (u + t[2:])[2] * t[-1] + \
        a[2] * len(t[5:]) + np.hypot(a[3], *t[::-1][2:])


def test_slices_of_a_tuple_argument() -> None:
    _agrees(_tuple_slices, _X6)
    t = (1.5, 2.0, np.array(3.0))
    grads = st.grad(_tuple_slices, argnums=1)(_X6, t)
    eps = 1e-6
    for i in range(3):
        up = tuple(v + eps if k == i else v for k, v in enumerate(t))
        down = tuple(v - eps if k == i else v for k, v in enumerate(t))
        num = (_tuple_slices(_X6, up) - _tuple_slices(_X6, down)) / (2 * eps)
        np.testing.assert_allclose(grads[i], num, rtol=1e-6)


def _builtin_max_of_an_array(a: Any) -> Any:
    return max(a) + min(a) * 2.0


def test_builtin_max_of_a_1d_array_skips_nan_items_after_the_first() -> None:
    x = np.array([0.3, np.nan, 0.7, -2.0])
    with np.errstate(invalid="ignore"):
        value, grad = st.value_and_grad(_builtin_max_of_an_array)(x)
    assert value == _builtin_max_of_an_array(x) == pytest.approx(0.7 - 4.0)
    np.testing.assert_array_equal(grad, [0.0, 0.0, 1.0, 2.0])
    _agrees(_builtin_max_of_an_array, _X6)
