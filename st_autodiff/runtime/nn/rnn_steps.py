"""Recorded recurrent steps with their arithmetic done in bulk (GRU and unfused LSTM steps).

PyTorch's CPU GRU is unrolled: every time step records its own nodes (``AddBackward0``,
``SigmoidBackward0``, ``MulBackward0`` ...), and the graph a program can inspect is that
unrolled graph, so it is kept node for node.  What changes here is only how the values are
made: the reset and update gates are summed and squashed as one array (one addition and
one sigmoid over both), and each node is then recorded directly over its piece, with
subclasses (same names, same saved values) of the node classes the runtime's own
``add``/``sub``/``mul``/``sigmoid``/``tanh``/``addmm``/``t``/``unbind`` record, whose backward
is cheaper for NumPy arrays (``rnn_step_nodes.py``).  The
values are bit for bit those of the op-by-op composition (the same operations on the same
operands, elementwise; no recorded array is written afterwards); the nodes, their order and
their saved tensors are the same too, so backward, ``create_graph`` and in-place checks
behave as before.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from ...ir.kernels import sigmoid as _k_sigmoid
from ...ir.ops import Op
from .. import functional as RF
from .. import shape_ops as S
from ..device import is_device, xp_of
from ..float_errors import OVER, quiet, restore
from ..function import MultiRuleNode, RuleNode, next_seq, node_class, save_plan
from ..grad_mode import STATE
from ..shape_ops import _SPLIT, _view_op
from ..tensor import Tensor, edge_of, make, plain
from ..tensor_ops import needs_grad, record, record_multi
from . import functional as F
from . import nodes
from .rnn_step_fused import gru_out_class, tanh_out_class
from .rnn_step_nodes import split_class, step_classes, unbind_class

__all__ = ["gru_step", "lstm_step", "tanh_step", "unbind0", "unsafe_chunk"]

_UNSAFE_SPLIT = split_class(node_class("UnsafeSplitBackward0", _SPLIT._rule, _SPLIT._edges,
                                       _SPLIT._plan, False, MultiRuleNode))
_EMPTY: dict[Any, Any] = {}
_new = object.__new__
# the unpatched recorders, in a tuple: the profiler replaces every module attribute that *is*
# ``record`` or ``record_multi`` by a noting wrapper, and then the fast paths must step aside
_ORIGINAL = (record, record_multi)


def unsafe_chunk(t: Tensor, chunks: int) -> tuple[Any, ...]:
    """``t`` (2-d, columns a multiple of ``chunks``) in ``chunks`` along dim 1, as PyTorch's
    cells split it: one ``UnsafeSplitBackward0`` node whose pieces are not tracked as views."""
    a = t._data
    size = a.shape[1] // chunks
    if chunks == 3:  # the GRU's gates, without a generator
        datas: tuple[Any, ...] = (a[:, :size], a[:, size:2 * size], a[:, 2 * size:3 * size])
    else:
        datas = tuple(a[:, k * size:(k + 1) * size] for k in range(chunks))
    if not (t._requires_grad and STATE.enabled):
        return tuple([plain(d) for d in datas])
    params: dict[str, Any] = {"indices_or_sections": _cuts(size, chunks), "axis": 1}
    if record_multi is not _ORIGINAL[1]:  # the profiler notes each recorded op
        return record_multi(_UNSAFE_SPLIT, datas, (t,), params)
    node: RuleNode = _new(_UNSAFE_SPLIT)  # record_multi's node, built directly
    fn = t._grad_fn
    node.next_functions = ((fn, t._output_nr) if fn is not None else edge_of(t),)
    node._seq = next_seq()
    node._hooks = None
    node._args = (t,)
    node._params = params
    node._out = datas
    node._saved = ()  # a split saves no tensor
    return tuple([make(d, node, i) for i, d in enumerate(datas)])


@cache
def _cuts(size: int, chunks: int) -> tuple[Any, ...]:
    """Where ``unsafe_chunk`` cuts (the split's ``indices_or_sections``)."""
    return tuple(range(size, size * chunks, size))


def _bulk(first: Tensor, *others: Tensor) -> bool:
    """Whether the step's arrays are arrays of one library (NumPy, or the device's) and one
    dtype (else it runs op by op: mixed dtypes promote, host and device mixed is an
    error there)."""
    a = first._data
    kind = type(a)
    return (kind is np.ndarray or is_device(a)) and all(
        type(t._data) is kind and t._data.dtype == a.dtype for t in others)


def _xp(a: Any) -> Any:
    """The namespace of array ``a`` (NumPy without asking, the common case)."""
    return np if type(a) is np.ndarray else xp_of(a)


def _rec(cls: type[RuleNode], data: Any, args: tuple[Any, ...]) -> Tensor:
    return record(cls, data, args, _EMPTY) if needs_grad(args) else plain(data)


def _fast(cls: type[RuleNode], data: Any, args: tuple[Any, ...]) -> Tensor:
    """``record(cls, data, args, {})`` for Tensor ``args`` of which one requires grad, with
    grad mode on: the same node, fields and saved values, built without the generic checks."""
    node: RuleNode = _new(cls)
    if len(args) == 2:  # unrolled for the binary nodes, the most common here
        a, b = args
        fa, fb = a._grad_fn, b._grad_fn
        node.next_functions = ((fa, a._output_nr) if fa is not None else edge_of(a),
                               (fb, b._output_nr) if fb is not None else edge_of(b))
    else:
        node.next_functions = tuple([(a._grad_fn, a._output_nr) if a._grad_fn is not None
                                     else edge_of(a) for a in args])
    node._seq = next_seq()
    node._hooks = None
    node._args = args
    node._params = _EMPTY
    node._out = data if cls._keeps_out else None
    out = _new(Tensor)  # ``make(data, node)``, inlined
    out._data = data
    out._requires_grad = True
    out._grad_fn = node
    out._grad = None
    out._vc = vc = [0]
    out._base = None
    out._output_nr = 0
    out._extra = None
    saved = save_plan(node, args) if cls._tensor_saves else ()
    node._saved = saved + ((None, vc, 0),) if cls._saves_result else saved
    return out


def _recorder(*step_inputs: Tensor,
              ) -> Callable[[type[RuleNode], Any, tuple[Any, ...]], Tensor]:
    """``_fast`` when every node of the step records (some step input requires grad, and no
    profiler has wrapped ``record``), else ``_rec``, which decides node by node."""
    if record is _ORIGINAL[0] and needs_grad(step_inputs):
        return _fast
    return _rec


def _sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` in place of a fresh array (PyTorch's CPU formula) for NumPy
    arrays; on a device the runtime's own ``sigmoid`` kernel (what the op-by-op path
    computes there, so that the bulk steps keep its bits on either side)."""
    if type(x) is not np.ndarray:
        return _k_sigmoid(x)
    e = np.negative(x)
    token = quiet(OVER)  # ``np.errstate(over="ignore")``, cheaper
    try:
        np.exp(e, out=e)
    finally:
        restore(token)
    e += 1
    return np.reciprocal(e, out=e)


_ADDMM = nodes._ADDMM  # (both with fast_nodes' cheaper backward)
_T = S._T


def _linear(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    """``F.linear(x, w, b)`` for a matrix ``x``: ``TBackward0`` then ``AddmmBackward0`` (the
    latter with the cheaper backward of ``fast_nodes.addmm_class``); other cases go to
    ``F.linear``."""
    a, wd = x._data, w._data
    if (b is None or type(wd) is not type(a) or type(b._data) is not type(a)
            or not (type(a) is np.ndarray or is_device(a)) or a.ndim != 2 or wd.ndim != 2
            or a.dtype != wd.dtype or b._data.dtype != wd.dtype or a.shape[1] != wd.shape[1]
            or record is not _ORIGINAL[0]):
        return F.linear(x, w, b)
    wt = _view_op(w, wd.T, _T, (), {"axes": None}, Op.TRANSPOSE)  # ``S.t(w)``
    data = a @ wt._data
    data += b._data
    r1, r2 = x._requires_grad, wt._requires_grad
    if (r1 or r2 or b._requires_grad) and STATE.enabled:
        return record(_ADDMM, data, (b, x, wt), {"need1": r1, "need2": r2})
    return plain(data)


_UNBIND = unbind_class(S._UNBIND)
step_classes()  # made now, so that a profiler started later finds (and times) them
gru_out_class(step_classes()["add"])  # speed2: the fused step classes, registered now
tanh_out_class(step_classes()["tanh"])


def unbind0(t: Tensor) -> tuple[Any, ...]:
    """``S.unbind(t, 0)`` (views, one ``UnbindBackward0``) whose node stacks array gradients
    directly (``unbind_class``)."""
    a = t._array()
    if (not (type(a) is np.ndarray or is_device(a)) or a.ndim == 0
            or record_multi is not _ORIGINAL[1]):
        return S.unbind(t, 0)
    n = a.shape[0]
    return S._pieces(t, [a[i, ...] for i in range(n)], _UNBIND, {"axis": 0},
                     [(i,) for i in range(n)])


def gru_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """Reset ``r`` and update ``z`` gates; ``n = tanh(i_n + r (W_hn h + b_hn))``;
    ``h' = (h - n) z + n`` (that is ``(1 - z) n + z h``)."""
    ir, iz, i_n = unsafe_chunk(gi, 3)
    gh = _linear(h, w_hh, b_hh)
    hr, hz, h_n = unsafe_chunk(gh, 3)
    if not _bulk(gh, gi, h):
        return _gru_ops(ir, iz, i_n, hr, hz, h_n, h)
    c = step_classes()
    _rec = _recorder(gi, gh)  # GRU: h requires grad only if gh does
    size = h_n._data.shape[1]
    pre = gh._data[:, :2 * size] + gi._data[:, :2 * size]   # hr + ir and hz + iz at once
    act = _sigmoid(pre)
    act_r, act_z = act[:, :size], act[:, size:]
    r = _rec(c["sigmoid"], act_r, (_rec(c["add"], pre[:, :size], (hr, ir)),))
    z = _rec(c["sigmoid"], act_z, (_rec(c["add"], pre[:, size:], (hz, iz)),))
    m_data = h_n._data * act_r
    m = _rec(c["mul"], m_data, (h_n, r))
    n_pre = i_n._data + m_data
    n_data = _xp(n_pre).tanh(n_pre)
    n = _rec(c["tanh"], n_data, (_rec(c["add"], n_pre, (i_n, m)),))
    diff = h._data - n_data
    s = _rec(c["sub"], diff, (h, n))
    sz_data = diff * act_z
    sz = _rec(c["mul"], sz_data, (s, z))
    if _rec is not _fast:
        return _rec(c["add"], sz_data + n_data, (sz, n))
    # speed2: the last node knows the step's others, so that the engine may run all at once
    n3 = gh._grad_fn
    n1 = ir._grad_fn
    if (type(n3) is not _ADDMM or n1 is None or not n3._params["need2"]
            or n3.next_functions[2][0] is None):
        return _rec(c["add"], sz_data + n_data, (sz, n))
    out = _fast(gru_out_class(c["add"]), sz_data + n_data, (sz, n))
    n11: Any  # the step's nodes, all recorded by ``_fast`` above (none is None)
    n8: Any
    n6: Any
    n11, n8, n6 = n._grad_fn, z._grad_fn, r._grad_fn
    fused: Any = out._grad_fn  # the fused class's node, which has a ``_step`` slot
    fused._step = (sz._grad_fn, s._grad_fn, n11, n11.next_functions[0][0],
                          m._grad_fn, n8, n8.next_functions[0][0], n6,
                          n6.next_functions[0][0], hr._grad_fn, n3,
                          n3.next_functions[2][0], n1)
    return out


def tanh_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """``tanh(W_hh h + b_hh + gi)``: ``RF.tanh(RF.add(F.linear(h, w_hh, b_hh), gi))`` with
    the cheaper nodes of ``rnn_step_nodes`` (same-shaped NumPy arrays of one dtype)."""
    pre = _linear(h, w_hh, b_hh)
    pd, gd = pre._data, gi._data
    if (type(pd) is not type(gd) or not (type(pd) is np.ndarray or is_device(pd))
            or pd.dtype != gd.dtype or pd.shape != gd.shape):
        return RF.tanh(RF.add(pre, gi))
    tanh = _xp(pd).tanh
    c = step_classes()
    _rec = _recorder(pre, gi)
    s_data = pd + gd
    summed = _rec(c["add"], s_data, (pre, gi))
    n2 = pre._grad_fn
    if (_rec is not _fast or type(n2) is not _ADDMM or not n2._params["need2"]
            or n2.next_functions[2][0] is None):
        return _rec(c["tanh"], tanh(s_data), (summed,))
    out = _fast(tanh_out_class(c["tanh"]), tanh(s_data), (summed,))  # speed2: fused
    fused: Any = out._grad_fn  # the fused class's node, which has a ``_step`` slot
    fused._step = (summed._grad_fn, n2, n2.next_functions[2][0])
    return out


def _gru_ops(ir: Tensor, iz: Tensor, i_n: Tensor, hr: Tensor, hz: Tensor, h_n: Tensor,
             h: Tensor) -> Tensor:
    """The same step op by op (mixed dtypes take the ops' own promotion)."""
    r = RF.sigmoid(RF.add(hr, ir))
    z = RF.sigmoid(RF.add(hz, iz))
    n = RF.tanh(RF.add(i_n, RF.mul(h_n, r)))
    return RF.add(RF.mul(RF.sub(h, n), z), n)


def lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple[Tensor, Tensor]:
    """Gates ``i, f, g, o`` from the summed projections; ``c' = f c + i g``,
    ``h' = o tanh(c')`` (times ``w_hr.T`` when projecting).  The three sigmoids are taken
    as one array over all gates."""
    summed = RF.add(_linear(h, w_hh, b_hh), gi)
    i, f, g, o = unsafe_chunk(summed, 4)
    if not _bulk(summed, c):
        c_new = RF.add(RF.mul(RF.sigmoid(f), c), RF.mul(RF.sigmoid(i), RF.tanh(g)))
        h_new = RF.mul(RF.sigmoid(o), RF.tanh(c_new))
    else:
        k = step_classes()
        _rec = _recorder(summed)  # else c alone may require grad: decided node by node
        size = c._data.shape[1]
        act = _sigmoid(summed._data)  # the g block's sigmoid goes unused
        sig, mul = k["sigmoid"], k["mul"]
        sf = _rec(sig, act[:, size:2 * size], (f,))
        fc_data = act[:, size:2 * size] * c._data
        fc = _rec(mul, fc_data, (sf, c))
        si = _rec(sig, act[:, :size], (i,))
        tanh = _xp(c._data).tanh
        tg_data = tanh(g._data)
        tg = _rec(k["tanh"], tg_data, (g,))
        ig_data = act[:, :size] * tg_data
        ig = _rec(mul, ig_data, (si, tg))
        c_data = fc_data + ig_data
        c_new = _rec(k["add"], c_data, (fc, ig))
        so = _rec(sig, act[:, 3 * size:], (o,))
        tc_data = tanh(c_data)
        tc = _rec(k["tanh"], tc_data, (c_new,))
        h_new = _rec(mul, act[:, 3 * size:] * tc_data, (so, tc))
    if w_hr is not None:
        h_new = RF.matmul(h_new, S.t(w_hr))
    return h_new, c_new
