"""Compiled ``scipy.linalg`` kernels that generated code calls as they are, with derivative
rules (the pattern of ``scipy_kernels``): triangular solves, ``expm``, ``logm`` and the
packed LU factorization of ``lu_factor`` (its integer pivots have zero derivative) and the
reduced QR factorization of a tall matrix.

Each kernel becomes one ``Op.CALL`` node with a reverse-mode rule in ``CUSTOM_VJPS`` and a
forward-mode rule in ``CUSTOM_JVPS``.  The rules are NumPy that calls the kernels again, so
the compiler reads a rule to differentiate it once more: second derivatives work.

Derivations.  ``X = L^-1 B`` for lower-triangular ``L`` (only the triangle is read):
``dX = L^-1 (dB - tril(dL) X)``; transposed, ``G_B = L^-T G`` (an upper solve) and
``G_L = -tril(G_B X^T)``; the upper case mirrors it.  ``expm``'s Fréchet derivative at
``A`` in the direction ``E`` is the upper-right block of ``expm([[A, E], [0, A]])`` (Van
Loan's block formula); its adjoint is the Fréchet derivative at ``A^T`` in the direction
``G``.  ``logm`` is the same with ``logm`` for ``expm`` (the block formula holds for every
primary matrix function).  Both rules call the kernel itself, so they differentiate again.
``a[perm] = L U`` (``L`` unit lower, ``U`` upper, ``perm`` locally constant): with
``F = L^-1 da[perm] U^-1``, ``dL = L tril(F, -1)`` and ``dU = triu(F) U``; transposed,
``G_a[perm] = L^-T (tril(L^T G_L, -1) + triu(G_U U^T)) U^-T``.  ``A = Q R`` (``m >= n``):
with ``M = Q^T dA R^-1`` and ``P(M) = triu(M) + tril(M, -1)^T``, ``dR = P(M) R`` and
``dQ = dA R^-1 - Q P(M)``; transposed, ``G_A = (G_Q + Q P*(K)) R^-T`` for
``K = G_R R^T - Q^T G_Q`` and ``P*(K) = triu(K) + triu(K, 1)^T``.

Real inputs only: a complex ``logm`` is a runtime error that says so, never a silently
dropped imaginary part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..transforms.call_types import ShapeDtype
from .scipy_kernels import register_kernels


def _linalg() -> Any:
    import scipy.linalg  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.linalg


# --- kernels ----------------------------------------------------------------------------


def solve_lower(a: Any, b: Any) -> Any:
    """``X`` with ``tril(a) X = b`` (``b`` 2-d), by ``scipy.linalg.solve_triangular``."""
    return _linalg().solve_triangular(a, b, lower=True, check_finite=False)


def solve_upper(a: Any, b: Any) -> Any:
    """``X`` with ``triu(a) X = b`` (``b`` 2-d), by ``scipy.linalg.solve_triangular``."""
    return _linalg().solve_triangular(a, b, lower=False, check_finite=False)


def expm(a: Any) -> Any:
    """``scipy.linalg.expm(a)`` of a real square matrix (or a stack of them)."""
    return _linalg().expm(a)


def logm(a: Any) -> Any:
    """``scipy.linalg.logm(a)`` of a real matrix whose principal logarithm is real."""
    out = _linalg().logm(a)
    if np.iscomplexobj(out):
        if np.all(out.imag == 0):
            return np.ascontiguousarray(out.real)
        raise ValueError("scipy.linalg.logm: this matrix's logarithm is complex (it has "
                         "negative real eigenvalues); st_autodiff differentiates real "
                         "logarithms only")
    return out


def lu_packed(a: Any) -> Any:
    """The ``lu`` of ``scipy.linalg.lu_factor(a)``: ``L`` (unit diagonal, not stored)
    below the diagonal and ``U`` on and above it, with ``a[perm] = L U``."""
    return _linalg().lu_factor(a, check_finite=False)[0]


def lu_pivots(a: Any) -> Any:
    """The ``piv`` of ``scipy.linalg.lu_factor(a)`` (integers: piecewise constant in
    ``a``, so no derivative flows through them)."""
    return _linalg().lu_factor(a, check_finite=False)[1]


def pivots_permutation(piv: Any) -> tuple[Any, Any]:
    """The row order ``perm`` that LAPACK's sequential swaps ``piv`` make (``a[perm] =
    L U``) and its inverse."""
    perm = np.arange(piv.shape[0])
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm, np.argsort(perm)


def qr_reduced(a: Any) -> tuple[Any, Any]:
    """``scipy.linalg.qr(a, mode='economic')`` of a matrix with at least as many rows as
    columns: ``Q`` with orthonormal columns and the upper-triangular ``R``."""
    return tuple(_linalg().qr(a, mode="economic", check_finite=False))


def _signs(a: Any, v: Any, lower: bool) -> Any:
    ref = _linalg().eigh(a, lower=lower, check_finite=False)[1]
    return np.where(np.sum(ref * v, axis=-2) < 0, -1.0, 1.0).astype(v.dtype)


def eigh_signs_lower(a: Any, v: Any) -> Any:
    """``+1`` or ``-1`` per eigenvector: the signs that turn the eigenvectors ``v`` of
    ``a``'s lower triangle (NumPy's) into ``scipy.linalg.eigh``'s (another LAPACK driver,
    which may choose the other sign).  No derivative flows through them."""
    return _signs(a, v, True)


def eigh_signs_upper(a: Any, v: Any) -> Any:
    """``eigh_signs_lower`` for ``a``'s upper triangle (``lower=False``)."""
    return _signs(a, v, False)


# --- triangular solves ------------------------------------------------------------------


def _t(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


def _solve_lower_vjp(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
    gb = solve_upper(_t(a), g)
    return -np.tril(gb @ _t(out)), gb


def _solve_upper_vjp(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
    gb = solve_lower(_t(a), g)
    return -np.triu(gb @ _t(out)), gb


def _solve_lower_jvp(a: Any, b: Any, ta: Any, tb: Any) -> Any:
    x = solve_lower(a, b)
    return solve_lower(a, tb - np.tril(ta) @ x)


def _solve_upper_jvp(a: Any, b: Any, ta: Any, tb: Any) -> Any:
    x = solve_upper(a, b)
    return solve_upper(a, tb - np.triu(ta) @ x)


def _lapack_dtype(*dtypes: Any) -> np.dtype[Any]:
    """The dtype SciPy's LAPACK wrappers compute in: float32 for single (and half)
    precision inputs, else float64 (integers included)."""
    if all(np.dtype(d).kind == "f" and np.dtype(d).itemsize <= 4 for d in dtypes):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _solve_type(a: Any, b: Any) -> ShapeDtype:
    return ShapeDtype(b.shape, _lapack_dtype(a.dtype, b.dtype))


# --- matrix functions: Van Loan's block formula ------------------------------------------


def _block(a: Any, e: Any) -> Any:
    """``[[a, e], [0, a]]``."""
    top = np.concatenate((a, e), axis=-1)
    bottom = np.concatenate((np.zeros_like(e), a), axis=-1)
    return np.concatenate((top, bottom), axis=-2)


def expm_frechet(a: Any, e: Any) -> Any:
    """The Fréchet derivative of ``expm`` at ``a`` in the direction ``e``."""
    n = np.shape(a)[-1]
    return expm(_block(a, e))[..., :n, n:]


def logm_frechet(a: Any, e: Any) -> Any:
    """The Fréchet derivative of ``logm`` at ``a`` in the direction ``e``."""
    n = np.shape(a)[-1]
    return logm(_block(a, e))[..., :n, n:]


def _expm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (expm_frechet(_t(a), g),)


def _expm_jvp(a: Any, t: Any) -> Any:
    return expm_frechet(a, t)


def _logm_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (logm_frechet(_t(a), g),)


def _logm_jvp(a: Any, t: Any) -> Any:
    return logm_frechet(a, t)


def _lu_factors(lu: Any) -> tuple[Any, Any]:
    eye = np.eye(np.shape(lu)[-1])
    return np.tril(lu, -1) + eye, np.triu(lu)


def _lu_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    lower, upper = _lu_factors(out)
    inverse = pivots_permutation(lu_pivots(a))[1]
    gf = np.tril(_t(lower) @ np.tril(g, -1), -1) + np.triu(np.triu(g) @ _t(upper))
    gp = solve_upper(_t(lower), _t(solve_upper(upper, _t(gf))))  # L^-T gf U^-T
    return (gp[inverse],)


def _lu_jvp(a: Any, t: Any) -> Any:
    lu = lu_packed(a)
    lower, upper = _lu_factors(lu)
    perm = pivots_permutation(lu_pivots(a))[0]
    f = _t(solve_lower(_t(upper), _t(solve_lower(lower, t[perm]))))  # L^-1 t[perm] U^-1
    return np.tril(lower @ np.tril(f, -1), -1) + np.triu(f) @ upper


def _pivots_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    return (np.zeros_like(a),)


def _pivots_jvp(a: Any, t: Any) -> Any:
    return np.zeros(np.shape(a)[-1])


def _pivots_type(a: Any) -> ShapeDtype:
    return ShapeDtype((a.shape[-1],), np.int32)


def _permutation_vjp(g: Any, out: Any, piv: Any) -> tuple[Any]:
    return (np.zeros(np.shape(piv)),)


def _permutation_jvp(piv: Any, t: Any) -> Any:
    return np.zeros(np.shape(piv)), np.zeros(np.shape(piv))


def _permutation_type(piv: Any) -> tuple[Any, Any]:
    return (ShapeDtype(piv.shape, np.intp), ShapeDtype(piv.shape, np.intp))


def _qr_vjp(g: Any, out: Any, a: Any) -> tuple[Any]:
    gq, gr = g
    q, r = out
    k = gr @ _t(r) - _t(q) @ gq
    adjoint = np.triu(k) + _t(np.triu(k, 1))
    return (_t(solve_upper(r, _t(gq + q @ adjoint))),)  # (gQ + Q P*(K)) R^-T


def _qr_jvp(a: Any, t: Any) -> tuple[Any, Any]:
    q, r = qr_reduced(a)
    m = _t(solve_lower(_t(r), _t(_t(q) @ t)))  # Q^T dA R^-1
    p = np.triu(m) + _t(np.tril(m, -1))
    return _t(solve_lower(_t(r), _t(t))) - q @ p, p @ r


def _qr_type(a: Any) -> tuple[Any, Any]:
    m, n = a.shape
    dtype = _lapack_dtype(a.dtype)
    return ShapeDtype((m, n), dtype), ShapeDtype((n, n), dtype)


def _signs_vjp(g: Any, out: Any, a: Any, v: Any) -> tuple[Any, Any]:
    return np.zeros_like(a), np.zeros_like(v)


def _signs_jvp(a: Any, v: Any, ta: Any, tv: Any) -> Any:
    return np.zeros(np.shape(v)[:-2] + np.shape(v)[-1:], dtype=v.dtype)


def _signs_type(a: Any, v: Any) -> ShapeDtype:
    return ShapeDtype(v.shape[:-2] + v.shape[-1:], v.dtype)  # (float32 vectors stay so)


def _square_type(a: Any) -> ShapeDtype:
    return ShapeDtype(a.shape, _lapack_dtype(a.dtype))


def _logm_type(a: Any) -> ShapeDtype:
    return ShapeDtype(a.shape, np.float64)


def register() -> None:
    """Put the kernels' rules and output types in the tables of ``register_vjp``."""
    register_kernels((
        (solve_lower, _solve_lower_vjp, _solve_lower_jvp, _solve_type),
        (solve_upper, _solve_upper_vjp, _solve_upper_jvp, _solve_type),
        (expm, _expm_vjp, _expm_jvp, _square_type),
        (logm, _logm_vjp, _logm_jvp, _logm_type),
        (lu_packed, _lu_vjp, _lu_jvp, _square_type),
        (qr_reduced, _qr_vjp, _qr_jvp, _qr_type),
        (eigh_signs_lower, _signs_vjp, _signs_jvp, _signs_type),
        (eigh_signs_upper, _signs_vjp, _signs_jvp, _signs_type),
        (lu_pivots, _pivots_vjp, _pivots_jvp, _pivots_type),
        (pivots_permutation, _permutation_vjp, _permutation_jvp, _permutation_type)))


register()
