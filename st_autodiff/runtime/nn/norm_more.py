"""Group, instance and RMS normalisation: ``F.group_norm``, ``F.instance_norm``,
``F.rms_norm`` and ``nn.GroupNorm``, ``nn.InstanceNorm1d/2d/3d``, ``nn.RMSNorm``.

All three are compositions of recorded runtime ops, so every order of derivative comes
from the rule table:

* ``instance_norm`` is PyTorch's own composition: the input viewed as ``(1, N*C, ...)``,
  ``weight``/``bias``/running statistics repeated ``N`` times, ``batch_norm``, the output
  viewed back (``ViewBackward0`` over ``NativeBatchNormBackward0``, as PyTorch); the
  repeated running statistics are averaged back into the given ones.
* ``group_norm`` normalises ``(N, G, -1)`` with ``layer_norm`` over the last dim, then
  scales and shifts per channel (PyTorch records one ``NativeGroupNormBackward0``).
* ``rms_norm`` is PyTorch's CPU composition ``x * rsqrt(mean(x**2) + eps) * weight``.

>>> import st_autodiff as torch
>>> torch.nn.GroupNorm(2, 4)
GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..factory import empty
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import init
from .batchnorm import _BatchNorm, batch_norm
from .module import Module
from .normalization import affine_parameters, layer_norm, reset_affine
from .parameter import Parameter

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm",
           "group_norm", "instance_norm", "rms_norm"]


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each of ``num_groups`` channel groups of each sample, then scale and shift
    per channel."""
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    shape = list(input.shape)
    n, c = shape[0], shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shape} and num_groups="
                           f"{num_groups}")
    per_group = [n * c // num_groups, num_groups] + shape[2:]
    if per_group[0] * math.prod(per_group[2:]) == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {per_group}")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and (t.dim() != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{list(t.shape)} and input of shape {shape}")
    grouped = input.reshape(n, num_groups, -1)
    out = layer_norm(grouped, (grouped.shape[-1],), None, None, eps).reshape(shape)
    view = (1, c) + (1,) * (len(shape) - 2)
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial positions."""
    shape = list(input.shape)
    if use_input_stats and len(shape) >= 2 and math.prod(shape[2:]) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input "
                         f"size {input.shape}")
    b, c = shape[0], shape[1]

    def rep(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(b)

    rm, rv = rep(running_mean), rep(running_var)
    flat = input.contiguous().view(1, b * c, *shape[2:])
    out = batch_norm(flat, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    with no_grad():
        for given, repeated in ((running_mean, rm), (running_var, rv)):
            if given is not None and repeated is not None:
                given.copy_(repeated.view(b, c).mean(0, keepdim=False))
    return out.view(*shape)


class GroupNorm(Module):
    """``group_norm`` with a learned per-channel ``weight`` (ones) and ``bias`` (zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        affine_parameters(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        reset_affine(self, self.affine)

    def forward(self, input: Tensor) -> Tensor:
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """Shared body of ``InstanceNorm1d/2d`` (PyTorch's defaults: no affine, no tracking)."""

    _no_batch_dim = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)

    def _check_input_dim(self, input: Tensor) -> None:
        k = self._no_batch_dim
        if input.dim() not in (k, k + 1):
            raise ValueError(f"expected {k}D or {k + 1}D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, "
                          "which is not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return instance_norm(input, self.running_mean, self.running_var, self.weight,
                             self.bias, self.training or not self.track_running_stats,
                             self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over ``(N, C, L)`` or ``(C, L)``."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _no_batch_dim = 4


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``input * rsqrt(mean(input**2) + eps) * weight`` over the trailing dims; ``eps``
    defaults to the dtype's machine epsilon."""
    if isinstance(normalized_shape, int) or not hasattr(normalized_shape, "__iter__"):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    got = list(input.shape)
    if len(shape) > len(got) or tuple(got[len(got) - len(shape):]) != shape:
        stars = ", ".join(str(s) for s in shape)
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{stars}], but got input of size{got}")
    dims = list(range(-1, -len(shape) - 1, -1))
    e = float(np.finfo(input._data.dtype).eps) if eps is None else eps
    out = input * (input.pow(2).mean(dims, keepdim=True) + e).rsqrt()
    return out if weight is None else out * weight


class RMSNorm(Module):
    """``rms_norm`` over the trailing ``normalized_shape`` with a learned ``weight`` (ones)."""

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return rms_norm(x, list(self.normalized_shape), self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
