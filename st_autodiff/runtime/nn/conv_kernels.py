"""Array kernels of the eager convolution: the forward and its two adjoints (speedconv).

All three products go through one matrix of columns (im2col) and one matrix product per
group (a single BLAS call when there is one group):

* ``conv_arrays(x, w)``: ``w (O, C*KH*KW) @ cols (C*KH*KW, L)``;
* ``conv_dx_arrays(gy, w)``: ``w^T @ rows(gy)``, the columns then added back into place;
* ``conv_dw_arrays(gy, x)``: ``rows(gy) @ cols^T``.

Inputs are 4-d ``(N, C, H, W)`` (a 1-d convolution arrives with a height of 1) and the
column matrix is channel-major, ``(C, KH, KW)`` down and the output positions across.

With stride 1 the columns live on the *wide grid*: every position of the padded input
``(N, H', W')`` is an output position, and the ones that do not fit a whole window are
cropped from the result (their gradients enter as zeros; so that no ``0 * inf`` turns
into a NaN, the adjoints take the wide grid only for finite weights or inputs).  Then the
window offset ``(i, j)`` reads the flat padded input shifted by ``i*dh*W' + j*dw``, so each of the
``KH*KW`` slices of the column matrix is one contiguous copy (and each slice of the input
gradient one contiguous addition), however small the image.  Strided convolutions use
the exact grid, one strided copy per window offset.  Either way the sums over
``(C, KH, KW)`` are those of the matrix product and the input gradient adds the window
offsets in row-major order, so only the BLAS summation order is left to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..device import is_device, xp_of

__all__ = ["conv_arrays", "conv_backward_arrays", "conv_dw_arrays", "conv_dx_arrays"]

Pads = tuple[tuple[int, int], tuple[int, int]]


def out_len(n: int, pad: tuple[int, int], k: int, s: int, d: int) -> int:
    """Output length of one spatial dimension."""
    return (n + pad[0] + pad[1] - d * (k - 1) - 1) // s + 1


@dataclass(frozen=True)
class _Grid:
    """Where the output positions of one convolution sit.

    ``wide``: on every position of the padded input (stride 1), else on the exact
    ``(N, OH, OW)`` grid.  ``length`` is the number of positions (the columns' width)."""

    n: int
    c: int
    h: int
    w: int
    kh: int
    kw: int
    oh: int
    ow: int
    pads: Pads
    stride: tuple[int, int]
    dilation: tuple[int, int]
    wide: bool

    @property
    def hp(self) -> int:
        return self.h + self.pads[0][0] + self.pads[0][1]

    @property
    def wp(self) -> int:
        return self.w + self.pads[1][0] + self.pads[1][1]

    @property
    def length(self) -> int:
        return self.n * (self.hp * self.wp if self.wide else self.oh * self.ow)

    def shifts(self) -> list[int]:
        """Flat shift of each window offset ``(i, j)``, row-major (wide grid)."""
        (dh, dw), wp = self.dilation, self.wp
        return [i * dh * wp + j * dw for i in range(self.kh) for j in range(self.kw)]

    def slices(self) -> list[tuple[slice, slice]]:
        """Rows and columns of the padded input read by each window offset (exact grid)."""
        (sh, sw), (dh, dw) = self.stride, self.dilation
        return [(slice(i * dh, i * dh + sh * (self.oh - 1) + 1, sh),
                 slice(j * dw, j * dw + sw * (self.ow - 1) + 1, sw))
                for i in range(self.kh) for j in range(self.kw)]


def _finite(a: Any) -> bool:
    """Whether every entry of ``a`` is finite (a finite sum implies it; an overflowing sum
    only costs the wide grid).  Device arrays say False: the exact grid costs no host
    synchronisation."""
    if is_device(a):
        return False
    return bool(np.isfinite(a.sum()))


def _grid(xshape: tuple[Any, ...], kshape: tuple[Any, ...], p: dict[str, Any],
          wide_ok: bool = True) -> _Grid:
    """The grid of one convolution; ``wide_ok=False`` forces the exact grid."""
    n, c, h, w = xshape
    kh, kw = kshape
    pads, stride, dil = p["pads"], tuple(p["stride"]), tuple(p["dilation"])
    return _Grid(n, c, h, w, kh, kw, out_len(h, pads[0], kh, stride[0], dil[0]),
                 out_len(w, pads[1], kw, stride[1], dil[1]), pads, stride, dil,
                 wide_ok and stride == (1, 1))


def _padded_channels_first(x: Any, grid: _Grid, slack: int) -> Any:
    """The zero-padded input as ``(C, N*H'*W' + slack)`` (channel-major, flat)."""
    xp = xp_of(x)
    (top, _), (left, _) = grid.pads
    size = grid.n * grid.hp * grid.wp
    if slack == 0 and grid.hp == grid.h and grid.wp == grid.w:
        return xp.ascontiguousarray(x.transpose(1, 0, 2, 3)).reshape(grid.c, size)
    buf = xp.zeros((grid.c, size + slack), x.dtype)
    view = buf[:, :size].reshape(grid.c, grid.n, grid.hp, grid.wp)
    view[:, :, top:top + grid.h, left:left + grid.w] = x.transpose(1, 0, 2, 3)
    return buf


def _columns(x: Any, grid: _Grid, groups: int) -> Any:
    """im2col: ``(G, Cg*KH*KW, L)``."""
    xp = xp_of(x)
    length = grid.length
    cols = xp.empty((grid.c, grid.kh * grid.kw, length), x.dtype)
    if grid.wide:
        shifts = grid.shifts()
        flat = _padded_channels_first(x, grid, shifts[-1])
        for k, s in enumerate(shifts):
            cols[:, k] = flat[:, s:s + length]
    else:
        padded = _padded_channels_first(x, grid, 0).reshape(grid.c, grid.n, grid.hp, grid.wp)
        view = cols.reshape(grid.c, grid.kh * grid.kw, grid.n, grid.oh, grid.ow)
        for k, (rows, cs) in enumerate(grid.slices()):
            view[:, k] = padded[:, :, rows, cs]
    return cols.reshape(groups, grid.c // groups * grid.kh * grid.kw, length)


def _rows(gy: Any, grid: _Grid, groups: int) -> Any:
    """The output gradient ``(N, O, OH, OW)`` as ``(G, O/G, L)`` on the grid's positions."""
    xp = xp_of(gy)
    o = gy.shape[1]
    if not grid.wide:
        return xp.ascontiguousarray(gy.transpose(1, 0, 2, 3)).reshape(groups, o // groups,
                                                                     grid.length)
    rows = xp.zeros((o, grid.n, grid.hp, grid.wp), gy.dtype)
    rows[:, :, :grid.oh, :grid.ow] = gy.transpose(1, 0, 2, 3)
    return rows.reshape(groups, o // groups, grid.length)


#: OpenBLAS slows down several-fold on these short, very wide products once they pass
#: about 8192 columns; the products below go in blocks of this many columns beyond that.
_BLOCK = 4096


def _blocks(n: int) -> list[slice]:
    if n <= 2 * _BLOCK:
        return [slice(0, n)]
    return [slice(a, min(a + _BLOCK, n)) for a in range(0, n, _BLOCK)]


def _gemm(a: Any, b: Any) -> Any:
    """``a @ b`` over a leading group axis, in blocks of ``b``'s columns."""
    xp = xp_of(a)
    out = xp.empty((a.shape[0], a.shape[1], b.shape[2]), xp.result_type(a, b))
    for g in range(a.shape[0]):
        for cols in _blocks(b.shape[2]):
            xp.matmul(a[g], b[g, :, cols], out=out[g, :, cols])
    return out


def _gemm_nt(a: Any, b: Any) -> Any:
    """``a @ b^T`` over a leading group axis, summed over blocks of the shared columns."""
    xp = xp_of(a)
    out = None
    for cols in _blocks(a.shape[2]):
        part = xp.matmul(a[:, :, cols], b[:, :, cols].transpose(0, 2, 1))
        out = part if out is None else xp.add(out, part, out=out)
    return out


def conv_arrays(x: Any, w: Any, p: dict[str, Any]) -> Any:
    """``conv(x, w)`` without bias: ``(N, C, H, W) * (O, C/G, KH, KW)``."""
    xp = xp_of(x)
    g, o = p["groups"], w.shape[0]
    grid = _grid(x.shape, w.shape[2:], p)
    y = _gemm(w.reshape(g, o // g, -1), _columns(x, grid, g))  # (G, O/G, L)
    if grid.wide:
        y = y.reshape(o, grid.n, grid.hp, grid.wp)[:, :, :grid.oh, :grid.ow]
    else:
        y = y.reshape(o, grid.n, grid.oh, grid.ow)
    return xp.ascontiguousarray(y.transpose(1, 0, 2, 3))


def _dx(gy_rows: Any, w: Any, grid: _Grid, groups: int, dtype: Any) -> Any:
    """The input gradient from the output gradient's rows: ``w^T rows`` added into place."""
    xp = xp_of(gy_rows)
    o = w.shape[0]
    wt = w.reshape(groups, o // groups, -1).transpose(0, 2, 1)
    gcols = _gemm(wt, gy_rows).reshape(grid.c, grid.kh * grid.kw, grid.length)
    (top, _), (left, _) = grid.pads
    if grid.wide:
        shifts = grid.shifts()
        length = grid.length
        flat = xp.zeros((grid.c, length + shifts[-1]), dtype)
        for k, s in enumerate(shifts):
            flat[:, s:s + length] += gcols[:, k]
        padded = flat[:, :length].reshape(grid.c, grid.n, grid.hp, grid.wp)
    else:
        padded = xp.zeros((grid.c, grid.n, grid.hp, grid.wp), dtype)
        view = gcols.reshape(grid.c, grid.kh * grid.kw, grid.n, grid.oh, grid.ow)
        for k, (rows, cs) in enumerate(grid.slices()):
            padded[:, :, rows, cs] += view[:, k]
    gx = padded[:, :, top:top + grid.h, left:left + grid.w]
    return xp.ascontiguousarray(gx.transpose(1, 0, 2, 3))


def conv_backward_arrays(gy: Any, x: Any, w: Any, need_x: bool, need_w: bool,
                         p: dict[str, Any]) -> tuple[Any, Any]:
    """``(gx, gw)`` of ``conv(x, w)`` for the output gradient ``gy`` (``None`` where not
    needed), sharing the gradient's rows between the two products."""
    g = p["groups"]
    wide_ok = (not need_x or _finite(w)) and (not need_w or _finite(x))
    grid = _grid(x.shape, w.shape[2:], p, wide_ok)
    rows = _rows(gy, grid, g)
    gx = _dx(rows, w, grid, g, gy.dtype) if need_x else None
    gw = _gemm_nt(rows, _columns(x, grid, g)).reshape(w.shape) if need_w else None
    return gx, gw


def conv_dx_arrays(gy: Any, w: Any, xshape: tuple[Any, ...], p: dict[str, Any]) -> Any:
    """The input gradient of ``conv``: the columns ``w^T rows(gy)`` added back into place."""
    grid = _grid(xshape, w.shape[2:], p, _finite(w))
    return _dx(_rows(gy, grid, p["groups"]), w, grid, p["groups"], gy.dtype)


def conv_dw_arrays(gy: Any, x: Any, wshape: tuple[Any, ...], p: dict[str, Any]) -> Any:
    """The weight gradient of ``conv``: ``rows(gy) @ columns(x)^T`` per group."""
    g = p["groups"]
    grid = _grid(x.shape, wshape[2:], p, _finite(x))
    return _gemm_nt(_rows(gy, grid, g), _columns(x, grid, g)).reshape(wshape)
