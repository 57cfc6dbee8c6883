"""``nn.functional``: activations, ``linear``, ``dropout``, softmax and the losses.

Every function records the nodes PyTorch records for the same call, so ``grad_fn`` chains
read the same: ``linear`` on a matrix is ``AddmmBackward0`` (``MmBackward0`` without a
bias; other ranks are viewed to a matrix and back, as PyTorch does), ``cross_entropy`` is
``NllLossBackward0`` over ``LogSoftmaxBackward0``, ``l1_loss`` is a mean of an absolute
difference.  The fused nodes live in ``nodes.py``; the rest is composed from the runtime's
recorded ops.  Argument checks raise PyTorch's exceptions with PyTorch's messages.

>>> import st_autodiff as torch
>>> import st_autodiff.nn.functional as F
>>> x = torch.tensor([[1.0, -2.0]], requires_grad=True)
>>> F.relu(x)
tensor([[1., 0.]], grad_fn=<ReluBackward0>)
>>> F.mse_loss(x, torch.zeros(1, 2))
tensor(2.5000, grad_fn=<MseLossBackward0>)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import functional as RF
from .. import shape_ops as S
from ..dtypes import float64
from ..factory import rand, zeros
from ..function import TensorBase
from ..tensor import Tensor, plain
from . import nodes

__all__ = [
    "binary_cross_entropy_with_logits", "cross_entropy", "dropout", "l1_loss", "linear",
    "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh",
]

sigmoid = RF.sigmoid
tanh = RF.tanh


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise (``ReluBackward0``); ``inplace`` overwrites ``input``."""
    return input.relu_() if inplace else RF.relu(input)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` over the last dimension of ``input``."""
    a, w = input._data, weight._data
    nd = a.ndim
    if nd == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D "
                           "and 2D")
    if a.dtype != w.dtype:
        if bias is not None:
            raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                               f"{_type_word(input)} and {_type_word(weight)}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_c_name(input)} != {_c_name(weight)}")
    if bias is not None and bias._data.dtype != w.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{_type_word(bias)} and {_type_word(weight)}")
    if a.shape[-1] != w.shape[-1]:
        rows = a.size // a.shape[-1] if a.shape[-1] else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} "
                           f"and {w.shape[-1]}x{w.shape[0]})")
    wt = S.t(weight)
    if nd == 2:
        # (the dtypes and the inner size were checked above: nothing left for addmm to check)
        return RF.mm(input, wt) if bias is None else nodes.addmm_checked(bias, input, wt)
    if nd == 1 and bias is None:
        return RF.matmul(input, wt)
    lead = tuple(a.shape[:-1])  # the array's shape: cheaper than Tensor.shape's Size
    # rnn part (issue 12): an input that cannot be viewed as a matrix (a transposed batch)
    # goes PyTorch's matmul route: a copied matrix, ``MmBackward0``, then ``AddBackward0``.
    if not input.is_contiguous():
        out = nodes.unsafe_view(RF.mm(S.reshape(input, -1, a.shape[-1]), wt),
                                lead + (w.shape[0],))
        return out if bias is None else RF.add(out, bias)
    flat = S.view(input, -1, a.shape[-1])
    if bias is None:
        return nodes.unsafe_view(RF.mm(flat, wt), lead + (w.shape[0],))
    return S.view(nodes.addmm(bias, flat, wt), *lead, w.shape[0])


def _c_name(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(t.dtype.name,
                                                                                 t.dtype.name)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim`` (``SoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim, _stacklevel)
    return RF.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """``log(softmax(input))`` along ``dim``, computed stably (``LogSoftmaxBackward0``)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel)
    return RF.log_softmax(input, dim, dtype=dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Outside training (or with ``p == 0``) the input comes back unchanged.  The mask is
    drawn from the default generator; the result is recorded as ``MulBackward0``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        noise = zeros((), dtype=input.dtype, device=input.device)
    else:
        # PyTorch's CPU Bernoulli draw: one double-precision uniform per element, kept when
        # below 1 - p; the kept ones are scaled in the input's dtype.
        # rnn part (issue 12): the mask is laid out like the input, so the draws fill a
        # permuted view (a transposed batch) in its memory order, as PyTorch's do.
        order = _memory_order(input)
        if order is None:
            draws = rand(tuple(input.shape), dtype=float64, device=input.device)
        else:
            inverse = tuple(int(i) for i in np.argsort(order))
            draws = S.permute(rand(tuple(input.shape[i] for i in order), dtype=float64,
                                   device=input.device), *inverse)
        keep = RF.lt(draws, 1.0 - p)
        noise = RF.div(keep.to(input.dtype), 1.0 - p)
    return input.mul_(noise) if inplace else RF.mul(input, noise)


def _memory_order(t: Tensor) -> tuple[int, ...] | None:
    """The dims from outermost to innermost in memory, for a dense permuted view (else
    ``None``: contiguous, or not a permutation of a dense layout)."""
    a: Any = t._data
    if a.ndim < 2 or a.flags.c_contiguous or not a.size:
        return None
    order = tuple(sorted(range(a.ndim), key=lambda i: -a.strides[i]))
    step = a.itemsize
    for i in reversed(order):
        if a.shape[i] != 1 and a.strides[i] != step:
            return None
        step *= a.shape[i]
    return order


# --- losses ----------------------------------------------------------------------------------

def legacy_reduction(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    """The ``reduction`` string meant by the old ``size_average``/``reduce`` flags."""
    average = True if size_average is None else size_average
    reducing = True if reduce is None else reduce
    if average and reducing:
        reduction = "mean"
    elif reducing:
        reduction = "sum"
    else:
        reduction = "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", UserWarning, stacklevel=3)
    return reduction


def _enum(reduction: str) -> int:
    try:
        return nodes.REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _resolve(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    return reduction


def _broadcast(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Both tensors expanded to their common shape (``ExpandBackward0`` where needed)."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa == sb:
        return a, b
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and 1 not in (pa[i], pb[i]):
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                               f"b ({pb[i]}) at non-singleton dimension {i}")
    shape = tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(pa, pb))
    return (a if sa == shape else S.expand(a, shape)), (b if sb == shape else S.expand(b, shape))


def _check_sizes(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=3)


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = RF.mul(errors, weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return RF.sum(weighted)
    if reduction == "mean":
        return RF.div(RF.sum(weighted), RF.sum(weight))
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) squared difference (``MseLossBackward0``)."""
    _check_sizes(input, target)
    reduction = _resolve(size_average, reduce, reduction)
    x, t = _broadcast(input, target)
    if weight is not None:
        return _weighted(RF.pow(RF.sub(x, t), 2), weight, input, reduction)
    return nodes.mse(x, t, _enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) absolute difference."""
    _check_sizes(input, target)
    reduction = _resolve(size_average, reduce, reduction)
    x, t = _broadcast(input, target)
    errors = RF.abs(RF.sub(x, t))
    if weight is not None:
        return _weighted(errors, weight, input, reduction)
    code = _enum(reduction)
    return RF.mean(errors) if code == 1 else RF.sum(errors) if code == 2 else errors


def _no_grad_arg(t: Tensor | None, function: str, name: str) -> None:
    if t is not None and t.requires_grad:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{name}'. This input cannot have requires_grad True.")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of class indices ``target`` (``NllLossBackward0``)."""
    code = _enum(_resolve(size_average, reduce, reduction))
    return _nll(input, target, weight, ignore_index, code)


def _nll(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
         code: int) -> Tensor:
    """``nll_loss`` after the reduction was resolved: checks shapes and dtypes, records."""
    shape, tshape = input._data.shape, target._data.shape
    nd = len(shape)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd >= 2:  # (PyTorch checks the shapes before the dtype here, after it for 1-d)
        if tshape[:1] != shape[:1]:
            raise ValueError(f"Expected input batch_size ({shape[0]}) to match target "
                             f"batch_size ({tshape[0] if tshape else 0}).")
        if nd == 2 and len(tshape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if tshape[1:] != shape[2:]:
            raise RuntimeError(f"Expected target size {list(shape[:1] + shape[2:])}, got "
                               f"{list(tshape)}")
    if target._data.dtype.type not in (np.int64, np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_type_word(target)}")
    if nd == 1 and tshape != ():
        if len(tshape) != 1 or tshape[0] != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{tshape[0] if len(tshape) == 1 else target.numel()}")
        target = S.reshape(target, ())
    _no_grad_arg(weight, "nll_loss_forward", "weight")
    return nodes.nll(input, target, weight, ignore_index, code)


def _type_word(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool",
            "int64": "Long", "int32": "Int"}.get(t.dtype.name, t.dtype.name)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits ``input`` (classes on dim 1, or dim 0 for a vector).

    ``target`` holds class indices (``NllLossBackward0`` over ``LogSoftmaxBackward0``) or,
    when it has the input's shape and a floating dtype, class probabilities.
    """
    code = _enum(_resolve(size_average, reduce, reduction))
    nd = input._data.ndim
    soft = target._data.dtype.kind == "f"
    if nd == 0:
        if soft:
            raise ValueError("Expected 1 or more dimensions (got 0)")
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {_type_word(target)}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if nd == 1 else 1
    logp = RF.log_softmax(input, class_dim)
    if soft and target._data.shape == input._data.shape:
        return _soft_targets(logp, target, weight, class_dim, code, label_smoothing)
    loss = _nll(logp, target, weight, ignore_index, code)
    if label_smoothing == 0.0:
        return loss
    return _smoothed(loss, logp, target, weight, class_dim, code, ignore_index, label_smoothing)


def _class_view(weight: Tensor, logp: Tensor, class_dim: int) -> Tensor:
    shape = [1] * logp.ndim
    shape[class_dim] = weight.shape[0]
    return S.view(weight, *shape)


def _soft_targets(logp: Tensor, target: Tensor, weight: Tensor | None, class_dim: int,
                  code: int, smoothing: float) -> Tensor:
    n_classes = logp.shape[class_dim]
    if smoothing > 0.0:
        target = RF.add(RF.mul(target, 1.0 - smoothing), smoothing / n_classes)
    terms = RF.mul(logp, target)
    if weight is not None:
        terms = RF.mul(terms, _class_view(weight, logp, class_dim))
    if code == 0:
        return RF.neg(RF.sum(terms, class_dim))
    total = RF.neg(RF.sum(terms))
    return total if code == 2 else nodes.div_scalar(total, logp.numel() // n_classes)


def _smoothed(nll: Tensor, logp: Tensor, target: Tensor, weight: Tensor | None,
              class_dim: int, code: int, ignore_index: int, smoothing: float) -> Tensor:
    """``(1 - s) * nll + s / C * (the loss against a uniform target)``."""
    n_classes = logp.shape[class_dim]
    ignored = RF.eq(target, ignore_index)
    terms = logp if weight is None else RF.mul(logp, _class_view(weight, logp, class_dim))
    smooth = nodes.masked_fill(RF.neg(RF.sum(terms, class_dim)), ignored, 0.0)
    if code == 1:
        kept = RF.logical_not(ignored)
        if weight is None:
            denom = RF.sum(kept)
        else:
            picked = np.asarray(target._host())[np.asarray(kept._host())]
            denom = RF.sum(S.getitem(weight, _long(picked)))
        smooth = RF.div(RF.sum(smooth), denom)
    elif code == 2:
        smooth = RF.sum(smooth)
    return RF.add(nodes.mul_scalar(nll, 1.0 - smoothing),
                  nodes.mul_scalar(smooth, smoothing / n_classes))


def _long(values: np.ndarray[Any, Any]) -> Tensor:
    return plain(values.astype(np.int64))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of logits ``input`` against probabilities ``target``, computed
    stably in one node (``BinaryCrossEntropyWithLogitsBackward0``)."""
    reduction = _resolve(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    for t, name in ((weight, "weight"), (pos_weight, "pos_weight")):
        _no_grad_arg(t, "binary_cross_entropy_with_logits", name)
        if t is not None and not isinstance(t, TensorBase):
            raise TypeError(f"binary_cross_entropy_with_logits(): argument '{name}' must be "
                            f"Tensor, not {type(t).__name__}")
    return nodes.bce_with_logits(input, target, weight, pos_weight, _enum(reduction))


# --- layers part (issue 12): activations, losses, embedding, padding, distances -------------
from . import activations as _layers_activations  # noqa: E402
from . import losses_more as _layers_losses  # noqa: E402
from . import vector_ops as _layers_vectors  # noqa: E402
from .activations import *  # noqa: E402, F403
from .embedding import embedding as embedding  # noqa: E402
from .losses_more import *  # noqa: E402, F403
from .vector_ops import *  # noqa: E402, F403

_nll_up_to_2d = _nll


# (a deliberate redefinition: the 1-d/2-d _nll lives on as _nll_up_to_2d)
def _nll(input: Tensor, target: Tensor, weight: Tensor | None,  # type: ignore[no-redef]
         ignore_index: int, code: int) -> Tensor:
    """``nll_loss`` of any rank; spatial inputs are recorded as ``NllLoss2DBackward0``."""
    return _layers_losses.nll_nd(_nll_up_to_2d, input, target, weight, ignore_index, code)


#: The public names this part adds (the public face re-exports them).
LAYERS_PART = [*_layers_activations.__all__, *_layers_losses.__all__,
               *_layers_vectors.__all__, "embedding"]
__all__ += LAYERS_PART
# conv (issue 12): convolution, pooling and batch normalisation.
from .batchnorm import batch_norm  # noqa: E402
from .conv import conv1d, conv2d  # noqa: E402
from .pooling import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
)

__all__ += [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "avg_pool1d", "avg_pool2d", "batch_norm", "conv1d", "conv2d", "max_pool1d", "max_pool2d",
]
# eagernn: the functional forms of the missing nn pieces.
from .conv_transpose import conv_transpose1d as conv_transpose1d  # noqa: E402
from .conv_transpose import conv_transpose2d as conv_transpose2d  # noqa: E402
from .embedding_bag import embedding_bag as embedding_bag  # noqa: E402
from .layers_more import bilinear as bilinear  # noqa: E402
from .layers_more import dropout1d as dropout1d  # noqa: E402
from .layers_more import dropout2d as dropout2d  # noqa: E402
from .layers_more import glu as glu  # noqa: E402
from .losses_extra import cosine_embedding_loss as cosine_embedding_loss  # noqa: E402
from .losses_extra import gaussian_nll_loss as gaussian_nll_loss  # noqa: E402
from .losses_extra import hinge_embedding_loss as hinge_embedding_loss  # noqa: E402
from .losses_extra import multi_margin_loss as multi_margin_loss  # noqa: E402
from .losses_extra import multilabel_soft_margin_loss as multilabel_soft_margin_loss  # noqa: E402
from .losses_extra import poisson_nll_loss as poisson_nll_loss  # noqa: E402
from .losses_extra import triplet_margin_loss as triplet_margin_loss  # noqa: E402
from .norm_more import group_norm as group_norm  # noqa: E402
from .norm_more import instance_norm as instance_norm  # noqa: E402
from .norm_more import rms_norm as rms_norm  # noqa: E402
from .pool_distance import lp_pool1d as lp_pool1d  # noqa: E402
from .pool_distance import lp_pool2d as lp_pool2d  # noqa: E402
from .pool_distance import triplet_margin_with_distance_loss as triplet_margin_with_distance_loss  # noqa: E402
from .unfold_fold import fold as fold  # noqa: E402
from .unfold_fold import unfold as unfold  # noqa: E402
from .upsample import interpolate as interpolate  # noqa: E402
from .upsample import pixel_shuffle as pixel_shuffle  # noqa: E402
from .upsample import pixel_unshuffle as pixel_unshuffle  # noqa: E402

#: The public names the eagernn part adds (the public face re-exports them).
MORE_PART = [
    "bilinear", "conv_transpose1d", "conv_transpose2d", "dropout1d", "dropout2d", "glu",
    "group_norm", "instance_norm", "interpolate", "pixel_shuffle", "pixel_unshuffle",
    "rms_norm", "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss",
    "multi_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
    "triplet_margin_loss", "embedding_bag", "fold", "unfold", "lp_pool1d", "lp_pool2d",
    "triplet_margin_with_distance_loss",
]
__all__ += MORE_PART
