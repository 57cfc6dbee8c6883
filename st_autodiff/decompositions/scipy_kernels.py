"""Compiled SciPy kernels that generated code calls as they are, with derivative rules:
the full convolution and the valid correlation, ``lfilter`` along the last axis (with and
without initial conditions), ``sqrtm`` and ``solve_sylvester``.

Each kernel becomes one ``Op.CALL`` node (the ``register_vjp`` mechanism of ``custom.py``),
with a reverse-mode rule in ``CUSTOM_VJPS`` and a forward-mode rule in ``CUSTOM_JVPS``.
The rules are plain NumPy that call the kernels themselves (and ``scipy_impl`` gathers),
so the compiler can read a rule to differentiate it again: second derivatives work.

Derivations.  ``y = conv_full(a, v)`` has ``ga = corr_valid(g, v)``, ``gv =
corr_valid(g, a)``; ``y = corr_valid(g, v)`` has ``gg = conv_full(y_bar, v)``, ``gv =
corr_valid(g, y_bar)``.  For ``lfilter`` (``A`` is the filter's recursion
``a * y = b * x + a[0] c``, where ``c`` is ``zi`` padded with zeros to the signal's
length: ``lfilter`` normalises by ``a[0]`` and injects ``zi[n]`` at time ``n``):

* ``dy = A^-1 (b * dx + db * x - da * y + da[0] c + a[0] dc)``, each ``A^-1 u`` being
  ``lfilter([1], a, u)``; ``lfilter(b, a, dx)`` is the first two factors at once.
* ``A^-1`` is lower-triangular Toeplitz, so its transpose is the same filter run on the
  reversed signal: ``w = flip(lfilter([1], a, flip(g)))``; then ``gx`` is
  ``flip(lfilter(b, a, flip(g)))``, ``gb[k] = sum_n w[n] x[n-k]``,
  ``ga[k] = -sum_n w[n] y[n-k]`` (plus ``sum_n w[n] c[n]`` for ``k = 0``) and
  ``gzi = a[0] w[:K]``.
* ``X = sqrtm(A)``: ``X dX + dX X = dA``, a Sylvester equation; its adjoint is
  ``X^T G_A + G_A X^T = G``.  ``solve_sylvester`` (``A X + X B = Q``) has
  ``dX = sylv(A, B, dQ - dA X - X dB)`` and, transposed, ``G_Q = sylv(A^T, B^T, G)``,
  ``G_A = -G_Q X^T``, ``G_B = -X^T G_Q``.

Real inputs only: a complex ``sqrtm`` (a matrix with negative eigenvalues) is a runtime
error that says so, never a silently dropped imaginary part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivatives import CUSTOM_VJPS
from ..derivatives.jvp import CUSTOM_JVPS
from ..transforms.call_types import OUT_TYPES, ShapeDtype

_ONE = np.ones(1)


def _signal() -> Any:
    import scipy.signal  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.signal


def _linalg() -> Any:
    import scipy.linalg  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.linalg


# --- kernels ----------------------------------------------------------------------------


def lfilter_last(b: Any, a: Any, x: Any) -> Any:
    """``scipy.signal.lfilter(b, a, x)`` along the last axis."""
    return _signal().lfilter(b, a, x, axis=-1)


def lfilter_last_zi(b: Any, a: Any, x: Any, zi: Any) -> Any:
    """The output of ``scipy.signal.lfilter(b, a, x, zi=zi)`` along the last axis (the
    final state is computed from it by ``scipy_impl.lfilter_state``)."""
    return _signal().lfilter(b, a, x, axis=-1, zi=zi)[0]


def sqrtm(a: Any) -> Any:
    """``scipy.linalg.sqrtm(a)`` of a real matrix whose square root is real."""
    out = _linalg().sqrtm(a)
    if np.iscomplexobj(out):
        if np.all(out.imag == 0):
            return np.ascontiguousarray(out.real)
        raise ValueError("scipy.linalg.sqrtm: this matrix's square root is complex (it has "
                         "negative real eigenvalues); st_autodiff differentiates real square "
                         "roots only")
    return out


def solve_sylvester(a: Any, b: Any, q: Any) -> Any:
    """``scipy.linalg.solve_sylvester(a, b, q)``: ``X`` with ``a X + X b = q``."""
    return _linalg().solve_sylvester(a, b, q)


def convolve_full(a: Any, v: Any) -> Any:
    """``scipy.signal.convolve(a, v, mode='full')`` of real arrays of the same rank."""
    return _signal().convolve(a, v, mode="full")


def fftconvolve_full(a: Any, v: Any) -> Any:
    """``scipy.signal.fftconvolve(a, v, mode='full')`` of real arrays of the same rank."""
    return _signal().fftconvolve(a, v, mode="full")


def correlate_valid(g: Any, v: Any) -> Any:
    """``scipy.signal.correlate(g, v, mode='valid')``: ``out[k] = sum_n g[n + k] v[n]``
    for ``g`` at least as large as ``v`` along every axis."""
    return _signal().correlate(g, v, mode="valid")


# --- convolution rules: the full convolution and the valid correlation are each other's
# transposes, so two kernels close the rules under differentiation -----------------------


def _convolve_vjp(g: Any, out: Any, a: Any, v: Any) -> tuple[Any, Any]:
    return correlate_valid(g, v), correlate_valid(g, a)


def _convolve_jvp(a: Any, v: Any, ta: Any, tv: Any) -> Any:
    return convolve_full(ta, v) + convolve_full(a, tv)


def _correlate_vjp(y: Any, out: Any, g: Any, v: Any) -> tuple[Any, Any]:
    return convolve_full(y, v), correlate_valid(g, y)


def _correlate_jvp(g: Any, v: Any, tg: Any, tv: Any) -> Any:
    return correlate_valid(tg, v) + correlate_valid(g, tv)


def _convolve_type(a: Any, v: Any) -> ShapeDtype:
    return ShapeDtype(tuple(i + j - 1 for i, j in zip(a.shape, v.shape)),
                      np.result_type(a.dtype, v.dtype))


def _correlate_type(g: Any, v: Any) -> ShapeDtype:
    return ShapeDtype(tuple(i - j + 1 for i, j in zip(g.shape, v.shape)),
                      np.result_type(g.dtype, v.dtype))


# --- lfilter rules ----------------------------------------------------------------------


def _reverse_filter(b: Any, a: Any, g: Any) -> Any:
    """The transpose of ``u -> lfilter(b, a, u)`` (along the last axis) applied to ``g``."""
    return np.flip(lfilter_last(b, a, np.flip(g, axis=-1)), axis=-1)


def _lagged(w: Any, v: Any, lags: Any, pad: int) -> Any:
    """``out[k] = sum over every axis and n of w[..., n] * v[..., n - k]`` for the
    ``lags`` (static ``(K, N)`` index into ``v`` padded by ``pad`` zeros on the left)."""
    zeros = np.zeros_like(v[..., :1]) * np.zeros(pad)
    vp = np.concatenate((zeros, v), axis=-1)
    prod = vp[..., lags] * np.expand_dims(w, axis=-2)
    return np.sum(np.reshape(prod, (-1, np.shape(lags)[0], np.shape(lags)[1])), axis=(0, 2))


def lag_index(k: int, n: int) -> Any:
    """``idx[j, m] = m - j + k`` (``k`` left padding zeros cover the negative times)."""
    return np.arange(n)[None, :] - np.arange(k)[:, None] + k


def _lfilter_grads(g: Any, y: Any, b: Any, a: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    n = np.shape(x)[-1]
    nb, na = np.shape(b)[0], np.shape(a)[0]
    w = _reverse_filter(_ONE, a, g)
    gx = _reverse_filter(b, a, g)
    gb = _lagged(w, x, lag_index(nb, n), nb)
    ga = -_lagged(w, y, lag_index(na, n), na)
    return gx, gb, ga, w


def _lfilter_vjp(g: Any, out: Any, b: Any, a: Any, x: Any) -> tuple[Any, Any, Any]:
    gx, gb, ga, _w = _lfilter_grads(g, out, b, a, x)
    return gb, ga, gx


def _injection(zi: Any, n: int) -> Any:
    """``zi`` padded with zeros (or cut) to ``n`` samples along the last axis."""
    k = np.shape(zi)[-1]
    if k >= n:
        return zi[..., :n]
    return np.concatenate((zi, np.zeros_like(zi[..., :1]) * np.zeros(n - k)), axis=-1)


def _lfilter_zi_vjp(g: Any, out: Any, b: Any, a: Any, x: Any, zi: Any) -> tuple[Any, Any, Any, Any]:
    gx, gb, ga, w = _lfilter_grads(g, out, b, a, x)
    n, k = np.shape(x)[-1], np.shape(zi)[-1]
    c = _injection(zi, n)
    ga0 = np.sum(w * c)
    ga = ga + np.concatenate((np.reshape(ga0, (1,)), np.zeros(np.shape(a)[0] - 1)))
    gzi = _injection(w, k) * a[0]
    return gb, ga, gx, gzi


def _lfilter_jvp(b: Any, a: Any, x: Any, tb: Any, ta: Any, tx: Any) -> Any:
    y = lfilter_last(b, a, x)
    return lfilter_last(b, a, tx) + lfilter_last(tb, a, x) - lfilter_last(ta, a, y)


def _lfilter_zi_jvp(b: Any, a: Any, x: Any, zi: Any, tb: Any, ta: Any, tx: Any,
                    tzi: Any) -> Any:
    y = lfilter_last_zi(b, a, x, zi)
    n = np.shape(x)[-1]
    inject = _injection(zi * ta[0] + tzi * a[0], n)
    return (lfilter_last(b, a, tx) + lfilter_last(tb, a, x) - lfilter_last(ta, a, y)
            + lfilter_last(_ONE, a, inject))


def _lfilter_type(b: Any, a: Any, x: Any, *zi: Any) -> ShapeDtype:
    dtype = np.result_type(*(getattr(v, "dtype", np.float64) for v in (b, a, x, *zi)),
                           np.float64)
    return ShapeDtype(x.shape, dtype)


# --- sqrtm / solve_sylvester rules ------------------------------------------------------


def _sqrtm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    xt = np.swapaxes(out, -1, -2)
    return (solve_sylvester(xt, xt, g),)


def _sqrtm_jvp(a: Any, t: Any) -> Any:
    x = sqrtm(a)
    return solve_sylvester(x, x, t)


def _sylvester_vjp(g: Any, out: Any, a: Any, b: Any, q: Any) -> tuple[Any, Any, Any]:
    gq = solve_sylvester(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), g)
    return -(gq @ np.swapaxes(out, -1, -2)), -(np.swapaxes(out, -1, -2) @ gq), gq


def _sylvester_jvp(a: Any, b: Any, q: Any, ta: Any, tb: Any, tq: Any) -> Any:
    x = solve_sylvester(a, b, q)
    return solve_sylvester(a, b, tq - ta @ x - x @ tb)


def _square_type(a: Any, *rest: Any) -> ShapeDtype:
    dtype = np.result_type(*(getattr(v, "dtype", np.float64) for v in (a, *rest)), np.float64)
    shape = rest[-1].shape if rest else a.shape
    return ShapeDtype(shape, dtype)


def register_kernels(rows: Any) -> None:
    """Put ``(kernel, vjp, jvp, out_type)`` rows in the tables of ``register_vjp`` (the
    SciPy kernel modules share this one loop)."""
    for fn, vjp, jvp, out_type in rows:
        CUSTOM_VJPS[fn] = vjp
        CUSTOM_JVPS[fn] = jvp
        OUT_TYPES[fn] = out_type


def register() -> None:
    """Put the kernels' rules and output types in the tables of ``register_vjp``."""
    register_kernels((
        (convolve_full, _convolve_vjp, _convolve_jvp, _convolve_type),
        (fftconvolve_full, _convolve_vjp, _convolve_jvp, _convolve_type),
        (correlate_valid, _correlate_vjp, _correlate_jvp, _correlate_type),
        (lfilter_last, _lfilter_vjp, _lfilter_jvp, _lfilter_type),
        (lfilter_last_zi, _lfilter_zi_vjp, _lfilter_zi_jvp, _lfilter_type),
        (sqrtm, _sqrtm_vjp, _sqrtm_jvp, _square_type),
        (solve_sylvester, _sylvester_vjp, _sylvester_jvp, _square_type)))


register()
