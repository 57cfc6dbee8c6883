"""The fused LSTM layer's forward (``runtime/nn/rnn_fused._forward``) bit for bit.

Its loop permutes and negates gates, adds a tiled bias and a full array of ones, and takes
an input size of 1 as products rather than a matrix product; each of those must leave every
value exactly what the plain per-step formula gives.  The reference here is that formula
written out with NumPy (PyTorch's order: ``h W_hh^T + b_hh + gi``, ``1 / (1 + exp(-x))``).
"""

from __future__ import annotations

import numpy as np
import pytest

from st_autodiff.runtime.nn.rnn_fused import _forward


def _reference(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray | None,
               b_hh: np.ndarray | None, h: np.ndarray, c: np.ndarray,
               reverse: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    steps, _, size = x.shape
    gi = x.reshape(-1, size) @ w_ih.T
    if b_ih is not None:
        gi += b_ih
    gi = gi.reshape(steps, x.shape[1], -1)
    hid = w_hh.shape[1]
    outs = [None] * steps
    with np.errstate(over="ignore"):
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            pre = h @ w_hh.T
            if b_hh is not None:
                pre += b_hh
            pre = pre + gi[t]
            sig = 1 / (1 + np.exp(-pre))
            i, f, o = sig[:, :hid], sig[:, hid:2 * hid], sig[:, 3 * hid:]
            g = np.tanh(pre[:, 2 * hid:3 * hid])
            c = f * c + i * g
            h = o * np.tanh(c)
            outs[t] = h
    return np.stack(outs), h, c


@pytest.mark.parametrize("size", [1, 3])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_forward_is_the_plain_formula(size: int, reverse: bool, bias: bool) -> None:
    rng = np.random.default_rng(size + 2 * reverse + 4 * bias)
    steps, batch, hid = 6, 3, 4
    f32 = np.float32
    x = rng.standard_normal((steps, batch, size)).astype(f32)
    x[1, 0] = 0.0
    x[2, 1] = -0.0  # signed zeros in the products of an input of size 1
    w_ih = rng.standard_normal((4 * hid, size)).astype(f32)
    w_hh = rng.standard_normal((4 * hid, hid)).astype(f32)
    b_ih = rng.standard_normal(4 * hid).astype(f32) if bias else None
    b_hh = rng.standard_normal(4 * hid).astype(f32) if bias else None
    h0 = rng.standard_normal((batch, hid)).astype(f32)
    c0 = rng.standard_normal((batch, hid)).astype(f32)
    datas, _cache = _forward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
    for got, want in zip(datas, _reference(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse),
                         strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_plus_zero_are_the_inner_size_one_matmul(dtype: type) -> None:
    """What ``_forward`` relies on for an input of size 1: ``a * w.T + 0`` is ``a @ w.T``
    bit for bit, signed zeros, infinities and NaNs included."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 1)).astype(dtype)
    w = rng.standard_normal((7, 1)).astype(dtype)
    a[::5] = 0.0
    a[1::6] = -0.0
    a[2::9] = np.inf
    w[::3] = -0.0
    w[1] = np.nan
    with np.errstate(invalid="ignore"):
        want = a @ w.T
        got = a * w.T
        got += 0
    assert got.tobytes() == want.tobytes()
