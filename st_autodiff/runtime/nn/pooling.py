"""Pooling for the eager runtime: max, average and adaptive pools, functional and modules.

Every pool is linear in its input once the windows (and, for max pools, the chosen
positions) are fixed, so each is a ``linear_pairs.LinearPair``: an array map ``A``, its
adjoint ``A^T`` and two node classes named as PyTorch names them: the forward records
``A``'s node
(``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``, ``AdaptiveAvgPool2DBackward0``,
``AdaptiveMaxPool2DBackward0``), whose backward applies ``A^T``; a ``create_graph``
backward records ``A^T``'s node (``...BackwardBackward0``), whose backward applies ``A``
again.  Every order of derivative is therefore exact and recorded.

The max and average kernels (``pool_kernels.py``) work on planes ``(P, H, W)`` (all
leading dimensions flattened) with one whole-array step per kernel offset; max pools
gather and scatter through flat indices, average pools add back over the kernel offsets.
One-dimensional pools are the two-dimensional ones on a height of 1 between ``unsqueeze``
and ``squeeze``, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import reductions as R
from .. import shape_ops as S
from ..device import xp_of
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record
from . import pool_kernels as K
from .linear_pairs import apply_map, linear_pair
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d", "TOP_LEVEL", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "avg_pool1d",
    "avg_pool2d", "max_pool1d", "max_pool2d",
]


# --- window geometry --------------------------------------------------------------------------

def _out_len(n: int, k: int, s: int, pad: int, d: int, ceil: bool) -> int:
    span = n + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = span // s + 1
    if ceil and (out - 1) * s >= n + pad:
        out -= 1
    return out


def _geometry(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, name: str) -> dict[str, Any]:
    k = _pair2(kernel_size)
    s = k if _unset(stride) else _pair2(stride)
    pad, dil = _pair2(padding), _pair2(dilation)
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    for pd, kd, dd in zip(pad, k, dil):
        if pd > (dd * (kd - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pd}, kernel_size={kd} and dilation={dd}")
    if pad[0] > k[0] // 2 or pad[1] > k[1] // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pad[1]}, padH = {pad[0]}, kW = {k[1]}, kH = {k[0]}")
    shape = tuple(x.shape)
    if len(shape) < 3 and name == "avg_pool2d":
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{max(len(shape), 1)}, {max(len(shape), 1) - 1}], but got -3)")
    if len(shape) not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if 0 in shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    h, w = shape[-2:]
    oh = _out_len(h, k[0], s[0], pad[0], dil[0], ceil_mode)
    ow = _out_len(w, k[1], s[1], pad[1], dil[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({shape[-3]}x{h}x{w}). Calculated output size: "
                           f"({shape[-3]}x{oh}x{ow}). Output size is too small")
    return {"kernel": k, "stride": s, "pad": pad, "dilation": dil, "out_hw": (oh, ow),
            "in_shape": shape, "out_shape": shape[:-2] + (oh, ow), "ceil": ceil_mode}


def _unset(stride: Any) -> bool:
    """PyTorch's "no stride given" (``None``, or the top-level functions' ``[]``)."""
    return stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)


def _pair2(v: Any) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        return (int(v[0]), int(v[0])) if len(v) == 1 else (int(v[0]), int(v[1]))
    return (int(v), int(v))


# --- max pools -------------------------------------------------------------------------------

_MAX = linear_pair(K.gather, K.scatter, "MaxPool2DWithIndices",
                   ("ceil_mode", "dilation", "kernel_size", "padding", "result1", "stride"))
_ADAPTIVE_MAX = linear_pair(K.gather, K.scatter, "AdaptiveMaxPool2D", ("result1",))


def _max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, return_indices: bool) -> Any:
    p = _geometry(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    data, p["index"] = K.max_pool_arrays(input._data, p)
    p["disjoint"] = K.disjoint(p)
    indices = plain(p["index"])
    p["saved"] = {"ceil_mode": ceil_mode, "dilation": p["dilation"], "kernel_size": p["kernel"],
                  "padding": p["pad"], "result1": indices,
                  "stride": () if _unset(stride) else p["stride"]}
    p["pair"] = _MAX
    out = record(_MAX.fwd_cls, data, (input,), p) if needs_grad((input,)) else plain(data)
    return (out, indices) if return_indices else out


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window of ``(N, C, H, W)`` (or ``(C, H, W)``); with
    ``return_indices`` also each maximum's flat position in its plane.

    >>> import st_autodiff as torch
    >>> torch.nn.functional.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _via_2d(input: Tensor, name: str, fn: Any, *args: Any) -> Any:
    """Run a 2-d pool on ``input`` with a height of 1 (``unsqueeze(-2)`` ... ``squeeze(-2)``)."""
    if input.dim() not in (2, 3):
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional "
                               f"0 dim batch size for input, but got:{list(input.shape)}")
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    out = fn(S.unsqueeze(input, -2), *args)
    if isinstance(out, tuple):
        return tuple(S.squeeze(o, -2) for o in out)
    return S.squeeze(out, -2)


def _one(v: Any, fill: int) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        v = v[0]
    return (fill, int(v))


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window of ``(N, C, L)`` (or ``(C, L)``)."""
    st = None if _unset(stride) else _one(stride, 1)
    if not return_indices and input.dim() in (2, 3):
        _check_max_pool1d(input.shape[-1], _one(kernel_size, 1)[1],
                          _one(kernel_size, 1)[1] if st is None else st[1],
                          _one(padding, 0)[1], _one(dilation, 1)[1], ceil_mode)
    return _via_2d(input, "max_pool1d", _max_pool, _one(kernel_size, 1), st, _one(padding, 0),
                   _one(dilation, 1), ceil_mode, return_indices)


def _check_max_pool1d(n: int, k: int, s: int, pad: int, d: int, ceil: bool) -> None:
    """PyTorch's own checks (and messages) for a 1-d max pool without indices."""
    for value, what in ((k, "kernel_size"), (s, "stride")):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {value}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={pad} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _out_len(n, k, s, pad, d, ceil)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


# --- average pools ----------------------------------------------------------------------------

_AVG = linear_pair(K.avg, K.avg_adjoint, "AvgPool2D",
                   ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size",
                    "padding", "stride"))


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: Any) -> Tensor:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    p = _geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    p.update(count_include_pad=count_include_pad, divisor_override=divisor_override)
    p["divisor"] = K.divisors(p)
    p["saved"] = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
                  "divisor_override": divisor_override, "kernel_size": p["kernel"],
                  "padding": p["pad"],
                  "stride": () if _unset(stride) else p["stride"]}
    return apply_map(_AVG.fwd_cls, _AVG.fwd, input, {**p, "pair": _AVG})


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window of ``(N, C, H, W)`` (or ``(C, H, W)``)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of each window of ``(N, C, L)`` (or ``(C, L)``)."""
    st = None if _unset(stride) else _one(stride, 1)
    out: Tensor = _via_2d(input, "avg_pool1d", _avg_pool, _one(kernel_size, 1), st,
                          _one(padding, 0), ceil_mode, count_include_pad, None)
    return out


# --- adaptive pools ---------------------------------------------------------------------------

def _bounds(n: int, o: int) -> tuple[Any, Any]:
    """PyTorch's adaptive windows: ``[floor(i n / o), ceil((i + 1) n / o))``."""
    i = np.arange(o)
    return (i * n) // o, -((-(i + 1) * n) // o)


def _membership(n: int, o: int) -> tuple[Any, Any]:
    start, end = _bounds(n, o)
    pos = np.arange(n)
    m = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return m, (end - start)


def _adaptive_avg(x: Any, p: dict[str, Any]) -> Any:
    mh, mw, count = (K.placed_like(a.astype(x.dtype), x) for a in (*p["member"], p["count"]))
    xp = xp_of(x)
    s = xp.matmul(xp.matmul(mh, K.planes(x)), mw.T)
    return (s / count).reshape(p["out_shape"])


def _adaptive_avg_adjoint(g: Any, p: dict[str, Any]) -> Any:
    mh, mw, count = (K.placed_like(a.astype(g.dtype), g) for a in (*p["member"], p["count"]))
    xp = xp_of(g)
    share = K.planes(g) / count
    return xp.matmul(xp.matmul(mh.T, share), mw).reshape(p["in_shape"])


_ADAPTIVE_AVG = linear_pair(_adaptive_avg, _adaptive_avg_adjoint, "AdaptiveAvgPool2D", ())


def _output_size(input: Tensor, output_size: Any, name: str) -> tuple[int, int]:
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError(f"{name}: output_size must be 2")
        sizes = tuple(output_size)
    else:
        sizes = (output_size, output_size)
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        colon = ":" if name == "adaptive_max_pool2d" else ""
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{colon} {list(shape)}")
    oh, ow = (shape[-2 + i] if v is None else int(v) for i, v in enumerate(sizes))
    return oh, ow


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, H, W)`` over a grid of ``output_size`` near-equal windows."""
    oh, ow = _output_size(input, output_size, "adaptive_avg_pool2d")
    if (oh, ow) == (1, 1):
        return R.mean(input, (-1, -2), keepdim=True)
    shape = tuple(input.shape)
    (mh, ch), (mw, cw) = _membership(shape[-2], oh), _membership(shape[-1], ow)
    p = {"member": (mh, mw), "count": (ch[:, None] * cw[None, :]).astype(np.float64),
         "in_shape": shape, "out_shape": shape[:-2] + (oh, ow), "saved": {},
         "pair": _ADAPTIVE_AVG}
    return apply_map(_ADAPTIVE_AVG.fwd_cls, _ADAPTIVE_AVG.fwd, input, p)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, L)`` over ``output_size`` near-equal windows."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    out: Tensor = _via_2d(input, "adaptive_avg_pool1d", adaptive_avg_pool2d, (1, size))
    return out


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum of ``(N, C, H, W)`` over a grid of ``output_size`` near-equal windows."""
    oh, ow = _output_size(input, output_size, "adaptive_max_pool2d")
    x = input._data
    shape = tuple(x.shape)
    h, w = shape[-2:]
    r, c = _window_positions(h, oh), _window_positions(w, ow)
    flat = r[:, None, :, None] * w + c[None, :, None, :]  # (OH, OW, KH, KW)
    cand = flat.reshape(oh, ow, -1)
    planes = K.planes(x).reshape(-1, h * w)
    xp = xp_of(x)
    cand = K.placed_like(cand, x)
    k = planes[:, cand].argmax(axis=-1)
    index = xp.take_along_axis(xp.broadcast_to(cand, k.shape + cand.shape[-1:]),
                               k[..., None], -1)[..., 0]
    index = index.reshape(shape[:-2] + (oh, ow)).astype(np.int64)
    indices = plain(index)
    p = {"index": index, "in_shape": shape, "out_shape": shape[:-2] + (oh, ow),
         "saved": {"result1": indices}, "pair": _ADAPTIVE_MAX}
    result = apply_map(_ADAPTIVE_MAX.fwd_cls, _ADAPTIVE_MAX.fwd, input, p)
    return (result, indices) if return_indices else result


def _window_positions(n: int, o: int) -> Any:
    """``(o, longest window)`` positions of each adaptive window; a short window repeats its
    last position, which never changes the first maximum."""
    start, end = _bounds(n, o)
    span = int((end - start).max())
    return np.minimum(start[:, None] + np.arange(span)[None, :], end[:, None] - 1)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum of ``(N, C, L)`` over ``output_size`` near-equal windows."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return _via_2d(input, "adaptive_max_pool1d", adaptive_max_pool2d, (1, size),
                   return_indices)


# --- modules ----------------------------------------------------------------------------------

class _MaxPoolNd(Module):
    _fn: Any = staticmethod(max_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding,
                              self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """Max pooling over ``(N, C, H, W)``; ``stride`` defaults to ``kernel_size``."""

    _fn = staticmethod(max_pool2d)


class MaxPool1d(_MaxPoolNd):
    """Max pooling over ``(N, C, L)``; ``stride`` defaults to ``kernel_size``."""

    _fn = staticmethod(max_pool1d)


class AvgPool2d(Module):
    """Average pooling over ``(N, C, H, W)``; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(v: Any) -> tuple[int]:
    return (int(v[0]),) if isinstance(v, (tuple, list)) else (int(v),)


class AvgPool1d(Module):
    """Average pooling over ``(N, C, L)``; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Average over a grid of ``output_size`` near-equal windows of ``(N, C, H, W)``."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average over ``output_size`` near-equal windows of ``(N, C, L)``."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePool):
    """Maximum over a grid of ``output_size`` near-equal windows of ``(N, C, H, W)``."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Maximum over ``output_size`` near-equal windows of ``(N, C, L)``."""

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


def _max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                             padding: Any = 0, dilation: Any = 1,
                             ceil_mode: bool = False) -> tuple[Any, ...]:
    pair: tuple[Tensor, Tensor] = max_pool1d(input, kernel_size, stride, padding, dilation,
                                             ceil_mode, True)
    return pair


def _max_pool_top(fn: Any) -> Any:
    def pool(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
             dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
        out: Tensor = fn(input, kernel_size, stride, padding, dilation, ceil_mode)
        return out

    pool.__name__ = pool.__qualname__ = fn.__name__
    pool.__doc__ = fn.__doc__
    return pool


def _adaptive_max_pool1d_top(input: Tensor, output_size: Any) -> tuple[Any, ...]:
    pair: tuple[Tensor, Tensor] = adaptive_max_pool1d(input, output_size, True)
    return pair


_adaptive_max_pool1d_top.__name__ = "adaptive_max_pool1d"

#: The pools PyTorch also has at the top level (``torch.max_pool2d`` ...), with their
#: top-level signatures (no ``return_indices``; ``adaptive_max_pool1d`` returns indices).
TOP_LEVEL = {"max_pool1d": _max_pool_top(max_pool1d), "max_pool2d": _max_pool_top(max_pool2d),
             "max_pool1d_with_indices": _max_pool1d_with_indices, "avg_pool1d": avg_pool1d,
             "adaptive_avg_pool1d": adaptive_avg_pool1d,
             "adaptive_max_pool1d": _adaptive_max_pool1d_top}
