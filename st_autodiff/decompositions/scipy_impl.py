"""SciPy and scikit-learn functions written with functions the compiler has rules for
(read like the user's own code, see ``numpy_impl``): pairwise distances, ``squareform``,
the additive chi-squared kernel, and the glue (modes, axes, padding, final states) around
the compiled kernels of ``scipy_kernels``: convolutions, ``lfilter``/``filtfilt``/
``sosfilt``/``sosfiltfilt``, ``sqrtm`` and ``solve_sylvester``.

Distances with a root (euclidean, minkowski) have derivative zero where the distance is
zero (coincident points), as PyTorch's ``cdist`` does: the root is taken of
``where(s > 0, s, 1)``, so neither the gradient nor the second derivative meets
``0 * inf``.  Static index arrays (pairs, lags) come from the selectors.  Value checks
that SciPy and sklearn make (negative chi2 features, ``sos[:, 3] != 1``) are made at run
time here too, raising the library's own error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import scipy_kernels as kernels
from .scipy_kernels import lfilter_last, lfilter_last_zi


def _root(s: Any, p: float) -> Any:
    """``s ** (1 / p)``, with derivative 0 where ``s == 0``."""
    pos = s > 0
    safe = np.where(pos, s, 1.0)
    root = np.sqrt(safe) if p == 2 else safe ** (1.0 / p)
    return np.where(pos, root, 0.0)


def pair_metric(u: Any, v: Any, metric: str, p: float) -> Any:
    """The distance between the vectors along the last axis of ``u`` and ``v``."""
    if metric == "cosine" or metric == "correlation":
        if metric == "correlation":
            u = u - np.mean(u, axis=-1, keepdims=True)
            v = v - np.mean(v, axis=-1, keepdims=True)
        uv = np.sum(u * v, axis=-1)
        nu = np.sqrt(np.sum(u * u, axis=-1))
        nv = np.sqrt(np.sum(v * v, axis=-1))
        return 1.0 - uv / (nu * nv)
    if metric == "braycurtis":
        return np.sum(np.abs(u - v), axis=-1) / np.sum(np.abs(u + v), axis=-1)
    d = u - v
    if metric == "sqeuclidean":
        return np.sum(d * d, axis=-1)
    if metric == "euclidean":
        return _root(np.sum(d * d, axis=-1), 2)
    if metric == "cityblock":
        return np.sum(np.abs(d), axis=-1)
    if metric == "chebyshev":
        return np.max(np.abs(d), axis=-1)
    return _root(np.sum(np.abs(d) ** p, axis=-1), p)  # minkowski


def braycurtis(u: Any, v: Any, cast: bool) -> Any:
    """``scipy.spatial.distance.braycurtis``: ``v`` converted to float64 first where
    ``cast`` says, as SciPy does (float32 vectors give a float64 distance)."""
    if cast:
        v = v.astype(np.float64)
    return pair_metric(u, v, "braycurtis", 1.0)


def seuclidean(u: Any, v: Any, var: Any, cast: bool) -> Any:
    """``scipy.spatial.distance.seuclidean``: the euclidean distance scaled by variances
    (converted to float64 first where ``cast`` says, as SciPy does)."""
    d = u - v
    if cast:  # SciPy scales the (float32) difference by float64 weights
        var = var.astype(np.float64)
        d = d.astype(np.float64)
    return _root(np.sum(d * d / var, axis=-1), 2)


def cdist(xa: Any, xb: Any, metric: str, p: float, cast_a: bool, cast_b: bool) -> Any:
    """``scipy.spatial.distance.cdist``: every row of ``xa`` against every row of ``xb``
    (each converted to float64 first where ``cast_*`` says, as SciPy does)."""
    if cast_a:
        xa = xa.astype(np.float64)
    if cast_b:
        xb = xb.astype(np.float64)
    return pair_metric(xa[:, None, :], xb[None, :, :], metric, p)


def pdist(x: Any, first: Any, second: Any, metric: str, p: float, cast: bool) -> Any:
    """``scipy.spatial.distance.pdist``: the pairs ``first[k] < second[k]``, in order."""
    if cast:
        x = x.astype(np.float64)
    return pair_metric(x[first], x[second], metric, p)


def to_square(v: Any, index: Any) -> Any:
    """``squareform`` of a condensed vector: ``index`` reads a zero on the diagonal."""
    ext = np.concatenate((np.zeros(1, dtype=v.dtype), v))
    return ext[index]


def to_condensed(m: Any, first: Any, second: Any) -> Any:
    """``squareform`` of a square matrix: its upper triangle, row by row."""
    return m[first, second]


def additive_chi2(x: Any, y: Any) -> Any:
    """``-sum (x - y)^2 / (x + y)`` over features, 0 where ``x + y == 0`` (sklearn's
    checks of the values included: the kernel is defined on non-negative features)."""
    if np.any(x < 0):
        raise ValueError("X contains negative values.")
    if np.any(y < 0):
        raise ValueError("Y contains negative values.")
    xb = x[:, None, :]
    yb = y[None, :, :]
    nom = -((xb - yb) ** 2)
    denom = xb + yb
    zero = denom == 0
    return np.sum(np.where(zero, 0.0, nom) / np.where(zero, 1.0, denom), axis=2)


def chi2(x: Any, y: Any, gamma: Any) -> Any:
    return np.exp(additive_chi2(x, y) * gamma)


def convolve(a: Any, v: Any, window: Any, fft: bool) -> Any:
    """``scipy.signal.convolve``/``fftconvolve``: the full convolution, cut to ``mode``."""
    full = kernels.fftconvolve_full(a, v) if fft else kernels.convolve_full(a, v)
    return full[window]


def correlate(a: Any, v: Any, window: Any) -> Any:
    """``scipy.signal.correlate`` of real arrays: the convolution with ``v`` reversed."""
    return kernels.convolve_full(a, np.flip(v))[window]


def pad_end(v: Any, extra: int) -> Any:
    """``v`` with ``extra`` zeros appended (a filter's coefficients to the state length)."""
    if extra == 0:
        return v
    return np.concatenate((v, np.zeros(extra, dtype=v.dtype)))


def lfilter(b: Any, a: Any, x: Any, axis: int) -> Any:
    """``scipy.signal.lfilter(b, a, x, axis)`` without initial conditions."""
    y = lfilter_last(b, a, np.moveaxis(x, axis, -1))
    return np.moveaxis(y, -1, axis)


def lfilter_state(b: Any, a: Any, x: Any, y: Any, zi: Any, index: Any, pad: int) -> Any:
    """The final state of the transposed direct form II after ``x`` (output ``y``):
    ``zf[i] = sum_{k > i} (b[k] x[N+i-k] - a[k] y[N+i-k]) / a[0]``, plus ``zi[N+i]`` for
    a signal shorter than the state (``index`` reads zeros for ``k <= i``)."""
    zeros = np.zeros_like(x[..., :1]) * np.zeros(pad)
    xp = np.concatenate((zeros, x), axis=-1)
    yp = np.concatenate((zeros, y), axis=-1)
    state = (np.sum(xp[..., index] * b, axis=-1) - np.sum(yp[..., index] * a, axis=-1)) / a[0]
    n, k = np.shape(x)[-1], np.shape(zi)[-1]
    if n < k:
        state = state + np.concatenate((zi[..., n:], np.zeros_like(zi[..., :n])), axis=-1)
    return state


def lfilter_zi(b: Any, a: Any, x: Any, zi: Any, axis: int, index: Any, pad: int, extra_b: int,
               extra_a: int) -> Any:
    """``scipy.signal.lfilter(b, a, x, axis, zi)``: the output and the final state (``b``
    and ``a`` padded with zeros to the same length first)."""
    b = pad_end(b, extra_b)
    a = pad_end(a, extra_a)
    xl = np.moveaxis(x, axis, -1)
    zl = np.moveaxis(zi, axis, -1)
    y = lfilter_last_zi(b, a, xl, zl)
    zf = lfilter_state(b, a, xl, y, zl, index, pad)
    return np.moveaxis(y, -1, axis), np.moveaxis(zf, -1, axis)


def steady_state(b: Any, a: Any, shift: Any, first: Any) -> Any:
    """``scipy.signal.lfilter_zi(b, a)`` for runtime coefficients (already of one length):
    ``(I - companion(a)^T) zi = b[1:] - a[1:] b[0]`` after normalising by ``a[0]``."""
    b = b / a[0]
    a = a / a[0]
    k = np.shape(a)[0] - 1
    system = np.eye(k) - (shift + np.expand_dims(-a[1:], axis=-1) * first)
    return np.linalg.solve(system, b[1:] - a[1:] * b[0])


def extend(x: Any, n: int, padtype: str) -> Any:
    """``odd_ext``/``even_ext``/``const_ext`` of ``x`` by ``n`` along the last axis."""
    if n == 0:
        return x
    left = np.flip(x[..., 1:n + 1], axis=-1)
    right = np.flip(x[..., -n - 1:-1], axis=-1)
    if padtype == "odd":
        left = 2 * x[..., :1] - left
        right = 2 * x[..., -1:] - right
    elif padtype == "constant":
        left = x[..., :1] * np.ones(n)
        right = x[..., -1:] * np.ones(n)
    return np.concatenate((left, x, right), axis=-1)


def filtfilt(b: Any, a: Any, x: Any, zi: Any, axis: int, edge: int, padtype: str) -> Any:
    """``scipy.signal.filtfilt`` (``method='pad'``): forward, then backward, from the
    steady state ``zi`` scaled by the first sample, on the padded signal."""
    ext = extend(np.moveaxis(x, axis, -1), edge, padtype)
    y = lfilter_last_zi(b, a, ext, zi * ext[..., :1])
    y = np.flip(lfilter_last_zi(b, a, np.flip(y, axis=-1), zi * y[..., -1:]), axis=-1)
    if edge > 0:
        y = y[..., edge:-edge]
    return np.moveaxis(y, -1, axis)


def filtfilt_runtime(b: Any, a: Any, x: Any, shift: Any, first: Any, axis: int, edge: int,
                     padtype: str, extra_b: int, extra_a: int) -> Any:
    """``filtfilt`` with coefficients computed at run time: their steady state too."""
    b = pad_end(b, extra_b)
    a = pad_end(a, extra_a)
    return filtfilt(b, a, x, steady_state(b, a, shift, first), axis, edge, padtype)


def sosfilt(sos: Any, x: Any, axis: int) -> Any:
    """``scipy.signal.sosfilt`` without initial conditions: the sections in turn."""
    if np.any(sos[:, 3] != 1):
        raise ValueError("sos[:, 3] should be all ones")
    for s in range(np.shape(sos)[0]):
        x = lfilter(sos[s, :3], sos[s, 3:], x, axis)
    return x


def sqrtm(a: Any) -> Any:
    """``scipy.linalg.sqrtm``: one compiled kernel with its own rules."""
    return kernels.sqrtm(a)


def solve_sylvester(a: Any, b: Any, q: Any) -> Any:
    """``scipy.linalg.solve_sylvester``: one compiled kernel with its own rules."""
    return kernels.solve_sylvester(a, b, q)


def sosfilt_zi(sections: Any, x: Any, zi: Any, axis: int, index: Any, pad: int) -> Any:
    """``scipy.signal.sosfilt(sos, x, axis, zi)``: the output and the final states (one
    per section, ``(n_sections, ..., 2, ...)``), for constant sections ``(b, a, k)``."""
    xl = np.moveaxis(x, axis, -1)
    zl = np.moveaxis(zi, axis + 1, -1)
    states = []
    for b, a, k in sections:  # unrolled
        y = lfilter_last_zi(b, a, xl, zl[k])
        states.append(lfilter_state(b, a, xl, y, zl[k], index, pad))
        xl = y
    return np.moveaxis(xl, -1, axis), np.moveaxis(np.stack(states), -1, axis + 1)


def _sections_from(sections: Any, x: Any, scale: Any) -> Any:
    """The cascade of ``sections`` (a static tuple of ``(b, a, zi)``) on ``x`` (last
    axis), each section from its steady state ``zi`` times ``scale``."""
    for b, a, zi in sections:  # unrolled
        x = lfilter_last_zi(b, a, x, zi * scale)
    return x


def sosfiltfilt(sections: Any, x: Any, axis: int, edge: int, padtype: str) -> Any:
    """``scipy.signal.sosfiltfilt``: ``filtfilt`` with second-order sections."""
    ext = extend(np.moveaxis(x, axis, -1), edge, padtype)
    y = _sections_from(sections, ext, ext[..., :1])
    y = np.flip(_sections_from(sections, np.flip(y, axis=-1), y[..., -1:]), axis=-1)
    if edge > 0:
        y = y[..., edge:-edge]
    return np.moveaxis(y, -1, axis)
