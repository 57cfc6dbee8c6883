"""The fused graph nodes of attention, each recorded where PyTorch records one node.

* ``flash``: ``softmax(q k^T * scale + bias) v`` as
  ``ScaledDotProductFlashAttentionForCpuBackward0`` (edges to ``q``, ``k``, ``v``).  Its
  rule recomputes the weights ``p`` from ``q`` and ``k``: ``dv = p^T g``,
  ``ds = p (g v^T - rowsum(g v^T p))``, ``dq = ds k scale``, ``dk = ds^T q scale``.
* ``safe_softmax``: softmax over the last dim giving zeros for a row of ``-inf``
  (``SafeSoftmaxBackward0``, the node of PyTorch's composite attention).
* ``baddbmm``: ``base + b1 @ b2`` (``BaddbmmBackward0``), the masked attention scores.

Rules are written with the rules' ``ops`` protocol, so a ``create_graph`` backward
records every step and second derivatives work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..function import node_class
from ..grad_mode import STATE
from ..tensor import Tensor, plain
from ..tensor_ops import record

__all__ = ["baddbmm", "flash", "safe_softmax"]


def _rule_flash(ops: Any, g: Any, out: Any, q: Any, k: Any, v: Any, bias: Any, dead: Any,
                scale: float = 1.0, weights: Any = None, **_: Any) -> tuple[Any, ...]:
    """The gradients of ``softmax(q k^T scale + bias) v`` (see the module docstring)."""
    if weights is not None and not ops.tensors:
        p = weights  # on arrays: the forward's weights, computed by the very same steps
    else:
        s = (q @ ops.swapaxes(k, axis1=-1, axis2=-2)) * scale
        if bias is not None:
            s = s + bias
        if dead is not None:
            s = ops.where(dead, 0.0, s)
        p = ops.softmax(s, axis=-1)
        if dead is not None:
            p = ops.where(dead, 0.0, p)
    dv = ops.swapaxes(p, axis1=-1, axis2=-2) @ g
    dp = g @ ops.swapaxes(v, axis1=-1, axis2=-2)
    ds = p * (dp - ops.sum(dp * p, axis=-1, keepdims=True))
    dq = (ds @ k) * scale
    dk = (ops.swapaxes(ds, axis1=-1, axis2=-2) @ q) * scale
    return (dq, dk, dv, None, None)


_FLASH_PLAN = (("dropout_p", lambda a, p: 0.0, None), ("is_causal", lambda a, p: p["causal"], None),
               ("key", 1, None), ("query", 0, None), ("scale", lambda a, p: p["scale"], None),
               ("value", 2, None))
_FLASH = node_class("ScaledDotProductFlashAttentionForCpuBackward0", _rule_flash, (0, 1, 2),
                    _FLASH_PLAN, False)


def _softmax_rows(s: Any) -> Any:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def flash(q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, dead: Tensor | None,
           scale: float, causal: bool) -> Tensor:
    """The fused route: one node over ``q``, ``k`` and ``v``."""
    qd: Any = q._data
    s = (qd @ k._data.swapaxes(-1, -2)) * qd.dtype.type(scale)
    if bias is not None:
        s = s + bias._data
    if dead is not None:
        s = np.where(dead._data, 0, s)
    p = _softmax_rows(s)
    if dead is not None:
        p = np.where(dead._data, 0, p)
    data = np.empty_like(qd)  # laid out like the query, as PyTorch's kernel lays it out
    data[...] = p @ v._data
    args = (q, k, v, bias, dead)
    if STATE.enabled and (q._requires_grad or k._requires_grad or v._requires_grad):
        return record(_FLASH, data, args, {"scale": scale, "causal": causal, "weights": p})
    return plain(data)


def _rule_safe_softmax(ops: Any, g: Any, out: Any, x: Any, dim: int = -1) -> tuple[Any, ...]:
    """The softmax rule ``p (g - sum(g p))``; a fully masked row has ``p = 0``, so 0."""
    return (out * (g - ops.sum(g * out, axis=-1, keepdims=True)),)


_SAFE_SOFTMAX = node_class("SafeSoftmaxBackward0", _rule_safe_softmax, (0,),
                           (("dim", lambda a, p: p["dim"], None), ("result", "result", None)))


def safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim that gives zeros (not NaN) for a row of ``-inf``."""
    s: Any = scores._data
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isneginf(top), 0, top))
    total = e.sum(axis=-1, keepdims=True)
    data = (e / np.where(total == 0, 1, total)).astype(s.dtype, copy=False)
    if STATE.enabled and scores._requires_grad:
        return record(_SAFE_SOFTMAX, data, (scores,), {"dim": -1})
    return plain(data)


def _rule_baddbmm(ops: Any, g: Any, out: Any, base: Any, b1: Any, b2: Any) -> tuple[Any, ...]:
    """``d(base + b1 @ b2)``: ``g`` (the engine sums it to ``base``), ``g b2^T``, ``b1^T g``."""
    return (g, g @ ops.swapaxes(b2, axis1=-1, axis2=-2), ops.swapaxes(b1, axis1=-1, axis2=-2) @ g)


_BADDBMM = node_class("BaddbmmBackward0", _rule_baddbmm, (0, 1, 2),
                      (("alpha", lambda a, p: 1, None), ("batch1", 1, (2,)),
                       ("batch2", 2, (1,)), ("beta", lambda a, p: 1, None)), False)


def baddbmm(base: Tensor, b1: Tensor, b2: Tensor) -> Tensor:
    """``base + b1 @ b2`` for batches of matrices, as one ``BaddbmmBackward0`` node."""
    data = base._data + b1._data @ b2._data
    if STATE.enabled and (base._requires_grad or b1._requires_grad or b2._requires_grad):
        return record(_BADDBMM, data, (base, b1, b2), {})
    return plain(data)
