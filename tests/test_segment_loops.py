"""Loops that index a static integer sequence with their counter (segment bounds,
offsets) are unrolled, so the sizes and slices they give stay static: SciPy's
``signal.detrend`` (linear, with and without breakpoints, on any axis) compiled "needs
the shape of a at compile time" before.  Values are checked against the library's,
gradients against central differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers_agree import agrees_on

import st_autodiff as st

RNG = np.random.default_rng(7)


def _agrees(f: Callable[[Any], Any], x: np.ndarray) -> str:
    return agrees_on(f, x, rel=1e-12, abs_value=1e-14, atol=1e-7)


@pytest.mark.parametrize("kw", [{}, {"bp": [3, 6]}, {"bp": 5}, {"type": "constant"}],
                         ids=["linear", "two_breaks", "one_break", "constant"])
def test_detrend_1d(kw: dict[str, Any]) -> None:
    from scipy.signal import detrend

    _agrees(lambda y: np.sum(detrend(y, **kw) ** 3), RNG.standard_normal(10))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_detrend_2d_axes(axis: int) -> None:
    from scipy.signal import detrend

    _agrees(lambda y: np.sum(np.sin(detrend(y, axis=axis, bp=2))), RNG.standard_normal((6, 5)))


def test_segment_means_of_a_users_loop() -> None:
    bounds = [0, 2, 5, 9]

    def f(y):
        total = 0.0
        for m in range(len(bounds) - 1):
            seg = y[bounds[m]:bounds[m + 1]]
            w = np.ones(bounds[m + 1] - bounds[m]) / (bounds[m + 1] - bounds[m])
            total = total + np.dot(w, seg) ** 2
        return total

    source = _agrees(f, RNG.standard_normal(9))
    assert "for " not in source  # unrolled: each trip's slice is static


def test_float_coefficients_keep_their_loop() -> None:
    coeffs = np.array([0.5, -1.0, 2.0, 0.25])

    def f(x):
        s = 0.0
        for i in range(4):
            s = s + coeffs[i] * np.sum(x ** 2) ** 0.5
        return s

    source = _agrees(f, RNG.standard_normal(3))
    assert "for " in source  # (floats are data, not sizes: the loop stays a loop)


def test_ir_prints_a_folded_class() -> None:
    def f(y):
        kind = type(y[0])  # np.float64, folded while compiling
        return y[1] * (2.0 if kind is np.float64 else 1.0)

    g = st.grad(f)
    np.testing.assert_allclose(g(np.array([1.0, 3.0])), [0.0, 2.0])
    assert isinstance(g.ir, str)  # (printing the class constant raised TypeError)
