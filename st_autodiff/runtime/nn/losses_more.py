"""More losses of ``nn.functional``: ``binary_cross_entropy``, ``smooth_l1_loss``,
``huber_loss``, ``kl_div``, and ``nll_loss`` over N-d inputs ``(N, C, d1, d2 ...)``.

``binary_cross_entropy``, ``smooth_l1_loss`` and ``huber_loss`` are one node each, as in
PyTorch (``BinaryCrossEntropyBackward0``, ``SmoothL1LossBackward0``,
``HuberLossBackward0``); their rules use only the rules' ``ops`` protocol, so second
derivatives work.  Like PyTorch, ``binary_cross_entropy`` clamps each log at -100 (a
probability of exactly 0 or 1 gives a finite loss) and divides its input gradient by
``max(x (1 - x), 1e-12)``.  ``kl_div`` is composed of recorded ops, as in PyTorch.

``nll_loss`` of an input with spatial dimensions is recorded as PyTorch records it: a
4-d input as ``NllLoss2DBackward0``, any other rank above 2 viewed to ``(N, C, 1, -1)``
first (and an unreduced result viewed back to the target's shape).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import functional as RF
from .. import shape_ops as S
from ..function import TensorBase, node_class
from ..special import xlogy
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record
from . import nodes

__all__ = ["binary_cross_entropy", "huber_loss", "kl_div", "margin_ranking_loss",
           "smooth_l1_loss", "soft_margin_loss"]

_NONE, _MEAN, _SUM = 0, 1, 2
_REDUCTIONS = {"none": _NONE, "mean": _MEAN, "sum": _SUM}
_WORD = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
         "int32": "Int", "bool": "Bool", "uint8": "Byte"}


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _enum(reduction: str) -> int:
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _resolve(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        from .functional import legacy_reduction

        return legacy_reduction(size_average, reduce)
    return reduction


def _reduce(ops: Any, data: Any, reduction: int) -> Any:
    if reduction == _MEAN:
        return data.mean()
    if reduction == _SUM:
        return data.sum()
    return data


def _scale(ops: Any, g: Any, x: Any, reduction: int) -> Any:
    """The incoming gradient spread over the elements (``/ n`` for a mean)."""
    if reduction == _MEAN:
        return g / math.prod(ops.static_shape(x))
    return g


def _size_warning(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=3)


# --- binary_cross_entropy ---------------------------------------------------------------------

def _clamped_logs(ops: Any, x: Any) -> tuple[Any, Any]:
    return ops.maximum(ops.log(x), -100.0), ops.maximum(ops.log(1.0 - x), -100.0)


def _rule_bce(ops: Any, g: Any, out: Any, x: Any, t: Any, w: Any, reduction: int = _MEAN
              ) -> tuple[Any, ...]:
    """``d/dx = w (x - t) / max(x (1 - x), 1e-12)``; ``d/dt = w (log(1 - x) - log x)``."""
    g = _scale(ops, g, x, reduction)
    gx = g * (x - t) / ops.maximum((1.0 - x) * x, 1e-12)
    log_x, log_1mx = _clamped_logs(ops, x)
    gt = g * (log_1mx - log_x)
    if w is not None:
        gx, gt = gx * w, gt * w
    return (gx, gt, None)


_BCE = node_class("BinaryCrossEntropyBackward0", _rule_bce, (0, 1),
                  (("reduction", _p("reduction"), None), ("self", 0, None),
                   ("target", 1, None), ("weight", 2, None)), False)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``-w [t log x + (1 - t) log(1 - x)]`` for probabilities ``input``, each log clamped
    at -100 (``BinaryCrossEntropyBackward0``)."""
    code = _enum(_resolve(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the "
                         f"input size ({input.shape}) is deprecated. Please ensure they have "
                         "the same size.")
    x: Any = input._data
    t: Any = target._data
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {_WORD.get(t.dtype.name, t.dtype.name)} but expected "
                           f"{_WORD.get(x.dtype.name, x.dtype.name)}")
    if x.size and (np.any(x < 0) or np.any(x > 1) or np.any(np.isnan(x))):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if t.size and not np.all((t >= 0) & (t <= 1)):  # (NaN fails too, as in PyTorch's check)
        raise RuntimeError("all elements of target should be between 0 and 1")
    if weight is not None:
        weight = _expand_weight(weight, input)
    from .functional import _no_grad_arg

    _no_grad_arg(weight, "binary_cross_entropy", "weight")
    with np.errstate(divide="ignore"):
        log_x, log_1mx = np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)
    loss = -(t * log_x + (1 - t) * log_1mx)
    if weight is not None:
        loss = loss * weight._data
    data = _reduce(np, loss.astype(x.dtype, copy=False), code)
    if needs_grad((input, target)):
        return record(_BCE, data, (input, target, weight), {"reduction": code})
    return plain(data)


def _expand_weight(weight: Tensor, input: Tensor) -> Tensor:
    shape, wshape = tuple(input.shape), tuple(weight.shape)
    if wshape == shape:
        return weight
    padded = (1,) * (len(shape) - len(wshape)) + wshape
    if len(wshape) > len(shape) or any(w not in (1, s) for w, s in zip(padded, shape)):
        bad = next((i - len(padded) for i, (w, s) in enumerate(zip(padded, shape))
                    if w not in (1, s)), -1)
        raise RuntimeError(f"Attempting to broadcast a dimension of length "
                           f"{padded[bad]} at {bad}! Mismatching argument at index 1 had "
                           f"{weight.shape}; but expected shape should be broadcastable to "
                           f"{list(shape)}")
    return S.expand(weight, shape)


# --- smooth_l1_loss and huber_loss ---------------------------------------------------------------

def _rule_smooth_l1(ops: Any, g: Any, out: Any, x: Any, t: Any, reduction: int = _MEAN,
                    beta: float = 1.0) -> tuple[Any, ...]:
    """``d/dx``: ``sign(d)`` outside ``[-beta, beta]``, ``d / beta`` inside."""
    d = x - t
    # (the bounds themselves take the constant branches: the same values, and PyTorch's
    # double backward, ``grad * (|d| < beta) / beta``, is zero there)
    inner = ops.where(d >= beta, 1.0, d / beta)
    gx = _scale(ops, g, x, reduction) * ops.where(d <= -beta, -1.0, inner)
    return (gx, -gx)


def _rule_huber(ops: Any, g: Any, out: Any, x: Any, t: Any, reduction: int = _MEAN,
                delta: float = 1.0) -> tuple[Any, ...]:
    """``d/dx``: ``d`` clamped to ``[-delta, delta]``."""
    d = x - t
    inner = ops.where(d >= delta, delta, d)  # (bounds: as in _rule_smooth_l1)
    gx = _scale(ops, g, x, reduction) * ops.where(d <= -delta, -delta, inner)
    return (gx, -gx)


_SMOOTH_L1 = node_class("SmoothL1LossBackward0", _rule_smooth_l1, (0, 1),
                        (("beta", _p("beta"), None), ("reduction", _p("reduction"), None),
                         ("self", 0, None), ("target", 1, None)), False)
_HUBER = node_class("HuberLossBackward0", _rule_huber, (0, 1),
                    (("delta", _p("delta"), None), ("reduction", _p("reduction"), None),
                     ("self", 0, None), ("target", 1, None)), False)


def _elementwise_loss(cls: type, input: Tensor, target: Tensor, code: int, name: str,
                      value: float, kernel: Any, promote: bool = False) -> Tensor:
    """One loss node over the broadcast pair; ``promote``: a wider floating target widens
    the result (``smooth_l1_loss`` does, ``huber_loss`` keeps the input's dtype)."""
    _size_warning(input, target)
    from .functional import _broadcast

    x_t, t_t = _broadcast(input, target)
    x: Any = x_t._data
    if promote and t_t._data.dtype.kind == "f":
        x = x.astype(np.result_type(x.dtype, t_t._data.dtype), copy=False)
    t = t_t._data.astype(x.dtype, copy=False)
    data = _reduce(np, kernel(np.abs(x - t)).astype(x.dtype, copy=False), code)
    if needs_grad((x_t, t_t)):
        return record(cls, data, (x_t, t_t), {"reduction": code, name: value})
    return plain(data)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere
    (``SmoothL1LossBackward0``; with ``beta=0`` it is ``l1_loss``, as in PyTorch)."""
    code = _enum(_resolve(size_average, reduce, reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        from .functional import l1_loss

        return l1_loss(input, target, reduction=reduction if size_average is None and
                       reduce is None else ("none", "mean", "sum")[code])

    def kernel(z: Any) -> Any:
        return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)

    return _elementwise_loss(_SMOOTH_L1, input, target, code, "beta", beta, kernel, True)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere
    (``HuberLossBackward0``)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def kernel(z: Any) -> Any:
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))

    if weight is None:
        return _elementwise_loss(_HUBER, input, target, _enum(reduction), "delta", delta,
                                 kernel)
    # with a weight: the unreduced loss times the weight, then a plain mean or sum
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = RF.mul(_elementwise_loss(_HUBER, input, target, _NONE, "delta", delta, kernel),
                      weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return RF.sum(weighted)
    if reduction == "mean":
        return RF.mean(weighted)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


# --- kl_div -------------------------------------------------------------------------------------

_KL_MEAN = ("reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.")


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of ``target`` from log-probabilities ``input``:
    ``t (log t - input)`` elementwise (``exp(t) (t - input)`` with ``log_target``).
    ``'batchmean'`` divides the sum by the batch size; ``'mean'`` (the default) divides by
    the number of elements and warns, as in PyTorch."""
    if size_average is not None or reduce is not None:
        from .functional import legacy_reduction

        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(_KL_MEAN, UserWarning, stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = RF.mul(RF.exp(target), RF.sub(target, input))
    else:
        loss = RF.sub(xlogy(target, target), RF.mul(target, input))
    if reduction == "none":
        return loss
    if reduction == "mean":
        return RF.mean(loss)
    total = RF.sum(loss)
    if reduction == "batchmean" and input.ndim != 0:
        return RF.div(total, input.shape[0])
    return total


# --- soft_margin_loss and margin_ranking_loss -------------------------------------------------

def _rule_soft_margin(ops: Any, g: Any, out: Any, x: Any, y: Any,
                      reduction: int = _MEAN) -> tuple[Any, ...]:
    """``d log(1 + exp(-y x)) / dx = -y sigmoid(-y x)``."""
    return (_scale(ops, g, x, reduction) * (-y * ops.sigmoid(-y * x)), None)


_SOFT_MARGIN = node_class("SoftMarginLossBackward0", _rule_soft_margin, (0,),
                          (("reduction", _p("reduction"), None), ("self", 0, None),
                           ("target", 1, None)), False)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` for targets of +-1 (``SoftMarginLossBackward0``)."""
    code = _enum(_resolve(size_average, reduce, reduction))
    from .functional import _broadcast, _no_grad_arg

    _no_grad_arg(target, "soft_margin_loss", "target")
    x_t, t_t = _broadcast(input, target)
    x: Any = x_t._data
    z = -t_t._data.astype(x.dtype, copy=False) * x
    loss = (np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0)).astype(x.dtype, copy=False)
    data = _reduce(np, loss, code)
    if needs_grad((x_t,)):
        return record(_SOFT_MARGIN, data, (x_t, t_t), {"reduction": code})
    return plain(data)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``, composed as in PyTorch."""
    from .vector_ops import _add_scalar, renamed

    code = _enum(_resolve(size_average, reduce, reduction))
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    scaled = RF.mul(RF.neg(target), RF.sub(input1, input2))
    loss = renamed(RF.clamp_min(_add_scalar(scaled, margin), 0), "ClampMinBackward0")
    return loss if code == _NONE else RF.mean(loss) if code == _MEAN else RF.sum(loss)


# --- nll_loss over spatial dimensions ---------------------------------------------------------

_NLL2D = node_class("NllLoss2DBackward0", nodes._rule_nll, (0,), nodes._NLL_PLAN, False)


def nll_nd(base: Any, input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
           code: int) -> Tensor:
    """``nll_loss`` after the reduction was resolved (``base`` is the 1-d/2-d
    implementation): spatial inputs are recorded as ``NllLoss2DBackward0``."""
    if not isinstance(target, TensorBase):
        raise TypeError(f"nll_loss_nd(): argument 'target' (position 2) must be Tensor, not "
                        f"{type(target).__name__}")
    nd = input.ndim
    if nd <= 2:
        result: Tensor = base(input, target, weight, ignore_index, code)
        return result
    shape, tshape = tuple(input.shape), tuple(target.shape)
    if tshape[:1] != shape[:1]:
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target "
                         f"batch_size ({tshape[0] if tshape else 0}).")
    if tshape[1:] != shape[2:]:
        raise RuntimeError(f"Expected target size {list(shape[:1] + shape[2:])}, got "
                           f"{list(tshape)}")
    if nd == 4:
        return _as_2d(base(input, target, weight, ignore_index, code))
    n, c = shape[0], shape[1]
    flat = S.view(input, n, c, 1, -1)
    out = _as_2d(base(flat, S.view(target, n, 1, -1), weight, ignore_index, code))
    return S.view(out, *tshape) if code == _NONE else out


def _as_2d(out: Tensor) -> Tensor:
    """Name the node of a spatial nll as PyTorch does (same rule, same saved values)."""
    node = out._grad_fn
    if node is not None and type(node).__name__ == "NllLossBackward0":
        node.__class__ = _NLL2D
    return out
