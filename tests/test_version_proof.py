"""Behaviour that differs between the supported Python, NumPy and SciPy releases: the
compiled code follows the installed one.  ``inspect.getattr_static`` of static objects is
answered while compiling (Python 3.12+ caches its MRO walk with ``lru_cache`` over weak
references, which compiled code cannot reproduce); ``np.empty_like(shape=...)`` where the
installed NumPy's C function carries no signature."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import numerical_vjp

_MISSING = object()


class _Lazy:
    """Its property raises when run: getattr_static must not run it."""

    @property
    def value(self) -> float:
        raise RuntimeError("the property ran")


_LAZY = _Lazy()
X = np.array([0.7, -1.3, 2.1])


def _has(obj, name):
    return inspect.getattr_static(obj, name, _MISSING) is not _MISSING


def test_getattr_static_of_static_objects_is_answered_while_compiling() -> None:
    def f(x):
        scale = 1.0
        if _has(None, "__narwhals_dataframe__"):
            scale = 100.0
        if _has(_LAZY, "value"):  # found on the class, the property not run
            scale += 2.0
        if _has(int, "bit_length"):
            scale += 3.0
        return np.sum(x ** 2) * scale

    value, grad = st.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(grad, numerical_vjp(f, (X,), 1.0)[0], atol=1e-6)


def test_getattr_static_of_a_runtime_array_reads_its_type() -> None:
    def f(x):
        y = x * 2.0
        return np.sum(y) * (3.0 if _has(y, "__array__") else 5.0)

    value, grad = st.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(grad, np.full(3, 6.0))


def test_empty_like_with_shape_and_keywords() -> None:
    def f(a):
        e = np.empty_like(a, np.float64, "C", True, (2, 3))
        e[...] = a
        return np.sum(e * a)

    value, grad = st.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(grad, numerical_vjp(f, (X,), 1.0)[0], atol=1e-6)


def test_max_and_min_with_initial() -> None:
    def f(a):
        m = np.max(a, initial=-np.inf) + np.max(a, initial=5.0) * 0.5
        return m + np.sum(np.min(a.reshape(1, 3), axis=0, initial=0.0) * a) + np.amin(
            a, initial=-1.0)

    value, grad = st.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(grad, numerical_vjp(f, (X,), 1.0)[0], atol=1e-6)


def test_max_with_initial_of_a_static_int_array_is_numpys() -> None:
    def f(a):
        return np.max(np.arange(3), initial=7) * np.sum(a)

    value, grad = st.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(grad, np.full(3, 7.0))


def test_max_with_initial_of_a_runtime_int_array_is_refused_at_the_call() -> None:
    def f(a):
        return np.max((a > 0).astype(np.int64), initial=-1) * np.sum(a)

    with pytest.raises(st.StAutodiffError) as info:
        st.grad(f)(X)
    assert "initial=" in str(info.value) and "test_version_proof.py" in str(info.value)
