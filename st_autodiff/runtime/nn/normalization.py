"""Layer normalization: ``nn.functional.layer_norm`` and ``nn.LayerNorm``.

``layer_norm`` normalizes over the trailing ``normalized_shape`` dimensions to zero mean
and unit (biased) variance, then applies the optional elementwise ``weight`` and ``bias``.
It records one node, ``NativeLayerNormBackward0``, as PyTorch does.  The node's rule is
written with the rules' ``ops`` protocol and recomputes the mean and ``1/std`` from the
saved input, so a ``create_graph`` backward records every step and second derivatives
work.  With ``xhat = (x - mean) * rstd`` and ``gy = g * weight``, the rule is::

    dx = rstd * (gy - mean(gy) - xhat * mean(gy * xhat))      (means over normalized dims)
    dweight = g * xhat,  dbias = g                             (summed to the weight's shape)

>>> import st_autodiff as torch
>>> torch.nn.LayerNorm(4)
LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
>>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
tensor([[-1.0000,  1.0000]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..factory import empty
from ..function import node_class
from ..grad_mode import STATE
from ..tensor import Tensor, plain
from ..tensor_ops import record
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["LayerNorm", "layer_norm"]


def _mean(a: Any, axes: tuple[Any, ...]) -> Any:
    """``a.mean(axis=axes, keepdims=True)`` with the same steps (a sum, then a division by
    the count as ``intp``) without ``np.mean``'s Python wrapper, for float32 and float64."""
    if type(a) is not np.ndarray or a.dtype not in _FAST_MEAN:
        return a.mean(axis=axes, keepdims=True)
    total = np.add.reduce(a, axis=axes, keepdims=True)
    count = 1
    for ax in axes:
        count *= a.shape[ax]
    if count == 0:
        return a.mean(axis=axes, keepdims=True)
    return np.true_divide(total, np.intp(count), out=total, casting="unsafe")


_FAST_MEAN = (np.dtype(np.float32), np.dtype(np.float64))


def _rule_layer_norm(ops: Any, g: Any, out: Any, x: Any, w: Any, b: Any,
                     axes: tuple[Any, ...] = (-1,), eps: float = 1e-5, mean: Any = None,
                     rstd: Any = None, **_: Any) -> tuple[Any, ...]:
    """The gradients of ``(x - mean) * rstd * w + b`` (see the module docstring)."""
    if not ops.tensors and type(x) is np.ndarray and mean is not None:
        # on arrays: the forward's mean and 1/std are these very values (same steps)
        xhat = (x - mean) * rstd
        gy = g if w is None else g * w
        gx = rstd * (gy - _mean(gy, axes) - xhat * _mean(gy * xhat, axes))
        lead = tuple(range(x.ndim - len(axes)))
        if not lead or type(g) is not np.ndarray or g.shape != x.shape:
            return (gx, g * xhat, g)
        # the weight's and bias's gradients summed over the leading dims here, as the
        # engine's unbroadcast would (the same reduction, without its wrappers)
        gw = None if w is None else np.add.reduce(g * xhat, axis=lead)
        gb = None if b is None else np.add.reduce(g, axis=lead)
        return (gx, gw, gb)
    mean = ops.mean(x, axis=axes, keepdims=True)
    xc = x - mean
    rstd = 1.0 / ops.sqrt(ops.mean(xc * xc, axis=axes, keepdims=True) + eps)
    xhat = xc * rstd
    gy = g if w is None else g * w
    gx = rstd * (gy - ops.mean(gy, axis=axes, keepdims=True)
                 - xhat * ops.mean(gy * xhat, axis=axes, keepdims=True))
    return (gx, g * xhat, g)


_PLAN = (("bias", 2, None), ("input", 0, None),
         ("normalized_shape", lambda a, p: p["normalized_shape"], None),
         ("result1", lambda a, p: plain(p["mean"]), None),
         ("result2", lambda a, p: plain(p["rstd"]), None),
         ("weight", 1, None))
_LAYER_NORM = node_class("NativeLayerNormBackward0", _rule_layer_norm, (0, 1, 2), _PLAN, False)


def _check(input: Tensor, shape: tuple[Any, ...], weight: Tensor | None,
           bias: Tensor | None) -> None:
    got = list(input.shape)
    if len(shape) > len(got) or tuple(got[len(got) - len(shape):]) != shape:
        stars = ", ".join(["*"] + [str(s) for s in shape])
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[{stars}], but got input of size{got}")
    if any(t is not None and t.dtype != input.dtype for t in (weight, bias)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but "
                               f"got {what} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims, then scale and shift."""
    if isinstance(normalized_shape, int) or not hasattr(normalized_shape, "__iter__"):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    _check(input, shape, weight, bias)
    x: Any = input._data
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = _mean(x, axes)
    xc = x - mean
    rstd = (1.0 / np.sqrt(_mean(xc * xc, axes) + eps)).astype(x.dtype)
    data = xc * rstd
    if weight is not None:
        data = data * weight._data
    if bias is not None:
        data = data + bias._data
    data = data.astype(x.dtype, copy=False)
    args = (input, weight, bias)
    if STATE.enabled and any(t is not None and t._requires_grad for t in args):
        params = {"axes": axes, "eps": eps, "normalized_shape": shape, "mean": mean,
                  "rstd": rstd}
        return record(_LAYER_NORM, data, args, params)
    return plain(data)


def affine_parameters(m: Module, shape: Any, affine: bool, bias: bool, device: Any,
                      dtype: Any) -> None:
    """A norm layer's ``weight`` and ``bias`` of ``shape`` where ``affine`` (``bias=False``:
    no bias), else both registered as None, as PyTorch's norm layers register them."""
    if affine:
        m.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            m.bias = Parameter(empty(shape, device=device, dtype=dtype))
        else:
            m.register_parameter("bias", None)
    else:
        m.register_parameter("weight", None)
        m.register_parameter("bias", None)


def reset_affine(m: Module, affine: bool) -> None:
    """A norm layer's weight to ones and bias to zeros (where it has them)."""
    if affine:
        init.ones_(m.weight)
        if m.bias is not None:
            init.zeros_(m.bias)


class LayerNorm(Module):
    """``layer_norm`` over the trailing ``normalized_shape`` with a learned elementwise
    ``weight`` (starting at ones) and ``bias`` (starting at zeros)."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        reset_affine(self, self.elementwise_affine)

    def forward(self, input: Tensor) -> Tensor:
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
