"""Compiled code returns what NumPy and SciPy return, not only the same numbers: a NumPy
scalar where they give one (not a 0-d array, not a Python float), their dtype, and their
semantics for ``np.power``/``np.divide`` of Python numbers (nan and inf, where Python
gives a complex number or raises).  Values against the library called directly,
gradients against float64 central differences."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

scipy = pytest.importorskip("scipy")
import scipy.linalg as sl  # noqa: E402
import scipy.spatial.distance as dist  # noqa: E402
import scipy.special as sp  # noqa: E402

X = np.array([0.3, 0.7, 1.5, 0.2, -0.4])


def kind(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(kind(x) for x in v)
    return type(v).__name__, str(getattr(v, "dtype", "")), np.shape(v)


# --- ufuncs written as operators, called with Python numbers -----------------------------

def power(a: float, b: float) -> Any:
    return np.power(a, b) + a


def divide(a: float, b: float) -> Any:
    return np.divide(a, b) * 2.0


def negative(a: float, b: float) -> Any:
    return np.negative(a) * b


def multiply_int(a: float, b: float) -> Any:
    return np.multiply(a, 2) + b


@pytest.mark.parametrize("fn, args", [
    (power, (-1.0, 0.5)),  # NumPy: nan (Python's ** gives a complex number)
    (power, (10.0, 400.0)),  # NumPy: inf (Python raises OverflowError)
    (divide, (1.0, 0.0)),  # NumPy: inf (Python raises ZeroDivisionError)
    (power, (1.5, 2.0)), (negative, (1.5, 2.0)), (multiply_int, (1.5, 2.0)),
], ids=["power-negative-base", "power-overflow", "divide-by-zero", "power", "negative",
        "multiply-int"])
def test_ufuncs_of_python_numbers_have_numpy_semantics(fn: Callable[..., Any],
                                                      args: tuple[float, float]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = fn(*args)
        value, _ = st.vjp(fn, *args)
    assert kind(value) == kind(expected)
    np.testing.assert_equal(value, expected)
    if np.isfinite(expected):
        check_grads(fn, args, lambda a, b: st.grad(fn, wrt=(0, 1))(a, b))


def test_the_generated_code_makes_the_operands_numpy_values() -> None:
    vg = st.value_and_grad(power)
    vg(1.5, 2.0)
    assert "_t0 = xp.asarray(a)\n    _t1 = xp.asarray(b)\n    out = _t0 ** _t1 + a" in vg.source


def test_derivatives_keep_numpy_semantics() -> None:
    # d/da of np.divide(a, b) * 2 at b = 0 is inf (JAX's too), not Python's ZeroDivisionError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ga, gb = st.grad(divide, wrt=(0, 1))(1.0, 0.0)
    assert ga == np.inf and gb == -np.inf


# --- decompositions whose 0-d results are NumPy scalars (or Python floats) ---------------

REDUCTIONS: dict[str, Callable[[np.ndarray], Any]] = {
    "median": np.median, "median-axis0": lambda x: np.median(x, axis=0),
    "percentile": lambda x: np.percentile(x, 30.0),
    "quantile": lambda x: np.quantile(x, 0.3),
    "quantile-nearest": lambda x: np.quantile(x, 0.3, method="nearest"),
    "nanmedian": np.nanmedian, "nanpercentile": lambda x: np.nanpercentile(x, 40.0),
    "nanquantile": lambda x: np.nanquantile(x, 0.6), "nanmax": np.nanmax,
    "nanmin": np.nanmin, "nanvar": np.nanvar, "nanstd": lambda x: np.nanstd(x, ddof=1),
    "interp": lambda x: np.interp(0.5, np.linspace(0.0, 1.0, 5), x),
    "interp-runtime-x": lambda x: np.interp(x[0], np.linspace(0.0, 1.0, 5), x),
    "logaddexp.reduce": np.logaddexp.reduce,
    "logsumexp": sp.logsumexp, "logsumexp-b": lambda x: sp.logsumexp(x, b=x * x + 0.5),
    "logsumexp-sign": lambda x: sp.logsumexp(x, b=x, return_sign=True),
    "euclidean": lambda x: dist.euclidean(x, X[::-1]),
    "seuclidean": lambda x: dist.seuclidean(x, X[::-1], np.full(5, 2.0)),
    "minkowski-3": lambda x: dist.minkowski(x, X[::-1], 3),
    "float32-median": lambda x: np.median(x.astype(np.float32)),
    # arrays stay arrays
    "median-2d-axis": lambda x: np.median(np.outer(x, x), axis=1),
    "quantile-keepdims": lambda x: np.quantile(x, 0.5, axis=0, keepdims=True),
    "quantile-several": lambda x: np.quantile(x, [0.2, 0.7]),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_decompositions_return_the_librarys_kind(name: str) -> None:
    fn = REDUCTIONS[name]

    def f(x: np.ndarray) -> Any:
        return fn(x)

    expected = fn(X)
    value, _ = st.vjp(f, X)
    assert kind(value) == kind(expected)
    np.testing.assert_allclose(value, expected, rtol=1e-6)

    def loss(x: np.ndarray) -> Any:
        out = f(x)
        return np.sum(out[0] if isinstance(out, tuple) else out)

    if not name.startswith("float32"):  # (central differences through float32: noise)
        check_grads(loss, (X,), lambda x: (st.grad(loss)(x),))


def test_kind_queries_of_decomposed_results_are_answered() -> None:
    # np.median(x) is a NumPy scalar, np.median(m, axis=0) an array: the compiled code
    # takes the branches NumPy takes (they were refused: the kind was unknown)
    def f(x: np.ndarray) -> Any:
        v = np.median(x)
        w = sp.logsumexp(x)
        u = np.median(np.outer(x, x), axis=0)
        return (v * (2.0 if isinstance(v, np.generic) else 3.0)
                + w * (5.0 if np.isscalar(w) else 7.0)
                + np.sum(u) * (11.0 if isinstance(u, np.ndarray) else 13.0))

    np.testing.assert_allclose(st.value_and_grad(f)(X)[0], f(X))
    check_grads(f, (X,), lambda x: (st.grad(f)(x),))


# --- float32 inputs: the library's result dtype ------------------------------------------

A32 = (np.array([[2.0, 0.3, -0.1], [0.1, 1.5, 0.4], [-0.2, 0.6, 3.0]])).astype(np.float32)
D = np.array([0.1, -1.2, 0.5, 2.0, -0.4, 1.1])

FLOAT32: dict[str, Callable[[np.ndarray], Any]] = {
    "scipy.linalg.det": sl.det,  # float64 in SciPy 1.17, float32 in NumPy
    "scipy.linalg.lu": lambda a: sl.lu(a)[1],
    "scipy.linalg.lu-p": lambda a: sl.lu(a)[0],
    "scipy.linalg.eigh-vectors": lambda a: sl.eigh((a + a.T) / 2, lower=False)[1] ** 2,
    "scipy.linalg.eigh-vectors-lower": lambda a: sl.eigh((a + a.T) / 2)[1] ** 2,
    "histogram-weights": lambda a: np.histogram(D, bins=3, weights=a.ravel()[:6])[0],
    "histogram-density": lambda a: np.histogram(D, bins=3, weights=a.ravel()[:6] ** 2,
                                                density=True)[0],
}


@pytest.mark.parametrize("name", list(FLOAT32))
def test_float32_results_have_the_librarys_dtype(name: str) -> None:
    fn = FLOAT32[name]

    def f(a: np.ndarray) -> Any:
        return fn(a)

    expected = fn(A32)
    value, pullback = st.vjp(f, A32)
    assert kind(value) == kind(expected)
    np.testing.assert_allclose(value, expected, rtol=2e-5, atol=2e-6)
    (g,) = pullback(np.ones_like(expected))
    assert g.dtype == np.float32

    def loss(a: np.ndarray) -> Any:
        return np.sum(f(a))

    a64 = A32.astype(np.float64)
    check_grads(loss, (a64,), lambda a: (st.grad(loss)(a),))


@pytest.mark.parametrize("cotangent", [0.15, np.float64(0.15), np.asarray(0.15)],
                         ids=["python", "numpy-scalar", "0-d"])
def test_a_python_float_cotangent_of_a_cast_result(cotangent: Any) -> None:
    # the adjoint of a dtype cast runs the array API's astype, which takes no Python
    # float: vjp gave AttributeError for st.vjp(f, a32)[1](0.15)
    def f(a: np.ndarray) -> Any:
        return np.float64(np.sum(a * a))

    (g,) = st.vjp(f, A32)[1](cotangent)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 0.15 * 2 * A32, rtol=1e-6)
