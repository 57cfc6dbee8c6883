"""Compiled ``scipy.linalg`` kernels of the linalg family that generated code calls as they
are (values bit for bit SciPy's), with derivative rules (the pattern of
``scipy_linalg_kernels``): ``cosm``, ``sinm``, ``tanm``, ``tanhm``,
``fractional_matrix_power``, ``expm_frechet``, ``solveh_banded``, ``cholesky_banded`` and
``cho_solve_banded``.

The rules are NumPy that calls the kernels again, so the compiler reads a rule to
differentiate it once more: second derivatives work.

Derivations.  For a primary matrix function ``f`` (``cos``, ``sin``, ``tan``, ``tanh``,
``x ** t``), ``f([[A, E], [0, A]]) = [[f(A), L_f(A, E)], [0, f(A)]]`` (Van Loan), where
``L_f(A, E)`` is the Fréchet derivative; as ``f`` has real coefficients, the adjoint of
``L_f(A, .)`` is ``L_f(A^T, .)``.  ``A^t`` has ``d/dt = logm(A) A^t``.  ``expm_frechet``
is the pair ``(exp(A), L(A, E))``, the top row of ``exp(B)`` for ``B = [[A, E], [0, A]]``:
its derivative is ``L(B, dB)`` (``dB = [[dA, dE], [0, dA]]``), and the adjoint takes
``G_B = L(B^T, [[G_X, G_L], [0, 0]])``, ``G_A = G_B[:n, :n] + G_B[n:, n:]``,
``G_E = G_B[:n, n:]``.  The banded solves read a symmetric (``solveh_banded``) or
triangular factor (``cho_solve_banded``, ``A = U^T U`` or ``L L^T``) from LAPACK band
storage: ``dx = A^-1 (db - dA x)`` and ``G_b = A^-1 g``, ``G_A = -G_b x^T`` gathered back
onto the band (each off-diagonal entry of a symmetric band stands for two entries), and
``G_U = U (G_A + G_A^T)`` (``G_L = (G_A + G_A^T) L``) for a factor.  ``A = L L^T``
(``cholesky_banded``; ``U = L^T``): ``dL = L phi(L^-1 dA L^-T)`` with ``phi`` the lower
triangle, diagonal halved; transposed, ``G_A = sym(L^-T phi(L^T G_L) L^-1)``.

Real results only: a complex value (a matrix whose fractional power is complex) is a
run-time ``ValueError`` that says so, never a dropped imaginary part; an imaginary part
at rounding level (SciPy's complex Schur arithmetic on a real matrix) is dropped, by
SciPy's own ``_maybe_real`` tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..transforms.call_types import ShapeDtype
from .scipy_kernels import register_kernels
from .scipy_linalg_kernels import _block, _lapack_dtype, _t, logm
from .scipy_linalg_kernels import expm_frechet as _expm_block_frechet


def _linalg() -> Any:
    import scipy.linalg  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.linalg


def _real(out: Any, what: str) -> Any:
    """``out`` itself, or its real part where the imaginary part is rounding (SciPy's own
    ``_maybe_real`` test: every ``|imag|`` below 1e6 eps, 1e3 for single precision)."""
    if np.iscomplexobj(out):
        tol = np.finfo(out.real.dtype).eps * (1e3 if out.real.dtype.itemsize <= 4 else 1e6)
        if np.allclose(out.imag, 0.0, atol=tol):
            return np.ascontiguousarray(out.real)
        raise ValueError(f"scipy.linalg.{what}: the result of this matrix is complex; "
                         "st_autodiff refuses complex values (real results only)")
    return out


# --- matrix functions -------------------------------------------------------------------


def cosm(a: Any) -> Any:
    """``scipy.linalg.cosm(a)`` of a real matrix."""
    return _real(_linalg().cosm(a), "cosm")


def sinm(a: Any) -> Any:
    """``scipy.linalg.sinm(a)`` of a real matrix."""
    return _real(_linalg().sinm(a), "sinm")


def tanm(a: Any) -> Any:
    """``scipy.linalg.tanm(a)`` of a real matrix."""
    return _real(_linalg().tanm(a), "tanm")


def tanhm(a: Any) -> Any:
    """``scipy.linalg.tanhm(a)`` of a real matrix."""
    return _real(_linalg().tanhm(a), "tanhm")


def fractional_matrix_power(a: Any, t: Any) -> Any:
    """``scipy.linalg.fractional_matrix_power(a, t)`` where it is real."""
    return _real(_linalg().fractional_matrix_power(a, t), "fractional_matrix_power")


def _corner(x: Any, n: int) -> Any:
    return x[..., :n, n:]


def cosm_frechet(a: Any, e: Any) -> Any:
    return _corner(cosm(_block(a, e)), np.shape(a)[-1])


def sinm_frechet(a: Any, e: Any) -> Any:
    return _corner(sinm(_block(a, e)), np.shape(a)[-1])


def tanm_frechet(a: Any, e: Any) -> Any:
    return _corner(tanm(_block(a, e)), np.shape(a)[-1])


def tanhm_frechet(a: Any, e: Any) -> Any:
    return _corner(tanhm(_block(a, e)), np.shape(a)[-1])


def power_frechet(a: Any, e: Any, t: Any) -> Any:
    return _corner(fractional_matrix_power(_block(a, e), t), np.shape(a)[-1])


def _cosm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (cosm_frechet(_t(a), g),)


def _sinm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (sinm_frechet(_t(a), g),)


def _tanm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (tanm_frechet(_t(a), g),)


def _tanhm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (tanhm_frechet(_t(a), g),)


def _power_vjp(g: Any, out: Any, a: Any, t: Any) -> tuple[Any, Any]:
    return power_frechet(_t(a), g, t), np.sum(g * (logm(a) @ out))


def _power_jvp(a: Any, t: Any, ta: Any, tt: Any) -> Any:
    return power_frechet(a, ta, t) + tt * (logm(a) @ fractional_matrix_power(a, t))


def _power_type(a: Any, t: Any) -> ShapeDtype:
    """SciPy runs ``matrix_power`` for an integer ``t`` (``a``'s dtype), else float64."""
    whole = isinstance(t, (int, float)) and float(t).is_integer()
    return ShapeDtype(a.shape, a.dtype if whole else np.float64)


def _square_type(a: Any) -> ShapeDtype:
    return ShapeDtype(a.shape, _lapack_dtype(a.dtype))


# --- expm_frechet -----------------------------------------------------------------------


def expm_frechet_sps(a: Any, e: Any) -> tuple[Any, Any]:
    """``scipy.linalg.expm_frechet(a, e)`` (method 'SPS'): ``(expm(a), L(a, e))``."""
    x, lx = _linalg().expm_frechet(a, e, method="SPS", check_finite=False)
    return x, lx


def expm_frechet_block(a: Any, e: Any) -> tuple[Any, Any]:
    """``scipy.linalg.expm_frechet(a, e, method='blockEnlarge')``."""
    x, lx = _linalg().expm_frechet(a, e, method="blockEnlarge", check_finite=False)
    return x, lx


def _pair_vjp(g: Any, out: Any, a: Any, e: Any) -> tuple[Any, Any]:
    gx, gl = g
    n = np.shape(a)[-1]
    top = np.concatenate((gx, gl), axis=-1)
    gb = np.concatenate((top, np.zeros((n, 2 * n), dtype=top.dtype)), axis=-2)
    full = _expm_block_frechet(_t(_block(a, e)), gb)
    return full[..., :n, :n] + full[..., n:, n:], full[..., :n, n:]


def _pair_jvp(a: Any, e: Any, ta: Any, te: Any) -> tuple[Any, Any]:
    n = np.shape(a)[-1]
    d = _expm_block_frechet(_block(a, e), _block(ta, te))
    return d[..., :n, :n], d[..., :n, n:]


def _pair_type(a: Any, e: Any) -> tuple[Any, Any]:
    return ShapeDtype(a.shape, np.float64), ShapeDtype(a.shape, np.float64)


def _pair_block_type(a: Any, e: Any) -> tuple[Any, Any]:
    dtype = _lapack_dtype(a.dtype, e.dtype)
    return ShapeDtype(a.shape, dtype), ShapeDtype(a.shape, dtype)


# --- banded solves ----------------------------------------------------------------------


def solveh_banded_lower(ab: Any, b: Any) -> Any:
    """``scipy.linalg.solveh_banded(ab, b, lower=True)`` (``b`` 2-d)."""
    return _linalg().solveh_banded(ab, b, lower=True, check_finite=False)


def solveh_banded_upper(ab: Any, b: Any) -> Any:
    """``scipy.linalg.solveh_banded(ab, b)`` (upper form, ``b`` 2-d)."""
    return _linalg().solveh_banded(ab, b, lower=False, check_finite=False)


def cho_solve_banded_lower(cb: Any, b: Any) -> Any:
    """``scipy.linalg.cho_solve_banded((cb, True), b)`` (``b`` 2-d)."""
    return _linalg().cho_solve_banded((cb, True), b, check_finite=False)


def cho_solve_banded_upper(cb: Any, b: Any) -> Any:
    """``scipy.linalg.cho_solve_banded((cb, False), b)`` (``b`` 2-d)."""
    return _linalg().cho_solve_banded((cb, False), b, check_finite=False)


def _band_index(rows: int, n: int, lower: bool, symmetric: bool) -> tuple[Any, ...]:
    """Where the dense matrix reads the band (``dense = padded[r, c]``, ``padded`` being the
    band with a row of zeros appended), and which dense entries each band entry stands for
    (``(bi, bj)``, and ``(bj, bi)`` where ``twice``; ``valid`` marks entries inside the
    matrix)."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    u = rows - 1
    if symmetric:
        off = np.abs(i - j)
        inside = off <= u
        r = np.where(inside, off if lower else u - off, rows)
        c = np.minimum(i, j) if lower else np.maximum(i, j)
    else:
        off = i - j if lower else j - i
        inside = (off >= 0) & (off <= u)
        r = np.where(inside, i - j if lower else u + i - j, rows)
        c = np.broadcast_to(j, (n, n))
    br = np.arange(rows)[:, None]
    bc = np.arange(n)[None, :]
    bi = bc + br if lower else bc - u + br
    valid = (bi >= 0) & (bi < n)
    bi = np.broadcast_to(np.clip(bi, 0, n - 1), (rows, n))
    bj = np.broadcast_to(bc, (rows, n))
    diagonal = br == (0 if lower else u)
    twice = valid & ~diagonal & symmetric
    return r, c, bi, bj, valid.astype(np.float64), twice.astype(np.float64)


def band_dense(ab: Any, lower: bool, symmetric: bool) -> Any:
    """The dense matrix that the band ``ab`` stores (row ``d`` of the lower form is the
    ``-d``-th diagonal, row ``u - d`` of the upper form the ``d``-th; mirrored where
    ``symmetric``)."""
    rows, n = np.shape(ab)
    r, c, _bi, _bj, _valid, _twice = _band_index(rows, n, lower, symmetric)
    padded = np.concatenate((ab, np.zeros((1, n), dtype=ab.dtype)), axis=0)
    return padded[r, c]


def dense_band(a: Any, rows: int, lower: bool, symmetric: bool) -> Any:
    """The adjoint of ``band_dense``: each band entry gathers the dense entries it stands
    for."""
    n = np.shape(a)[-1]
    _r, _c, bi, bj, valid, twice = _band_index(rows, n, lower, symmetric)
    return a[bi, bj] * valid + a[bj, bi] * twice


def _solveh(ab: Any, b: Any, lower: bool) -> Any:
    if lower:
        return solveh_banded_lower(ab, b)
    return solveh_banded_upper(ab, b)


def _cho(cb: Any, b: Any, lower: bool) -> Any:
    if lower:
        return cho_solve_banded_lower(cb, b)
    return cho_solve_banded_upper(cb, b)


def solveh_vjp(g: Any, out: Any, ab: Any, b: Any, lower: bool) -> tuple[Any, Any]:
    gb = _solveh(ab, g, lower)
    return dense_band(-(gb @ _t(out)), np.shape(ab)[0], lower, True), gb


def solveh_jvp(ab: Any, b: Any, tab: Any, tb: Any, lower: bool) -> Any:
    x = _solveh(ab, b, lower)
    return _solveh(ab, tb - band_dense(tab, lower, True) @ x, lower)


def cho_vjp(g: Any, out: Any, cb: Any, b: Any, lower: bool) -> tuple[Any, Any]:
    gb = _cho(cb, g, lower)
    ga = -(gb @ _t(out))
    factor = band_dense(cb, lower, False)
    if lower:
        gf = (ga + _t(ga)) @ factor
    else:
        gf = factor @ (ga + _t(ga))
    return dense_band(gf, np.shape(cb)[0], lower, False), gb


def cho_jvp(cb: Any, b: Any, tcb: Any, tb: Any, lower: bool) -> Any:
    x = _cho(cb, b, lower)
    factor = band_dense(cb, lower, False)
    dfactor = band_dense(tcb, lower, False)
    if lower:
        da = dfactor @ _t(factor) + factor @ _t(dfactor)
    else:
        da = _t(dfactor) @ factor + _t(factor) @ dfactor
    return _cho(cb, tb - da @ x, lower)


def _solveh_lower_vjp(g: Any, out: Any, ab: Any, b: Any) -> tuple[Any, ...]:
    return solveh_vjp(g, out, ab, b, True)


def _solveh_upper_vjp(g: Any, out: Any, ab: Any, b: Any) -> tuple[Any, ...]:
    return solveh_vjp(g, out, ab, b, False)


def _solveh_lower_jvp(ab: Any, b: Any, tab: Any, tb: Any) -> Any:
    return solveh_jvp(ab, b, tab, tb, True)


def _solveh_upper_jvp(ab: Any, b: Any, tab: Any, tb: Any) -> Any:
    return solveh_jvp(ab, b, tab, tb, False)


def _cho_lower_vjp(g: Any, out: Any, cb: Any, b: Any) -> tuple[Any, ...]:
    return cho_vjp(g, out, cb, b, True)


def _cho_upper_vjp(g: Any, out: Any, cb: Any, b: Any) -> tuple[Any, ...]:
    return cho_vjp(g, out, cb, b, False)


def _cho_lower_jvp(cb: Any, b: Any, tcb: Any, tb: Any) -> Any:
    return cho_jvp(cb, b, tcb, tb, True)


def _cho_upper_jvp(cb: Any, b: Any, tcb: Any, tb: Any) -> Any:
    return cho_jvp(cb, b, tcb, tb, False)


def cholesky_banded_lower(ab: Any) -> Any:
    """``scipy.linalg.cholesky_banded(ab, lower=True)``."""
    return _linalg().cholesky_banded(ab, lower=True, check_finite=False)


def cholesky_banded_upper(ab: Any) -> Any:
    """``scipy.linalg.cholesky_banded(ab)`` (upper form)."""
    return _linalg().cholesky_banded(ab, lower=False, check_finite=False)


def _phi(x: Any) -> Any:
    """The lower triangle with its diagonal halved."""
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


def _lower_factor(cb: Any, lower: bool) -> Any:
    factor = band_dense(cb, lower, False)
    return factor if lower else _t(factor)


def _outside(ab: Any, lower: bool) -> Any:
    """1 on the band entries outside the matrix, which LAPACK leaves as they are."""
    rows, n = np.shape(ab)
    return 1.0 - _band_index(rows, n, lower, False)[4]


def cholesky_banded_vjp(g: Any, out: Any, ab: Any, lower: bool) -> tuple[Any]:
    factor = _lower_factor(out, lower)
    gl = _lower_factor(g, lower)
    x = np.linalg.solve(_t(factor), _phi(_t(factor) @ gl))  # L^-T phi(L^T gL)
    ga = _t(np.linalg.solve(_t(factor), _t(x)))  # ... L^-1
    return (dense_band((ga + _t(ga)) * 0.5, np.shape(ab)[0], lower, True)
            + g * _outside(ab, lower),)


def cholesky_banded_jvp(ab: Any, tab: Any, lower: bool) -> Any:
    cb = cholesky_banded_lower(ab) if lower else cholesky_banded_upper(ab)
    factor = _lower_factor(cb, lower)
    y = np.linalg.solve(factor, band_dense(tab, lower, True))  # L^-1 dA
    dl = factor @ _phi(_t(np.linalg.solve(factor, _t(y))))  # L phi(L^-1 dA L^-T)
    return (dense_band(dl if lower else _t(dl), np.shape(ab)[0], lower, False)
            + tab * _outside(ab, lower))


def _chol_lower_vjp(g: Any, out: Any, ab: Any) -> tuple[Any, ...]:
    return cholesky_banded_vjp(g, out, ab, True)


def _chol_upper_vjp(g: Any, out: Any, ab: Any) -> tuple[Any, ...]:
    return cholesky_banded_vjp(g, out, ab, False)


def _chol_lower_jvp(ab: Any, tab: Any) -> Any:
    return cholesky_banded_jvp(ab, tab, True)


def _chol_upper_jvp(ab: Any, tab: Any) -> Any:
    return cholesky_banded_jvp(ab, tab, False)


def _band_solve_type(ab: Any, b: Any) -> ShapeDtype:
    return ShapeDtype(b.shape, _lapack_dtype(ab.dtype, b.dtype))


def register() -> None:
    """Put the kernels' rules and output types in the tables of ``register_vjp``."""
    register_kernels((
        (cosm, _cosm_vjp, cosm_frechet, _square_type),
        (sinm, _sinm_vjp, sinm_frechet, _square_type),
        (tanm, _tanm_vjp, tanm_frechet, _square_type),
        (tanhm, _tanhm_vjp, tanhm_frechet, _square_type),
        (fractional_matrix_power, _power_vjp, _power_jvp, _power_type),
        (expm_frechet_sps, _pair_vjp, _pair_jvp, _pair_type),
        (expm_frechet_block, _pair_vjp, _pair_jvp, _pair_block_type),
        (solveh_banded_lower, _solveh_lower_vjp, _solveh_lower_jvp, _band_solve_type),
        (solveh_banded_upper, _solveh_upper_vjp, _solveh_upper_jvp, _band_solve_type),
        (cho_solve_banded_lower, _cho_lower_vjp, _cho_lower_jvp, _band_solve_type),
        (cho_solve_banded_upper, _cho_upper_vjp, _cho_upper_jvp, _band_solve_type),
        (cholesky_banded_lower, _chol_lower_vjp, _chol_lower_jvp, _square_type),
        (cholesky_banded_upper, _chol_upper_vjp, _chol_upper_jvp, _square_type)))


register()
