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


#: slices holding two to five zeros (the rule peels zeros off one at a time: before, the
#: Hessian at [0, 0, 3, 2] was all zeros where the right one has 10 at (0, 1))
MANY_ZEROS = [np.array([0.0, 0.0, 3.0, 2.0]), np.array([1.5, 0.0, 2.0, 0.0, 0.0]),
              np.array([0.0, 0.0, 0.0, 0.0, 0.0]), np.array([0.0, 1.2, 0.0, 0.7, 0.0])]


def weighted_loss(a):
    return np.sum(np.cumprod(a) * np.array([1.0, -2.0, 0.5, 3.0, 1.5])[:a.size])


@pytest.mark.parametrize("x", MANY_ZEROS, ids=str)
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_second_order_at_several_zeros(x, mode):
    h = st.hessian(weighted_loss, mode=mode)(x)
    g = st.grad(weighted_loss)
    for i in range(x.size):
        check_grads(lambda v, i=i: g(v)[i], (x,), lambda v, i=i: (h[i],))
    assert np.any(h != 0)


THIRD_V = np.array([0.3, -0.7, 1.1, 0.2, -0.4])
_grad_weighted = st.grad(weighted_loss)


def hessian_times_v(a):
    """``H(a) @ v`` summed against ``v``: its Hessian is the third derivative twice
    contracted."""
    return np.sum(_grad_weighted(a) * THIRD_V[:a.size])


@pytest.mark.parametrize("x", MANY_ZEROS[1:], ids=str)
def test_third_order_at_several_zeros(x):
    """The third derivative (the Hessian of a gradient) at slices with three to five
    zeros: against central differences of the exact second derivative below it (a
    polynomial of degree five: their truncation error is about 1e-6 here), and against
    JAX where it is installed."""
    t = st.hessian(hessian_times_v)(x)
    g2 = st.grad(hessian_times_v)
    eps = 1e-5
    fd = np.stack([(g2(x + eps * e) - g2(x - eps * e)) / (2 * eps) for e in np.eye(x.size)],
                  1)
    np.testing.assert_allclose(t, fd, rtol=1e-5, atol=1e-5)
    assert np.any(t != 0)
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return
    jax.config.update("jax_enable_x64", True)
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])[:x.size]

    def loss(a):
        return jnp.sum(jnp.cumprod(a) * w)

    want = jax.hessian(lambda a: jnp.sum(jax.grad(loss)(a) * THIRD_V[:x.size]))(x)
    np.testing.assert_allclose(t, np.asarray(want), rtol=1e-12, atol=1e-12)
