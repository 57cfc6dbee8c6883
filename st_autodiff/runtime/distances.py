"""``torch.cdist`` and ``torch.pdist`` for the eager runtime: pairwise p-norm distances,
written with Tensor ops so that autograd (every order) comes from their rules.

Like PyTorch's ``cdist`` (and the compiler's ``scipy.spatial.distance.cdist``), the
gradient is zero where a distance is zero: the root is taken of ``where(s > 0, s, 1)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .functional import where
from .tensor import Tensor

__all__ = ["cdist", "pdist"]


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = None) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of
    ``x2`` (..., R, M): a (..., P, R) tensor.  ``compute_mode`` is accepted and ignored
    (the distances are always computed directly, never through matrix products)."""
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return _norm_last(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:  # noqa: A002 (PyTorch's name)
    """The ``p``-norm distance between each pair of rows ``i < j`` of the (N, M)
    ``input``, in row-major order of the pairs: an N (N - 1) / 2 vector."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    if input.shape[0] < 2:
        return _norm_last(input[:0] - input[:0], p)  # no pairs
    first, second = np.triu_indices(input.shape[0], 1)
    return _norm_last(input[first.tolist()] - input[second.tolist()], p)


def _norm_last(d: Tensor, p: float) -> Tensor:
    """The ``p``-norm over the last axis, with gradient 0 where it is 0."""
    if p == 0:
        raise NotImplementedError("a distance with p=0 (a count of differing coordinates) "
                                  "has no gradient; compute it with (x1 != x2).sum(-1)")
    if p == math.inf:
        return d.abs().amax(dim=-1)
    if p == 1:
        return d.abs().sum(dim=-1)
    s = (d * d).sum(dim=-1) if p == 2 else d.abs().pow(p).sum(dim=-1)
    positive = s > 0
    safe = where(positive, s, 1.0)
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return where(positive, root, 0.0)
