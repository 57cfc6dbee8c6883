"""Small layers composed of recorded runtime ops: the padding modules (``ZeroPad1d/2d/3d``,
``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``, ``CircularPad*``, over ``F.pad``),
``F.dropout1d/2d`` with ``nn.Dropout1d/2d`` (one Bernoulli draw per channel, as PyTorch's
``feature_dropout``), ``F.glu``/``nn.GLU`` and ``F.bilinear``/``nn.Bilinear``.

>>> import st_autodiff as torch
>>> torch.nn.ZeroPad2d(1)
ZeroPad2d((1, 1, 1, 1))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import functional as RF
from ..dtypes import float64
from ..einsum import einsum
from ..factory import empty, rand, zeros
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter
from .vector_ops import pad

__all__ = ["Bilinear", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "Dropout1d", "Dropout2d", "GLU", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "bilinear", "dropout1d",
           "dropout2d", "glu"]


# --- padding modules --------------------------------------------------------------------------

class _PadNd(Module):
    """``F.pad(input, padding, mode, value)`` with ``padding`` given once per side."""

    _n = 1
    _mode = "constant"

    def __init__(self, padding: Any, value: float | None = None) -> None:
        super().__init__()
        n = self._n
        if isinstance(padding, int):
            self.padding: tuple[int, ...] = (padding,) * (2 * n)
        else:
            self.padding = tuple(padding)
        if value is not None:
            self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self._mode, getattr(self, "value", None))

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``."""

    _n = 2


class ZeroPad1d(ConstantPad1d):
    """Pad the last dimension with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dimensions with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``."""

    _n = 3


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dimensions with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pad the last dimension by reflection (``ReflectionPad1DBackward0``)."""

    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions by reflection."""

    _n, _mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating its edge values."""

    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating their edge values."""

    _n, _mode = 2, "replicate"


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions by reflection."""

    _n, _mode = 3, "reflect"


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating their edge values."""

    _n, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pad the last dimension with the values from its other end."""

    _n, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Pad the last two dimensions circularly."""

    _n, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pad the last three dimensions circularly."""

    _n, _mode = 3, "circular"


# --- channel dropout --------------------------------------------------------------------------

def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """PyTorch's ``feature_dropout``: one kept-or-dropped draw per (sample, channel)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    if p == 1.0:  # (PyTorch multiplies by a 0-d zero)
        noise = zeros((), dtype=input.dtype, device=input.device)
    else:
        keep = RF.lt(rand(shape, dtype=float64, device=input.device), 1.0 - p)
        noise = RF.div(keep.to(input.dtype), 1.0 - p)
    return input.mul_(noise) if inplace else RF.mul(input, noise)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` (or ``(C, L)``) with probability ``p``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a "
                           f"{input.dim()}D input. Note that dropout1d exists to provide "
                           "channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or "
                           "3D inputs).")
    if input.dim() == 2:
        out = _feature_dropout(input.unsqueeze(0), p, training, inplace)
        return out.squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout2d exists to provide channel-wise dropout on inputs "
                      "with 2 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """``dropout1d`` as a module (off in evaluation)."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``dropout2d`` as a module (off in evaluation)."""

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training, self.inplace)


# --- GLU and Bilinear -------------------------------------------------------------------------

def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` for the two halves ``a, b`` of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else dim
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.chunk(2, d)
    return RF.mul(a, RF.sigmoid(b))


class GLU(Module):
    """``glu`` as a module."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {a} and {b}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.dim()}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError("bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError("bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else RF.add(out, bias)


class Bilinear(Module):
    """``bilinear`` with a learned ``weight`` ``(out, in1, in2)`` and ``bias`` ``(out,)``,
    both uniform in ``[-1/sqrt(in1), 1/sqrt(in1)]``."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight, then bias, uniform in ``[-1/sqrt(in1), 1/sqrt(in1)]``."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
