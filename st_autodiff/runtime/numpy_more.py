"""PyTorch functions of the numpy-more family in the eager runtime: ``torch.fmod``,
``torch.ldexp``, ``torch.diff``, ``torch.nansum`` and ``torch.nanmean``.

``fmod`` is one op of the rule table (``Op.FMOD``); the others are compositions of
recorded ops, as PyTorch writes them (``ldexp`` is ``input * 2 ** other``), so their
gradients come from the rules of the ops they run.
"""

from __future__ import annotations

from typing import Any

from ..ir.ops import Op
from .comparisons import isnan, logical_not
from .conditional import where
from .functional import _MUL_PLAN, _binary, mul, pow, sub
from .indexing import narrow
from .reductions import sum as _sum
from .shape_ops import cat
from .tensor import Tensor

fmod = _binary("fmod", Op.FMOD, "FmodBackward0", _MUL_PLAN)


def ldexp(input: Tensor, other: Any) -> Tensor:
    """``input * 2 ** other`` (PyTorch's definition); ``other`` holds integers."""
    return mul(input, pow(2.0, other))


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Any = None,
         append: Any = None) -> Tensor:
    """The ``n``-th forward difference along ``dim``, after joining ``prepend`` and
    ``append`` (tensors) at its two ends."""
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        x = sub(narrow(x, dim, 1, length - 1), narrow(x, dim, 0, length - 1))
    return x


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum with NaN counted as zero."""
    clean = where(isnan(input), 0.0, input)
    return _sum(clean) if dim is None else _sum(clean, dim, keepdim)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The mean of the values that are not NaN."""
    kept = logical_not(isnan(input))
    count = _sum(kept) if dim is None else _sum(kept, dim, keepdim)
    return nansum(input, dim, keepdim) / count
