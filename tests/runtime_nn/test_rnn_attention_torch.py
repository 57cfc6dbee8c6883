"""Recurrent layers, layer norm, attention and the transformer encoder against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``st_autodiff`` or ``torch``)
from the same seed and compares initial parameters (bit for bit), outputs, gradients,
``grad_fn`` names, reprs and error messages.  Skipped where torch is not installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

from .test_nn_vs_torch import arrays, both  # noqa: E402  (the same helpers)


def assert_close(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    for a, b in zip(arrays(ours), arrays(theirs), strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def name(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def error_of(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return ("none", "")


# --- recurrent layers ------------------------------------------------------------------------

RNN_CASES = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bidirectional": True, "batch_first": True}), ("RNN", {"bias": False}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"batch_first": True}), ("LSTM", {"proj_size": 2, "num_layers": 2}),
    ("LSTM", {"bias": False, "bidirectional": True, "batch_first": True}),
    ("GRU", {}), ("GRU", {"num_layers": 3, "bidirectional": True}),
    ("GRU", {"batch_first": True, "bias": False}),
]


def _state_names(h: Any) -> list:
    return [name(t) for t in (h if isinstance(h, tuple) else (h,))]


@pytest.mark.parametrize("kind,kw", RNN_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_match(kind, kw, dtype, with_state):
    """Initial parameters bit for bit; outputs, states, gradients and node names."""

    def run(lib):
        dt = getattr(lib, dtype)
        m = getattr(lib.nn, kind)(3, 4, dtype=dt, **kw)
        dirs = 2 if kw.get("bidirectional") else 1
        layers = kw.get("num_layers", 1)
        shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
        x = lib.randn(*shape, dtype=dt, requires_grad=True)
        args: tuple = (x,)
        if with_state:
            out_size = kw.get("proj_size", 0) or 4
            h0 = lib.randn(layers * dirs, 2, out_size, dtype=dt, requires_grad=True)
            if kind == "LSTM":
                c0 = lib.randn(layers * dirs, 2, 4, dtype=dt, requires_grad=True)
                args += ((h0, c0),)
            else:
                args += (h0,)
        out, h = m(*args)
        states = h if isinstance(h, tuple) else (h,)
        loss = out.pow(2).sum() + sum((s * s.detach().cos()).sum() for s in states)
        loss.backward()
        leaves = [x] + [p for p in m.parameters()]
        if with_state:
            leaves += list(args[1]) if kind == "LSTM" else [args[1]]
        init = [p.detach().clone() for p in m.parameters()]
        fused = kind == "LSTM" and dtype == "float32" and not kw.get("proj_size")
        return (init, [out, *states], [t.grad for t in leaves], name(out), _state_names(h),
                [n for n, _ in m.named_parameters()], repr(m),
                None if fused else graph_names(out))  # torch's oneDNN LSTM is one node

    ours, theirs = both(run)
    for a, b in zip(arrays(ours[0]), arrays(theirs[0])):
        np.testing.assert_array_equal(a, b)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}
    assert_close(ours[1], theirs[1], **tol)
    assert_close(ours[2], theirs[2], **tol)
    assert ours[3:] == theirs[3:]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_unbatched_and_eval(kind):
    def run(lib):
        m = getattr(lib.nn, kind)(3, 4, num_layers=2)
        x = lib.randn(6, 3, requires_grad=True)
        out, h = m(x)
        m.eval()
        with lib.no_grad():
            out2, _ = m(x)
        return [out, *(h if isinstance(h, tuple) else (h,))], name(out), out2.grad_fn

    ours, theirs = both(run)
    assert_close(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    assert ours[1:] == theirs[1:]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_dropout_between_layers_in_training(kind):
    """Dropout draws the same mask as PyTorch's CPU kernel, so training runs agree."""

    def run(lib):
        m = getattr(lib.nn, kind)(3, 4, num_layers=3, dropout=0.4)
        out, _ = m(lib.randn(5, 2, 3))
        return out

    assert_close(*both(run), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match(kind, batched):
    def run(lib):
        cell = getattr(lib.nn, kind)(3, 4)
        x = lib.randn(*((2, 3) if batched else (3,)), requires_grad=True)
        out = cell(x)
        out = cell(x, out)
        h = out[0] if isinstance(out, tuple) else out
        (h.sum() * 2 + (out[1].sum() if isinstance(out, tuple) else 0)).backward()
        return ([p.detach().clone() for p in cell.parameters()], h, x.grad,
                [p.grad for p in cell.parameters()], name(h), repr(cell), graph_names(h))

    ours, theirs = both(run)
    for a, b in zip(arrays(ours[0]), arrays(theirs[0])):
        np.testing.assert_array_equal(a, b)
    for k in (1, 2, 3):
        assert_close(ours[k], theirs[k], rtol=1e-5, atol=1e-6)
    assert ours[4:] == theirs[4:]


def test_recurrent_reprs_and_errors():
    def run(lib):
        nn = lib.nn
        reprs = [repr(m) for m in (
            nn.RNN(3, 4, nonlinearity="relu", bias=False, batch_first=True),
            nn.LSTM(3, 4, 2, dropout=0.5, bidirectional=True, proj_size=2),
            nn.GRU(3, 4, num_layers=2), nn.RNNCell(3, 4, nonlinearity="relu"),
            nn.GRUCell(3, 4, bias=False), nn.LSTMCell(2, 3))]
        errors = [error_of(f) for f in (
            lambda: nn.LSTM(3, 4, dropout=1.5), lambda: nn.LSTM(3, 4, num_layers=0),
            lambda: nn.GRU(3, 0), lambda: nn.LSTM(3, 4, proj_size=4),
            lambda: nn.LSTM(3, 4, proj_size=-1), lambda: nn.RNN(3, 4, nonlinearity="sig"),
            lambda: nn.GRU(3, 4)(lib.randn(5, 2, 2)),
            lambda: nn.GRU(3, 4)(lib.randn(5, 2, 3), lib.randn(1, 3, 4)),
            lambda: nn.GRU(3, 4)(lib.randn(2, 5, 2, 3)),
            lambda: nn.RNN(3, 4)(lib.randn(2, 5, 2, 3)),
            lambda: nn.RNN(3, 4)(lib.randn(5, 3), lib.randn(1, 2, 4)),
            lambda: nn.RNN(3, 4)(lib.randn(2, 5, 3), lib.randn(4)),
            lambda: nn.LSTM(3, 4)(lib.randn(5, 2, 3), (lib.randn(1, 2, 4), lib.randn(1, 3, 4))),
            lambda: nn.LSTM(3, 4)(lib.randn(5, 3), (lib.randn(1, 1, 4), lib.randn(1, 4))),
            lambda: nn.GRUCell(3, 4)(lib.randn(2, 2, 3)),
            lambda: nn.GRUCell(3, 4)(lib.randn(2, 3), lib.randn(3, 4)),
            lambda: nn.GRUCell(3, 4)(lib.randn(2, 2)),
            lambda: nn.LSTMCell(3, 4)(lib.randn(2, 3), (lib.randn(2, 5), lib.randn(2, 4))),
            lambda: nn.LSTMCell(3, 4)(lib.randn(2, 3), (lib.randn(2, 4), lib.randn(2, 5))))]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nn.LSTM(3, 4, dropout=0.5)
        return reprs, errors, [str(w.message) for w in caught]

    ours, theirs = both(run)
    assert ours == theirs


# --- layer norm ------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"eps": 1e-3}, {"elementwise_affine": False},
                                {"bias": False}])
@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_layer_norm_module_matches(kw, shape):
    def run(lib):
        m = lib.nn.LayerNorm(shape, **kw)
        if m.weight is not None:
            with lib.no_grad():
                m.weight.uniform_(0.5, 1.5)
                if m.bias is not None:
                    m.bias.uniform_(-1, 1)
        x = lib.randn(2, 3, 4, requires_grad=True)
        y = m(x)
        (y * lib.arange(y.numel()).reshape(y.shape).sin()).sum().backward(retain_graph=True)
        grads = [x.grad] + [p.grad for p in m.parameters()]
        fn = y.grad_fn
        return (y, grads, fn._saved_result1, fn._saved_result2, name(y), repr(m),
                fn._saved_normalized_shape, [n for n, _ in m.named_parameters()],
                [f is None for f, _ in fn.next_functions])

    ours, theirs = both(run)
    for k in range(4):
        assert_close(ours[k], theirs[k], rtol=1e-5, atol=2e-6)
    assert ours[4:] == theirs[4:]


def test_layer_norm_errors():
    def run(lib):
        F, x = lib.nn.functional, lib.randn(2, 5, 3)
        return [error_of(f) for f in (
            lambda: F.layer_norm(x, (4,)), lambda: F.layer_norm(x, (3,), lib.ones(4)),
            lambda: F.layer_norm(x, (3,), None, lib.ones(4)), lambda: F.layer_norm(x, 3),
            lambda: F.layer_norm(x, (2, 5, 3, 1)))]

    ours, theirs = both(run)
    assert ours == theirs


# --- attention -------------------------------------------------------------------------------

def graph_names(t: Any) -> list[str]:
    """Every node reachable from ``t.grad_fn``, breadth first (for route checks)."""
    seen, order, queue = set(), [], [t.grad_fn]
    while queue:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(fn.name())
        queue.extend(f for f, _ in fn.next_functions)
    return order


SDPA_CASES = [
    ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4), {}),
    ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4), {"is_causal": True}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), {"mask": "bool_dead_row"}),
    ((2, 1, 4, 3), (2, 1, 5, 3), (2, 1, 5, 3), {"mask": "float", "scale": 0.3}),
    ((3, 5, 4), (3, 6, 4), (3, 6, 4), {"mask": "bool"}),
    ((2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 7), {}),
    ((5, 4), (6, 4), (6, 4), {"is_causal": True}),
]


@pytest.mark.parametrize("qs,ks,vs,kw", SDPA_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scaled_dot_product_attention_matches(qs, ks, vs, kw, dtype):
    def run(lib):
        dt = getattr(lib, dtype)
        q, k, v = (lib.randn(*s, dtype=dt, requires_grad=True) for s in (qs, ks, vs))
        args = {key: val for key, val in kw.items() if key != "mask"}
        L, S = qs[-2], ks[-2]
        if kw.get("mask") == "float":
            args["attn_mask"] = lib.randn(L, S, dtype=dt)
        elif kw.get("mask") == "bool":
            args["attn_mask"] = lib.randn(L, S) > 0
        elif kw.get("mask") == "bool_dead_row":
            args["attn_mask"] = lib.tensor([[True, False, True], [False] * 3, [True] * 3])
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **args)
        (out * out.detach().cos()).sum().backward()
        return out, [q.grad, k.grad, v.grad], name(out)

    ours, theirs = both(run)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-13}
    assert_close(ours[0], theirs[0], **tol)
    assert_close(ours[1], theirs[1], **tol)
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("kw", [
    {}, {"need_weights": False}, {"average_attn_weights": False}, {"kpm": True},
    {"mask": "bool"}, {"mask": "float", "kpm": True, "need_weights": False},
    {"mask": "3d"}, {"mask": "causal", "need_weights": False}, {"cross": "kv"},
    {"cross": "separate"}, {"cross": "qkv", "bias": False},
    {"add_bias_kv": True, "add_zero_attn": True, "kpm": True, "mask": "float"},
    {"add_bias_kv": True, "need_weights": False, "mask": "bool"},
    {"add_zero_attn": True, "cross": "kv", "kpm": True}])
@pytest.mark.parametrize("layout", ["seq_first", "batch_first", "unbatched"])
def test_multihead_attention_matches(kw, layout):
    """Initial parameters bit for bit, outputs, weights, gradients and node names."""
    if layout == "unbatched" and (kw.get("kpm") or kw.get("mask") == "3d"):
        pytest.skip("these masks have batch dimensions")

    def run(lib):
        kdim = 5 if kw.get("cross") == "separate" else None
        m = lib.nn.MultiheadAttention(6, 2, bias=kw.get("bias", True), kdim=kdim, vdim=kdim,
                                      batch_first=layout == "batch_first",
                                      add_bias_kv=kw.get("add_bias_kv", False),
                                      add_zero_attn=kw.get("add_zero_attn", False))
        L, S = 5, (4 if kw.get("cross") else 5)

        def seq(n: int, e: int = 6) -> Any:
            shape = {"seq_first": (n, 2, e), "batch_first": (2, n, e), "unbatched": (n, e)}
            return lib.randn(*shape[layout], requires_grad=True)

        q = seq(L)
        k = seq(S, kdim or 6) if kw.get("cross") else q
        v = k if kw.get("cross") == "kv" else (seq(S, kdim or 6) if kw.get("cross") else q)
        args: dict = {n: kw[n] for n in ("need_weights", "average_attn_weights") if n in kw}
        if kw.get("kpm"):
            args["key_padding_mask"] = lib.tensor([[False] * (S - 1) + [True],
                                                   [False, True] + [False] * (S - 2)])
        mk = kw.get("mask")
        if mk in ("bool", "causal"):
            args["attn_mask"] = lib.tensor(np.triu(np.ones((L, S), dtype=bool), 1))
            args["is_causal"] = mk == "causal"
        elif mk == "float":
            args["attn_mask"] = lib.randn(L, S)
        elif mk == "3d":
            args["attn_mask"] = lib.randn(4, L, S)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, w = m(q, k, v, **args)
        (out.sin().sum() + (w.pow(2).sum() if w is not None else 0)).backward()
        leaves = [q, k, v] + list(m.parameters())
        return ([p.detach().clone() for p in m.parameters()], [out] + ([w] if w is not None
                else []), [t.grad for t in leaves if t.grad is not None], name(out),
                None if w is None else name(w), repr(m),
                [n for n, _ in m.named_parameters()],
                # the whole graph; a key/value pair different from the query is split by
                # sizes, which this runtime's split names SplitBackward0 (not ours to fix here)
                None if kw.get("cross") == "kv" else graph_names(out))

    ours, theirs = both(run)
    if kw.get("add_bias_kv"):  # bias_k/bias_v are Xavier-normal: normal_ may differ by an ulp
        assert_close(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
    else:
        for a, b in zip(arrays(ours[0]), arrays(theirs[0]), strict=True):
            np.testing.assert_array_equal(a, b)
    assert_close(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert_close(ours[2], theirs[2], rtol=1e-4, atol=1e-5)
    assert ours[3:] == theirs[3:]


def test_attention_errors_and_warnings():
    def run(lib):
        nn, q = lib.nn, lib.randn(5, 2, 4)
        m = nn.MultiheadAttention(4, 2)
        errors = [error_of(f) for f in (
            lambda: nn.MultiheadAttention(5, 2), lambda: nn.MultiheadAttention(0, 2),
            lambda: m(q, q, q, attn_mask=lib.zeros(3, 3)),
            lambda: m(q, q, q, attn_mask=lib.zeros(3, 3, 3)),
            lambda: m(q, q, q, attn_mask=lib.zeros(5, 5, dtype=lib.int64)),
            lambda: m(q, q, q, is_causal=True), lambda: m(q[:, :, :3], q, q),
            lambda: m(q, q[:3], q[:2]), lambda: m(q, q[0], q[0]), lambda: m(q[0], q, q),
            lambda: m(q[None], q[None], q[None]),
            lambda: m(q, q, q, key_padding_mask=lib.zeros(2, 5, 1, dtype=lib.bool)),
            lambda: m(q[:, 0], q[:, 0], q[:, 0], key_padding_mask=lib.zeros(2, 5)),
            lambda: m(q[:, 0], q[:, 0], q[:, 0], attn_mask=lib.zeros(3, 5, 5)),
            lambda: m(q, q, q, attn_mask=lib.zeros(1, 1, 5, 5)),
            lambda: m(q, q, q, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool)),
            lambda: m(q, q, q, key_padding_mask=lib.zeros(3, 5, dtype=lib.bool)),
            lambda: lib.nn.functional.scaled_dot_product_attention(
                q, q, q, attn_mask=lib.ones(2, 2, dtype=lib.bool), is_causal=True),
            lambda: nn.RNNCell(3, 4, nonlinearity="x")(lib.randn(2, 3)),
            lambda: nn.LSTM(3, 4)(lib.randn(5, 2, 3), lib.randn(1, 2, 4)),
            lambda: nn.LSTM(3, 4)(lib.randn(5, 2, 3, dtype=lib.float64)),
            lambda: nn.GRU(3, 4)(lib.randn(0, 2, 3)),
            lambda: nn.LayerNorm(3)(lib.randn(2, 3, dtype=lib.float64)),
            lambda: nn.TransformerEncoderLayer(4, 2, activation="tanh"))]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(q, q, q, key_padding_mask=lib.zeros(2, 5, dtype=lib.bool),
              attn_mask=lib.zeros(5, 5))
        return errors, [str(w.message) for w in caught]

    ours, theirs = both(run)
    assert ours == theirs


# --- transformer encoder ---------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {}, {"norm_first": True}, {"activation": "gelu", "batch_first": True},
    {"bias": False, "layer_norm_eps": 1e-3}, {"batch_first": True, "norm_first": True}])
@pytest.mark.parametrize("training", [False, True])
def test_transformer_encoder_matches(kw, training):
    """Two layers and a final norm; in training the dropout masks are drawn as PyTorch
    draws them, so even training-mode outputs agree."""

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer = lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, **kw)
            enc = lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))
        enc.train(training)
        shape = (3, 5, 8) if kw.get("batch_first") else (5, 3, 8)
        x = lib.randn(*shape, requires_grad=True)
        kpm = lib.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
        mask = lib.tensor(np.triu(np.ones((5, 5), dtype=bool), 1))
        out = enc(x, mask=mask, src_key_padding_mask=kpm)
        out.pow(2).sum().backward()
        grads = [x.grad] + [p.grad for p in enc.parameters()]
        return (out, grads, name(out), repr(enc), [str(w.message) for w in caught],
                [n for n, _ in enc.named_parameters()], name(layer(x)))

    ours, theirs = both(run)
    assert_close(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    assert_close(ours[1], theirs[1], rtol=1e-3, atol=1e-4)
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("kpm_rows", [((0, 0, 0, 0), (0, 0, 1, 1)), ((0, 1, 0, 0), (0, 0, 0, 1))])
def test_transformer_encoder_nested_route_in_evaluation(kpm_rows):
    """Evaluation without grad, batch first, padding mask: padded positions come out zero
    when the padding is at the end of each row (PyTorch's nested-tensor route)."""

    def run(lib):
        layer = lib.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
        enc = lib.nn.TransformerEncoder(layer, 2).eval()
        x = lib.randn(2, 4, 4)
        with lib.no_grad():
            return enc(x, src_key_padding_mask=lib.tensor(kpm_rows, dtype=lib.bool))

    assert_close(*both(run), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu"},
                                {"batch_first": True}])
@pytest.mark.parametrize("training", [False, True])
def test_transformer_matches(kw, training):
    """The encoder-decoder model: Xavier re-draw of every matrix, causal target mask from
    ``generate_square_subsequent_mask``, padding masks, and dropout in training."""

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = lib.nn.Transformer(8, 2, 2, 2, 16, **kw)
        model.train(training)
        bf = kw.get("batch_first", False)
        src = lib.randn(*((3, 5, 8) if bf else (5, 3, 8)), requires_grad=True)
        tgt = lib.randn(*((3, 4, 8) if bf else (4, 3, 8)), requires_grad=True)
        tgt_mask = lib.nn.Transformer.generate_square_subsequent_mask(4)
        kpm = lib.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
        out = model(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=kpm,
                    memory_key_padding_mask=kpm)
        out.pow(2).sum().backward()
        return ([p.detach().clone() for p in model.parameters()], out,
                [src.grad, tgt.grad] + [p.grad for p in model.parameters()], name(out),
                repr(model), [str(w.message) for w in caught], repr(tgt_mask))

    ours, theirs = both(run)
    for a, b in zip(arrays(ours[0]), arrays(theirs[0]), strict=True):
        np.testing.assert_array_equal(a, b)
    assert_close(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    assert_close(ours[2], theirs[2], rtol=1e-3, atol=1e-4)
    assert ours[3:] == theirs[3:]


def test_transformer_errors():
    def run(lib):
        model = lib.nn.Transformer(8, 2, 1, 1, 16)
        return [error_of(f) for f in (
            lambda: model(lib.randn(5, 3, 8), lib.randn(4, 2, 8)),
            lambda: model(lib.randn(5, 3, 8), lib.randn(4, 3, 6)))]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = both(run)
    assert ours == theirs
