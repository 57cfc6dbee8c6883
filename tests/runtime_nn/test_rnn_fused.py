"""The fused LSTM layer node (``runtime/nn/rnn_fused.py``), without torch.

* Its hand-written backward against central differences in float64 (``check_vjp``) for
  every input, forward and reversed, with and without biases, with gradients arriving at
  all three outputs; and against the unrolled layer of recorded ops.
* A ``create_graph`` gradient through the node is itself correct (second derivatives).
* The bulk GRU/LSTM steps of ``rnn_steps.py`` give the op-by-op composition's values and
  gradients bit for bit, with the same recorded nodes.
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
from st_autodiff.runtime import functional as RF
from st_autodiff.runtime.nn import functional as F
from st_autodiff.runtime.nn.rnn_fused import _unrolled, lstm_layer
from st_autodiff.runtime.nn.rnn_steps import gru_step, lstm_step, unsafe_chunk
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
    assert (layer._saved_num_layers, layer._saved_train, layer._saved_mode) == (2, True, 2)
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


# --- the bulk steps of rnn_steps.py against the op-by-op composition ---------------------------

def _names(t: Any) -> list[str]:
    seen, order, queue = set(), [], [t.grad_fn]
    while queue:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(fn.name())
        queue.extend(f for f, _ in fn.next_functions)
    return order


def _gru_by_ops(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    ir, iz, i_n = unsafe_chunk(gi, 3)
    hr, hz, h_n = unsafe_chunk(F.linear(h, w_hh, b_hh), 3)
    r = RF.sigmoid(RF.add(hr, ir))
    z = RF.sigmoid(RF.add(hz, iz))
    n = RF.tanh(RF.add(i_n, RF.mul(h_n, r)))
    return RF.add(RF.mul(RF.sub(h, n), z), n)


def _lstm_by_ops(gi: Any, h: Any, c: Any, w_hh: Any, b_hh: Any) -> tuple:
    i, f, g, o = unsafe_chunk(RF.add(F.linear(h, w_hh, b_hh), gi), 4)
    c_new = RF.add(RF.mul(RF.sigmoid(f), c), RF.mul(RF.sigmoid(i), RF.tanh(g)))
    return RF.mul(RF.sigmoid(o), RF.tanh(c_new)), c_new


@pytest.mark.parametrize("kind", ["gru", "lstm"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_bulk_steps_equal_the_op_by_op_composition(kind: str, dtype: Any) -> None:
    """Same values and gradients bit for bit, same recorded nodes in the same order."""
    chunks = 3 if kind == "gru" else 4
    shapes = [(2, chunks * 3), (2, 3), (chunks * 3, 3), (chunks * 3,), (2, 3)]
    arrays = [_rng.standard_normal(s) * 3 for s in shapes]   # some gates saturate
    results = []
    for fast in (True, False):
        ts = [torch.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
        if kind == "gru":
            outs = [gru_step(*ts[:4]) if fast else _gru_by_ops(*ts[:4])]
        else:
            gi, h, w, b, c = ts
            outs = list(lstm_step(gi, h, c, w, b, None) if fast else _lstm_by_ops(gi, h, c, w, b))
        torch.autograd.backward(outs, [torch.ones_like(o) * (k + 1) for k, o in enumerate(outs)])
        used = ts[:4] if kind == "gru" else ts
        results.append(([o.detach().numpy() for o in outs], [t.grad.numpy() for t in used],
                        [_names(o) for o in outs]))
    (va, ga, na), (vb, gb, nb) = results
    assert na == nb
    for a, b in zip(va + ga, vb + gb):
        np.testing.assert_array_equal(a, b)
