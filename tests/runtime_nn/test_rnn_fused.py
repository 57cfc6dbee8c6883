"""The fused LSTM layer node (``runtime/nn/rnn_fused.py``), without torch.

* Its hand-written backward against central differences in float64 (``check_vjp``) for
  every input, forward and reversed, with and without biases, with gradients arriving at
  all three outputs; and against the unrolled layer of recorded ops.
* A ``create_graph`` gradient through the node is itself correct (second derivatives).
* Node structure as torch 2.13 (CPU) shows it for a float32 LSTM (facts written down from
  torch: each layer and direction is one ``MkldnnRnnLayerBackward0`` over ``(input,
  weight_ih, weight_hh, bias_ih, bias_hh, hx, cx)``; ``h_n``/``c_n`` stack its outputs 1
  and 2; a given initial state reaches it through ``SelectBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
from st_autodiff.runtime.nn.rnn_fused import _unrolled, lstm_layer
from st_autodiff.testing import check_vjp

_rng = np.random.default_rng(31)
T, B, N, H = 4, 2, 3, 3


def _inputs(bias: bool) -> list[Any]:
    shapes = [(T, B, N), (4 * H, N), (4 * H, H), (4 * H,), (4 * H,), (B, H), (B, H)]
    arrays = [_rng.standard_normal(s) * 0.7 for s in shapes]
    if not bias:
        arrays[3] = arrays[4] = None
    return arrays


def _tensors(arrays: list[Any]) -> list[Any]:
    return [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]


def _flat(outs: tuple) -> np.ndarray:
    return np.concatenate([o.detach().numpy().ravel() for o in outs])


def _split(g: np.ndarray) -> list:
    sizes = [T * B * H, B * H, B * H]
    parts = np.split(g, np.cumsum(sizes)[:-1])
    return [torch.tensor(p.reshape(s)) for p, s in zip(parts, [(T, B, H), (B, H), (B, H)])]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_layer_gradients_match_central_differences(reverse: bool, bias: bool) -> None:
    arrays = _inputs(bias)
    live = [k for k, a in enumerate(arrays) if a is not None]

    def value(*xs: np.ndarray) -> np.ndarray:
        full = list(arrays)
        for k, a in zip(live, xs):
            full[k] = a
        with torch.no_grad():
            return _flat(lstm_layer(*_tensors(full), reverse))

    def vjp(g: np.ndarray) -> list:
        ts = _tensors(arrays)
        outs = lstm_layer(*ts, reverse)
        assert type(outs[0].grad_fn).__name__ == "MkldnnRnnLayerBackward0"
        torch.autograd.backward(list(outs), _split(g))
        return [ts[k].grad.numpy() for k in live]

    check_vjp(value, vjp, [arrays[k] for k in live])


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_layer_matches_unrolled_layer(reverse: bool) -> None:
    arrays = _inputs(True)
    g = _rng.standard_normal(T * B * H + 2 * B * H)
    results = []
    for fn in (lstm_layer, _unrolled):
        ts = _tensors(arrays)
        outs = fn(*ts, reverse)
        torch.autograd.backward(list(outs), _split(g))
        results.append((_flat(outs), [t.grad.numpy() for t in ts]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-13)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_fused_layer_second_derivatives() -> None:
    arrays = _inputs(True)
    g = _rng.standard_normal(T * B * H + 2 * B * H)

    def first(x: np.ndarray) -> np.ndarray:
        ts = _tensors([x, *arrays[1:]])
        (gx,) = torch.autograd.grad(list(lstm_layer(*ts, True)), ts[0], _split(g))
        return gx.numpy()

    def first_vjp(h: np.ndarray) -> list:
        ts = _tensors(arrays)
        (gx,) = torch.autograd.grad(list(lstm_layer(*ts, True)), ts[0], _split(g),
                                    create_graph=True)
        (second,) = torch.autograd.grad(gx, ts[0], torch.tensor(h))
        return [second.numpy()]

    check_vjp(first, first_vjp, [arrays[0]], atol=1e-5, rtol=1e-4, eps=1e-5)


def test_float32_lstm_is_one_node_per_layer_like_torch() -> None:
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2)
    h0 = torch.randn(2, 2, 4, requires_grad=True)
    out, (h, c) = lstm(torch.randn(5, 2, 3), (h0, torch.zeros(2, 2, 4)))
    layer = out.grad_fn
    assert type(layer).__name__ == "MkldnnRnnLayerBackward0"
    assert [type(f).__name__ for f, _ in layer.next_functions] == (
        ["MkldnnRnnLayerBackward0"] + ["AccumulateGrad"] * 4 + ["SelectBackward0", "NoneType"])
    assert [(type(f).__name__, k) for f, k in h.grad_fn.next_functions] == (
        [("MkldnnRnnLayerBackward0", 1)] * 2)
    assert [k for _, k in c.grad_fn.next_functions] == [2, 2]
    assert layer._saved_reverse is False and layer._saved_hidden_size == 4
    with torch.no_grad():
        assert lstm(torch.randn(5, 2, 3))[0].grad_fn is None


def test_float32_lstm_agrees_with_float64_lstm() -> None:
    """The fused float32 layer against the unrolled float64 one, values and gradients."""
    torch.manual_seed(3)
    m32 = nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True)
    m64 = nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True).double()
    m64.load_state_dict({k: v.double() for k, v in m32.state_dict().items()})
    x = _rng.standard_normal((2, 6, 3))
    grads = []
    for m, dt in ((m32, torch.float32), (m64, torch.float64)):
        xt = torch.tensor(x, dtype=dt, requires_grad=True)
        out, (h, c) = m(xt)
        (out.sin().sum() + h.sum() + (c * c).sum()).backward()
        grads.append([out.detach().double().numpy(), xt.grad.double().numpy()]
                     + [p.grad.double().numpy() for p in m.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_second_backward_without_retain_graph_is_refused() -> None:
    lstm = nn.LSTM(2, 3)
    out, _ = lstm(torch.randn(3, 1, 2))
    loss = out.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
