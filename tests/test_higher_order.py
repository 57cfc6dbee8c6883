"""Higher derivatives by transforming generated code again (straight-line code)."""

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def quartic(x):
    return x**4 + np.sin(x) * x


def test_derivatives_up_to_fourth_order_match_the_analytic_ones():
    d1 = st.grad(quartic)
    d2 = st.grad(d1)
    d3 = st.grad(d2)
    d4 = st.grad(d3)
    x = 0.7
    np.testing.assert_allclose(d1(x), 4 * x**3 + np.cos(x) * x + np.sin(x), rtol=1e-13)
    np.testing.assert_allclose(d2(x), 12 * x**2 - np.sin(x) * x + 2 * np.cos(x), rtol=1e-13)
    np.testing.assert_allclose(d3(x), 24 * x - np.cos(x) * x - 3 * np.sin(x), rtol=1e-13)
    np.testing.assert_allclose(d4(x), 24 + np.sin(x) * x - 4 * np.cos(x), rtol=1e-13)
    assert d2.source.startswith("def quartic_grad_grad(x, out_bar=1.0, out_bar_1=1.0):")


def picked(x):
    return np.sum(np.tanh(x[[0, 0, 2]]) * x[1:].sum() + x**3)


d_picked = st.grad(picked)


def gradient_norm(x):
    return np.sum(d_picked(x) ** 2)


def test_gradient_of_a_function_that_calls_a_gradient():
    x = np.array([0.3, -0.2, 0.5])
    g = st.grad(gradient_norm)
    check_grads(gradient_norm, (x,), lambda x: (g(x),))


V = np.array([1.0, 2.0, -1.0])


def grad_dot_v(x):
    return np.sum(d_picked(x) * V)


def test_hessian_vector_product_by_reverse_over_reverse():
    x = np.array([0.3, -0.2, 0.5])
    hv = st.grad(grad_dot_v)(x)
    check_grads(grad_dot_v, (x,), lambda x: (hv,))


def mixed(x):
    return np.sum(np.sin(x) * x[::-1]) + np.sum(x**3) / 3


def test_hessian_and_hvp_by_reverse_over_reverse():
    x = np.array([0.3, -0.2, 0.5, 1.1])
    h = st.hessian(mixed)(x)
    g = st.grad(mixed)
    eps = 1e-5
    by_fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)],
                     axis=1)
    assert h.shape == (4, 4)
    np.testing.assert_allclose(h, by_fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-14)
    v = np.array([1.0, 0.5, -1.0, 2.0])
    np.testing.assert_allclose(st.hvp(mixed, (x,), (v,)), h @ v, rtol=1e-12, atol=1e-14)


# --- higher orders through loops (issue 3) ----------------------------------------------

_COEFFS = (0.5, -1.0, 2.0, 0.25, 1.5, -0.75)


def _horner_unrolled(x):
    p = 0.0
    for c in _COEFFS:  # a Python tuple: the loop is unrolled
        p = p * x + c
    return p


def _horner_region(x):
    p = 0.0
    for i in range(6):  # a for region in the graph and in the generated code
        if p > 100.0:
            p = p * 0.5
        p = p * x + (i + 1.0)
    return p


def _nth_grad(fn, order):
    g = fn
    for _ in range(order):
        g = st.grad(g)
    return g


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_derivatives_of_an_unrolled_loop_up_to_fourth_order(order):
    x = 0.7
    want = np.polyval(np.polyder(np.array(_COEFFS), order), x)
    assert float(_nth_grad(_horner_unrolled, order)(x)) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_derivatives_through_a_loop_region(order):
    x = 0.7
    coeffs = np.arange(1.0, 7.0)
    want = np.polyval(np.polyder(coeffs, order), x)
    assert float(_nth_grad(_horner_region, order)(x)) == pytest.approx(want, rel=1e-10)


def growing(x, n):
    """A loop whose carried array grows: its stacked values differ in length."""
    y = x[:1]
    for _ in range(n):
        y = np.concatenate([y, np.sin(y[-1:]) * x[1:2]])
    return np.sum(y ** 2)


@pytest.mark.parametrize("n", [0, 2, 3])
def test_hessian_through_a_loop_whose_values_grow(n):
    """The generated gradient passes its residual lists to ``rt.list_split_like`` as Python
    lists; differentiating it again must keep them lists (items of different lengths), not
    stack them as an array's rows."""
    x = np.array([0.5, 0.6, 0.1])
    h = st.hessian(growing)(x, n)
    g = st.grad(growing)
    eps = 1e-5
    num = np.array([(g(x + eps * e, n) - g(x - eps * e, n)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(h, num, rtol=1e-5, atol=1e-7)
