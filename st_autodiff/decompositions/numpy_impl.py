"""NumPy functions written with the functions the compiler has rules for.

The compiler reads these functions like a user's own code (``lower.inline_python``):
their derivatives, in both modes and at every order, come from the rules of the ops they
call.  Each mirrors NumPy's own computation (same operations in the same order) so that
values agree with NumPy's.  Their arguments arrive already checked and normalised by the
selectors of ``decompositions/__init__.py`` (static axes are non-negative ints, optional
arguments resolved), so the code here needs no ``is None`` tests.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.linalg._linalg import SVDResult

from ..ir.kernels import logsumexp
from ..ir.kernels import svd as rt_svd
from ..transforms.effects_kinds import full_rank_only


def diff(a: Any, n: int, axis: int) -> Any:
    """``np.diff(a, n, axis)``: ``n`` times ``a[1:] - a[:-1]`` along ``axis``."""
    a = np.moveaxis(a, axis, -1)
    for _ in range(n):
        a = a[..., 1:] - a[..., :-1]
    return np.moveaxis(a, -1, axis)


def diff_joined(a: Any, before: Any, after: Any, n: int, axis: int) -> Any:
    """``np.diff`` with ``prepend``/``append`` (each already shaped like ``a`` along
    every other axis)."""
    return diff(np.concatenate((before, a, after), axis=axis), n, axis)


def ptp(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def vecdot(x1: Any, x2: Any, axis: int) -> Any:
    """``np.vecdot`` of real arrays (complex values are refused before this)."""
    return np.sum(x1 * x2, axis=axis)


def average_weighted(a: Any, w: Any, axis: Any, keepdims: Any, shape: Any) -> Any:
    """``np.average(a, axis, weights=w)``; ``shape`` reshapes 1-d weights to broadcast
    along ``axis`` (``()`` when ``w`` is already like ``a``)."""
    if len(shape):
        w = np.reshape(w, shape)
    scl = np.sum(w, axis=axis, keepdims=keepdims)
    return np.sum(a * w, axis=axis, keepdims=keepdims) / scl


def average_weighted_returned(a: Any, w: Any, axis: Any, keepdims: Any, shape: Any) -> Any:
    if len(shape):
        w = np.reshape(w, shape)
    scl = np.sum(w, axis=axis, keepdims=keepdims)
    avg = np.sum(a * w, axis=axis, keepdims=keepdims) / scl
    return avg, np.broadcast_to(scl, np.shape(avg))


def average_returned(a: Any, axis: Any, keepdims: Any, count: float) -> Any:
    avg = np.mean(a, axis=axis, keepdims=keepdims)
    return avg, np.full_like(avg, count)


def _lerp(a: Any, b: Any, t: Any) -> Any:
    """NumPy's ``_lerp``: ``a + (b - a) t``, or ``b - (b - a)(1 - t)`` where t >= 0.5."""
    d = b - a
    return np.where(t >= 0.5, b - d * (1 - t), a + d * t)


def quantile_linear(a: Any, lo: Any, hi: Any, t: Any, axis: int, keepdims: Any,
                    flat: bool, q_ndim: int) -> Any:
    """``np.quantile(a, q, axis, method='linear')`` from the static positions ``lo``,
    ``hi`` and weights ``t`` the selector computed (NumPy's virtual indices)."""
    if flat:
        s = np.sort(np.ravel(a))
    else:
        s = np.sort(np.moveaxis(a, axis, -1), axis=-1)
    out = _lerp(np.take(s, lo, axis=-1), np.take(s, hi, axis=-1), t)
    nan = np.isnan(s[..., -1])  # sorted last: NumPy's result is nan for such a slice
    if q_ndim:
        nan = np.expand_dims(nan, -1)
    out = np.where(nan, np.nan, out)
    if q_ndim:
        out = np.moveaxis(out, -1, 0)
    if keepdims:
        out = np.expand_dims(out, q_ndim + (axis if not flat else 0))
    return out


def median(a: Any, lo: int, hi: int, axis: int, keepdims: Any, flat: bool) -> Any:
    """``np.median``: the middle element, or the mean of the two middle ones."""
    if flat:
        s = np.sort(np.ravel(a))
    else:
        s = np.sort(np.moveaxis(a, axis, -1), axis=-1)
    out = np.mean(s[..., lo:hi + 1], axis=-1)
    out = np.where(np.isnan(s[..., -1]), np.nan, out)  # NumPy's median of a nan is nan
    if keepdims:
        out = np.expand_dims(out, axis)
    return out


def interp(x: Any, xp: Any, fp: Any, left: Any, right: Any, has_left: bool,
           has_right: bool) -> Any:
    """``np.interp`` in float64: NumPy's ``slope * (x - xp[j]) + fp[j]`` on the interval
    ``j`` with ``xp[j] <= x < xp[j + 1]``; ``left``/``right`` (default ``fp[0]``/``fp[-1]``)
    outside, ``fp[-1]`` at ``xp[-1]``."""
    x = np.asarray(x).astype(np.float64)
    xp = np.asarray(xp).astype(np.float64)
    fp = np.asarray(fp).astype(np.float64)
    n = np.shape(xp)[0]
    if not has_left:
        left = fp[0]
    if not has_right:
        right = fp[n - 1]
    j = np.sum(np.expand_dims(x, -1) >= xp, axis=-1) - 1
    j = np.clip(j, 0, n - 2)
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    inner = slope * (x - xp[j]) + fp[j]
    inner = np.where(x == xp[n - 1], fp[n - 1], inner)
    return np.where(x < xp[0], left, np.where(x > xp[n - 1], right, inner))


def trapezoid(y: Any, d: Any, axis: int) -> Any:
    """``np.trapezoid``: ``sum(d * (y[1:] + y[:-1]) / 2)`` along ``axis``."""
    y = np.moveaxis(y, axis, -1)
    return np.sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)


def trapezoid_x(y: Any, x: Any, axis: int, x_1d: bool) -> Any:
    """``np.trapezoid(y, x)`` for ``x`` like ``y`` or 1-d."""
    y = np.moveaxis(y, axis, -1)
    if x_1d:
        d = x[1:] - x[:-1]
    else:
        x = np.moveaxis(x, axis, -1)
        d = x[..., 1:] - x[..., :-1]
    return np.sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)


def _rows(m: Any, row: bool, transpose: bool, cast: Any = None) -> Any:
    """NumPy's ``array(m, ndmin=2, dtype=cast)``, transposed for ``rowvar=False``."""
    if cast is not None:
        m = np.asarray(m, dtype=cast)
    if row:
        return np.reshape(m, (1, -1))
    if transpose:
        return m.T
    return m


def _cov_rows(x: Any, ddof: int) -> Any:
    """``np.cov`` of the rows of the 2-d ``x`` (observations along axis 1)."""
    avg = np.mean(x, axis=1)
    xc = x - avg[:, None]
    fact = np.shape(x)[1] - ddof
    c = np.dot(xc, xc.T) * (1.0 / fact)
    return np.squeeze(c)


def cov(m: Any, row: bool, transpose: bool, ddof: int, cast: Any) -> Any:
    return _cov_rows(_rows(m, row, transpose, cast), ddof)


def cov_xy(m: Any, y: Any, m_row: bool, m_t: bool, y_row: bool, y_t: bool, ddof: int,
           cast: Any) -> Any:
    x = np.concatenate((_rows(m, m_row, m_t, cast), _rows(y, y_row, y_t, cast)), axis=0)
    return _cov_rows(x, ddof)


def corrcoef(m: Any, row: bool, transpose: bool, ddof: int, cast: Any, scalar: bool) -> Any:
    return _correlation(cov(m, row, transpose, ddof, cast), scalar)


def corrcoef_xy(m: Any, y: Any, m_row: bool, m_t: bool, y_row: bool, y_t: bool, ddof: int,
                cast: Any, scalar: bool) -> Any:
    return _correlation(cov_xy(m, y, m_row, m_t, y_row, y_t, ddof, cast), scalar)


def _correlation(c: Any, scalar: bool) -> Any:
    """``np.corrcoef``: the covariance scaled by the standard deviations, clipped."""
    if scalar:
        return c / c
    stddev = np.sqrt(np.diag(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return np.clip(c, -1, 1)


def correlate_full(a: Any, v: Any, m: int) -> Any:
    """Every lag of ``sum_j a[k + j] v[j]`` (``a`` zero-padded by ``m - 1`` on both
    sides), lag by lag: NumPy's full correlation."""
    zeros = np.zeros(m - 1, dtype=a.dtype)  # float64 zeros would promote a float32 ``a``
    pad = np.concatenate((zeros, a, zeros))
    length = np.shape(pad)[0] - m + 1
    out = pad[0:length] * v[0]
    for j in range(1, m):
        out = out + pad[j:j + length] * v[j]
    return out


def correlate(a: Any, v: Any, start: int, stop: int) -> Any:
    return correlate_full(a, v, np.shape(v)[0])[start:stop]


def convolve(a: Any, v: Any, start: int, stop: int) -> Any:
    return correlate_full(a, np.flip(v), np.shape(v)[0])[start:stop]


def cross3(a: Any, b: Any, axis: int, axisc: int) -> Any:
    """``np.cross`` of 3-vectors along ``axis`` of the (broadcast) operands, the result's
    vectors along ``axisc``."""
    a = np.moveaxis(a, axis, -1)
    b = np.moveaxis(b, axis, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return np.moveaxis(out, -1, axisc)


def cross2(a: Any, b: Any, axis: int) -> Any:
    """``np.cross`` of 2-vectors: the z-component."""
    a = np.moveaxis(a, axis, -1)
    b = np.moveaxis(b, axis, -1)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def kron(a: Any, b: Any, a_shape: Any, b_shape: Any, out_shape: Any) -> Any:
    """``np.kron``: the outer product with ``a``'s and ``b``'s axes interleaved."""
    return np.reshape(np.reshape(a, a_shape) * np.reshape(b, b_shape), out_shape)


def nan_to_num(x: Any, nan: float, posinf: float, neginf: float) -> Any:
    x = np.where(np.isnan(x), nan, x)
    return np.where(np.isinf(x), np.where(x > 0, posinf, neginf), x)


def fabs(x: Any, dt: Any) -> Any:
    return np.abs(np.asarray(x).astype(dt))


def absolute(x: Any, dt: Any) -> Any:
    return np.abs(x)


def float_power(x: Any, y: Any) -> Any:
    return np.power(np.asarray(x).astype(np.float64), y)


def polyval(p: Any, x: Any, n: int) -> Any:
    """``np.polyval``: Horner's scheme from a zero of ``x``'s shape, as NumPy does."""
    y = np.zeros_like(x)
    for i in range(n):
        y = y * x + p[i]
    return y


def nansum(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.sum(np.where(np.isnan(a), 0, a), axis=axis, keepdims=keepdims)


def nanmean(a: Any, axis: Any, keepdims: Any) -> Any:
    mask = np.isnan(a)
    cnt = np.sum(np.logical_not(mask), axis=axis, keepdims=keepdims)
    return np.sum(np.where(mask, 0, a), axis=axis, keepdims=keepdims) / cnt


def nansum_masked(a: Any, axis: Any, keepdims: Any, where: Any, initial: Any) -> Any:
    """``np.nansum(a, where=where, initial=initial)``: NaNs and masked-out entries count
    as 0; ``initial`` is added in ``a``'s dtype."""
    keep = np.logical_and(np.logical_not(np.isnan(a)), where)
    total = np.sum(np.where(keep, a, 0), axis=axis, keepdims=keepdims)
    return total + np.asarray(initial).astype(a.dtype)


def gradient_axis(f: Any, dx: float, axis: int) -> Any:
    """``np.gradient`` along one axis, uniform spacing, ``edge_order=1``."""
    f = np.moveaxis(f, axis, -1)
    inner = (f[..., 2:] - f[..., :-2]) / (2.0 * dx)
    first = (f[..., 1:2] - f[..., 0:1]) / dx
    last = (f[..., -1:] - f[..., -2:-1]) / dx
    return np.moveaxis(np.concatenate((first, inner, last), axis=-1), -1, axis)


def gradient2(f: Any, dx0: float, dx1: float, ax0: int, ax1: int) -> Any:
    return gradient_axis(f, dx0, ax0), gradient_axis(f, dx1, ax1)


def gradient3(f: Any, dx0: float, dx1: float, dx2: float, ax0: int, ax1: int, ax2: int
              ) -> Any:
    return gradient_axis(f, dx0, ax0), gradient_axis(f, dx1, ax1), gradient_axis(f, dx2, ax2)


def logaddexp_reduce(x: Any, axis: Any, keepdims: Any) -> Any:
    return logsumexp(x, axis=axis, keepdims=keepdims)


def identity(x: Any) -> Any:
    return x


def broadcast_arrays(shape: tuple[int, ...], same: tuple[Any, ...], *args: Any) -> tuple[Any, ...]:
    """``np.broadcast_arrays``: views of the arguments with the common ``shape``."""
    return tuple(np.asarray(a) if keep else np.broadcast_to(a, shape)
                 for a, keep in zip(args, same))


def broadcast_arrays_at_run_time(*args: Any) -> tuple[Any, ...]:
    """``np.broadcast_arrays`` where a shape is known only at run time: each argument
    selected by ``np.where`` under an all-False mask of the common shape, which gives its
    values and dtype at that shape (NumPy raises as ``np.broadcast_arrays`` does when the
    shapes do not broadcast)."""
    mask = np.zeros_like(args[0], dtype=bool)
    for a in args[1:]:
        mask = mask | np.zeros_like(a, dtype=bool)
    return tuple(np.where(mask, a, a) for a in args)


def vector_norm_flat(x: Any, ord: Any, keepdims: Any, ones: Any) -> Any:
    """``np.linalg.vector_norm`` over every axis: the norm of the flattened array."""
    out = np.linalg.norm(np.ravel(x), ord=ord, axis=0)
    if keepdims:
        out = np.reshape(out, ones)
    return out


def mean(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.mean(a, axis=axis, keepdims=keepdims)


def norm(x: Any, ord: Any, axis: Any, keepdims: Any) -> Any:
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def svd(a: Any, full_matrices: bool) -> Any:
    """``np.linalg.svd(a, full_matrices)``: the factors as NumPy's ``SVDResult`` (``.U``,
    ``.S``, ``.Vh``, or unpacked)."""
    u, s, vh = rt_svd(a, full_matrices)
    return SVDResult(u, s, vh)  # linalg family: NumPy's named result


def eigvalsh(a: Any, uplo: Literal["L", "U"]) -> Any:
    return np.linalg.eigvalsh(a, UPLO=uplo)


def pinv(a: Any, rcond: Any) -> Any:
    """``np.linalg.pinv``: ``V diag(1/s) U^T`` over the singular values above
    ``rcond * max(s)`` (NumPy's computation, from the same SVD)."""
    u, s, vt = rt_svd(a, False)
    cutoff = rcond * np.max(s, axis=-1, keepdims=True)
    large = s > cutoff
    s = np.where(large, 1 / np.where(large, s, 1), 0)
    return np.matmul(np.swapaxes(vt, -1, -2), np.expand_dims(s, -1) * np.swapaxes(u, -1, -2))


def lstsq(a: Any, b: Any, rcond: Any, residuals: bool, vector: bool) -> Any:
    """``np.linalg.lstsq``: the minimum-norm solution ``pinv(a) b``, the residuals' sums of
    squares (for a tall matrix of full rank), the rank and the singular values."""
    x = np.matmul(pinv(a, rcond), b)
    s = np.linalg.svdvals(a)
    rank = np.sum(s > rcond * np.max(s))
    if residuals:  # NumPy gives them for full column rank only
        r = np.sum(np.square(b - np.matmul(a, x)), axis=0) * full_rank_only(
            rank, np.shape(a)[-1])
        if vector:
            r = np.reshape(r, (1,))
    else:
        r = np.zeros(0)
    return x, r, rank, s


def svdvals(a: Any) -> Any:
    return np.linalg.svdvals(a)


def asarray(a: Any) -> Any:
    return np.asarray(a)


def asarray_dtype(a: Any, dtype: Any) -> Any:
    return np.asarray(a, dtype=dtype)


def searchsorted(a: Any, v: Any, right: bool) -> Any:
    """How many elements of the sorted ``a`` are below ``v`` (``<=`` for side='right')."""
    col = np.expand_dims(np.asarray(v), -1)
    if right:
        return np.sum(a <= col, axis=-1)
    return np.sum(a < col, axis=-1)


def histogram_weighted(w: Any, members: Any, edges: Any) -> Any:
    """``np.histogram(a, bins, weights=w)``: ``members[b, i]`` is 1 where ``a[i]`` falls
    in bin ``b``."""
    return np.matmul(members, np.ravel(w)), edges


def histogram_weighted_density(w: Any, members: Any, edges: Any, widths: Any) -> Any:
    """``np.histogram(a, bins, weights=w, density=True)``: the weighted counts divided by
    the bin widths and by their sum, in NumPy's order."""
    n = np.matmul(members, np.ravel(w))
    return n / widths / np.sum(n), edges
