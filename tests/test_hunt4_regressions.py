"""Wrong results and bad refusals found by a fourth outside hunt (library functions
imported at test time and patterns users write), one test per root cause.  Gradients are
compared with float64 central differences, and with JAX where it is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _jax() -> Any:
    """jax.numpy in double precision, or skip."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _agrees(f: Callable[..., Any], *args: Any, argnums: int = 0) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f, argnums=argnums)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)

    def grads(*a: Any) -> tuple[Any, ...]:
        out: list[Any] = [None] * len(a)
        out[argnums] = vg(*a)[1]
        return tuple(out)

    check_grads(f, args, grads, argnums=[argnums])


# --- np.clip(x, lo, hi) with lo > hi somewhere: NumPy gives hi there (minimum(maximum(x,
# lo), hi)), but the rule sent the gradient to lo where x < lo, and to both lo and hi where
# hi < x < lo; the JVP rule likewise --------------------------------------------------------

_A = np.array([0.5, 2.0, 0.0, 1.1, -0.3])
_LO = np.array([1.5, 1.2, -1.0, 1.3, -0.5])
_HI = np.array([1.0, 1.0, 1.0, 1.0, 0.2])


def _clip3(x: Any, lo: Any, hi: Any) -> Any:
    return np.sum(np.clip(x, lo, hi) * np.arange(1.0, 6.0))


def test_clip_with_the_lower_bound_above_the_upper() -> None:
    for i in range(3):
        _agrees(_clip3, _A, _LO, _HI, argnums=i)
    grads = st.grad(_clip3, argnums=(0, 1, 2))(_A, _LO, _HI)
    np.testing.assert_array_equal(grads[1], [0.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(grads[2], [1.0, 2.0, 0.0, 4.0, 0.0])
    tangents = (np.ones(5), 2 * np.ones(5), 3 * np.ones(5))
    _, t = st.jvp(_clip3, (_A, _LO, _HI), tangents)
    np.testing.assert_allclose(t, sum(float(np.sum(g * d)) for g, d in zip(grads, tangents)))
    jax = _jax()
    ref = jax.grad(lambda x, lo, hi: (jax.numpy.clip(x, lo, hi) * np.arange(1.0, 6.0)).sum(),
                   argnums=(0, 1, 2))(_A, _LO, _HI)
    for mine, theirs in zip(grads, ref):
        np.testing.assert_allclose(mine, np.asarray(theirs))
