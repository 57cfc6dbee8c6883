"""Array kernels of the eager max and average pools (speedconv).

The kernels work on planes ``(P, H, W)`` (every leading dimension flattened) and loop only
over the kernel offsets ``(i, j)``: offset ``(i, j)`` of every window is one strided slice
of the (padded) planes, so a pool is ``KH*KW`` whole-array operations however many windows
there are.  The max pool chooses as PyTorch's CPU kernel does: only positions inside the
input compete, a later value wins when it is greater or NaN, and a window of ``-inf``
points at its first position inside the input.
Its backward sends each gradient to the chosen position: a plain assignment when windows
do not overlap, a sum (``bincount``) when they do.  The average pool adds the offsets in
row-major order and divides by the window's divisor.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..device import is_device, to_device, xp_of

__all__ = ["avg", "avg_adjoint", "divisors", "gather", "max_pool_arrays", "placed_like", "planes",
           "scatter"]


def planes(a: Any) -> Any:
    """``a`` as ``(P, H, W)``."""
    return a.reshape((-1,) + a.shape[-2:])


def _channels_last(n_planes: int, p: dict[str, Any]) -> bool:
    """Whether to work on ``(H, W, P)``: NumPy's inner loops then run over the planes,
    which beats short output rows (the usual case of many small feature maps)."""
    out_w: int = p["out_hw"][1]
    return n_planes > out_w


def _padded(xs: Any, p: dict[str, Any], value: float, last: bool) -> Any:
    """Planes ``(P, H, W)`` padded with ``value`` on every side a window reaches past, as
    ``(H', W', P)`` when ``last`` (no copy when planar and unpadded)."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p["kernel"], p["stride"], p["pad"], p["dilation"]
    oh, ow = p["out_hw"]
    n, h, w = xs.shape
    bottom = max(0, (oh - 1) * sh + dh * (kh - 1) + 1 - h - ph)
    right = max(0, (ow - 1) * sw + dw * (kw - 1) + 1 - w - pw)
    src = xs.transpose(1, 2, 0) if last else xs
    xp = xp_of(xs)
    if ph == pw == bottom == right == 0:
        return xp.ascontiguousarray(src) if last else src
    shape = (h + ph + bottom, w + pw + right, n) if last else (n, h + ph + bottom, w + pw + right)
    out = xp.full(shape, value, xs.dtype)
    if last:
        out[ph:ph + h, pw:pw + w] = src
    else:
        out[:, ph:ph + h, pw:pw + w] = src
    return out


def _offsets(p: dict[str, Any], last: bool) -> list[tuple[Any, ...]]:
    """The index of the padded planes that each kernel offset reads, row-major."""
    (kh, kw), (sh, sw), (dh, dw) = p["kernel"], p["stride"], p["dilation"]
    oh, ow = p["out_hw"]
    lead = () if last else (slice(None),)
    return [lead + (slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                    slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
            for i in range(kh) for j in range(kw)]


def _planar(a: Any, last: bool) -> Any:
    """``(OH, OW, P)`` back to contiguous ``(P, OH, OW)`` when ``last``."""
    return xp_of(a).ascontiguousarray(a.transpose(2, 0, 1)) if last else a


def _first_inside(o: int, s: int, pad: int, d: int) -> Any:
    """Each window's first position inside the input (PyTorch's starting index)."""
    start = np.arange(o) * s - pad
    return np.where(start < 0, start + (-start + d - 1) // d * d, start)


@functools.lru_cache(maxsize=256)
def _max_tables(key: tuple[Any, ...]) -> tuple[list[Any], Any, Any, Any]:
    """Per geometry: each offset's slices, each window's flat start ``(OH, OW[, 1])``, each
    offset's flat shift, and each window's first position inside the input (PyTorch's
    start)."""
    last, w, (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = key
    p = {"kernel": (kh, kw), "stride": (sh, sw), "dilation": (dh, dw), "out_hw": (oh, ow)}
    base = (np.arange(oh)[:, None] * sh - ph) * w + (np.arange(ow)[None, :] * sw - pw)
    first = _first_inside(oh, sh, ph, dh)[:, None] * w + _first_inside(ow, sw, pw, dw)[None, :]
    if last:
        base, first = base[:, :, None], first[:, :, None]
    shift = np.array([i * dh * w + j * dw for i in range(kh) for j in range(kw)], np.int64)
    for a in (base, first, shift):
        a.flags.writeable = False
    return _offsets(p, last), base, shift, first


def _first_match(padded: Any, offsets: list[Any], best: Any) -> Any:
    """For each window, the first offset whose value equals ``best`` (0 where none does),
    with boolean masks only (no data-dependent branches)."""
    xp = xp_of(best)
    k = len(offsets)
    dtype = np.int8 if k <= 127 else np.int16 if k <= 32767 else np.int64
    found = padded[offsets[0]] == best
    which = xp.zeros(best.shape, dtype)
    for n, where in enumerate(offsets[1:], 1):
        eq = padded[where] == best
        xp.greater(eq, found, out=eq)  # equal here and not before
        xp.add(which, eq.astype(dtype) * dtype(n), out=which)
        xp.logical_or(found, eq, out=found)
    return which


def placed_like(table: Any, like: Any) -> Any:
    """A host table (indices, divisors) where ``like`` lives (copied to a device)."""
    return to_device(table) if is_device(like) else table


def max_pool_arrays(x: Any, p: dict[str, Any]) -> tuple[Any, Any]:
    """The windows' maxima and their flat positions within the plane (``int64``).

    The maximum is a running ``np.maximum`` (NaN wins, as in PyTorch); the position is
    then the first offset holding it, or the last NaN, or for a window of ``-inf`` its
    first position inside the input (padding never competes)."""
    xs = planes(x)
    last = _channels_last(xs.shape[0], p)
    padded = _padded(xs, p, -np.inf, last)
    offsets, base, shift, first = _max_tables((last, x.shape[-1], *(
        tuple(p[k]) for k in ("kernel", "stride", "pad", "dilation", "out_hw"))))
    xp = xp_of(x)
    device = xp is not np
    if device:
        base, first = placed_like(base, x), placed_like(first, x)
    best = padded[offsets[0]].copy()
    for where in offsets[1:]:
        xp.maximum(best, padded[where], out=best)
    index = base + xp.take(placed_like(shift, x), _first_match(padded, offsets, best))
    # on a device the NaN/-inf pass always runs (testing for it would sync with the host)
    if device or not np.isfinite(best.sum()):
        for where, step in zip(offsets, shift.tolist()):
            v = padded[where]
            index = xp.where(v != v, base + step, index)
        index = xp.where(best == -np.inf, first, index)
    out = p["out_shape"]
    return _planar(best, last).reshape(out), _planar(index, last).reshape(out)


def gather(x: Any, p: dict[str, Any]) -> Any:
    """The entries of ``x`` at ``p["index"]`` (per plane)."""
    xs = planes(x)
    n, h, w = xs.shape
    idx = p["index"].reshape(n, math.prod(p["out_shape"][-2:]))
    return xp_of(xs).take_along_axis(xs.reshape(n, h * w), idx, 1).reshape(p["out_shape"])


def scatter(g: Any, p: dict[str, Any]) -> Any:
    """The adjoint of ``gather``: ``g`` sent to ``p["index"]``, summed where shared."""
    shape = p["in_shape"]
    n_planes = math.prod(shape[:-2])
    size = shape[-2] * shape[-1]
    idx = p["index"].reshape(n_planes, math.prod(p["out_shape"][-2:]))
    xp = xp_of(g)
    idx = idx + (xp.arange(n_planes) * size)[:, None]
    if p.get("disjoint"):
        flat = xp.zeros(n_planes * size, g.dtype)
        flat[idx.ravel()] = g.ravel()
        return flat.reshape(shape)
    flat = xp.bincount(idx.ravel(), weights=g.ravel(), minlength=n_planes * size)
    return flat.astype(g.dtype, copy=False).reshape(shape)


def disjoint(p: dict[str, Any]) -> bool:
    """Whether no two windows share a position (each gets at most one gradient)."""
    return all(s >= d * (k - 1) + 1 for k, s, d in zip(p["kernel"], p["stride"],
                                                         p["dilation"]))


@functools.lru_cache(maxsize=256)
def _divisors_cached(key: tuple[Any, ...]) -> Any:
    in_hw, kernel, stride, pad, out_hw, include_pad = key
    full, real = [], []
    for n, k, s, q, o in zip(in_hw, kernel, stride, pad, out_hw):
        start = np.arange(o) * s - q
        end = np.minimum(start + k, n + q)
        full.append(end - start)
        real.append(np.minimum(end, n) - np.maximum(start, 0))
    sizes = full if include_pad else real
    out = (sizes[0][:, None] * sizes[1][None, :]).astype(np.float64)
    out.flags.writeable = False
    return out


def divisors(p: dict[str, Any]) -> Any:
    """``(OH, OW)`` divisors: the override, or the window's size (padding counted or not)."""
    if p["divisor_override"]:
        return np.asarray(float(p["divisor_override"]))
    return _divisors_cached((tuple(p["in_shape"][-2:]), tuple(p["kernel"]), tuple(p["stride"]),
                             tuple(p["pad"]), tuple(p["out_hw"]), bool(p["count_include_pad"])))


def avg(x: Any, p: dict[str, Any]) -> Any:
    """Average pool: the window sums (row-major over offsets) over the divisors."""
    xs = planes(x)
    last = _channels_last(xs.shape[0], p)
    padded = _padded(xs, p, 0.0, last)
    total = None
    for where in _offsets(p, last):
        v = padded[where]
        total = v.copy() if total is None else xp_of(v).add(total, v, out=total)
    div = placed_like(p["divisor"].astype(x.dtype), x)
    total = total / (div[..., None] if last and div.ndim else div)
    return _planar(total, last).reshape(p["out_shape"])


def avg_adjoint(g: Any, p: dict[str, Any]) -> Any:
    """The adjoint of ``avg``: each window's share added back over its positions."""
    (kh, kw), (sh, sw), (ph, pw) = p["kernel"], p["stride"], p["pad"]
    shape = p["in_shape"]
    h, w = shape[-2:]
    oh, ow = p["out_hw"]
    share = planes(g) / placed_like(p["divisor"].astype(g.dtype), g)
    xp = xp_of(g)
    n = share.shape[0]
    last = _channels_last(n, p)
    hp, wp = max(h + 2 * ph, (oh - 1) * sh + kh), max(w + 2 * pw, (ow - 1) * sw + kw)
    if last:
        share = xp.ascontiguousarray(share.transpose(1, 2, 0))
        gx = xp.zeros((hp, wp, n), g.dtype)
    else:
        gx = xp.zeros((n, hp, wp), g.dtype)
    for where in _offsets(p, last):
        gx[where] += share
    if last:
        return xp.ascontiguousarray(gx[ph:ph + h, pw:pw + w].transpose(2, 0, 1)).reshape(shape)
    if (hp, wp) == (h, w):
        return gx.reshape(shape)
    return xp.ascontiguousarray(gx[:, ph:ph + h, pw:pw + w]).reshape(shape)
