"""``torch.cdist`` for the eager runtime: pairwise p-norm distances, written with Tensor
ops so that autograd (every order) comes from their rules.

Like PyTorch's ``cdist`` (and the compiler's ``scipy.spatial.distance.cdist``), the
gradient is zero where a distance is zero: the root is taken of ``where(s > 0, s, 1)``.
"""

from __future__ import annotations

import math
from typing import Any

from .functional import where
from .tensor import Tensor

__all__ = ["cdist"]


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = None) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of
    ``x2`` (..., R, M): a (..., P, R) tensor.  ``compute_mode`` is accepted and ignored
    (the distances are always computed directly, never through matrix products)."""
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    if p == 0:
        raise NotImplementedError("cdist with p=0 (a count of differing coordinates) has no "
                                  "gradient; compute it with (x1 != x2).sum(-1)")
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == math.inf:
        return d.abs().amax(dim=-1)
    if p == 1:
        return d.abs().sum(dim=-1)
    s = (d * d).sum(dim=-1) if p == 2 else d.abs().pow(p).sum(dim=-1)
    positive = s > 0
    safe = where(positive, s, 1.0)
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return where(positive, root, 0.0)
