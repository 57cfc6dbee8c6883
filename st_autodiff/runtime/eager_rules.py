"""Rules the eager runtime runs in place of the shared table's (``derivatives.RULES``) for
some ops, where PyTorch's backward takes another form that the table cannot: ``apply_op``
looks here first.

* ``xlogy`` / ``xlog1py``: PyTorch's formulas: the gradient in ``x`` is ``xlogy(g, y)``, 0
  where ``x == 0`` and ``y <= 0`` (the table gives ``log y``: ``-inf``/NaN there), and the one
  in ``y`` is ``g x / y`` unmasked (the table's is 0 where ``x == 0``; PyTorch's is
  ``0 / 0 = nan`` at ``x == y == 0``, so ``F.kl_div``'s gradient in a zero target is NaN).
* ``atan2``: 0 at the origin, as PyTorch's (the table's ``y / (x^2 + y^2)`` is NaN there).
* ``cumprod``: the table's rule (the division form away from zeros, a slice's zeros peeled
  off through ``cumprod(x) = cumprod(y) * w``) is exact to third order; PyTorch's grad-mode
  form is exact at every order.  In a ``create_graph`` backward with a slice holding two or
  more zeros the gradient is built as PyTorch's ``cumprod_backward`` builds it in grad mode:
  for each position ``k``, ``sum_{j >= k} g_j prod_{i <= j, i != k} x_i`` through one
  ``cumprod`` of ``x`` with ``x_k`` replaced by 1 (quadratic in the slice length,
  polynomial so exact to any order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op

__all__ = ["EAGER_RULES"]

_table_cumprod = RULES[Op.CUMPROD]


def _cumprod(ops: Any, g: Any, out: Any, x: Any, axis: Any = None) -> tuple[Any, ...]:
    if not getattr(ops, "tensors", False) or axis is None:
        return _table_cumprod(ops, g, out, x, axis=axis)
    xd = x._data
    if type(xd) is not np.ndarray:  # a device array: the table's rule (no host read)
        return _table_cumprod(ops, g, out, x, axis=axis)
    zeros = np.asarray(xd == 0)
    if zeros.ndim == 0 or not bool(np.any(np.sum(zeros, axis=axis) >= 2)):
        return _table_cumprod(ops, g, out, x, axis=axis)
    n = xd.shape[axis]
    idx = np.arange(n)
    same = idx[:, None] == idx[None, :]  # [k, j]: j == k
    later = idx[None, :] >= idx[:, None]  # [k, j]: j >= k
    xm = ops.moveaxis(x, source=axis, destination=-1)
    gm = ops.moveaxis(g, source=axis, destination=-1)
    others = ops.cumprod(ops.where(same, 1, ops.expand_dims(xm, axis=-2)), axis=-1)
    terms = ops.where(later, others * ops.expand_dims(gm, axis=-2), 0)
    grad = ops.moveaxis(ops.sum(terms, axis=-1), source=-1, destination=axis)
    return (grad,)


def _xlogy(ops: Any, g: Any, out: Any, x: Any, y: Any) -> tuple[Any, ...]:
    off = ops.logical_and(ops.eq(x, 0), ops.le(y, 0))
    return ops.where(off, ops.zeros_like(g), ops.xlogy(g, y)), g * x / y


def _xlog1py(ops: Any, g: Any, out: Any, x: Any, y: Any) -> tuple[Any, ...]:
    off = ops.logical_and(ops.eq(x, 0), ops.le(y, -1))
    return ops.where(off, ops.zeros_like(g), ops.xlog1py(g, y)), g * x / (y + 1)


def _atan2(ops: Any, g: Any, out: Any, x: Any, y: Any) -> tuple[Any, ...]:
    denom = x * x + y * y
    safe = ops.where(ops.eq(denom, 0), 1, denom)
    return g * y / safe, -g * x / safe


#: op -> the eager runtime's rule for it (``apply_op`` and ``special`` read this before
#: ``RULES``)
EAGER_RULES: dict[Op, Any] = {Op.CUMPROD: _cumprod, Op.XLOGY: _xlogy, Op.XLOG1PY: _xlog1py,
                              Op.ARCTAN2: _atan2}
