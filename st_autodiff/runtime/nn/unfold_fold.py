"""``F.unfold``/``F.fold`` (im2col and col2im) and ``nn.Unfold``/``nn.Fold``.

``unfold`` copies every ``kernel_size`` window of the zero-padded input into a column;
``fold`` sums columns back into an image.  They are each other's adjoints, so both are
one ``linear_pairs.LinearPair`` each, named as PyTorch names them (``Im2ColBackward0``,
``Col2ImBackward0``): the window positions are one index table per setting, the gather is
NumPy fancy indexing and the scatter one ``bincount``.

>>> import st_autodiff as torch
>>> torch.nn.functional.unfold(torch.ones(1, 1, 3, 3), 2).shape
torch.Size([1, 4, 4])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..device import xp_of
from ..tensor import Tensor
from .conv import _tuple
from .linear_pairs import LinearPair, apply_map, linear_pair
from .module import Module
from .pool_kernels import placed_like

__all__ = ["Fold", "Unfold", "fold", "unfold"]


def _table(size: tuple[int, int], k: tuple[int, ...], d: tuple[int, ...], p: tuple[int, ...],
           s: tuple[int, ...]) -> tuple[np.ndarray[Any, Any], tuple[int, int], tuple[int, int]]:
    """Flat positions in the padded plane, ``(kh*kw, L)``; the padded size; the block grid."""
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    oh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    ki, kj = np.meshgrid(np.arange(k[0]), np.arange(k[1]), indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = oi.reshape(1, -1) * s[0] + ki.reshape(-1, 1) * d[0]
    cols = oj.reshape(1, -1) * s[1] + kj.reshape(-1, 1) * d[1]
    return rows * wp + cols, (hp, wp), (oh, ow)


def _im2col(x: Any, q: dict[str, Any]) -> Any:
    """``(N, C, H, W)`` to ``(N, C*kh*kw, L)`` (without ``N`` for an unbatched image)."""
    if x.ndim == 3:
        return _im2col(x[None], q)[0]
    xp = xp_of(x)
    n, c = x.shape[:2]
    p = q["padding"]
    if any(p):
        x = xp.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    idx = placed_like(q["index"], x)
    cols = x.reshape(n, c, -1)[:, :, idx]
    return xp.ascontiguousarray(cols.reshape(n, c * idx.shape[0], idx.shape[1]))


def _col2im(g: Any, q: dict[str, Any]) -> Any:
    """``(N, C*kh*kw, L)`` summed back to ``(N, C, H, W)`` (without ``N`` likewise)."""
    if g.ndim == 2:
        return _col2im(g[None], q)[0]
    xp = xp_of(g)
    idx = placed_like(q["index"], g)
    hp, wp = q["padded"]
    n = g.shape[0]
    c = g.shape[1] // idx.shape[0]
    planes = n * c
    flat = (xp.arange(planes)[:, None] * (hp * wp) + idx.ravel()[None, :]).ravel()
    total = xp.bincount(flat, weights=g.ravel(), minlength=planes * hp * wp)
    img = total.astype(g.dtype, copy=False).reshape(n, c, hp, wp)
    p = q["padding"]
    return xp.ascontiguousarray(img[:, :, p[0]:hp - p[0], p[1]:wp - p[1]])


_PAIRS: dict[str, LinearPair] = {}


def _pair(name: str) -> LinearPair:
    if name not in _PAIRS:
        fwd, adj = (_im2col, _col2im) if name == "Im2Col" else (_col2im, _im2col)
        _PAIRS[name] = linear_pair(fwd, adj, name,
                                   ("dilation", "kernel_size", "padding", "stride"))
    return _PAIRS[name]


def _settings(kernel_size: Any, dilation: Any, padding: Any,
              stride: Any) -> tuple[tuple[int, ...], ...]:
    return (_tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2),
            _tuple(stride, 2))


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """Sliding ``kernel_size`` blocks of ``(N, C, H, W)`` as columns ``(N, C*kh*kw, L)``."""
    k, d, p, s = _settings(kernel_size, dilation, padding, stride)
    if input.dim() < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{input.dim()}, {input.dim() - 1}], but got {input.dim()})")
    if input.dim() != 4 and input.dim() != 3 or 0 in input.shape[1:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    table, padded, grid = _table((h, w), k, d, p, s)
    if grid[0] < 1 or grid[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), "
                           f"kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
                           f"padding=({p[0]}, {p[1]}), calculated shape of the array of "
                           f"sliding blocks as ({grid[0]}, {grid[1]}), but its components "
                           "must be at least one.")
    pair = _pair("Im2Col")
    saved = {"dilation": list(d), "kernel_size": list(k), "padding": list(p),
             "stride": list(s)}
    q = {"index": table, "padded": padded, "padding": p, "saved": saved, "pair": pair}
    return apply_map(pair.fwd_cls, pair.fwd, input, q)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Sum columns ``(N, C*kh*kw, L)`` back into an image ``(N, C, *output_size)``."""
    k, d, p, s = _settings(kernel_size, dilation, padding, stride)
    size = _tuple(output_size, 2)
    if input.dim() not in (2, 3) or 0 in input.shape[1:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    kk = k[0] * k[1]
    blocks, cols = input.shape[-2], input.shape[-1]
    if blocks % kk:
        raise RuntimeError(f"Expected size of input's dimension {input.dim() - 2} to be "
                           "divisible by the product of kernel_size, but got "
                           f"input.size({input.dim() - 2})={blocks} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    table, padded, grid = _table(size, k, d, p, s)
    if cols != math.prod(grid):
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), "
                           f"stride=({s[0]}, {s[1]}), expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {grid[0]} * "
                           f"{grid[1]} = {math.prod(grid)}, but got input.size({input.dim() - 1})="
                           f"{cols}.")
    pair = _pair("Col2Im")
    saved = {"dilation": list(d), "kernel_size": list(k), "padding": list(p),
             "stride": list(s)}
    q = {"index": table, "padded": padded, "padding": p, "saved": saved, "pair": pair}
    return apply_map(pair.fwd_cls, pair.fwd, input, q)


class Unfold(Module):
    """``unfold`` as a module."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """``fold`` as a module."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1,
                 padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
