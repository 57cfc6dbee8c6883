"""Recurrent layers, layer norm, attention and the transformer encoder, without torch.

* Gradients against central differences in float64 (``st_autodiff.testing.check_vjp``,
  the dot-product test) for inputs and every parameter, and second derivatives through
  ``create_graph`` for the recurrent layers, attention and the private GELU.
* Stored reference values, node names and reprs produced by torch 2.13 (CPU) from the
  scenarios in ``rnn_attention_scenarios.py`` (``data/rnn_attention_torch213.json``;
  regenerate with ``data/make_rnn_attention_refs.py``).  Parameters are drawn under a
  seed, so these also check that initialisation draws PyTorch's numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
import st_autodiff.nn.functional as F
from st_autodiff.runtime.nn.transformer import _gelu
from st_autodiff.testing import check_vjp

from .rnn_attention_scenarios import SCENARIOS

REFS = json.loads((Path(__file__).parent / "data" / "rnn_attention_torch213.json")
                  .read_text(encoding="utf-8"))
_rng = np.random.default_rng(12)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


# --- stored torch 2.13 results ------------------------------------------------------------------

@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_matches_stored_torch_results(name: str) -> None:
    expected = REFS["scenarios"][name]
    got = SCENARIOS[name](torch)
    assert list(got) == list(expected)
    for key, want in expected.items():
        have = got[key]
        if isinstance(want, list) and want and isinstance(want[0], float):
            np.testing.assert_allclose(have, want, rtol=2e-4, atol=2e-5, err_msg=key)
        else:
            assert have == want, key


# --- gradients of the modules against central differences ----------------------------------------

def _flat_output(out: Any) -> Any:
    """A module's outputs (nested tuples of tensors) as one flat tensor."""
    parts: list = []

    def walk(o: Any) -> None:
        if isinstance(o, tuple):
            for item in o:
                walk(item)
        elif o is not None:
            parts.append(o.reshape(-1))

    walk(out)
    return torch.cat(parts)


def check_module(make: Callable[[], Any], x: np.ndarray,
                 call: Callable[[Any, Any], Any] = lambda m, x: m(x)) -> None:
    """Dot-product test of the input's and every parameter's gradient (float64, eval)."""
    torch.manual_seed(0)
    model = make().double().eval()
    params = list(model.parameters())
    start = [p.detach().numpy().copy() for p in params]

    def load(arrays: tuple) -> None:
        with torch.no_grad():
            for p, a in zip(params, arrays, strict=True):
                p.copy_(torch.tensor(a))

    def value(x: np.ndarray, *ps: np.ndarray) -> np.ndarray:
        load(ps)
        with torch.no_grad():
            return _flat_output(call(model, torch.tensor(x))).numpy()

    def vjp(g: np.ndarray) -> list:
        load(tuple(start))
        model.zero_grad()
        xt = torch.tensor(x, requires_grad=True)
        _flat_output(call(model, xt)).backward(torch.tensor(g))
        return [xt.grad.numpy()] + [p.grad.numpy() for p in params]

    check_vjp(value, vjp, [x, *start])


@pytest.mark.parametrize("kind,kw", [
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "batch_first": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 2}),
    ("GRU", {"num_layers": 2, "bias": False, "batch_first": True}),
    ("GRU", {"bidirectional": True})])
def test_recurrent_gradients(kind: str, kw: dict) -> None:
    x = normal(2, 4, 3) + (2.0 if kw.get("nonlinearity") == "relu" else 0.0)
    check_module(lambda: getattr(nn, kind)(3, 3, **kw), x)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradients(kind: str) -> None:
    check_module(lambda: getattr(nn, kind)(3, 4), normal(2, 3))


def test_recurrent_second_derivatives() -> None:
    """A gradient of an LSTM built with create_graph is itself correct."""
    torch.manual_seed(0)
    model = nn.LSTM(2, 3).double()
    x0 = normal(3, 1, 2)
    g = normal(3, 1, 3)

    def first(x: np.ndarray) -> np.ndarray:
        xt = torch.tensor(x, requires_grad=True)
        (gx,) = torch.autograd.grad(model(xt)[0], xt, torch.tensor(g))
        return gx.numpy()

    def first_vjp(h: np.ndarray) -> list:
        xt = torch.tensor(x0, requires_grad=True)
        (gx,) = torch.autograd.grad(model(xt)[0], xt, torch.tensor(g), create_graph=True)
        (second,) = torch.autograd.grad(gx, xt, torch.tensor(h))
        return [second.numpy()]

    check_vjp(first, first_vjp, [x0], atol=1e-5, rtol=1e-4, eps=1e-5)


@pytest.mark.parametrize("kw", [{}, {"elementwise_affine": False}, {"bias": False}])
def test_layer_norm_gradients(kw: dict) -> None:
    def make() -> Any:
        ln = nn.LayerNorm((2, 3), **kw)
        if ln.weight is not None:
            with torch.no_grad():
                ln.weight.uniform_(0.5, 1.5)
        return ln

    check_module(make, normal(4, 2, 3))


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_gradients(need_weights: bool, batch_first: bool) -> None:
    kpm = torch.tensor([[0.0, 0.0, -math.inf], [0.0, 0.3, 0.0]], dtype=torch.float64)
    mask = torch.tensor(np.array([[0.0, -1.0, 0.5]] * 3))

    def call(m: Any, x: Any) -> Any:
        return m(x, x, x, key_padding_mask=kpm, attn_mask=mask, need_weights=need_weights)

    def make() -> Any:
        m = nn.MultiheadAttention(4, 2, batch_first=batch_first)
        with torch.no_grad():  # biases start at zero: make them count
            m.in_proj_bias.uniform_(-0.5, 0.5)
            m.out_proj.bias.uniform_(-0.5, 0.5)
        return m

    check_module(make, normal(2, 3, 4) if batch_first else normal(3, 2, 4), call)


@pytest.mark.parametrize("need_weights", [True, False])
def test_extra_key_attention_gradients(need_weights: bool) -> None:
    """``add_bias_kv`` (learned extra key and value) and ``add_zero_attn`` (a zero one)."""
    kpm = torch.tensor([[False, False, True], [False, False, False]])

    def call(m: Any, x: Any) -> Any:
        return m(x, x, x, key_padding_mask=kpm, need_weights=need_weights)

    check_module(lambda: nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True),
                 normal(3, 2, 4), call)


def test_separate_projection_attention_gradients() -> None:
    k = torch.tensor(normal(4, 2, 3))

    def call(m: Any, x: Any) -> Any:
        return m(x, k, k)

    check_module(lambda: nn.MultiheadAttention(4, 2, kdim=3, vdim=3), normal(5, 2, 4), call)


@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu"},
                                {"batch_first": True, "bias": False}])
def test_transformer_encoder_gradients(kw: dict) -> None:
    mask = torch.tensor(np.triu(np.ones((3, 3), dtype=bool), 1))

    def make() -> Any:
        layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, **kw)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    x = normal(2, 3, 4) if kw.get("batch_first") else normal(3, 2, 4)
    check_module(make, x, lambda m, x: m(x, mask=mask))


@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "batch_first": True}])
def test_transformer_decoder_gradients(kw: dict) -> None:
    memory = torch.tensor(normal(*((2, 4, 4) if kw.get("batch_first") else (4, 2, 4))))
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    kpm = torch.tensor([[False, False, False, True], [False] * 4])

    def make() -> Any:
        layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0.0, **kw)
        return nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(4))

    def call(m: Any, x: Any) -> Any:
        return m(x, memory, tgt_mask=tgt_mask, memory_key_padding_mask=kpm)

    x = normal(2, 3, 4) if kw.get("batch_first") else normal(3, 2, 4)
    check_module(make, x, call)


# --- scaled dot-product attention ----------------------------------------------------------------

def _check_function(fn: Callable[..., Any], inputs: list[np.ndarray], second: bool = True) -> None:
    """First derivatives of ``fn`` and, with ``second``, of its create_graph gradient."""

    def value(*arrays: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return fn(*[torch.tensor(a) for a in arrays]).numpy()

    def vjp_at(arrays: list) -> Callable[[np.ndarray], list]:
        def vjp(g: np.ndarray) -> list:
            xs = [torch.tensor(a, requires_grad=True) for a in arrays]
            gs = torch.autograd.grad(fn(*xs), xs, torch.tensor(g), allow_unused=True,
                                     materialize_grads=True)
            return [t.numpy() for t in gs]
        return vjp

    check_vjp(value, vjp_at(inputs), inputs)
    if not second:
        return
    g = np.random.default_rng(6).standard_normal(np.shape(value(*inputs)))

    def first(*arrays: np.ndarray) -> np.ndarray:
        return np.concatenate([np.ravel(t) for t in vjp_at(list(arrays))(g)])

    def first_vjp(h: np.ndarray) -> list:
        xs = [torch.tensor(a, requires_grad=True) for a in inputs]
        gs = torch.autograd.grad(fn(*xs), xs, torch.tensor(g), create_graph=True,
                                 allow_unused=True, materialize_grads=True)
        flat = torch.cat([t.reshape(-1) for t in gs])
        second_grads = torch.autograd.grad(flat, xs, torch.tensor(h), allow_unused=True,
                                           materialize_grads=True)
        return [t.numpy() for t in second_grads]

    check_vjp(first, first_vjp, inputs, atol=1e-5, rtol=1e-4, eps=1e-5)


_DEAD_ROW = torch.tensor([[True, False, True, True], [False] * 4, [True] * 4])


@pytest.mark.parametrize("lead", [(1, 2), (2,)], ids=["fused", "math"])
@pytest.mark.parametrize("mask", ["none", "causal", "dead_row", "float"])
def test_sdpa_gradients(lead: tuple, mask: str) -> None:
    float_mask = torch.tensor(normal(3, 4))

    def fn(q: Any, k: Any, v: Any) -> Any:
        if mask == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        m = {"none": None, "dead_row": _DEAD_ROW, "float": float_mask}[mask]
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.7)

    _check_function(fn, [normal(*lead, 3, 2), normal(*lead, 4, 2), normal(*lead, 4, 2)])


def test_sdpa_routes_and_fully_masked_rows() -> None:
    q = torch.randn(1, 2, 3, 4, requires_grad=True)
    mask = torch.tensor([[True, True, True], [False] * 3, [True, False, True]])
    fused = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
    assert type(fused.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    math_route = F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=mask)
    assert type(math_route.grad_fn).__name__ == "UnsafeViewBackward0"
    assert fused[0, :, 1].abs().sum().item() == 0.0  # every key masked: zeros, not nan
    np.testing.assert_allclose(fused[0].detach().numpy(), math_route.detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    (fused.sum() + math_route.sum()).backward()
    assert np.isfinite(q.grad.numpy()).all()


# --- GELU (private: used when nn.functional has none) -------------------------------------------

@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_private_gelu(approximate: str) -> None:
    x = np.linspace(-3, 3, 13)
    y = _gelu(torch.tensor(x), approximate).numpy()
    if approximate == "none":
        want = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    else:
        want = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))
                for v in x]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-14)
    _check_function(lambda t: _gelu(t, approximate), [normal(7)])


# --- layout details ------------------------------------------------------------------------------

def test_dropout_of_a_transposed_batch_draws_in_memory_order() -> None:
    """The mask of a permuted view is the mask of its contiguous source, permuted."""
    base = torch.ones(3, 4, 5)
    torch.manual_seed(5)
    direct = F.dropout(base, 0.5)
    torch.manual_seed(5)
    permuted = F.dropout(base.permute(2, 0, 1), 0.5)
    np.testing.assert_array_equal(permuted.numpy(), direct.permute(2, 0, 1).numpy())


def test_module_list_prints_runs_of_equal_children_once() -> None:
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.Linear(2, 2), nn.Linear(2, 2)])
    assert repr(ml) == ("ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n"
                        "  (3-4): 2 x Linear(in_features=2, out_features=2, bias=True)\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_lstm_parameters_in_torch_order() -> None:
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    names = [n for n, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and len(names) == 20
    assert m.weight_ih_l1.shape == (16, 4) and m.weight_hh_l0.shape == (16, 2)
    out, (h, c) = m(torch.zeros(5, 2, 3))
    assert (out.shape, h.shape, c.shape) == ((5, 2, 4), (4, 2, 2), (4, 2, 4))


def test_projecting_float32_lstm_warns_once_like_torch() -> None:
    """torch 2.13 says once per process that oneDNN cannot run a projecting LSTM."""
    import warnings

    from st_autodiff.runtime.nn import rnn

    rnn._WARNED.discard("projection")
    m = nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            m(torch.zeros(2, 1, 3))
        m.double()(torch.zeros(2, 1, 3, dtype=torch.float64))
    assert [str(w.message) for w in caught] == [
        "LSTM with projections is not supported with oneDNN. Using default implementation. "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)"]
