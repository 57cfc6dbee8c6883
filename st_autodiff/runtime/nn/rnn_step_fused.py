"""A recorded GRU step whose backward the engine may run as one call.

``rnn_steps.gru_step`` records PyTorch's fourteen nodes per time step (two
``UnsafeSplitBackward0``, ``TBackward0``, ``AddmmBackward0``, and the gates' ``Add``,
``Sigmoid``, ``Mul``, ``Tanh``, ``Sub`` nodes); the graph a program sees is that graph, node
for node.  In a backward, though, those nodes always run one after the other (the engine
runs nodes in reverse creation order, and nothing else was created between them), so the
step's last node (the ``AddBackward0`` making ``h'``) is of a class registered in
``engine.FUSED`` whose runner executes all fourteen at once: the same array expressions
on the same arrays as each node's own backward (``rnn_step_nodes``, ``fast_nodes``), the
gradients leaving the step delivered in the order the nodes would deliver them, and every
node released as it would be.  That saves the engine's bookkeeping and the per-node
checks, the larger part of an unrolled GRU's backward.

The runner steps aside (returns False, and the engine runs the nodes one by one) wherever
the difference could show: any node of the step with a hook, ``retain_grad`` or freed
saved values, a saved tensor modified in place, a gradient reaching a node of the step
from outside it (a graph made with ``create_graph`` that used the step's values), gradients
of another shape or dtype, and, on the engine's side, the profiler, anomaly mode,
``create_graph`` and ``inputs``.  ``tanh_step`` (``nn.RNN``, ``RNNCell``) is fused the
same way: ``TanhBackward0``, ``AddBackward0``, ``AddmmBackward0``, ``TBackward0``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..device import xp_of
from ..engine import FUSED
from ..function import RuleNode

__all__ = ["gru_out_class", "tanh_out_class"]

_CLASSES: dict[tuple[Any, ...], type[RuleNode]] = {}


def _fused_class(base: type[RuleNode], run: Any) -> type[RuleNode]:
    """``base`` (a step's last node class) with a slot for the step's other nodes, its
    runner registered with the engine."""
    cls = _CLASSES.get((base, run))
    if cls is None:
        cls = cast("type[RuleNode]", type(base.__name__, (base,), {
            "__slots__": ("_step",), "__module__": base.__module__,
            "__qualname__": base.__qualname__}))
        _CLASSES[(base, run)] = cls
        FUSED[cls] = run
    return cls


def gru_out_class(add_class: type[RuleNode]) -> type[RuleNode]:
    """``add_class`` (the GRU step's fast ``AddBackward0``) run with its step's nodes."""
    return _fused_class(add_class, _run_gru)


def tanh_out_class(tanh_class: type[RuleNode]) -> type[RuleNode]:
    """``tanh_class`` (the tanh RNN step's fast ``TanhBackward0``) run with its step's
    ``AddBackward0``, ``AddmmBackward0`` and ``TBackward0``."""
    return _fused_class(tanh_class, _run_tanh)


def _usable(step: tuple[Any, ...], deps: dict[Any, Any], buffers: dict[Any, Any],
            fed: tuple[Any, ...]) -> bool:
    """Whether no node of ``step`` has hooks, freed or since-modified saved tensors, or a
    gradient from outside the step.  Every node created after the step has run when its
    last node runs, so a node still waits on exactly its ``fed`` edges from inside the
    step, and holds no gradient yet, unless an edge from outside delivered one (where a
    graph made by ``create_graph`` used its output, or its output is a root)."""
    for nd, inside in zip(step, fed, strict=True):
        if nd._hooks is not None or deps.get(nd) != inside or nd in buffers:
            return False
        saved = nd._saved
        if saved is None:
            return False
        for _tensor, counter, version in saved:
            if counter[0] != version:
                return False
    return True


def _run_linear(n3: Any, n2: Any, g: Any, send: Any) -> None:
    """``AddmmBackward0`` (``b_hh``, ``h``, ``W_hh^T``) then its ``TBackward0``, as their
    backwards compute and deliver (``fast_nodes``' on the host, the shared rules' on a
    device: the bias gradient a sum over the batch either way)."""
    bias, m1, m2 = n3._args
    (fb, nb), (f1, n1_nr), _ = n3.next_functions
    if fb is not None:
        send(fb, nb, np.add.reduce(g, axis=0) if type(g) is np.ndarray else g.sum(axis=0))
    if f1 is not None:
        send(f1, n1_nr, g @ m2._data.T if n3._params["need1"] else None)
    g_wt = m1._data.T @ g
    fw, nw = n2.next_functions[0]
    if fw is not None:
        send(fw, nw, g_wt.T)


def _release(last: Any, step: tuple[Any, ...]) -> None:
    """``RuleNode._release`` of ``last`` and of every node of ``step``, inlined (none of
    the step's classes overrides it; ``test_rnn_step_build`` checks that)."""
    last._saved = last._out = None
    if last._freeable:
        last._args = None
    for nd in step:
        nd._saved = nd._out = None
        if nd._freeable:
            nd._args = None


# the edges into each node of a step from the step's own nodes (``_step`` order)
_TANH_FED = (1, 1, 1)
_GRU_FED = (1, 1, 2, 1, 1, 1, 1, 1, 1, 3, 1, 1, 3)


def _run_tanh(n4: Any, grads: list[Any], keep: bool, send: Any, deps: dict[Any, Any],
              buffers: dict[Any, Any]) -> bool:
    """``h' = tanh(addmm(b_hh, h, W_hh^T) + gi)`` back to ``gi``, ``h`` and the weights."""
    g = grads[0]
    step = n4._step
    out = n4._out
    if (type(g) is not type(out) or g.shape != out.shape or g.dtype != out.dtype
            or not n4._saved or not _usable(step, deps, buffers, _TANH_FED)):
        return False
    n3, n2, n1 = step
    g_a = g * (1 - out * out)
    f, nr = n3.next_functions[1]
    if f is not None:
        send(f, nr, g_a)
    _run_linear(n2, n1, g_a, send)
    if not keep:
        _release(n4, step)
    return True


def _run_gru(n14: Any, grads: list[Any], keep: bool, send: Any, deps: dict[Any, Any],
              buffers: dict[Any, Any]) -> bool:
    """The step's nodes from ``h' = sz + n`` back to the split of ``gi`` (see the module
    docstring); False where they must run one by one."""
    g = grads[0]
    step = n14._step
    if n14._saved is None or not _usable(step, deps, buffers, _GRU_FED):
        return False
    n13, n12, n11, n10, n9, n8, n7, n6, n5, n4, n3, n2, n1 = step
    s_data, z_data = n13._args[0]._data, n13._args[1]._data
    if type(g) is not type(s_data) or g.shape != s_data.shape or g.dtype != s_data.dtype:
        return False
    xp = np if type(g) is np.ndarray else xp_of(g)
    # AddBackward0 (h' = sz + n): g to both; MulBackward0 (sz = s z)
    g_s = g * z_data
    g_z = g * s_data
    # SubBackward0 (s = h - n): g_s to h, -g_s to n (which already holds g)
    h_fn, h_nr = n12.next_functions[0]
    if h_fn is not None:
        send(h_fn, h_nr, g_s)
    g_n = g + -g_s
    # TanhBackward0, AddBackward0 (i_n + m), MulBackward0 (m = h_n r)
    out = n11._out
    g_npre = g_n * (1 - out * out)
    g_hn = g_npre * n9._args[1]._data
    g_r = g_npre * n9._args[0]._data
    # SigmoidBackward0 of z then of r, each feeding an AddBackward0
    out = n8._out
    g_zpre = g_z * out * (1 - out)
    out = n6._out
    g_rpre = g_r * out * (1 - out)
    # UnsafeSplitBackward0 of gh; AddmmBackward0 (b_hh, h, W_hh^T); TBackward0
    g_gh = xp.concatenate([g_rpre, g_zpre, g_hn], axis=1)
    _run_linear(n3, n2, g_gh, send)
    # UnsafeSplitBackward0 of gi
    fi, ni = n1.next_functions[0]
    if fi is not None:
        send(fi, ni, xp.concatenate([g_rpre, g_zpre, g_npre], axis=1))
    if not keep:
        _release(n14, step)
    return True
