"""Resampling: ``F.interpolate``/``nn.Upsample`` (modes ``nearest``, ``nearest-exact``,
``linear``, ``bilinear``, ``bicubic``, ``trilinear``; ``area`` is ``adaptive_avg_pool``,
as in PyTorch)
and ``F.pixel_shuffle``/``pixel_unshuffle`` with their modules.

Each is a linear map of the input with a fixed matrix or permutation, recorded as a
``linear_pairs.LinearPair`` under PyTorch's node name (``UpsampleNearest2DBackward0``,
``UpsampleBilinear2DBackward0``, ``PixelShuffleBackward0`` ...); a ``create_graph``
backward records the adjoint's node, so every order is exact.  Interpolation along each
spatial dimension is a small ``(out, in)`` matrix built with PyTorch's index and weight
formulas (``area_pixel_compute_source_index``, nearest's ``floor(dst * scale)``), computed
in the input's precision as PyTorch's CPU kernels do; the forward applies the last
dimension's matrix first.

>>> import st_autodiff as torch
>>> torch.nn.functional.interpolate(torch.tensor([[[1.0, 3.0]]]), scale_factor=2,
...                                 mode="linear")
tensor([[[1.0000, 1.5000, 2.5000, 3.0000]]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..device import xp_of
from ..tensor import Tensor
from .linear_pairs import LinearPair, apply_map, linear_pair
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "Upsample", "UpsamplingBilinear2d",
           "UpsamplingNearest2d", "interpolate", "pixel_shuffle", "pixel_unshuffle"]

_LINEAR_MODES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_CUBIC_A = -0.75


def _cubic_weights(t: np.ndarray[Any, Any], dt: Any) -> list[np.ndarray[Any, Any]]:
    """PyTorch's ``get_cubic_upsample_coefficients`` (Keys' kernel with ``A = -0.75``)."""
    a = dt.type(_CUBIC_A)
    one = dt.type(1)

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + one

    def far(x: Any) -> Any:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + one), near(t), near(one - t), far((one - t) + one)]


def _scale_value(scale: float | None, n_in: int, n_out: int, dt: Any) -> Any:
    """PyTorch's ``compute_scales_value``: ``1/scale`` if a scale is given, else in/out."""
    if scale is not None and scale > 0:
        return dt.type(1.0 / scale)
    return dt.type(n_in) / dt.type(n_out)


def _matrix(mode: str, n_in: int, n_out: int, scale: float | None, align: bool,
            dt: Any) -> np.ndarray[Any, Any]:
    """The ``(n_out, n_in)`` matrix that resamples one dimension."""
    m = np.zeros((n_out, n_in), dtype=dt)
    dst = np.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        s = np.float32(_scale_value(scale, n_in, n_out, np.dtype(np.float32)))
        off = np.float32(0.5) if mode == "nearest-exact" else np.float32(0.0)
        src = np.floor((dst.astype(np.float32) + off) * s).astype(np.int64)
        m[dst, np.minimum(src, n_in - 1)] = 1
        return m
    if mode == "bicubic":  # four neighbours, indices clamped to the edge
        if align:
            s = dt.type(n_in - 1) / dt.type(n_out - 1) if n_out > 1 else dt.type(0)
            real = s * dst.astype(dt)
        else:
            s = _scale_value(scale, n_in, n_out, dt)
            real = s * (dst.astype(dt) + dt.type(0.5)) - dt.type(0.5)
        base = np.floor(real).astype(np.int64)
        frac = (real - base.astype(dt)).astype(dt)
        for k, w in enumerate(_cubic_weights(frac, dt)):
            np.add.at(m, (dst, np.clip(base - 1 + k, 0, n_in - 1)), w.astype(dt))
        return m
    if align:
        s = dt.type(n_in - 1) / dt.type(n_out - 1) if n_out > 1 else dt.type(0)
        real = s * dst.astype(dt)
    else:
        s = _scale_value(scale, n_in, n_out, dt)
        real = np.maximum(s * (dst.astype(dt) + dt.type(0.5)) - dt.type(0.5), dt.type(0))
    i0 = real.astype(np.int64)
    lam1 = (real - i0.astype(dt)).astype(dt)
    lam0 = (dt.type(1) - lam1).astype(dt)
    i1 = i0 + (i0 < n_in - 1)
    np.add.at(m, (dst, i0), lam0)
    np.add.at(m, (dst, i1), lam1)
    return m


def _resample(x: Any, p: dict[str, Any]) -> Any:
    xp = xp_of(x)
    for k in range(len(p["mats"]) - 1, -1, -1):
        m = xp.asarray(p["mats"][k].astype(x.dtype, copy=False))
        axis = x.ndim - len(p["mats"]) + k
        x = xp.moveaxis(xp.moveaxis(x, axis, -1) @ m.T, -1, axis)
    return xp.ascontiguousarray(x)


def _resample_adjoint(g: Any, p: dict[str, Any]) -> Any:
    xp = xp_of(g)
    for k in range(len(p["mats"])):
        m = xp.asarray(p["mats"][k].astype(g.dtype, copy=False))
        axis = g.ndim - len(p["mats"]) + k
        g = xp.moveaxis(xp.moveaxis(g, axis, -1) @ m, -1, axis)
    return xp.ascontiguousarray(g)


_PAIRS: dict[str, LinearPair] = {}


def _pair(name: str, saved: tuple[str, ...], fwd: Any = _resample,
          adj: Any = _resample_adjoint) -> LinearPair:
    if name not in _PAIRS:
        _PAIRS[name] = linear_pair(fwd, adj, name, saved)
    return _PAIRS[name]


def _spatial_list(value: Any, dim: int, what: str, input: Tensor) -> list[Any]:
    if isinstance(value, (list, tuple)):
        if len(value) != dim and what == "size":
            raise ValueError("Input and output must have the same number of spatial "
                             "dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and output size of {value}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "output size in (o1, o2, ...,oK) format.")
        if len(value) != dim:
            raise ValueError("Input and scale_factor must have the same number of spatial "
                             "dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and scale_factor of shape {value}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                             "and scale_factor in (s1, s2, ...,sK) format.")
        return list(value)
    return [value] * dim


_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _check_mode(mode: str, ndim: int) -> None:
    """PyTorch's refusals of a mode for an input rank; ours for what is not provided."""
    if mode in _MODES and ndim in (3, 4, 5) and _NEEDS.get(mode, ndim) == ndim:
        if mode == "area" and ndim == 5:
            raise NotImplementedError("interpolate: mode 'area' of 5-d inputs is not provided "
                                      "by this runtime")
        return
    if mode in ("linear", "bilinear", "trilinear") and ndim in (3, 4, 5):
        raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs "
                                  f"{_NEEDS[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{ndim}D) for the modes: nearest | linear | bilinear | bicubic | "
                              f"trilinear | lanczos | area | nearest-exact (got {mode})")


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resample the spatial dims of ``(N, C, *spatial)`` to ``size`` or by ``scale_factor``."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    _check_mode(mode, input.dim())
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not provided by this runtime")
    n_in = list(input.shape[2:])
    if size is not None:
        out_size = [int(s) for s in _spatial_list(size, dim, "size", input)]
        scales: list[Any] = [None] * dim
    else:
        factors = [float(f) for f in _spatial_list(scale_factor, dim, "scale_factor", input)]
        out_size = [math.floor(float(n) * f) for n, f in zip(n_in, factors)]
        scales = [None] * dim if recompute_scale_factor else factors
    if any(s <= 0 for s in out_size):
        axes = ("D", "H", "W")[3 - dim:]
        shown = [", ".join(f"{a}: {n}" for a, n in zip(axes, v)) for v in (n_in, out_size)]
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({shown[0]}){' and' if dim == 1 else ''} output ({shown[1]})")
    if mode == "area":  # PyTorch's own route
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

        pool = adaptive_avg_pool1d if dim == 1 else adaptive_avg_pool2d
        return pool(input, out_size[0] if dim == 1 else out_size)
    dt = np.dtype(input._data.dtype)
    mats = tuple(_matrix(mode, a, b, s, bool(align_corners), dt)
                 for a, b, s in zip(n_in, out_size, scales))
    word = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
            "bilinear": "Bilinear", "bicubic": "Bicubic", "trilinear": "Trilinear"}[mode]
    name = f"Upsample{word}{dim}D"
    saved: dict[str, Any] = {"output_size": out_size}
    if mode in _LINEAR_MODES:
        saved["align_corners"] = bool(align_corners)
    if dim == 1:
        saved["scales"] = scales[0]
    else:
        saved.update(zip(("scales_d", "scales_h", "scales_w")[3 - dim:], scales))
    pair = _pair(name, tuple(saved))
    return apply_map(pair.fwd_cls, pair.fwd, input,
                     {"mats": mats, "saved": saved, "pair": pair})


class Upsample(Module):
    """``interpolate`` as a module."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample`` with mode ``nearest``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample`` with mode ``bilinear`` and ``align_corners=True``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


# --- pixel shuffle ----------------------------------------------------------------------------

def _shuffle(x: Any, p: dict[str, Any]) -> Any:
    r = p["r"]
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return xp_of(x).ascontiguousarray(y.reshape(*lead, c // (r * r), h * r, w * r))


def _unshuffle(x: Any, p: dict[str, Any]) -> Any:
    r = p["r"]
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return xp_of(x).ascontiguousarray(y.reshape(*lead, c * r * r, h // r, w // r))



def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C*r*r, H, W)`` to ``(*, C, H*r, W*r)``."""
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError("pixel_shuffle expects a positive upscale_factor, but got "
                           f"{r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c} is not divisible by {r * r}")
    pair = _pair("PixelShuffle", ("upscale_factor",), _shuffle, _unshuffle)
    return apply_map(pair.fwd_cls, pair.fwd, input,
                     {"r": r, "saved": {"upscale_factor": r}, "pair": pair})


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H*r, W*r)`` to ``(*, C*r*r, H, W)``."""
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, "
                           f"but got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError("pixel_unshuffle expects a positive downscale_factor, but got "
                           f"{r}")
    h, w = input.shape[-2], input.shape[-1]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    pair = _pair("PixelUnshuffle", ("downscale_factor",), _unshuffle, _shuffle)
    return apply_map(pair.fwd_cls, pair.fwd, input,
                     {"r": r, "saved": {"downscale_factor": r}, "pair": pair})


class PixelShuffle(Module):
    """``pixel_shuffle`` as a module."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``pixel_unshuffle`` as a module."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
