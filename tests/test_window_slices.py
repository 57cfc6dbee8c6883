"""Sliding windows in loops: ``x[t - p:t]`` in ``for t in range(p, n)`` has one length on
every iteration, so its shape is static and what is computed from it keeps its shape (an
autoregressive loss's ``np.dot(w, y[t - p:t])`` is a scalar).  These were refused ("grad
needs a scalar output, but ... returns an array of shape None").  Windows whose length
does change (a stop past the end, a negative start) stay of unknown shape and compute
Python's values.  Gradients against float64 central differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

Y = np.sin(np.arange(12) * 0.7) + 0.1 * np.arange(12)
W = np.array([0.5, -0.2, 0.1])


def ar_loss(w: np.ndarray, y: np.ndarray) -> Any:
    p = w.shape[0]
    loss = 0.0
    for t in range(p, y.shape[0]):
        pred = np.dot(w, y[t - p:t])
        loss = loss + (y[t] - pred) ** 2
    return loss


def hand_correlation(x: np.ndarray) -> Any:
    out = x[0:3] * x[0]
    for j in range(1, 3):
        out = out + x[j:j + 3] * x[j]
    return out[0] * out[2]


def stepped(w: np.ndarray, y: np.ndarray) -> Any:
    v = 0.0
    for t in range(0, 10, 2):
        v = v + np.dot(w[:2], y[t:t + 2]) ** 2
    return v


def reversed_windows(w: np.ndarray, y: np.ndarray) -> Any:
    v = 0.0
    for t in reversed(range(3, 9)):
        v = v * 0.5 + np.dot(w, y[t - 3:t])
    return v


def nested(w: np.ndarray, y: np.ndarray) -> Any:
    acc = 0.0
    for t in range(3, 8):
        for k in range(2):
            acc = acc + np.dot(w, y[t - 3:t]) * (k + 1.0)
    return acc


def columns(w: np.ndarray, y: np.ndarray) -> Any:
    m = np.outer(np.ones(2), y)
    total = 0.0
    for t in range(3, 12, 3):
        total = total + np.sum(m[:, t - 3:t] @ w) ** 2
    return total


def downward(w: np.ndarray, y: np.ndarray) -> Any:
    v = 0.0
    for i in range(4):
        v = v + np.dot(w, y[11 - i - 3:11 - i])
    return v


def numpy_correlate(w: np.ndarray, y: np.ndarray) -> Any:
    return np.correlate(y[:3], w)[0] * np.convolve(y[:5], w, mode="valid")[1]


CASES = [ar_loss, stepped, reversed_windows, nested, columns, downward, numpy_correlate]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_windows_of_one_length_are_typed(fn: Any) -> None:
    value, grads = st.value_and_grad(fn, wrt=(0, 1))(W, Y)
    assert np.ndim(value) == 0
    np.testing.assert_allclose(value, fn(W, Y), rtol=1e-12)
    check_grads(fn, (W, Y), lambda w, y: st.grad(fn, wrt=(0, 1))(w, y))


def test_hand_written_correlation() -> None:
    x = np.array([0.3, 0.7, 1.5, 0.2, 0.9])
    np.testing.assert_allclose(st.value_and_grad(hand_correlation)(x)[0],
                               hand_correlation(x))
    check_grads(hand_correlation, (x,), lambda v: (st.grad(hand_correlation)(v),))


def test_second_order_of_an_autoregressive_loss() -> None:
    def loss(w: np.ndarray) -> Any:
        return ar_loss(w, Y)

    h = st.hessian(loss)(W)
    check_grads(lambda w: st.grad(loss)(w) @ np.array([1.0, 2.0, -1.0]), (W,),
                lambda w: (h @ np.array([1.0, 2.0, -1.0]),))


def clipped(x: np.ndarray) -> Any:
    s = 0.0
    for t in range(5):  # x[3:6] and x[4:7] are shorter: the length changes
        s = s + np.sum(x[t:t + 3]) * (t + 1.0)
    return s


def wrapped(x: np.ndarray) -> Any:
    s = 0.0
    for t in range(3):  # x[-1:1] is empty: a negative start wraps
        s = s + np.sum(x[t - 1:t + 1] ** 2) + x[t - 1:t + 1].shape[0] * x[0]
    return s


@pytest.mark.parametrize("fn", [clipped, wrapped], ids=lambda f: f.__name__)
def test_windows_whose_length_changes_compute_pythons_values(fn: Any) -> None:
    x = np.array([0.3, 0.7, 1.5, 0.2, 0.9])
    np.testing.assert_allclose(st.value_and_grad(fn)(x)[0], fn(x), rtol=1e-12)
    check_grads(fn, (x,), lambda v: (st.grad(fn)(v),))


def test_a_length_that_changes_keeps_the_shape_unknown() -> None:
    # x[t:t + 3] is 3, 3, 3, 2, 1 long: its dot with w fails on the fourth iteration, as
    # in NumPy, at run time (not a wrong static shape)
    def f(w: np.ndarray, x: np.ndarray) -> Any:
        s = 0.0
        for t in range(5):
            s = s + np.sum(np.dot(w, x[t:t + 3]))
        return s

    x = np.array([0.3, 0.7, 1.5, 0.2, 0.9])
    with pytest.raises(ValueError):
        f(W, x)
    with pytest.raises(Exception, match="shapes|align|dot"):
        st.grad(f)(W, x)


_WINDOW = '''
import numpy as np


def f(x, w):
    acc = 0.0
    for t in range({lo}, {hi}, {step}):
        v = x[{c} * t + ({a}):{c} * t + ({a}) + {n}]
        acc = acc + np.sum(v * w[:v.shape[0]]) ** 2 + v.shape[0] * x[0]
    return acc
'''


@pytest.mark.parametrize("loop", [(0, 3, 1), (1, 5, 1), (2, 6, 2), (5, 0, -1), (3, 7, 1)])
@pytest.mark.parametrize("window", [(1, 0, 2), (1, -1, 2), (1, -2, 3), (2, 0, 1), (-1, 4, 2),
                                    (1, 1, 3), (-1, 6, 1)])
def test_window_grid_matches_python(tmp_path: Any, loop: tuple[int, int, int],
                                    window: tuple[int, int, int]) -> None:
    # windows that keep their length (static shape) and windows that wrap, are clipped or
    # run past the end (unknown shape): value, v.shape[0] and gradient as Python's
    import importlib.util

    (lo, hi, step), (c, a, n) = loop, window
    path = tmp_path / f"window_{lo}_{hi}_{step}_{c}_{a}_{n}.py".replace("-", "m")
    path.write_text(_WINDOW.format(lo=lo, hi=hi, step=step, c=c, a=a, n=n))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(-0.8, 1.1, 7)
    w = np.linspace(0.5, -0.4, 8)
    value, grad = st.value_and_grad(module.f)(x, w)
    np.testing.assert_allclose(value, module.f(x, w), rtol=1e-12)
    check_grads(lambda v: module.f(v, w), (x,), lambda v: (st.grad(module.f)(v, w),))
