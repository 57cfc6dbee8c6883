"""More losses, composed of recorded runtime ops as PyTorch composes them (so every order
of derivative comes from the rule table): ``poisson_nll_loss``, ``gaussian_nll_loss``,
``triplet_margin_loss``, ``cosine_embedding_loss``, ``hinge_embedding_loss``,
``multi_margin_loss``, ``multilabel_soft_margin_loss`` and their modules.

``multi_margin_loss`` is one kernel in PyTorch (``MultiMarginLossBackward0``); here it is
the sum of ``clamp_min(margin - x[y] + x[j], 0) ** p`` over ``j != y``, so its graph ends
in the composition's last node.

>>> import st_autodiff as torch
>>> torch.nn.HingeEmbeddingLoss()(torch.tensor([0.3, 2.0]), torch.tensor([-1.0, 1.0]))
tensor(1.3500)
"""

from __future__ import annotations

import math
from typing import Any

from .. import functional as RF
from ..conditional import where
from ..factory import arange, zeros_like
from ..grad_mode import no_grad
from ..tensor import Tensor
from .functional import legacy_reduction
from .loss import _Loss
from .vector_ops import pairwise_distance, renamed

__all__ = ["CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MultiMarginLoss",
           "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "TripletMarginLoss",
           "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss",
           "multi_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
           "triplet_margin_loss"]


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under a Poisson with rate ``input`` (or
    ``exp(input)`` when ``log_input``); ``full`` adds Stirling's term."""
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = RF.sub(RF.exp(input), RF.mul(target, input))
    else:
        loss = RF.sub(input, RF.mul(target, RF.log(RF.add(input, eps))))
    if full:
        stirling = (target * target.log() - target + 0.5 * (2 * math.pi * target).log())
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and
    variance ``var`` (clamped below at ``eps`` without a gradient through the clamp)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(input.shape)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm ``pairwise_distance``
    (``swap``: ``d(a, n)`` replaced by ``min(d(a, n), d(p, n))``)."""
    reduction = _reduction(size_average, reduce, reduction)
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not a == pd == nd:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{pd}D, and negative {nd}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = RF.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = renamed(RF.clamp_min(RF.sub(RF.add(d_pos, margin), d_neg), 0), "ClampMinBackward0")
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it
    is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    td = target.dim()
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim = input1.dim() - 1
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    zero = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    loss = where(target == 1, pos, zero) + where(target == -1, neg, zero)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    zero = zeros_like(input)
    clamped = (margin - input).clamp_min(0)
    loss = where(target != 1, clamped, zero) + where(target != -1, input, zero)
    return _reduce(loss, reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Per sample, ``sum_{j != y} w[y] * max(0, margin - x[y] + x[j]) ** p / C``."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_word(input)} but found {_word(weight)}")
    x = input if input.dim() > 1 else input.unsqueeze(0)
    if x.dim() != 2 or x.shape[1] == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size,"
                           f" but got: {list(input.shape)}")
    n, c = x.shape
    y = target.reshape(-1)
    if y.shape[0] != n:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if bool(((y < 0) | (y >= c)).any()):
        raise RuntimeError("target out of range")
    idx = y.unsqueeze(1)
    z = RF.clamp_min(RF.add(RF.sub(x, x.gather(1, idx)), margin), 0)
    if p == 2:
        z = RF.mul(z, z)
    if weight is not None:
        z = RF.mul(z, weight[y].unsqueeze(1))
    own = RF.eq(arange(c, device=x.device).unsqueeze(0), idx)
    loss = RF.div(z.masked_fill(own, 0).sum(1), c)
    if input.dim() <= 1 and reduction == "none":
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


def _word(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(t.dtype.name,
                                                                            t.dtype.name)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """The mean over classes of the binary cross-entropy of ``sigmoid(input)``."""
    from .activations import logsigmoid

    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


class PoissonNLLLoss(_Loss):
    """``poisson_nll_loss`` as a module."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None,
                 eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """``gaussian_nll_loss`` as a module."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6,
                 reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                 reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``triplet_margin_loss`` as a module."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                   eps=self.eps, swap=self.swap, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``cosine_embedding_loss`` as a module."""

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``hinge_embedding_loss`` as a module."""

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """``multi_margin_loss`` as a module (``weight`` is a buffer)."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.register_buffer("weight", weight)
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                 weight=self.weight, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """``multilabel_soft_margin_loss`` as a module (``weight`` is a buffer)."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multilabel_soft_margin_loss(input, target, weight=self.weight,
                                           reduction=self.reduction)
