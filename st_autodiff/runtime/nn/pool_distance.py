"""Power-average pooling and distance modules, composed as PyTorch composes them:
``F.lp_pool1d/2d`` with ``nn.LPPool1d/2d``, ``nn.PairwiseDistance``,
``nn.CosineSimilarity`` and ``F.triplet_margin_with_distance_loss`` with
``nn.TripletMarginWithDistanceLoss``.

>>> import st_autodiff as torch
>>> torch.nn.LPPool2d(2, 3)
LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import functional as RF
from ..tensor import Tensor
from .loss import _Loss
from .losses_extra import _reduce
from .module import Module
from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .vector_ops import cosine_similarity, pairwise_distance, renamed

__all__ = ["CosineSimilarity", "LPPool1d", "LPPool2d", "PairwiseDistance",
           "TripletMarginWithDistanceLoss", "lp_pool1d", "lp_pool2d",
           "triplet_margin_with_distance_loss"]


def _lp(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool,
        nd: int) -> Tensor:
    avg, mx = (avg_pool1d, max_pool1d) if nd == 1 else (avg_pool2d, max_pool2d)
    if norm_type == float("inf"):
        top: Tensor = mx(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return top
    if norm_type == -float("inf"):
        low: Tensor = mx(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -low
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    if nd == 1:
        count = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    else:
        kw, kh = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        count = kw * kh
    return (RF.sign(out) * RF.relu(out.abs())).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window: ``(sum x**p) ** (1/p)`` (as ``avg_pool`` times the
    window size)."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The 2-d form of ``lp_pool1d``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 2)


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """``lp_pool1d`` as a module."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                         self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """``lp_pool2d`` as a module."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                         self.ceil_mode)


class PairwiseDistance(Module):
    """``pairwise_distance`` as a module."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """``cosine_similarity`` as a module."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` for any distance ``d`` (default
    ``pairwise_distance``)."""
    if margin <= 0:
        raise ValueError("triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{p}D, and negative {n}D inputs")
    dist: Callable[[Tensor, Tensor], Tensor] = (distance_function if distance_function
                                                is not None else pairwise_distance)
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = RF.minimum(d_neg, dist(positive, negative))
    loss = renamed(RF.clamp_min(RF.sub(RF.add(d_pos, margin), d_neg), 0), "ClampMinBackward0")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _reduce(loss, reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``triplet_margin_with_distance_loss`` as a module (the default distance is a
    ``PairwiseDistance`` child)."""

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                 margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function: Any = (distance_function if distance_function is not None
                                       else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
