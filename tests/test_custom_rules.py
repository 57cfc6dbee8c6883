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
