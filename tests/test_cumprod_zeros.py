"""cumprod's derivatives where the input holds zeros: the division form is exact only away
from zeros, so the rules handle a slice's first zero and the zeros after it (reverse and
forward mode, first and second order), checked against float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def flat_loss(a):
    return np.sum(np.cumprod(a) * np.arange(1.0, a.size + 1))


def axis_loss(a):
    return np.sum(np.cumprod(a, axis=1) ** 2)


def reshaped_loss(a):
    return np.sum(np.cumprod(a.reshape(2, 2)) ** 2)


VECTORS = [np.array([2.0, 0.0, 3.0, -1.5]), np.array([0.0, 2.0, 0.0, 3.0]),
           np.array([1.5, 2.0, 0.5, 3.0]), np.array([0.0, 0.0, 0.0, 0.0])]
MATRIX = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0], [2.0, 3.0, 4.0]])


@pytest.mark.parametrize("x", VECTORS, ids=str)
def test_reverse_and_forward_at_zeros(x):
    g = st.grad(flat_loss)(x)
    assert np.all(np.isfinite(g))
    check_grads(flat_loss, (x,), lambda v: (st.grad(flat_loss)(v),))
    t = np.array([0.3, -1.0, 2.0, 0.5])
    assert st.jvp(flat_loss, (x,), (t,))[1] == pytest.approx(float(g @ t))
    check_grads(reshaped_loss, (x,), lambda v: (st.grad(reshaped_loss)(v),))


@pytest.mark.parametrize("x", [MATRIX, MATRIX.T.copy()], ids=["rows", "columns"])
def test_along_an_axis(x):
    check_grads(axis_loss, (x,), lambda v: (st.grad(axis_loss)(v),))
    t = np.arange(9.0).reshape(3, 3)
    assert st.jvp(axis_loss, (x,), (t,))[1] == pytest.approx(
        float(np.sum(st.grad(axis_loss)(x) * t)))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_second_order_at_a_zero(mode):
    x = VECTORS[0]
    h = st.hessian(flat_loss, mode=mode)(x)
    g = st.grad(flat_loss)
    for i in range(x.size):
        check_grads(lambda v, i=i: g(v)[i], (x,), lambda v, i=i: (h[i],))
