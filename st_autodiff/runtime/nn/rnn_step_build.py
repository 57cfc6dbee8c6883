"""The GRU and tanh-RNN steps' graphs built in one pass (the forward's fast path).

``rnn_steps.gru_step`` records PyTorch's fourteen nodes per GRU time step through
``unsafe_chunk``, ``_linear`` and ``_fast``: general helpers that each look at their
arguments again (edges, dtypes, requires-grad flags, the saving plan) for every node.  In
the common training case every one of those answers is known before the first step: grad
mode on, no profiler or anomaly mode, arrays of one library (NumPy, or the device
library: the same calls through the arrays' namespace) and one dtype, ``W_hh`` requiring grad
(so every node records), the input projection requiring grad.  ``GruSteps`` checks that
once, then builds each step's fourteen nodes and eighteen tensors directly: the same
classes, fields, edges, saved triples, parameters and creation order (sequence numbers) as
``gru_step`` makes, the same array expressions on the same operands for every value (so
bit for bit the same arrays), and the step's last node the engine's fused class with its
``_step`` tuple.  Nothing is deferred: the graph exists, complete, when the forward
returns, so walking it, hooks, ``retain_grad``, version checks and ``create_graph`` see
exactly what ``gru_step`` would have left.  ``TanhSteps`` does the same for the four
nodes of ``tanh_step`` (``nn.RNN`` with tanh).  Anything else (no bias, host and device
arrays mixed, mixed dtypes, grad off, a frozen ``W_hh``, the profiler, anomaly mode)
returns ``None`` from ``GruSteps.make``/``TanhSteps.make`` and the callers take the general
path.  On a device the gates' sigmoid is the runtime's device kernel (``rnn_steps._sigmoid``),
as in ``gru_step`` there.
``tests/runtime/test_rnn_step_build.py`` compares the two node by node.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir.ops import Op
from ..anomaly_mode import is_anomaly_enabled
from ..device import is_device, xp_of
from ..float_errors import OVER, quiet, restore
from ..function import RuleNode, next_seq
from ..grad_mode import STATE
from ..tensor import Extra, Tensor, edge_of
from ..tensor_ops import record, record_multi
from . import rnn_steps as R
from .rnn_step_fused import gru_out_class, tanh_out_class
from .rnn_step_nodes import step_classes

__all__ = ["GruSteps", "TanhSteps"]

_new = object.__new__
_EMPTY = R._EMPTY  # the shared empty parameters of the elementwise nodes
_CLASSES = step_classes()
_ADD, _SUB, _MUL = _CLASSES["add"], _CLASSES["sub"], _CLASSES["mul"]
_SIG, _TANH = _CLASSES["sigmoid"], _CLASSES["tanh"]
_GRU_OUT = gru_out_class(_ADD)
_TANH_OUT = tanh_out_class(_TANH)
_SPLIT, _ADDMM, _T = R._UNSAFE_SPLIT, R._ADDMM, R._T
_ORIGINAL = (record, record_multi)
# what the steps call for their values, per array library (NumPy's looked up once)
_NP_FNS: tuple[Any, ...] = (np.negative, np.exp, np.reciprocal, np.tanh)


def _node(cls: type[RuleNode], edges: tuple[Any, ...], args: tuple[Any, ...],
          params: dict[str, Any], out: Any, saved: tuple[Any, ...]) -> Any:
    """A ``cls`` node with every field ``_fast``/``record`` would give it (next sequence
    number, no hooks)."""
    node: Any = _new(cls)
    node.next_functions = edges
    node._seq = next_seq()
    node._hooks = None
    node._args = args
    node._params = params
    node._out = out
    node._saved = saved
    return node


def _tensor(data: Any, node: Any, nr: int = 0) -> Tensor:
    """``tensor.make(data, node, nr)``: a fresh non-leaf with its own version counter."""
    out = _new(Tensor)
    out._data = data
    out._requires_grad = True
    out._grad_fn = node
    out._grad = None
    out._vc = [0]
    out._base = None
    out._output_nr = nr
    out._extra = None
    return out


def _plain_path() -> bool:
    """Whether nodes may be built here: grad mode on, and neither the profiler (which
    wraps ``record``) nor anomaly mode (which notes a stack per node) is watching."""
    # (the profiler replaces ``record`` in every runtime module, this one included)
    return STATE.enabled and record is _ORIGINAL[0] and not is_anomaly_enabled()


class _Linear:
    """What a run of steps shares about ``F.linear(h, W_hh, b_hh)``: the weight's and
    bias's edges and the view recipe of ``W_hh.t()``."""

    __slots__ = ("w", "b", "wd", "bd", "w_edge", "b_edge", "w_vc", "w_base", "w_view",
                 "w_shape", "t_params", "mm_params", "fns")

    def __init__(self, w: Tensor, b: Tensor) -> None:
        self.w, self.b = w, b
        self.wd, self.bd = w._data, b._data
        self.fns: tuple[Any, ...]
        if type(self.wd) is np.ndarray:
            self.fns = _NP_FNS
        else:  # the device library's (``_usable`` checked that the arrays are its)
            xp = xp_of(self.wd)
            self.fns = (None, None, None, xp.tanh)  # (the sigmoid: ``rnn_steps._sigmoid``)
        self.w_edge = edge_of(w)
        self.b_edge = edge_of(b)
        self.w_vc: Any = w._vc  # (a list: ``_usable`` checked)
        base = w._base
        self.w_base = w if base is None else base
        view = None if base is None or w._extra is None else w._extra.view
        self.w_view = () if view is None else view
        self.w_shape = tuple(self.wd.shape)
        # parameter dicts shared by the run's nodes (nothing writes a node's ``_params``)
        self.t_params = {"axes": None}
        self.mm_params = {need1: {"need1": need1, "need2": True} for need1 in (False, True)}

    def step(self, h: Tensor, h_edge: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        """``_linear(h, W_hh, b_hh)``: its ``TBackward0`` and ``AddmmBackward0`` nodes and the
        result tensor ``gh``."""
        params = self.t_params
        wt_d = self.wd.T
        n_t = _node(_T, (self.w_edge,), (self.w,), params, None, ())
        wt = _tensor(wt_d, n_t)  # ``_view_op``'s view of W_hh
        w_vc = self.w_vc
        wt._vc = w_vc
        wt._base = self.w_base
        ex = wt._extra = Extra()
        ex.view = self.w_view + ((Op.TRANSPOSE, (), params, self.w_shape),)
        gh_d = h._data @ wt_d
        gh_d += self.bd
        r1 = h_edge[0] is not None
        h_vc: Any = h._vc  # (a list: ``_usable`` checked the first h, the others are new)
        saved: tuple[Any, ...] = (((h, h_vc, h_vc[0]), (wt, w_vc, w_vc[0])) if r1
                                  else ((h, h_vc, h_vc[0]),))
        n_mm = _node(_ADDMM, (self.b_edge, h_edge, (n_t, 0)), (self.b, h, wt),
                     self.mm_params[h._requires_grad], None, saved)
        return n_t, n_mm, _tensor(gh_d, n_mm)


def _usable(h: Tensor, w: Tensor, b: Tensor | None, gates: int) -> bool:
    """Whether ``h`` (batch, hidden), ``w`` (gates * hidden, hidden) and ``b`` are arrays of
    one library (NumPy or the device's) and one float dtype with those shapes, ``w``
    requiring grad and every version counter present (no inference tensors)."""
    if b is None or not w._requires_grad:
        return False
    hd, wd, bd = h._data, w._data, b._data
    kind = type(hd)
    if (type(wd) is not kind or type(bd) is not kind
            or not (kind is np.ndarray or is_device(hd))):
        return False
    if hd.ndim != 2 or hd.dtype != wd.dtype or bd.dtype != wd.dtype or hd.dtype.kind != "f":
        return False
    size = hd.shape[1]
    return (wd.shape == (gates * size, size) and bd.shape == (gates * size,)
            and h._vc is not None and w._vc is not None and b._vc is not None)


def _input_ok(gi: Tensor, like: Any, width: int) -> bool:
    """Whether step input ``gi`` is an array requiring grad of ``like``'s type, dtype and
    batch, ``width`` columns."""
    a = gi._data
    return (gi._requires_grad and type(a) is type(like) and a.dtype == like.dtype
            and a.shape == (like.shape[0], width) and gi._vc is not None)


class GruSteps:
    """GRU steps over ``W_hh``, ``b_hh``: ``step(gi, h)`` is ``rnn_steps.gru_step(gi, h,
    W_hh, b_hh)``, built directly (see the module docstring)."""

    __slots__ = ("lin", "size", "split_params")

    def __init__(self, lin: _Linear, size: int) -> None:
        self.lin = lin
        self.size = size
        self.split_params = {"indices_or_sections": R._cuts(size, 3), "axis": 1}

    @classmethod
    def make(cls, h: Tensor, w_hh: Tensor, b_hh: Tensor | None,
             inputs: Any) -> GruSteps | None:
        """The builder for steps from state ``h`` over ``inputs`` (the steps' ``gi``), or
        None where ``gru_step`` must run (see the module docstring)."""
        if not (_plain_path() and _usable(h, w_hh, b_hh, 3)):
            return None
        hd = h._data
        width = 3 * hd.shape[1]
        if not all(_input_ok(gi, hd, width) for gi in inputs):
            return None
        assert b_hh is not None  # (``_usable`` checked)
        return cls(_Linear(w_hh, b_hh), hd.shape[1])

    def _split(self, t: Tensor, edge: tuple[Any, ...]) -> tuple[Any, ...]:
        """``unsafe_chunk(t, 3)``: the node and its three pieces."""
        a = t._data
        s = self.size
        datas = (a[:, :s], a[:, s:2 * s], a[:, 2 * s:3 * s])
        node = _node(_SPLIT, (edge,), (t,), self.split_params, datas, ())
        return (node, _tensor(datas[0], node, 0), _tensor(datas[1], node, 1),
                _tensor(datas[2], node, 2))

    def step(self, gi: Tensor, h: Tensor) -> Tensor:
        """``h'`` after one step from ``h`` with input projection ``gi``."""
        s, s2 = self.size, 2 * self.size
        node, tensor = _node, _tensor
        fns = self.lin.fns
        negative, exp, reciprocal, tanh = fns
        fn = gi._grad_fn
        n1, ir, iz, i_n = self._split(gi, (fn, gi._output_nr) if fn is not None
                                      else edge_of(gi))
        fn = h._grad_fn
        h_edge = (fn, h._output_nr) if fn is not None else edge_of(h)
        n2, n3, gh = self.lin.step(h, h_edge)
        n4, hr, hz, h_n = self._split(gh, (n3, 0))
        gh_d = gh._data
        # the values, as ``gru_step`` computes them (``out`` by position: NumPy parses a
        # keyword ``out=`` more slowly, which shows on arrays this small)
        pre = gh_d[:, :s2] + gi._data[:, :s2]
        if fns is _NP_FNS:
            act = negative(pre)  # ``rnn_steps._sigmoid``, inlined
            token = quiet(OVER)
            try:
                exp(act, act)
            finally:
                restore(token)
            act += 1
            reciprocal(act, act)
        else:
            act = R._sigmoid(pre)
        act_r, act_z = act[:, :s], act[:, s:]
        a1 = node(_ADD, ((n4, 0), (n1, 0)), (hr, ir), _EMPTY, None, ())
        t1 = tensor(pre[:, :s], a1)
        g1 = node(_SIG, ((a1, 0),), (t1,), _EMPTY, act_r, ())
        r = tensor(act_r, g1)
        g1._saved = ((None, r._vc, 0),)
        a2 = node(_ADD, ((n4, 1), (n1, 1)), (hz, iz), _EMPTY, None, ())
        t2 = tensor(pre[:, s:], a2)
        g2 = node(_SIG, ((a2, 0),), (t2,), _EMPTY, act_z, ())
        z = tensor(act_z, g2)
        g2._saved = ((None, z._vc, 0),)
        m_d = h_n._data * act_r
        m1 = node(_MUL, ((n4, 2), (g1, 0)), (h_n, r), _EMPTY, None,
                  ((h_n, h_n._vc, 0), (r, r._vc, 0)))
        m = tensor(m_d, m1)
        n_pre = i_n._data + m_d
        a3 = node(_ADD, ((n1, 2), (m1, 0)), (i_n, m), _EMPTY, None, ())
        t3 = tensor(n_pre, a3)
        n_d = tanh(n_pre)
        th = node(_TANH, ((a3, 0),), (t3,), _EMPTY, n_d, ())
        n = tensor(n_d, th)
        th._saved = ((None, n._vc, 0),)
        e_th = (th, 0)
        diff = h._data - n_d
        sb = node(_SUB, (h_edge, e_th), (h, n), _EMPTY, None, ())
        sub = tensor(diff, sb)
        sz_d = diff * act_z
        m2 = node(_MUL, ((sb, 0), (g2, 0)), (sub, z), _EMPTY, None,
                  ((sub, sub._vc, 0), (z, z._vc, 0)))
        sz = tensor(sz_d, m2)
        last = node(_GRU_OUT, ((m2, 0), e_th), (sz, n), _EMPTY, None, ())
        last._step = (m2, sb, th, a3, m1, g2, a2, g1, a1, n4, n3, n2, n1)
        return tensor(sz_d + n_d, last)


class TanhSteps:
    """tanh-RNN steps over ``W_hh``, ``b_hh``: ``step(gi, h)`` is ``rnn_steps.tanh_step(gi,
    h, W_hh, b_hh)``, built directly (see the module docstring)."""

    __slots__ = ("lin",)

    def __init__(self, lin: _Linear) -> None:
        self.lin = lin

    @classmethod
    def make(cls, h: Tensor, w_hh: Tensor, b_hh: Tensor | None,
             inputs: Any) -> TanhSteps | None:
        """The builder for steps from state ``h`` over ``inputs``, or None where
        ``tanh_step`` must run."""
        if not (_plain_path() and _usable(h, w_hh, b_hh, 1)):
            return None
        hd = h._data
        if not all(_input_ok(gi, hd, hd.shape[1]) for gi in inputs):
            return None
        assert b_hh is not None  # (``_usable`` checked)
        return cls(_Linear(w_hh, b_hh))

    def step(self, gi: Tensor, h: Tensor) -> Tensor:
        """``tanh(h W_hh^T + b_hh + gi)``: ``TBackward0``, ``AddmmBackward0``,
        ``AddBackward0`` and the fused ``TanhBackward0``."""
        fn = h._grad_fn
        n2, n3, pre = self.lin.step(h, (fn, h._output_nr) if fn is not None else edge_of(h))
        fn = gi._grad_fn
        s_d = pre._data + gi._data
        a = _node(_ADD, ((n3, 0), (fn, gi._output_nr) if fn is not None else edge_of(gi)),
                  (pre, gi), _EMPTY, None, ())
        summed = _tensor(s_d, a)
        out_d = self.lin.fns[3](s_d)
        last = _node(_TANH_OUT, ((a, 0),), (summed,), _EMPTY, out_d, ())
        out = _tensor(out_d, last)
        last._saved = ((None, out._vc, 0),)
        last._step = (a, n3, n2)
        return out
