"""``float(x)`` and ``x.item()`` give Python numbers: their precision and printing follow.

Both were once lowered as ``x`` itself, so ``print(float(i))`` of a loop counter printed
``0`` and ``float(x32[0]) * 0.1`` computed in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def counter_printed(x: Any) -> Any:
    s = 0.0
    for i in range(3):
        print("step", float(i), str(float(i)), float(i > 0))
        s = s + x.sum() * float(i)
    return s


def test_float_of_a_loop_counter_prints_as_python(capsys: pytest.CaptureFixture[str]) -> None:
    x = np.array([0.5, -1.0])
    counter_printed(x)
    want = capsys.readouterr().out
    grad = st.grad(counter_printed)(x)
    assert capsys.readouterr().out == want
    np.testing.assert_allclose(grad, np.full(2, 3.0))


def float32_scaled(x: Any) -> Any:
    y = x.astype(np.float32)
    c = float(y[0]) * 0.1 + y[1].item() * 0.3  # Python floats: computed in float64
    return x.sum() * c


def test_float_and_item_of_float32_compute_in_double() -> None:
    x = np.array([0.1, 0.7, 1.3])
    value, grad = st.value_and_grad(float32_scaled)(x)
    assert value == float32_scaled(x)  # the same double arithmetic, bit for bit
    # (central differences are blind here: a float32 cast rounds away a 1e-6 step)
    c = float(np.float32(0.1)) * 0.1 + float(np.float32(0.7)) * 0.3
    want = [c + x.sum() * 0.1, c + x.sum() * 0.3, c]
    np.testing.assert_allclose(grad, want, rtol=1e-6)  # (a float32 cotangent)
    assert grad.dtype == np.float64


def test_item_of_an_int_stays_an_int() -> None:
    def f(x: Any) -> Any:
        n = np.argmax(x).item()
        return x[n] * (n // 2 + 1) + x.sum() * (7 / 2)

    x = np.array([0.5, -1.0, 2.0])
    value, grad = st.value_and_grad(f)(x)
    assert value == pytest.approx(f(x))
    check_grads(f, [x], lambda a: [st.grad(f)(a)])


# --- Python floats are weak in NumPy's promotion: float(s) * x32 stays float32 --------

def _float_of_sum(w: Any, x32: Any) -> Any:
    s = float(np.sum(w))
    return np.sum(s * x32 * x32)


def _item_of_sum(w: Any, x32: Any) -> Any:
    return np.sum(np.sum(w * w).item() * x32)


def _math_of_sum(w: Any, x32: Any) -> Any:
    import math

    return np.sum(math.exp(np.sum(w)) * x32) + math.sin(w[0]) * 2.0


@pytest.mark.parametrize("f", [_float_of_sum, _item_of_sum, _math_of_sum])
def test_python_float_is_weak_and_its_gradient_keeps_the_arguments_dtype(f: Any) -> None:
    """The value has NumPy's dtype (float32 here, where a NumPy float64 scalar would make
    it float64), and the float64 argument's gradient is float64 (it flowed through the
    float32 product), as JAX gives gradients in each argument's dtype."""
    w = np.array([0.1, -0.2, 0.3])
    x32 = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    value, grad = st.value_and_grad(f)(w, x32)
    want = f(w, x32)
    assert type(value) is type(want) and np.asarray(value).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(value, want, rtol=1e-6)
    assert grad.dtype == np.float64
    x64 = x32.astype(np.float64)  # the same function in float64: central differences
    check_grads(lambda v: f(v, x64), (w,), lambda v: (st.grad(f)(v, x64),))
    np.testing.assert_allclose(grad, st.grad(f)(w, x64), rtol=1e-5, atol=1e-6)
