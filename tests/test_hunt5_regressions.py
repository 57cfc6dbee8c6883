"""Wrong results and bad refusals found by a fifth outside hunt (library functions
imported at test time, Python semantics in user code, dtypes), one test per root cause.
Gradients are compared with float64 central differences, and with JAX where installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _jax() -> Any:
    """jax in double precision, or skip."""
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


# --- the adjoint of a float64 product with float16 (float32) values: the optimizer
# dropped the float64 broadcast of grad's Python-float seed, so `out_bar * 100.0 * w`
# ran in float16 (NEP 50: a Python float takes the array's dtype) and overflowed to inf;
# a float64 argument read through x.astype(float32) got a float32 gradient ---------------

_W16 = np.array([1000.0, 2000.0, 3000.0, 4000.0], dtype=np.float16)
_X = np.array([0.3, 1.7, 2.5, 0.9])


def _scaled_half(x: Any) -> Any:
    return np.sum(x * _W16 * 100.0)


def _summed_half(x: Any) -> Any:
    return np.sum(x * _W16) * 100.0


def _cast_down(x: Any) -> Any:
    return np.sum(x.astype(np.float32) ** 2)


@pytest.mark.parametrize("fn", [_scaled_half, _summed_half])
def test_adjoint_of_a_float64_product_with_float16_values(fn: Callable[[Any], Any]) -> None:
    value, grad = st.value_and_grad(fn)(_X)
    assert value == fn(_X)
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, 100.0 * _W16.astype(np.float64), rtol=1e-12)
    _agrees(fn, _X)
    jax = _jax()
    w = jax.numpy.asarray(_W16)
    np.testing.assert_allclose(grad, jax.grad(lambda x: jax.numpy.sum(x * w * 100.0))(_X))


def test_gradient_through_a_cast_down_has_the_arguments_dtype() -> None:
    grad = st.grad(_cast_down)(_X)
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, 2 * _X.astype(np.float32), rtol=1e-12)
    x32 = _X.astype(np.float32)
    g32 = st.grad(_cast_down)(x32)  # float32 stays float32
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, 2 * x32, rtol=1e-6)
