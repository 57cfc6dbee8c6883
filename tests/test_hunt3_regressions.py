"""Wrong results and bad refusals found by a third outside hunt (hand-written programs in
patterns users write, and library functions imported at test time), one test per root
cause.  Gradients are compared with float64 central differences (and JAX where handy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import st_autodiff as st
from st_autodiff.testing import check_grads


def _agrees(f: Callable[..., Any], *args: Any) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)
    check_grads(f, args, lambda *a: (vg(*a)[1],) + (None,) * (len(a) - 1), argnums=[0])


# --- x ** y where y == 0: the rule's y * x ** (y - 1) is 0 * inf = nan at x == 0, so
# the gradient of x ** 0, the Hessian of x ** 1 and the gradient of x ** y with an array
# exponent holding 0 were NaN at 0 (PyTorch and JAX give 0) -------------------------------

Z = np.array([0.0, 1.0, -2.0, 0.5])


def _pow0(v: Any) -> Any:
    return np.sum(v ** 0)


def _pow1(v: Any) -> Any:
    return np.sum(v ** 1)


def _pow_array(v: Any) -> Any:
    return np.sum(v[:2] ** v[2:])


def test_power_with_a_zero_exponent_at_zero() -> None:
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(st.grad(_pow0)(Z), np.zeros(4))
        np.testing.assert_array_equal(st.jvp(_pow0, (Z,), (np.ones(4),))[1], 0.0)
        np.testing.assert_array_equal(st.grad(_pow1)(Z), np.ones(4))
        np.testing.assert_array_equal(st.hessian(_pow1)(Z), np.zeros((4, 4)))
        np.testing.assert_array_equal(st.hessian(_pow1, mode="reverse")(Z), np.zeros((4, 4)))
        x = np.array([0.0, 2.0, 0.0, 1.0])
        np.testing.assert_allclose(st.grad(_pow_array)(x), [0.0, 1.0, 0.0, 2 * np.log(2.0)])
        np.testing.assert_allclose(st.jvp(_pow_array, (x,), (np.ones(4),))[1],
                                   1.0 + 2 * np.log(2.0))
    _agrees(_pow_array, np.array([0.5, 2.0, 0.0, 1.5]))
