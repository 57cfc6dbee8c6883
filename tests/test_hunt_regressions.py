"""Wrong results and bad refusals found by differentiating library functions outside the
real-world corpus (numpy, scipy, sklearn, statsmodels), one test per root cause.

Library functions are imported at test time; every value is compared with the function
run by Python and every gradient with float64 central differences.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _agrees(f: Callable[..., Any], *args: Any) -> None:
    """``st.value_and_grad(f)`` gives Python's value (and dtype) and the gradient of
    central differences."""
    vg = st.value_and_grad(f)
    value, grad = vg(*args)
    want = f(*args)
    assert np.asarray(value).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(value, want, rtol=1e-10)
    check_grads(f, args, lambda *a: (vg(*a)[1],), argnums=[0])


# --- dtypes: np.convolve/np.correlate padded float32 input with float64 zeros, and
# np.vander built float32 columns where NumPy promotes to float64 --------------------

@pytest.mark.parametrize("fn", [
    lambda x: np.convolve(x, np.array([0.5, -1.0], dtype=np.float32), mode="same"),
    lambda x: np.correlate(x, x[:2], mode="full"),
    lambda x: np.polymul(x, x[::-1]),
    lambda x: np.vander(x, 3),
    lambda x: np.vander(x, 3, increasing=True),
], ids=["convolve", "correlate", "polymul", "vander", "vander_increasing"])
def test_float32_results_have_numpy_dtype(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.8, 2.1], dtype=np.float32)
    want = fn(x)
    value, tangent = st.jvp(fn, (x,), (np.ones_like(x),))
    assert value.dtype == want.dtype and tangent.dtype == want.dtype
    np.testing.assert_allclose(value, want, rtol=1e-6)


def test_float64_convolve_gradient() -> None:
    v = np.array([1.1, 0.4, -0.7])
    _agrees(lambda a: np.sum(np.convolve(a, v, mode="same") ** 2),
            np.array([0.3, -1.2, 0.8, 2.1, -0.4]))


# --- a slice of a compile-time array with a runtime bound was folded while compiling
# and refused as "TypeError: slice indices must be integers" (scipy's ShortTimeFFT,
# reached from scipy.signal.periodogram) ---------------------------------------------

def _runtime_slice_bound(x: Any) -> Any:
    w = np.linspace(0.0, 1.0, 6)
    s = 0.0
    for k, xk in enumerate(x):
        if xk > 0.5 or np.all(w[:6 - k] == 0):
            return s + xk * k
        s = s + np.sum(w[:6 - k]) * xk
    return s


def test_static_array_sliced_at_a_runtime_bound() -> None:
    _agrees(_runtime_slice_bound, np.array([0.1, 0.2, 0.3, 0.9, 0.1]))
    _agrees(_runtime_slice_bound, np.array([0.1, 0.2, 0.3, 0.4, 0.1]))


def test_periodogram_refused_with_its_real_cause() -> None:
    signal = pytest.importorskip("scipy.signal")

    def f(x: Any) -> Any:
        return np.sum(signal.periodogram(x)[1])

    x = np.sin(np.linspace(0.0, 3.0, 12))
    with pytest.raises(st.StAutodiffError) as info:
        st.value_and_grad(f)(x)
    assert info.value.loc is not None and "TypeError" not in str(info.value)


# --- operator.truediv and kin passed as functions (scipy's apply_where) ----------------

def _operators(x: Any) -> Any:
    y = operator.truediv(x, x[0] + 3.0) * operator.mul(2.0, x) + operator.pow(x, 2)
    y = operator.sub(y, operator.floordiv(x, 0.75)) + operator.lt(x, 0.5) * x
    return np.sum(y) + operator.add([x[0]], [x[1]])[1]  # (lists still concatenate)


def test_operator_functions_of_runtime_values() -> None:
    _agrees(_operators, np.array([0.3, -1.1, 0.8, 2.1, -0.4]))


# --- a for loop's target read after the loop (numpy.polynomial's trimseq:
# ``for i in ...: if seq[i] != 0: break`` then ``seq[:i + 1]``) was "not defined", and
# WRONG where the name was bound before a loop compiled as a region: it kept its value
# from before the loop (``v = 0; for v in x: ...; return v`` returned 0) -----------------

def test_trimseq_loop_target_after_break() -> None:
    pu = pytest.importorskip("numpy.polynomial.polyutils")

    def f(x: Any) -> Any:
        t = pu.trimseq(x)
        return np.sum(t ** 2) + t.shape[0]

    vg = st.value_and_grad(f)
    for x in ([1.0, 2.0, 0.0], [1.0, 2.0, 3.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]):
        a = np.array(x)
        value, grad = vg(a)
        assert value == f(a)
        check_grads(f, (a,), lambda *args: (vg(*args)[1],))


def _target_kept_without_trips(x: Any) -> Any:
    i = 7
    for i in range(len(x) - 5):  # noqa: B007  (no trip: i keeps 7, read after the loop)
        x = x * 2
    return np.sum(x) * i


def _target_of_enumerate(x: Any) -> Any:
    for k, v in enumerate(x):  # noqa: B007  (k is read after the loop)
        if v > 1.0:
            break
    return np.sum(x[:k]) * v


def _target_rebound_by_a_later_loop(x: Any) -> Any:
    for i in range(2):  # noqa: B007  (i is read by the next loop)
        x = x * 1.5
    for _ in range(2):
        x = x + i
    for i in range(3):
        x = x * i + 1.0
    return np.sum(x) + i


def _stale_target_of_array_loop(x: Any) -> Any:
    v = x[0] * 0.0  # bound before the loop: the loop's last row must replace it
    s = 0.0
    for v in x:
        s = s + np.sin(v)
    return s + 3.0 * v


def _stale_target_after_break(x: Any) -> Any:
    k = 0
    for k in range(x.shape[0]):
        if x[k] > 1.0:
            break
    return x[k] * 2.0


@pytest.mark.parametrize("fn", [_target_kept_without_trips, _target_of_enumerate,
                                _target_rebound_by_a_later_loop,
                                _stale_target_of_array_loop, _stale_target_after_break])
def test_loop_target_after_the_loop(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, np.array([0.3, -1.2, 0.8, 2.1, -0.4]))


# --- one code object under other closure cells is another function, not recursion
# (array_api_compat's get_xp wraps clip and iinfo in the same ``wrapped_f``) -------------

def test_same_wrapper_code_around_two_functions() -> None:
    xpc = pytest.importorskip("sklearn.externals.array_api_compat.numpy")

    def f(x: Any) -> Any:
        idx = xpc.clip(np.array([0, 5, 2]), 0, 3)  # int: clip calls iinfo, wrapped too
        return np.sum(x[idx] ** 2) + np.sum(xpc.clip(x, -0.5, 1.0))

    _agrees(f, np.array([0.5, 1.5, 2.0, -1.0]))


def _recurse(x: Any) -> Any:
    return x if np.sum(x) > 10 else _recurse(x * 2.0)


def test_recursion_is_still_refused() -> None:
    with pytest.raises(st.StAutodiffError, match="called again") as info:
        st.value_and_grad(lambda x: np.sum(_recurse(x)))(np.array([0.5, 1.5]))
    assert info.value.loc is not None


# --- the gradient through a product with an infinite constant that is not selected was
# ``0 * inf = nan``: scipy.stats' ppf/isf (``lower_bound = _a * scale + loc``, placed
# under an all-False condition) gave a NaN derivative in ``scale`` -------------------------

def _unselected_infinite_product(x: Any) -> Any:
    return np.sum(np.where(x > 5.0, -np.inf * x, x ** 2))


def _unselected_infinite_array_product(x: Any) -> Any:
    return np.sum(np.where(x > 5.0, x * np.array([np.inf, 1.0, 2.0]), x ** 2))


@pytest.mark.parametrize("fn", [_unselected_infinite_product,
                                _unselected_infinite_array_product])
def test_infinite_constant_factor_not_selected(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, np.array([0.5, 1.5, 2.0]))


@pytest.mark.parametrize("name,shapes", [("gumbel_r", ()), ("weibull_min", (1.7,)),
                                         ("rayleigh", ()), ("lomax", (2.5,))])
@pytest.mark.parametrize("method", ["ppf", "isf"])
def test_stats_quantiles_in_scale(name: str, shapes: tuple[float, ...], method: str) -> None:
    stats = pytest.importorskip("scipy.stats")
    q = np.array([0.1, 0.35, 0.6, 0.9])
    dist = getattr(stats, name)

    def f(scale: Any, loc: Any) -> Any:
        return np.sum(getattr(dist, method)(q, *shapes, loc=loc, scale=scale) ** 2)

    vg = st.value_and_grad(f, wrt=(0, 1))
    value, grads = vg(1.3, 0.05)
    np.testing.assert_allclose(value, f(1.3, 0.05), rtol=1e-10)
    check_grads(f, (1.3, 0.05), lambda *a: vg(*a)[1])


@pytest.mark.parametrize("fn", [lambda x: np.var(x, ddof=1), lambda x: np.std(x, ddof=1)])
def test_no_degree_of_freedom_gives_nan_gradient(fn: Callable[..., Any]) -> None:
    """``np.var(x, ddof=n)`` is NaN (NumPy warns); its gradient is NaN as PyTorch's, where
    the rule's Python division by zero once crashed the compiler."""
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        assert np.isnan(fn(np.array([1.5])))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's, where std is computed)
        assert np.isnan(st.grad(fn)(np.array([1.5]))).all()
