"""One LSTM layer direction as a single graph node (PyTorch's ``MkldnnRnnLayerBackward0``).

For float32 input without projection PyTorch runs each layer and direction of an LSTM as
one oneDNN kernel: one node over ``(input, weight_ih, weight_hh, bias_ih, bias_hh, hx,
cx)`` with three outputs (the sequence of hidden states, the final ``h`` and ``c``).  This
module does the same on arrays (NumPy's, or a device library's through the arrays'
namespace: the same node on ``cuda``), which is also what makes the layer fast: the input
projection of every step is one matrix product, then a short loop per time step runs the
recurrence on arrays (no recorded op per gate), keeping the gate activations for the
backward.

The backward is backpropagation through time written out: per step only the two
recurrent gradients ``dh`` and ``dc`` are chained (the factors they meet are computed for
all steps at once beforehand), and the weight, bias and input gradients are a few matrix
products over all steps afterwards.  Under ``create_graph`` the rule instead rebuilds the
layer from recorded ops (``rnn_steps.lstm_step``) on fresh aliases of its inputs and lets the
engine differentiate that with ``create_graph``, so derivatives of every order are those of
the unrolled layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import shape_ops as S
from ..device import is_device, xp_of
from ..engine import grad
from ..function import MultiRuleNode, node_class
from ..grad_mode import enable_grad
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record_multi
from . import functional as F
from .rnn_steps import lstm_step

__all__ = ["lstm_layer"]


def _blocks(a: Any, axis: int, hidden: int, xp: Any) -> Any:
    """``a``'s gate blocks along ``axis`` reordered from (i, f, g, o) to (f, i, o, g)."""
    def cut(lo: int, hi: int) -> Any:
        return a[(slice(None),) * (axis % a.ndim) + (slice(lo * hidden, hi * hidden),)]

    return xp.concatenate([cut(1, 2), cut(0, 1), cut(3, 4), cut(2, 3)], axis=axis)


def _forward(x: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, h0: Any, c0: Any,
             reverse: bool, xp: Any = np) -> tuple[Any, ...]:
    """Outputs ``(out, h_T, c_T)`` and the cache the backward needs, all arrays of ``xp``
    (NumPy, or the device library for device arrays: the same calls on either)."""
    steps, batch = x.shape[0], x.shape[1]
    hidden = w_hh.shape[1]
    dt = x.dtype
    x2 = x.reshape(steps * batch, x.shape[2])
    if x.shape[2] == 1:  # NumPy's matmul takes a slow loop for an inner size of 1; the
        gi = x2 * w_ih.T  # products themselves are exact, and ``+ 0`` turns a -0 into the
        gi += 0  # +0 that loop's sum from zero gives: the same bits, about 3x faster
    else:
        gi = x2 @ w_ih.T
    if b_ih is not None:
        gi += b_ih
    gi = gi.reshape(steps, batch, 4 * hidden)
    if reverse:
        gi = gi[::-1]
    # Inside the loop the gates are ordered (f, i, o, g) rather than PyTorch's (i, f, g, o):
    # the three sigmoids are one block, and f, i meet (c_prev, g) side by side in one
    # product.  The pre-activations of the sigmoid gates are made negated, so that exp of
    # them is exp(-x) without a negation per step.  Permuting and negating are exact, so
    # every value is bit for bit that of the plain order.
    h1, h2, h3 = hidden, 2 * hidden, 3 * hidden
    flip = xp.ones(4 * hidden, dt)
    flip[:h3] = -1
    if xp is np:
        order = np.r_[h1:h2, 0:h1, h3:4 * hidden, h2:h3]
        gi = gi[..., order] * flip
        w_hh_p = w_hh[order]
        b_hh_p = None if b_hh is None else b_hh[order]
    else:  # the same permutation as block copies (no index table to copy to the device)
        gi = _blocks(gi, -1, hidden, xp) * flip
        w_hh_p = _blocks(w_hh, 0, hidden, xp)
        b_hh_p = None if b_hh is None else _blocks(b_hh, 0, hidden, xp)
    w_hh_t = xp.ascontiguousarray(w_hh_p.T) * flip
    # the bias and the 1 of ``1 + exp(-x)`` as full arrays: adding same-shaped operands
    # skips NumPy's broadcasting loop (the same additions, so the same bits)
    b_hh = None if b_hh_p is None else xp.tile(b_hh_p * flip, (batch, 1))
    empty = xp.empty
    acts = empty((steps, batch, h3), dt)           # sigmoid of f, i, o
    cg = empty((steps + 1, batch, h2), dt)         # (c_(t-1), g_t); c_T last
    tcs = empty((steps, batch, hidden), dt)        # tanh(c_t)
    hs = empty((steps + 1, batch, hidden), dt)     # h_(-1) = h0, then h_t in run order
    hs[0] = h0
    cg[0, :, :h1] = c0
    pre = empty((batch, 4 * hidden), dt)
    pre_s, pre_g = pre[:, :h3], pre[:, h3:]
    prod = empty((batch, h2), dt)
    fc, ig = prod[:, :h1], prod[:, h1:]
    one = xp.ones((batch, h3), dt)
    # Per-step views made in bulk.
    views = zip(acts, acts[..., :h2], acts[..., h2:], gi, hs[:-1], hs[1:], cg[:-1],
                cg[:-1, :, h1:], cg[1:, :, :h1], tcs)
    dot, add, mul, exp, rec = xp.dot, xp.add, xp.multiply, xp.exp, xp.reciprocal
    tanh = xp.tanh
    # (``out`` passed by position: NumPy parses a keyword ``out=`` more slowly, and these
    # small arrays make each call's overhead the larger part of its time)
    with np.errstate(over="ignore"):
        for a, fi, o, gi_t, h, h_new, cg_t, g, c_new, tc in views:
            dot(h, w_hh_t, pre)
            if b_hh is not None:
                add(pre, b_hh, pre)
            add(pre, gi_t, pre)
            exp(pre_s, a)
            add(a, one, a)
            rec(a, a)
            tanh(pre_g, g)
            mul(fi, cg_t, prod)                    # f c_(t-1) and i g
            add(fc, ig, c_new)
            tanh(c_new, tc)
            mul(o, tc, h_new)
    out = hs[:0:-1] if reverse else hs[1:]
    datas = (xp.ascontiguousarray(out), hs[steps].copy(), cg[steps, :, :h1].copy())
    return datas, (acts, cg, tcs, hs)


def _backward(g_out: Any, g_h: Any, g_c: Any, x: Any, w_ih: Any, w_hh: Any, cache: tuple[Any, ...],
              reverse: bool, need: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(gx, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_h0, g_c0)`` on arrays (of the forward's
    library: NumPy or the device's)."""
    acts, cg, tcs, hs = cache
    xp = np if type(acts) is np.ndarray else xp_of(acts)
    steps, batch, hidden = tcs.shape
    four, h2 = 4 * hidden, 2 * hidden
    if reverse:
        g_out = g_out[::-1]
    f, i, o = acts[..., :hidden], acts[..., hidden:h2], acts[..., h2:]
    g, c_prev = cg[:-1, :, hidden:], cg[:-1, :, :hidden]
    # Factors met by dc (for i, f, g) and by dh (for o) in each step, for all steps at once.
    k = xp.empty((steps, batch, 4, hidden), acts.dtype)
    xp.multiply(g, i * (1 - i), out=k[:, :, 0])
    xp.multiply(c_prev, f * (1 - f), out=k[:, :, 1])
    xp.multiply(i, 1 - g * g, out=k[:, :, 2])
    xp.multiply(tcs, o * (1 - o), out=k[:, :, 3])
    through = o * (1 - tcs * tcs)                     # d c_t / d h_t path factor
    d = xp.empty_like(k)
    dh = g_h.copy()
    dc = g_c.copy()
    dc3 = dc[:, None, :]
    add, mul, dot = xp.add, xp.multiply, xp.dot
    tmp = xp.empty_like(dh)
    w = xp.ascontiguousarray(w_hh)
    views = zip(reversed(g_out), reversed(through), reversed(k[:, :, :3]), reversed(k[:, :, 3]),
                reversed(d), reversed(d[:, :, :3]), reversed(d[:, :, 3]), reversed(f))
    for g_t, th, k3, ko, d_t, d3, do, f_t in views:  # (``out`` by position, as above)
        add(dh, g_t, dh)
        mul(dh, th, tmp)
        add(dc, tmp, dc)
        mul(k3, dc3, d3)
        mul(ko, dh, do)
        dot(d_t.reshape(batch, four), w, dh)
        mul(dc, f_t, dc)
    d2 = d.reshape(steps * batch, four)
    gw_hh = d2.T @ hs[:-1].reshape(steps * batch, hidden)
    gb = d2.sum(0) if need[3] or need[4] else None
    if reverse:
        d = d[::-1]
    d2 = d.reshape(steps * batch, four)
    x2 = x.reshape(steps * batch, x.shape[2])
    gx = (d2 @ w_ih).reshape(x.shape) if need[0] else None
    gw_ih = d2.T @ x2 if need[1] else None
    return gx, gw_ih, gw_hh, gb, gb, dh, dc


def _unrolled(x: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any, h: Tensor,
              c: Tensor, reverse: bool) -> tuple[Any, ...]:
    """The same layer from recorded ops (for a ``create_graph`` backward)."""
    steps = S.unbind(F.linear(x, w_ih, b_ih), 0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outs: list[Any] = [None] * len(steps)
    for t in order:
        h, c = lstm_step(steps[t], h, c, w_hh, b_hh, None)
        outs[t] = h
    return S.stack(outs, 0), h, c


def _rule(ops: Any, gs: tuple[Any, ...], out: Any, x: Any, w_ih: Any, w_hh: Any, b_ih: Any,
          b_hh: Any, h0: Any, c0: Any, reverse: bool = False, need: tuple[Any, ...] = (),
          cache: Any = None, **_: Any) -> tuple[Any, ...]:
    if not ops.tensors:
        return _backward(gs[0], gs[1], gs[2], x, w_ih, w_hh, cache, reverse, need)
    # Fresh aliases: only the partial derivatives through this node's own inputs belong here.
    ins: list[Any] = [None if a is None else S.view_as(a, a)
                      for a in (x, w_ih, w_hh, b_ih, b_hh, h0, c0)]
    with enable_grad():
        # (mypy lets a starred list fill every parameter, so it counts ``reverse`` as extra)
        outs = _unrolled(*ins, reverse)  # type: ignore[call-arg]
    wrt = [t for t in ins if t is not None and t.requires_grad]
    found = iter(grad(list(outs), wrt, list(gs), allow_unused=True, create_graph=True,
                      materialize_grads=True) if wrt else [])
    return tuple(next(found) if t is not None and t.requires_grad else None for t in ins)


def _param(name: str) -> Any:
    return lambda args, params: params[name]


_PLAN = (("batch_first", _param("batch_first"), None),
         ("batch_sizes", lambda a, p: (), None),
         ("bidirectional", _param("bidirectional"), None),
         ("cx_", 6, None), ("has_biases", lambda a, p: a[3] is not None, None),
         ("hidden_size", lambda a, p: a[2].shape[1], None), ("hx_", 5, None),
         ("input", 0, None), ("mode", lambda a, p: 2, None),
         ("num_layers", _param("num_layers"), None), ("reverse", _param("reverse"), None),
         ("train", _param("train"), None), ("weight0", 1, None), ("weight1", 2, None),
         ("weight2", 3, None), ("weight3", 4, None))
class _LayerNode(MultiRuleNode):
    """Three outputs, also after its saved values are freed (so that a second backward
    reports the freed graph); freeing also drops the forward's cache."""

    __slots__ = ()

    _nout = 3

    def _release(self) -> None:
        super()._release()
        self._params.pop("cache", None)


_LSTM_LAYER = node_class("MkldnnRnnLayerBackward0", _rule, (0, 1, 2, 3, 4, 5, 6), _PLAN, False,
                         _LayerNode)


def lstm_layer(x: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
               b_hh: Tensor | None, h0: Tensor, c0: Tensor, reverse: bool,
               module: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """One direction of one LSTM layer over time-major ``x``: ``(output, h_n, c_n)``.

    ``module`` holds the settings the node shows as saved (``batch_first``,
    ``bidirectional``, ``num_layers``, ``train``), as PyTorch records the module's."""
    args = (x, w_ih, w_hh, b_ih, b_hh, h0, c0)
    arrays: list[Any] = [None if a is None else a._data for a in args]
    kind = type(arrays[0])
    if any(a is not None and type(a) is not kind for a in arrays) or not (
            kind is np.ndarray or is_device(arrays[0])):
        # host and device arrays mixed (the recorded ops raise PyTorch's error), or an
        # array type of neither library
        return _unrolled(*args, reverse)
    xp = np if kind is np.ndarray else xp_of(arrays[0])
    # (mypy lets a starred list fill every parameter, so it counts the rest as extra)
    datas, cache = _forward(*arrays, reverse, xp)  # type: ignore[call-arg]
    if not needs_grad(args):
        return tuple(plain(d) for d in datas)
    need = tuple(a is not None and a._requires_grad for a in args)
    params = {"batch_first": False, "bidirectional": False, "num_layers": 1, "train": True,
              **(module or {}), "reverse": reverse, "need": need, "cache": cache}
    return record_multi(_LSTM_LAYER, datas, args, params)
