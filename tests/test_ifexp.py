"""Conditional expressions on runtime conditions run one side, as Python does.

A ``np.where`` of both sides would differentiate the side not taken too: ``np.sqrt(s) if
s > 0 else 0.0`` at ``s < 0`` gave ``0 * nan`` = NaN in the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def sqrt_or_zero(x):
    s = np.sum(x)
    y = np.sqrt(s) if s > 0 else 0.0 * s
    return y * 2.0


def scaled(x, c):
    return np.sum(x * (2.0 if c > 0 else 3.0))


@pytest.mark.parametrize("x", [np.array([1.0, 3.0]), np.array([-1.0, -3.0])])
def test_only_the_side_taken_is_differentiated(x):
    g = st.grad(sqrt_or_zero)(x)
    assert np.all(np.isfinite(g))
    check_grads(sqrt_or_zero, (x,), lambda a: (st.grad(sqrt_or_zero)(a),), argnums=[0])


def test_condition_on_a_float_argument():
    x = np.ones(2)
    np.testing.assert_allclose(st.grad(scaled)(x, 1.0), [2.0, 2.0])
    np.testing.assert_allclose(st.grad(scaled)(x, -1.0), [3.0, 3.0])


def test_second_order_through_the_branch():
    x = np.array([1.0, 3.0])
    s = np.sum(x)
    np.testing.assert_allclose(st.hessian(sqrt_or_zero)(x), np.full((2, 2), -0.5 * s ** -1.5))
    np.testing.assert_allclose(st.hessian(sqrt_or_zero)(-x), np.zeros((2, 2)))


def test_an_array_condition_is_python_s_error():
    def f(x):
        return np.sum(x if x > 0 else -x)

    with pytest.raises(st.errors.StAutodiffError):
        st.grad(f)(np.array([1.0, -2.0]))
