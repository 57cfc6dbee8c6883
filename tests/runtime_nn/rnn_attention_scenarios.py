"""Scenarios for the recurrent, normalization and attention layers, written once for both
libraries (``lib`` is ``st_autodiff`` or ``torch``).

Each scenario seeds the default generator, builds a model (so its parameters are drawn as
the library draws them), runs it on fixed inputs (sines of a ramp, no random draws), runs
a backward and returns a flat dict: lists of numbers (values and gradients) and strings
(node names, reprs).  ``data/make_rnn_attention_refs.py`` runs them under torch 2.13 and
stores the results in ``data/rnn_attention_torch213.json``; ``test_rnn_attention.py``
runs them under st_autodiff and compares without needing torch.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

SCENARIOS: dict[str, Callable[[Any], dict]] = {}


def scenario(fn: Callable[[Any], dict]) -> Callable[[Any], dict]:
    SCENARIOS[fn.__name__] = fn
    return fn


def ramp(lib: Any, *shape: int, scale: float = 0.37, dtype: Any = None) -> Any:
    """Fixed inputs: ``sin(scale * k)`` over the elements in order."""
    n = int(np.prod(shape))
    t = lib.tensor(np.sin(scale * np.arange(1, n + 1)).reshape(shape).astype(np.float32))
    return t if dtype is None else t.to(dtype)


def flat(t: Any, n: int | None = None) -> list[float]:
    values = t.detach().reshape(-1).tolist()
    return [float(v) for v in (values if n is None else values[:n])]


def node(t: Any) -> str:
    return "None" if t.grad_fn is None else type(t.grad_fn).__name__


def _recurrent(lib: Any, kind: str, batch_first: bool = False, **kw: Any) -> dict:
    lib.manual_seed(0)
    m = getattr(lib.nn, kind)(3, 4, batch_first=batch_first, **kw)
    x = ramp(lib, *((2, 5, 3) if batch_first else (5, 2, 3))).requires_grad_()
    out, h = m(x)
    states = h if isinstance(h, tuple) else (h,)
    loss = out.pow(2).sum() + sum(s.sin().sum() for s in states)
    loss.backward()
    first = next(iter(m.parameters()))
    return {"init": flat(first, 6), "out": flat(out), "h": [v for s in states for v in flat(s)],
            "grad_x": flat(x.grad), "grad_first": flat(first.grad),
            "names": [node(out)] + [node(s) for s in states], "repr": repr(m)}


@scenario
def rnn_tanh_two_layers(lib: Any) -> dict:
    return _recurrent(lib, "RNN", num_layers=2)


@scenario
def rnn_relu_bidirectional_batch_first(lib: Any) -> dict:
    return _recurrent(lib, "RNN", nonlinearity="relu", bidirectional=True, batch_first=True)


@scenario
def lstm_bidirectional_two_layers(lib: Any) -> dict:
    return _recurrent(lib, "LSTM", num_layers=2, bidirectional=True)


@scenario
def lstm_projection(lib: Any) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: projections are not supported by oneDNN
        return _recurrent(lib, "LSTM", proj_size=2, batch_first=True)


@scenario
def gru_no_bias(lib: Any) -> dict:
    return _recurrent(lib, "GRU", bias=False, num_layers=2)


@scenario
def gru_train_dropout(lib: Any) -> dict:
    """Dropout between layers in training draws PyTorch's mask."""
    return _recurrent(lib, "GRU", num_layers=3, dropout=0.3)


@scenario
def cells(lib: Any) -> dict:
    result: dict = {}
    for kind in ("RNNCell", "LSTMCell", "GRUCell"):
        lib.manual_seed(0)
        cell = getattr(lib.nn, kind)(3, 4)
        x = ramp(lib, 2, 3).requires_grad_()
        out = cell(x)
        out = cell(x * 0.5, out)
        h = out[0] if isinstance(out, tuple) else out
        h.pow(2).sum().backward()
        result[kind] = flat(h) + flat(x.grad) + flat(cell.weight_hh.grad, 6)
        result[kind + " name"] = node(h)
    return result


@scenario
def layer_norm(lib: Any) -> dict:
    ln = lib.nn.LayerNorm((2, 3), eps=1e-3)
    with lib.no_grad():
        ln.weight.copy_(ramp(lib, 2, 3, scale=0.9) + 1)
        ln.bias.copy_(ramp(lib, 2, 3, scale=1.3))
    x = ramp(lib, 4, 2, 3).requires_grad_()
    y = ln(x)
    (y * ramp(lib, 4, 2, 3, scale=0.2)).sum().backward()
    return {"y": flat(y), "grad_x": flat(x.grad), "grad_w": flat(ln.weight.grad),
            "grad_b": flat(ln.bias.grad), "name": node(y), "repr": repr(ln)}


@scenario
def sdpa(lib: Any) -> dict:
    result: dict = {}
    F = lib.nn.functional
    masks = {"none": None, "causal": "causal",
             "bool": lib.tensor([[True, False, True, True], [False] * 4,
                                 [True, True, False, True]]),
             "float": ramp(lib, 3, 4, scale=2.1)}
    for shape_name, lead in (("4d", (2, 2)), ("3d", (2,))):
        for mask_name, mask in masks.items():
            q = ramp(lib, *lead, 3, 5).requires_grad_()
            k = ramp(lib, *lead, 4, 5, scale=0.61).requires_grad_()
            v = ramp(lib, *lead, 4, 5, scale=0.83).requires_grad_()
            if mask == "causal":
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            (out * ramp(lib, *out.shape, scale=0.29)).sum().backward()
            key = f"{shape_name} {mask_name}"
            result[key] = flat(out) + flat(q.grad) + flat(k.grad) + flat(v.grad)
            result[key + " name"] = node(out)
    return result


@scenario
def multihead_attention(lib: Any) -> dict:
    result: dict = {}
    for need_weights in (True, False):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(6, 2, batch_first=True)
        x = ramp(lib, 2, 5, 6).requires_grad_()
        kpm = lib.tensor([[False] * 4 + [True], [False] * 5])
        out, w = m(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
        (out.sin().sum() + (w.pow(2).sum() if w is not None else 0)).backward()
        tag = "weights" if need_weights else "no weights"
        result[tag] = (flat(out) + ([] if w is None else flat(w)) + flat(x.grad)
                       + flat(m.in_proj_weight.grad, 12) + flat(m.in_proj_weight, 6))
        result[tag + " names"] = [node(out), "None" if w is None else node(w)]
    result["repr"] = repr(m)
    return result


def _encoder(lib: Any, training: bool, **kw: Any) -> dict:
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, **kw)
        enc = lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))
    enc.train(training)
    x = ramp(lib, 5, 3, 8).requires_grad_()
    mask = lib.tensor(np.triu(np.ones((5, 5), dtype=bool), 1))
    out = enc(x, mask=mask)
    out.pow(3).sum().backward()
    return {"out": flat(out), "grad_x": flat(x.grad),
            "grad_in_proj": flat(enc.layers[0].self_attn.in_proj_weight.grad, 12),
            "name": node(out), "repr": repr(enc), "warnings": [str(w.message) for w in caught]}


@scenario
def encoder_eval(lib: Any) -> dict:
    return _encoder(lib, False)


@scenario
def encoder_train_norm_first_gelu(lib: Any) -> dict:
    return _encoder(lib, True, norm_first=True, activation="gelu")


@scenario
def transformer_train(lib: Any) -> dict:
    """The encoder-decoder model in training: Xavier re-draws and every dropout mask."""
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = lib.nn.Transformer(8, 2, 1, 2, 16, batch_first=True)
    src = ramp(lib, 2, 5, 8).requires_grad_()
    tgt = ramp(lib, 2, 3, 8, scale=0.53).requires_grad_()
    mask = lib.nn.Transformer.generate_square_subsequent_mask(3)
    out = model(src, tgt, tgt_mask=mask)
    out.pow(2).sum().backward()
    return {"out": flat(out), "grad_src": flat(src.grad), "grad_tgt": flat(tgt.grad),
            "param": flat(model.decoder.layers[1].multihead_attn.in_proj_weight, 8),
            "name": node(out), "mask": repr(mask)}
