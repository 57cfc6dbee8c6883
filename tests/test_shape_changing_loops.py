"""Short static loops whose first trip loses a carried value's shape are unrolled, so each
trip keeps its static sizes.  NumPy's own ``polyder``/``chebder``/``legder``/``hermder``
(``der = np.empty((n,) + c.shape[1:])`` with ``n = n - 1`` per trip) were refused
("tuples can only be indexed with an integer"); they are imported from NumPy at test
time, values compared with NumPy's and gradients with central differences."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers_agree import agrees_on
from numpy.polynomial import chebyshev, hermite, laguerre, legendre, polynomial

import st_autodiff as st
from st_autodiff.testing import numerical_vjp

T = np.linspace(-1.0, 1.0, 5)
C = np.array([0.5, -1.2, 2.0, 0.3, 0.7])


def _agrees(f: Callable[[Any], Any], x: np.ndarray) -> str:
    return agrees_on(f, x, rel=1e-13, abs_value=1e-13, atol=1e-6)


FAMILIES = {"polynomial": (polynomial.polyder, polynomial.polyval),
            "chebyshev": (chebyshev.chebder, chebyshev.chebval),
            "legendre": (legendre.legder, legendre.legval),
            "hermite": (hermite.hermder, hermite.hermval),
            "laguerre": (laguerre.lagder, laguerre.lagval)}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("m", [1, 2, 4])
def test_derivative_series_of_numpy_polynomials(family: str, m: int) -> None:
    der, val = FAMILIES[family]
    _agrees(lambda c: np.sum(val(T, der(c, m, scl=0.5)) ** 2), C)


def test_derivative_of_2d_coefficients_and_the_class_method() -> None:
    _agrees(lambda c: np.sum(polynomial.polyder(c.reshape(5, 1) * [1.0, -2.0], 2) ** 2), C)
    _agrees(lambda c: np.sum(polynomial.Polynomial(c).deriv(2)(T) ** 2), C)


def test_a_users_loop_that_shrinks_a_buffer() -> None:
    def f(x):
        n = x.shape[0]
        v = x
        for _ in range(3):
            n = n - 1
            out = np.empty(n)
            for j in range(n):
                out[j] = v[j + 1] * v[j]
            v = out
        return np.sum(v)

    _agrees(f, np.linspace(0.5, 1.4, 7))


def test_a_long_loop_keeps_its_located_refusal_or_runs() -> None:
    # past UNROLL_SHAPES trips the loop stays a loop: whatever it does, never a silent
    # difference (here: a located refusal of the shape it cannot know, or the value)
    def f(x):
        n = 40
        v = x
        for _ in range(20):
            n = n - 1
            v = v[: n] * 1.01
        return np.sum(v)

    x = np.linspace(0.1, 1.0, 40)
    try:
        value, grad = st.value_and_grad(f)(x)
    except st.errors.StAutodiffError as exc:
        assert re.search(r"test_shape_changing_loops\.py:\d+", str(exc))
    else:
        assert value == pytest.approx(f(x))
        np.testing.assert_allclose(grad, numerical_vjp(f, (x,), 1.0)[0], rtol=1e-6, atol=1e-8)
