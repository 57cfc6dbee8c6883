"""``nn.RNN``/``LSTM``/``GRU`` over a ``PackedSequence``, step by step as PyTorch runs it.

The packed rows are sorted by sequence length, so at step ``t`` the running sequences are
the first ``batch_sizes[t]``.  Each direction of each layer projects all packed rows at
once (one ``linear``), then steps through time with the layer's own cell step
(``rnn_steps``) on the running prefix of the batch: going forwards the batch shrinks and a
sequence that stops keeps its last state as its final one; going backwards it grows and a
sequence joins with its initial state.  The outputs of the steps, concatenated, are the
output's packed rows.  Everything is recorded ops, so gradients (of any order) flow as
through the padded layer.
"""

from __future__ import annotations

from typing import Any

from .. import shape_ops as S
from ..factory import zeros
from ..tensor import Tensor
from . import functional as F
from .rnn_steps import gru_step, lstm_step, tanh_step
from .utils.rnn import PackedSequence, _ints

__all__ = ["run_packed"]


def _step(mode: str, gi: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor,
          b_hh: Tensor | None, w_hr: Tensor | None) -> tuple[Tensor, Tensor | None]:
    if mode == "LSTM":
        assert c is not None
        return lstm_step(gi, h, c, w_hh, b_hh, w_hr)
    if mode == "GRU":
        return gru_step(gi, h, w_hh, b_hh), None
    if mode == "RNN_TANH":
        return tanh_step(gi, h, w_hh, b_hh), None
    return F.relu(F.linear(h, w_hh, b_hh) + gi), None


def _cut(t: Tensor | None, stop: int, start: int = 0) -> Any:
    return None if t is None else t[start:stop]


def _join(a: Tensor | None, b: Tensor | None) -> Any:
    return None if a is None or b is None else S.cat([a, b], 0)


def _direction(layer: Any, k: int, x: Tensor, sizes: list[int], h0: Tensor,
               c0: Tensor | None, reverse: bool) -> tuple[Any, ...]:
    """One direction of one layer over packed rows ``x``: packed outputs, final h, c."""
    params = [getattr(layer, name) for name in layer._all_weights[k]]
    w_ih, w_hh = params[0], params[1]
    b_ih, b_hh = (params[2], params[3]) if layer.bias else (None, None)
    w_hr = params[-1] if layer.proj_size > 0 else None
    gates = F.linear(x, w_ih, b_ih)
    starts = [sum(sizes[:t]) for t in range(len(sizes))]
    outs: list[Any] = [None] * len(sizes)
    mode = layer.mode
    if reverse:
        h, c = h0[:sizes[-1]], _cut(c0, sizes[-1])
        for t in range(len(sizes) - 1, -1, -1):
            n = sizes[t]
            if n > h.shape[0]:  # sequences whose last step is t join with their start
                h, c = S.cat([h, h0[h.shape[0]:n]], 0), _join(c, _cut(c0, n, h.shape[0]))
            h, c = _step(mode, gates[starts[t]:starts[t] + n], h, c, w_hh, b_hh, w_hr)
            outs[t] = h
        return S.cat(outs, 0), h, c
    h, c = h0, c0
    done_h: list[Tensor] = []
    done_c: list[Any] = []
    for t, n in enumerate(sizes):
        if n < h.shape[0]:  # sequences that stopped at t - 1 keep their state
            done_h.append(h[n:])
            done_c.append(_cut(c, h.shape[0], n))
            h, c = h[:n], _cut(c, n)
        h, c = _step(mode, gates[starts[t]:starts[t] + n], h, c, w_hh, b_hh, w_hr)
        outs[t] = h
    h_n = S.cat([h, *reversed(done_h)], 0) if done_h else h
    c_n = c if c is None or not done_c else S.cat([c, *reversed(done_c)], 0)
    return S.cat(outs, 0), h_n, c_n


def run_packed(layer: Any, packed: PackedSequence, hx: Any) -> tuple[Any, ...]:
    """``(packed output, h_n, c_n)`` of ``layer`` over ``packed``; ``hx`` and the final
    states in the batch's original order."""
    lstm = layer.mode == "LSTM"
    data = packed.data
    sizes = _ints(packed.batch_sizes)
    batch = sizes[0]
    layer._check_input(data)
    directions = 2 if layer.bidirectional else 1
    real = layer.proj_size if layer.proj_size > 0 else layer.hidden_size
    shape = (layer.num_layers * directions, batch)
    if hx is None:
        h0 = zeros(*shape, real, dtype=data.dtype, device=data.device)
        c0 = zeros(*shape, layer.hidden_size, dtype=data.dtype, device=data.device) if lstm \
            else None
    else:
        h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)
        layer._check_hidden(h0, (*shape, real), "hidden[0]" if lstm else "hidden")
        if c0 is not None:
            layer._check_hidden(c0, (*shape, layer.hidden_size), "hidden[1]")
        if packed.sorted_indices is not None:  # the states in the packed (sorted) order
            h0 = h0.index_select(1, packed.sorted_indices)
            c0 = None if c0 is None else c0.index_select(1, packed.sorted_indices)
    h_first = S.unbind(h0, 0)
    c_first = S.unbind(c0, 0) if c0 is not None else None
    h_last: list[Tensor] = []
    c_last: list[Tensor] = []
    x = data
    for depth in range(layer.num_layers):
        outs = []
        for d in range(directions):
            k = depth * directions + d
            out, h, c = _direction(layer, k, x, sizes, h_first[k],
                                   None if c_first is None else c_first[k], d == 1)
            outs.append(out)
            h_last.append(h)
            if c is not None:
                c_last.append(c)
        x = outs[0] if directions == 1 else S.cat(outs, 1)
        if layer.dropout and layer.training and depth < layer.num_layers - 1:
            x = F.dropout(x, layer.dropout, True)
    h_n = S.stack(h_last, 0)
    c_n = S.stack(c_last, 0) if lstm else None
    if packed.unsorted_indices is not None:
        h_n = h_n.index_select(1, packed.unsorted_indices)
        c_n = None if c_n is None else c_n.index_select(1, packed.unsorted_indices)
    result = PackedSequence(x, packed.batch_sizes, packed.sorted_indices,
                            packed.unsorted_indices)
    return result, h_n, c_n
