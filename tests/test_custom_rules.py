"""Custom rules: st.register_vjp, st.custom_vjp (JAX's defvjp) and st.stop_gradient."""

import math

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


class ExpIntegral:
    """A callable the compiler cannot read (no Python source of its own to lower)."""

    def __call__(self, x, scale):
        return np.exp(x) * scale


expint = ExpIntegral()
st.register_vjp(expint, lambda g, out, x, scale: (g * out, None))


def uses_expint(x, s):
    return np.sum(expint(x * 2.0, s) + x)


def test_registered_vjp_is_called_and_used():
    x = np.array([0.1, -0.3, 0.7])
    g = st.grad(uses_expint)
    got = g(x, 1.5)
    np.testing.assert_allclose(got, 2.0 * np.exp(2 * x) * 1.5 + 1.0)
    check_grads(lambda x: uses_expint(x, 1.5), (x,), lambda x: (g(x, 1.5),))
    assert "_expintegral(x * 2.0, s)" in g.source or "_expintegral(" in g.source
    assert "call_vjp" in g.adjoint_ir


@st.custom_vjp
def clipped_identity(x):
    return x


def _fwd(x):
    return x, None


def _bwd(res, g):
    return (np.clip(g, -1.0, 1.0),)


clipped_identity.defvjp(_fwd, _bwd)


def uses_clipped(x):
    return np.sum(clipped_identity(x) * 5.0)


def test_custom_vjp_replaces_the_gradient():
    x = np.array([1.0, 2.0])
    assert uses_clipped(x) == 15.0  # calling it runs the function itself
    np.testing.assert_allclose(st.grad(uses_clipped)(x), [1.0, 1.0])  # clip(5) = 1


def uses_stop(x):
    return np.sum(x * st.stop_gradient(x))


def test_stop_gradient_blocks_the_gradient():
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(st.grad(uses_stop)(x), x)  # d/dx x*c = c, c = x held fixed
    assert uses_stop(x) == 5.0


def uses_gamma(x):
    return math.gamma(x)


def test_missing_rule_says_how_to_register_one():
    with pytest.raises(st.NoRuleError) as info:
        st.grad(uses_gamma)(2.5)
    text = str(info.value)
    assert "call to math.gamma has no derivative rule" in text
    assert "st.register_vjp(math.gamma, rule)" in text


def test_second_order_through_a_registered_vjp_is_a_clear_error():
    def inner(x):
        return np.sum(expint(x, 1.0))

    x = np.array([0.2, 0.4])
    with pytest.raises(st.CompileError, match="forward mode through a function that has only"):
        st.jvp(inner, (x,), (np.ones(2),))


# --- tuple outputs: the rule gets a tuple of cotangents (zeros for unused items) -------


def _symmetric_fd_check(loss, a, got):
    """``got`` against central differences of ``loss`` over symmetric perturbations
    (eigenvalue rules are defined on symmetric matrices)."""
    check_grads(lambda a: loss((a + a.T) / 2), (a,), lambda a: ((got + got.T) / 2,))


def _eigh_rule(g, out, a):
    g_w, g_v = g
    w, v = out
    f = w[None, :] - w[:, None]
    np.fill_diagonal(f, np.inf)
    ga = v @ (np.diag(g_w) + (v.T @ g_v) / f) @ v.T
    return ((ga + ga.T) / 2,)


C = np.array([1.0, -2.0, 0.5])
SYM = np.array([[2.0, 0.4, -0.3], [0.4, -1.0, 0.8], [-0.3, 0.8, 0.5]])


def eigh_loss(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 2 * C)  # v[:, 0] ** 2: sign-free


def eigh_values_only(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 3)


@pytest.fixture
def eigh_registered():
    from st_autodiff.derivatives import CUSTOM_VJPS

    st.register_vjp(np.linalg.eigh, _eigh_rule)
    yield
    del CUSTOM_VJPS[np.linalg.eigh]


@pytest.mark.parametrize("loss", [eigh_loss, eigh_values_only])
def test_register_vjp_of_eigh_with_a_tuple_output(eigh_registered, loss):
    got = st.grad(loss)(SYM)
    assert np.any(got != 0)  # the rule ran (was silently zero)
    _symmetric_fd_check(loss, SYM, got)
    value, g2 = st.value_and_grad(loss)(SYM)
    assert value == pytest.approx(loss(SYM))
    np.testing.assert_allclose(g2, got)
    out, back = st.vjp(loss, SYM)
    np.testing.assert_allclose(back(1.0)[0], got)


def test_unused_items_reach_the_rule_as_zeros(eigh_registered):
    seen = []

    def rule(g, out, a):
        seen.append([np.asarray(gi).copy() for gi in g])
        return _eigh_rule(g, out, a)

    st.register_vjp(np.linalg.eigh, rule)
    st.grad(eigh_values_only)(SYM)
    g_w, g_v = seen[-1]
    assert g_v.shape == (3, 3) and not np.any(g_v) and np.any(g_w)


def _slogdet_rule(g, out, a):
    g_sign, g_logdet = g
    return (g_logdet * np.linalg.inv(a).T,)


def logdet_twice(a):
    sign, logdet = np.linalg.slogdet(a)
    return logdet * 2.0


def test_register_vjp_of_slogdet():
    from st_autodiff.derivatives import CUSTOM_VJPS

    st.register_vjp(np.linalg.slogdet, _slogdet_rule)
    try:
        a = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.4], [0.0, 0.2, -1.0]])
        check_grads(logdet_twice, (a,), lambda a: (st.grad(logdet_twice)(a),))
        np.testing.assert_allclose(st.grad(logdet_twice)(a), 2 * np.linalg.inv(a).T)
    finally:
        del CUSTOM_VJPS[np.linalg.slogdet]


def _svd_rule(g, out, a, full_matrices):
    g_u, g_s, g_vt = g
    u, s, vt = out
    return (u @ np.diag(g_s) @ vt, None)  # singular values only (g_u, g_vt are zeros)


def singular_values_squared(a):
    u, s, vt = np.linalg.svd(a, False)
    return np.sum(s ** 2)


def test_register_vjp_of_svd_with_a_static_argument():
    from st_autodiff.derivatives import CUSTOM_VJPS

    st.register_vjp(np.linalg.svd, _svd_rule)
    try:
        b = np.array([[2.0, 0.5, 1.0], [0.3, 1.5, -1.0]])
        g = st.grad(singular_values_squared)(b)
        check_grads(singular_values_squared, (b,), lambda b: (g,))
        np.testing.assert_allclose(g, 2 * b)  # sum(s**2) = ||b||_F^2
    finally:
        del CUSTOM_VJPS[np.linalg.svd]


@st.custom_vjp
def polar(x, y):
    return np.hypot(x, y), np.arctan2(y, x)


def _polar_fwd(x, y):
    return polar(x, y), (x, y)


def _polar_bwd(res, g):
    x, y = res
    g_r, g_t = g
    r = np.hypot(x, y)
    return g_r * x / r - g_t * y / r ** 2, g_r * y / r + g_t * x / r ** 2


polar.defvjp(_polar_fwd, _polar_bwd)


def polar_loss(x, y):
    r, t = polar(x, y)
    return np.sum(r * 2.0 + t ** 2)


def polar_radius(x, y):
    return np.sum(polar(x, y)[0])


@pytest.mark.parametrize("loss", [polar_loss, polar_radius])
def test_custom_vjp_with_a_tuple_output(loss):
    x, y = np.array([1.0, -0.5]), np.array([0.3, 2.0])
    g = st.grad(loss, wrt=(0, 1))
    check_grads(loss, (x, y), lambda x, y: g(x, y))


def sincos(x):
    return [np.sin(x), np.cos(x)]  # a list output: the rule gets lists' items as a tuple


def _sincos_rule(g, out, x):
    g_s, g_c = g
    return (g_s * np.cos(x) - g_c * np.sin(x),)


st.register_vjp(sincos, _sincos_rule)


def sincos_loss(x):
    s, c = sincos(x)
    return np.sum(s * c + s)


def test_list_output_and_second_order_through_a_readable_rule():
    x = np.array([0.3, -1.1, 0.8])
    np.testing.assert_allclose(st.grad(sincos_loss)(x), np.cos(2 * x) + np.cos(x))
    h = st.hessian(sincos_loss, mode="reverse")(x)
    np.testing.assert_allclose(h, np.diag(-2 * np.sin(2 * x) - np.sin(x)), atol=1e-12)


def test_none_from_a_rule_is_a_zero_gradient():
    def scale(x, y):
        return x * 2.0 + y

    st.register_vjp(scale, lambda g, out, x, y: (2.0 * g, None))

    def uses(x, y):
        return np.sum(scale(x, y))

    gx, gy = st.grad(uses, wrt=(0, 1))(np.ones(2), np.ones(2))
    np.testing.assert_allclose(gx, [2.0, 2.0])
    np.testing.assert_allclose(gy, [0.0, 0.0])  # JAX's convention: None is a zero


def test_a_rule_with_the_wrong_number_of_gradients_is_a_clear_error():
    def scale(x, y):
        return x * y

    st.register_vjp(scale, lambda g, out, x, y: (g * y,))

    def uses(x, y):
        return np.sum(scale(x, y))

    with pytest.raises(TypeError, match="returned 1 gradients for 2 arguments"):
        st.grad(uses)(np.ones(2), np.ones(2))


def test_tuple_output_without_example_arguments_is_a_located_error(eigh_registered):
    with pytest.raises(st.CompileError, match="how many items it has is not known") as info:
        st.grad(eigh_loss).source  # noqa: B018  (compiled without example arguments)
    assert "w, v = np.linalg.eigh(a)" in str(info.value)


def test_nested_tuple_output_is_a_located_error():
    def nested(x):
        return x, (x, x)

    st.register_vjp(nested, lambda g, out, x: (g[0],))

    def uses(x):
        a, (b, c) = nested(x)
        return np.sum(a)

    with pytest.raises(st.CompileError, match="nested tuple") as info:
        st.grad(uses)(np.ones(2))
    assert "nested(x)" in str(info.value)


def test_the_ir_prints_the_output_type_of_a_call(eigh_registered):
    g = st.grad(eigh_loss)
    g(SYM)
    assert "call[fn=numpy.linalg.eigh, out_type=(f64[3], f64[3,3])]" in g.adjoint_ir
