"""Shared checks of the regression files: the compiled ``value_and_grad`` gives Python's
value and the gradient of central differences (float64), and JAX in double precision."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads, numerical_vjp


def jax64() -> Any:
    """jax in double precision, or skip."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def agrees(f: Callable[..., Any], *args: Any, argnums: int = 0) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f, argnums=argnums)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)

    def grads(*a: Any) -> tuple[Any, ...]:
        out: list[Any] = [None] * len(a)
        out[argnums] = vg(*a)[1]
        return tuple(out)

    check_grads(f, args, grads, argnums=[argnums])


def agrees_on(f: Callable[[Any], Any], x: np.ndarray, rel: float, abs_value: float,
              atol: float) -> str:
    """Value within ``rel`` (``abs_value``) of Python's, gradient within ``atol`` (and 1e-6
    relative) of central differences; returns the generated source."""
    vg = st.value_and_grad(f)
    value, grad = vg(x)
    assert value == pytest.approx(f(x), rel=rel, abs=abs_value)
    np.testing.assert_allclose(grad, numerical_vjp(f, (x,), 1.0)[0], rtol=1e-6, atol=atol)
    return vg.source
