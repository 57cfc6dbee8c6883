"""More NumPy functions written with ops that have rules (the ``select_numpy_more`` table).

Like ``numpy_impl``, the compiler reads these functions as the user's own code, so their
derivatives in both modes and at every order are those of the ops they call.  Each one
repeats NumPy's own arithmetic (the same operations in the same order, the same dtype
casts) so that values agree with NumPy's; where NumPy moves data around (``insert``,
``partition``, ``choose``) the arrangement is computed by NumPy itself on integer
positions and the values are gathered with it.  Arguments arrive checked and normalised
by the selectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.kernels import stop_gradient
from ..transforms.call_types import ShapeDtype
from ..transforms.effects_kinds import register_inactive


def _argpartition(a: Any, kth: Any, axis: int) -> Any:
    """The positions ``np.partition`` puts the elements at (NumPy's introselect: the
    same arrangement as ``np.partition``); integers, so no derivative flows through."""
    return np.argpartition(a, kth, axis=axis)


register_inactive(_argpartition, out_type=lambda a, *_: ShapeDtype(a.shape, np.intp))


def _exponent(x: Any) -> Any:
    """The exponent ``np.frexp`` gives (an integer: no derivative)."""
    return np.frexp(x)[1]


register_inactive(_exponent, out_type=lambda x: ShapeDtype(x.shape, np.intc))


# --- reductions that skip NaN -------------------------------------------------------


def nanmax(a: Any, axis: Any, keepdims: Any) -> Any:
    """``np.nanmax`` (and ``np.fmax.reduce``): the max of the non-NaN values, NaN where a
    slice holds nothing else."""
    mask = np.isnan(a)
    m = np.max(np.where(mask, -np.inf, a), axis=axis, keepdims=keepdims)
    return np.where(np.all(mask, axis=axis, keepdims=keepdims), np.nan, m)


def nanmin(a: Any, axis: Any, keepdims: Any) -> Any:
    mask = np.isnan(a)
    m = np.min(np.where(mask, np.inf, a), axis=axis, keepdims=keepdims)
    return np.where(np.all(mask, axis=axis, keepdims=keepdims), np.nan, m)


def nanprod(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.prod(np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims)


def nanmean(a: Any, axis: Any, keepdims: Any, dt: Any) -> Any:
    """``np.nanmean``: the sum of the non-NaN values over their count, cast back to the
    input type as NumPy's division into the sum does."""
    mask = np.isnan(a)
    cnt = np.sum(np.logical_not(mask), axis=axis, keepdims=keepdims)
    return (np.sum(np.where(mask, 0, a), axis=axis, keepdims=keepdims) / cnt).astype(dt)


def nanvar(a: Any, axis: Any, keepdims: Any, ddof: Any, dt: Any) -> Any:
    """``np.nanvar``: NumPy's steps (mean of the non-NaN values with the count kept as
    an axis, deviations zeroed at NaN, sum of squares over the degrees of freedom, NaN
    where they are not positive); divisions by counts are cast back to the input type."""
    mask = np.isnan(a)
    arr = np.where(mask, 0, a)
    cnt = np.sum(np.logical_not(mask), axis=axis, keepdims=True)
    avg = (np.sum(arr, axis=axis, keepdims=True) / cnt).astype(dt)
    d = np.where(mask, 0, arr - avg)
    var = np.sum(d * d, axis=axis, keepdims=keepdims)
    dof = np.sum(np.logical_not(mask), axis=axis, keepdims=keepdims) - ddof
    var = (var / dof).astype(dt)
    return np.where(dof <= 0, np.nan, var)


def nanstd(a: Any, axis: Any, keepdims: Any, ddof: Any, dt: Any) -> Any:
    return np.sqrt(nanvar(a, axis, keepdims, ddof, dt))


def _sorted_last(a: Any, axis: int, flat: bool) -> Any:
    """``a`` sorted along the reduced axis, moved last (NaN sorts to the end)."""
    if flat:
        return np.sort(np.ravel(a))
    return np.sort(np.moveaxis(a, axis, -1), axis=-1)


def _finish(out: Any, axis: int, keepdims: Any, flat: bool, q_ndim: int, nd: int) -> Any:
    if q_ndim:
        out = np.moveaxis(out, -1, 0)
    if keepdims:
        if flat:
            out = np.reshape(out, np.shape(out)[:q_ndim] + (1,) * nd)
        else:
            out = np.expand_dims(out, q_ndim + axis)
    return out


def nanmedian(a: Any, axis: int, keepdims: Any, flat: bool, nd: int) -> Any:
    """``np.nanmedian``: the mean of the two middle non-NaN values of each sorted slice
    (both the same one for an odd count), NaN for a slice of NaN only."""
    s = _sorted_last(a, axis, flat)
    n = np.shape(s)[-1]
    cnt = np.sum(np.logical_not(np.isnan(s)), axis=-1, keepdims=True)
    lo = np.maximum((cnt - 1) // 2, 0)
    hi = np.minimum(cnt // 2, n - 1)
    out = (np.take_along_axis(s, lo, axis=-1) + np.take_along_axis(s, hi, axis=-1)) / 2.0
    return _finish(out[..., 0], axis, keepdims, flat, 0, nd)


def nanquantile(a: Any, q: Any, axis: int, keepdims: Any, flat: bool, q_ndim: int,
                nd: int, dt: Any) -> Any:
    """``np.nanquantile(method='linear')``: NumPy's quantile of each slice's non-NaN
    values, whose count is known only at run time: virtual index ``(count - 1) q``,
    its neighbours clipped to the slice, and NumPy's ``_lerp`` between them."""
    s = _sorted_last(a, axis, flat)
    cnt = np.sum(np.logical_not(np.isnan(s)), axis=-1, keepdims=True)
    vi = (cnt - 1) * q
    lo = np.floor(vi)
    t64 = vi - lo
    # NumPy: float64 weights for an array of q; a Python float weight for a number q
    # (1 - t taken in float64, each then rounded to the array's type)
    t = t64 if q_ndim else t64.astype(dt)
    u = 1 - t64 if q_ndim else (1 - t64).astype(dt)
    above = vi >= cnt - 1
    below = vi < 0
    last = np.maximum(cnt - 1, 0)
    lo_i = np.where(above, last, np.where(below, 0, lo.astype(np.intp)))
    hi_i = np.where(above, last, np.where(below, 0, lo.astype(np.intp) + 1))
    prev = np.take_along_axis(s, lo_i, axis=-1)
    nxt = np.take_along_axis(s, hi_i, axis=-1)
    d = nxt - prev
    out = np.where(t64 >= 0.5, nxt - d * u, prev + d * t)
    if not q_ndim:
        out = out[..., 0]
    return _finish(out, axis, keepdims, flat, q_ndim, nd)


def quantile_take(a: Any, index: Any, axis: int, keepdims: Any, flat: bool, q_ndim: int,
                  nd: int) -> Any:
    """``np.quantile`` with a method that picks one sorted element (``lower``,
    ``higher``, ``nearest``, ``inverted_cdf``, ``closest_observation``); NaN where a
    slice holds NaN, as NumPy's."""
    s = _sorted_last(a, axis, flat)
    out = np.take(s, index, axis=-1)
    nan = np.isnan(s[..., -1])
    if q_ndim:
        nan = np.expand_dims(nan, -1)
    out = np.where(nan, np.nan, out)
    return _finish(out, axis, keepdims, flat, q_ndim, nd)


def quantile_lerp(a: Any, lo: Any, hi: Any, t: Any, axis: int, keepdims: Any, flat: bool,
                  q_ndim: int, nd: int) -> Any:
    """``np.quantile`` with an interpolating method: NumPy's ``_lerp`` between the
    static neighbours ``lo``/``hi`` with the static weights ``t`` (from NumPy's table of
    methods)."""
    s = _sorted_last(a, axis, flat)
    prev = np.take(s, lo, axis=-1)
    nxt = np.take(s, hi, axis=-1)
    d = nxt - prev
    out = np.where(t >= 0.5, nxt - d * (1 - t), prev + d * t)
    nan = np.isnan(s[..., -1])
    if q_ndim:
        nan = np.expand_dims(nan, -1)
    out = np.where(nan, np.nan, out)
    return _finish(out, axis, keepdims, flat, q_ndim, nd)


# --- elementwise ------------------------------------------------------------------


def copysign(x: Any, y: Any, dt: Any) -> Any:
    """``np.copysign``: ``|x|`` with the sign bit of ``y`` (the sign is piecewise
    constant: no derivative in ``y``)."""
    m = np.abs(np.asarray(x).astype(dt))
    return np.where(np.signbit(y), -m, m)


def heaviside(x1: Any, x2: Any, dt: Any) -> Any:
    """``np.heaviside``: 0 below zero, 1 above, ``x2`` at zero, NaN at NaN."""
    x1 = np.asarray(x1).astype(dt)
    x2 = np.asarray(x2).astype(dt)
    step = np.where(x1 < 0, 0.0, np.where(x1 > 0, 1.0, x2))
    return np.where(np.isnan(x1), x1, step).astype(dt)


def divmod_(x: Any, y: Any) -> Any:
    return x // y, x % y


def frexp(x: Any) -> Any:
    """``np.frexp``: the exponent by NumPy (an integer), the mantissa ``x 2**-e``
    (an exact scaling in two powers of two that
    cannot overflow, linear in ``x``)."""
    e = _exponent(stop_gradient(x))
    half = -e // 2
    one = np.ones_like(x)
    return x * np.ldexp(one, half) * np.ldexp(one, -e - half), e


def modf(x: Any, dt: Any) -> Any:
    """``np.modf``: the integral part ``trunc(x)`` (piecewise constant) and the fraction
    ``x - trunc(x)`` (exact), signed like ``x`` where it is zero, 0 at infinities."""
    x = np.asarray(x).astype(dt)
    i = np.trunc(x)
    f = x - i
    f = np.where(np.logical_and(f == 0, np.signbit(x)), -(0.0 - f), f)  # -0.0, slope 1
    return np.where(np.isinf(x), np.where(np.signbit(x), -0.0, 0.0), f).astype(dt), i


def conj_real(x: Any) -> Any:
    return np.positive(x)


def imag_real(x: Any) -> Any:
    return np.zeros_like(x)


def i0(x: Any, a_coef: Any, b_coef: Any) -> Any:
    """``np.i0``: NumPy's two Chebyshev series (``|x| <= 8`` and beyond), each evaluated
    only where it applies so that the other's poles do not reach the derivative."""
    x = np.abs(x)
    small = x <= 8.0
    xs = np.where(small, x, 0.0)
    xl = np.where(small, 9.0, x)
    return np.where(small, np.exp(xs) * _chbevl(xs / 2.0 - 2, a_coef),
                    np.exp(xl) * _chbevl(32.0 / xl - 2.0, b_coef) / np.sqrt(xl))


def _chbevl(x: Any, vals: Any) -> Any:
    b0 = vals[0]
    b1 = 0.0
    b2 = 0.0
    for v in vals[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + v
    return 0.5 * (b0 - b2)


# --- data movement ----------------------------------------------------------------


def gather_flat(arrays: Any, index: Any, dt: Any) -> Any:
    """The arrays raveled and joined, then read at the static ``index`` (the positions
    NumPy's own function gave for integer labels: ``insert``, ``resize``...)."""
    flat = np.concatenate([np.ravel(np.asarray(v).astype(dt)) for v in arrays])
    return flat[index]


def partition(a: Any, kth: Any, axis: int) -> Any:
    return np.take_along_axis(a, _argpartition(stop_gradient(a), kth, axis), axis=axis)


def partition_flat(a: Any, kth: Any) -> Any:
    return partition(np.ravel(a), kth, 0)


def choose(index: Any, shape: Any, *choices: Any) -> Any:
    """``np.choose``: the choices broadcast to one shape and stacked, read at ``index``."""
    stacked = np.stack([np.broadcast_to(c, shape) for c in choices])
    idx = np.broadcast_to(index, shape)
    return np.take_along_axis(stacked, np.expand_dims(idx, 0), axis=0)[0]


def compress(a: Any, positions: Any, axis: Any) -> Any:
    if axis is None:
        return np.take(np.ravel(a), positions)
    return np.take(a, positions, axis=axis)


def compress_mask(a: Any, condition: Any, axis: Any) -> Any:
    if axis is None:
        a = np.ravel(a)
        axis = 0
    moved = np.moveaxis(a, axis, 0)
    n = np.shape(condition)[0]
    return np.moveaxis(moved[:n][condition], 0, axis)


def diagflat(v: Any, k: int) -> Any:
    return np.diag(np.ravel(v), k)


def ediff1d(ary: Any, begin: Any, end: Any, dt: Any) -> Any:
    """``np.ediff1d``: the differences of the raveled array between ``to_begin`` and
    ``to_end`` (raveled, cast to the array's type)."""
    a = np.ravel(ary)
    parts: list[Any] = [np.ravel(np.asarray(v)).astype(dt) for v in begin]
    parts.append(a[1:] - a[:-1])
    parts = parts + [np.ravel(np.asarray(v)).astype(dt) for v in end]
    return np.concatenate(parts)


def vander(x: Any, n: int, increasing: bool) -> Any:
    """``np.vander``: NumPy's running products ``x, x*x, (x*x)*x ...`` after a column of
    ones (``multiply.accumulate``, here ``cumprod``)."""
    x = np.asarray(x)
    dt = np.promote_types(x.dtype, int)  # NumPy's: float32 in, float64 out
    x = x.astype(dt)
    m = np.shape(x)[0]
    cols = [np.ones((m, 1), dtype=dt)[:, :min(n, 1)]]
    if n > 1:
        cols.append(np.cumprod(np.broadcast_to(x[:, None], (m, n - 1)), axis=1))
    out = np.concatenate(cols, axis=1)
    return out if increasing else out[:, ::-1]


def bincount(x: Any, w: Any, length: Any) -> Any:
    """``np.bincount(x, weights=w)``: each count a sum of weights, as a 0/1 matrix times
    the weights (linear in the weights; the labels are integers)."""
    members = np.arange(length)[:, None] == np.ravel(x)[None, :]
    return np.sum(np.where(members, np.ravel(w).astype(np.float64), 0.0), axis=1)


def bincount_length(x: Any, minlength: int) -> Any:
    return np.maximum(np.max(x) + 1, minlength)


def trim_zeros(filt: Any, front: bool, back: bool) -> Any:
    """``np.trim_zeros`` of a 1-d array: the elements between the first and the last
    nonzero one (a mask known at run time)."""
    nz = filt != 0
    keep = np.ones(np.shape(filt), dtype=bool)
    if front:
        keep = np.logical_and(keep, np.cumsum(nz) > 0)
    if back:
        keep = np.logical_and(keep, np.cumsum(nz[::-1])[::-1] > 0)
    return filt[keep]


def meshgrid(shapes: Any, full: Any, copy: bool, *xi: Any) -> Any:
    """``np.meshgrid``: each vector reshaped along its own axis (the first two swapped
    for ``indexing='xy'``), then broadcast to the full grid unless ``sparse``."""
    out = []
    for x, s in zip(xi, shapes):
        v = np.reshape(x, s)
        if full is not None:
            v = np.broadcast_to(v, full)
            if copy:
                v = np.copy(v)
        elif copy:
            v = np.copy(v)
        out.append(v)
    return tuple(out)


def block(tree: Any, nd: int, *leaves: Any) -> Any:
    """``np.block``: leaves raised to ``nd`` dimensions, the innermost lists joined along
    the last axis, the lists above them along the one before...  ``tree`` is the nesting
    as nested tuples of leaf numbers."""
    parts = [np.reshape(v, (1,) * (nd - np.ndim(v)) + np.shape(v)) for v in leaves]
    return _join(tree, parts, nd)


def _join(tree: Any, parts: Any, nd: int) -> Any:
    if isinstance(tree, int):
        return parts[tree]
    return np.concatenate([_join(t, parts, nd) for t in tree], axis=nd - _depth(tree))


def _depth(tree: Any) -> int:
    if isinstance(tree, int):
        return 0
    return 1 + _depth(tree[0])


def piecewise(x: Any, funcs: Any, args: Any, kw: Any, *conds: Any) -> Any:
    """``np.piecewise``: a zero array of ``x``'s type, then for each condition in turn
    its function of ``x[cond]`` (or its constant) written at ``cond``."""
    y = np.zeros_like(x)
    for f, c in zip(funcs, conds):
        if callable(f):
            y[c] = f(x[c], *args, **kw)
        else:
            y[c] = f
    return y


def piecewise_otherwise(x: Any, funcs: Any, args: Any, kw: Any, *conds: Any) -> Any:
    """``np.piecewise`` with one more function than conditions: the last one applies
    where no condition holds."""
    other = np.logical_not(np.any(np.stack([np.asarray(c, dtype=bool) for c in conds]),
                                  axis=0))
    return piecewise(x, funcs, args, kw, *conds, other)


def polyint(p: Any, m: int, ks: Any) -> Any:
    """``np.polyint``: ``m`` times, the coefficients over their powers and a constant."""
    for k in ks[:m]:
        n = np.shape(p)[0]
        p = np.concatenate((p / np.arange(n, 0, -1), np.reshape(k, (1,))))
    return p


def polymul(a1: Any, a2: Any) -> Any:
    """``np.polymul``: the convolution of the coefficients.  NumPy first strips leading
    zeros (``poly1d``), which changes the length: checked when the code runs."""
    a1 = np.atleast_1d(a1)
    a2 = np.atleast_1d(a2)
    if np.shape(a1)[0] > 1:
        assert a1[0] != 0, "np.polymul: a leading zero coefficient is not supported"
    if np.shape(a2)[0] > 1:
        assert a2[0] != 0, "np.polymul: a leading zero coefficient is not supported"
    return np.convolve(a1, a2)


def polyfit(x: Any, y: Any, order: int, rcond: Any, y2d: bool) -> Any:
    """``np.polyfit`` without weights: the least-squares fit on the column-scaled
    Vandermonde matrix, then the scaling undone, as NumPy computes it."""
    lhs = x[:, None] ** np.arange(order - 1, -1, -1).astype(np.float64)
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c = np.linalg.lstsq(lhs, y, rcond=rcond)[0]
    if y2d:
        return c / scale[:, None]
    return c / scale


def reshape_copy(x: Any, shape: Any) -> Any:
    return np.reshape(np.copy(x), shape)


def rows_side_by_side(x: Any, shape: Any) -> Any:
    """``np.hstack(x)`` of an array of rank 3 or more: its rows joined along axis 1."""
    return np.reshape(np.moveaxis(x, 0, 1), shape)


def vhstack(arrays: Any, axis: int, dt: Any) -> Any:
    """``np.vstack``/``np.hstack``/``np.row_stack`` of an array or a sequence (a
    ``dtype=`` cast first)."""
    parts = [v if dt is None else np.asarray(v).astype(dt) for v in arrays]
    if axis == 0:
        return np.concatenate([np.atleast_2d(v) for v in parts], axis=0)
    parts = [np.atleast_1d(v) for v in parts]
    if np.ndim(parts[0]) == 1:
        return np.concatenate(parts, axis=0)
    return np.concatenate(parts, axis=1)
