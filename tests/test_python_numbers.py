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
