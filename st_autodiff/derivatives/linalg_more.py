"""Rules of qr, eig, eigvals (real spectra), lu and matrix_exp (VJP and JVP, see
``derivatives``), written with the ``ops`` protocol so that both engines use them and
they differentiate again.

Derivations (``^-T`` the inverse transpose, ``P(M) = triu(M) + tril(M, -1)^T``):

* ``A = Q R`` with ``m >= n`` (reduced): with ``M = Q^T dA R^-1``, ``dR = P(M) R`` and
  ``dQ = dA R^-1 - Q P(M)``; transposed, ``G_A = (G_Q + Q P*(K)) R^-T`` for
  ``K = G_R R^T - Q^T G_Q`` and ``P*(K) = triu(K) + triu(K, 1)^T``.  A wide matrix
  (``m < n``) is ``[X | Y]`` with ``X = Q R_1`` square and ``R_2 = Q^T Y`` (PyTorch's
  derivation): the square rule with ``G_Q + Y G_R2^T``, and ``G_Y = Q G_R2``.  The
  complete Q of a tall matrix has columns that are not unique: no derivative (an error).
  The derivative needs the leading ``min(m, n)`` columns to have full rank.
* ``A V = V diag(w)`` (real ``w``, unit columns of ``V``): with ``P = V^-1 dA V`` and
  ``F[i, j] = 1 / (w[j] - w[i])``, ``dw = diag(P)`` and ``dV = V (F * P)`` minus each
  column's component along itself (the normalisation); transposed,
  ``G_A = V^-T (diag(G_w) + F * (V^T G_V')) V^T`` with ``G_V' = G_V - V diag(V^T G_V)``.
  Repeated eigenvalues make ``F`` infinite: the eigenvector derivative is undefined
  there (as in JAX and PyTorch); the eigenvalues' alone stays finite where they are simple.
* ``A = P L U`` (square; ``P`` is piecewise constant): with ``F = L^-1 P^T dA U^-1``,
  ``dL = L tril(F, -1)`` and ``dU = triu(F) U``; transposed,
  ``G_A = P L^-T (tril(L^T G_L, -1) + triu(G_U U^T)) U^-T``.
* ``exp(A)``: the Fréchet derivative in the direction ``E`` is the upper-right block of
  ``exp([[A, E], [0, A]])`` (Van Loan); its adjoint is the derivative at ``A^T``.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from ..ir.ops import Op
from . import RULES, Grads, RuleError, _mT
from .jvp import jvp_rule
from .linalg import _absent, _diag_matrix, _gaps, _parts


def _sizes(ops: Any, x: Any, what: Any) -> tuple[Any, Any]:
    shape = ops.known_shape(x)
    if shape is None:
        raise RuleError(f"the derivative of {what} needs the matrix size at compile time")
    return shape[-2], shape[-1]


def _cols(ops: Any, x: Any, start: Any, stop: Any) -> Any:
    return ops.take(x, ops.const(_np.arange(start, stop)), axis=-1)


def _rows(ops: Any, x: Any, start: Any, stop: Any) -> Any:
    return ops.take(x, ops.const(_np.arange(start, stop)), axis=-2)


def _right_inv_t(ops: Any, y: Any, r: Any) -> Any:
    """``y R^-T``."""
    return _mT(ops, ops.solve(r, _mT(ops, y)))


def _right_inv(ops: Any, y: Any, r: Any) -> Any:
    """``y R^-1``."""
    return _mT(ops, ops.solve(_mT(ops, r), _mT(ops, y)))


# --- qr ---------------------------------------------------------------------------------


def _qr_square_vjp(ops: Any, gq: Any, gr: Any, q: Any, r: Any) -> Any:
    k = gr @ _mT(ops, r) - _mT(ops, q) @ gq
    adjoint = ops.triu(k) + _mT(ops, ops.triu(k, k=1))
    return _right_inv_t(ops, gq + q @ adjoint, r)


def _qr_square_jvp(ops: Any, t: Any, q: Any, r: Any) -> tuple[Any, Any]:
    m = _right_inv(ops, _mT(ops, q) @ t, r)
    p = ops.triu(m) + _mT(ops, ops.tril(m, k=-1))
    return _right_inv(ops, t, r) - q @ p, p @ r


def _qr_check(ops: Any, x: Any, mode: Any) -> tuple[Any, Any]:
    m, n = _sizes(ops, x, "qr")
    if mode == "complete" and m > n:
        raise RuleError("the derivative of qr with mode='complete' of a matrix with more rows "
                        "than columns is not defined (the extra columns of Q are not "
                        "unique); use mode='reduced'")
    return m, n


def _qr_vjp(ops: Any, g: Any, out: Any, x: Any, mode: str = "reduced") -> Grads:
    m, n = _qr_check(ops, x, mode)
    gq, gr = _parts(ops, g, 2, None)
    q, r = _parts(ops, out, 2, lambda: ops.qr(x, mode=mode))
    gq = ops.zeros_like(q) if _absent(ops, gq) else gq
    gr = ops.zeros_like(r) if _absent(ops, gr) else gr
    if m >= n:
        return (_qr_square_vjp(ops, gq, gr, q, r),)
    y = _cols(ops, x, m, n)
    gr2 = _cols(ops, gr, m, n)
    gx = _qr_square_vjp(ops, gq + y @ _mT(ops, gr2), _cols(ops, gr, 0, m), q,
                        _cols(ops, r, 0, m))
    return (ops.concatenate(gx, q @ gr2, axis=-1),)


@jvp_rule(Op.QR)
def _qr_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, mode: str = "reduced") -> Any:
    t = tangents[0]
    if t is None:
        return None
    m, n = _qr_check(ops, x, mode)
    q, r = _parts(ops, out, 2, lambda: ops.qr(x, mode=mode))
    if m >= n:
        return _qr_square_jvp(ops, t, q, r)
    dq, dr1 = _qr_square_jvp(ops, _cols(ops, t, 0, m), q, _cols(ops, r, 0, m))
    dr2 = _mT(ops, dq) @ _cols(ops, x, m, n) + _mT(ops, q) @ _cols(ops, t, m, n)
    return dq, ops.concatenate(dr1, dr2, axis=-1)


RULES[Op.QR] = _qr_vjp


# --- eig / eigvals (real spectra) -------------------------------------------------------


def _eig_vjp(ops: Any, g: Any, out: Any, x: Any, scipy: bool = False) -> Grads:
    gw, gv = _parts(ops, g, 2, None)
    w, v = _parts(ops, out, 2, lambda: ops.eig(x, scipy=scipy))
    inner = 0 if _absent(ops, gw) else _diag_matrix(ops, gw, x)
    if not _absent(ops, gv):
        gv = gv - v * ops.expand_dims(ops.sum(v * gv, axis=-2), axis=-2)
        inner = inner + _gaps(ops, w, x) * (_mT(ops, v) @ gv)
    return (ops.solve(_mT(ops, v), inner @ _mT(ops, v)),)


@jvp_rule(Op.EIG)
def _eig_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, scipy: bool = False) -> Any:
    t = tangents[0]
    if t is None:
        return None
    w, v = _parts(ops, out, 2, lambda: ops.eig(x, scipy=scipy))
    p = ops.solve(v, t @ v)
    dv = v @ (_gaps(ops, w, x) * p)
    dv = dv - v * ops.expand_dims(ops.sum(v * dv, axis=-2), axis=-2)
    return ops.diagonal(p, axis1=-2, axis2=-1), dv


RULES[Op.EIG] = _eig_vjp


def _matched_vectors(ops: Any, w: Any, x: Any, scipy: Any) -> Any:
    """The eigenvectors of ``x`` in the order of the eigenvalues ``w`` (``eigvals`` runs
    LAPACK without vectors, whose order need not be ``eig``'s)."""
    w2, v = (ops.eig(x, scipy=scipy)[i] for i in range(2))
    gap = ops.abs(ops.expand_dims(w, axis=-1) - ops.expand_dims(w2, axis=-2))
    order = ops.argmin(gap, axis=-1)
    return ops.take_along_axis(v, ops.expand_dims(order, axis=-2), axis=-1)


def _eigvals_vjp(ops: Any, g: Any, out: Any, x: Any, scipy: bool = False) -> Grads:
    v = _matched_vectors(ops, out, x, scipy)
    return (ops.solve(_mT(ops, v), _diag_matrix(ops, g, x) @ _mT(ops, v)),)


@jvp_rule(Op.EIGVALS)
def _eigvals_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, scipy: bool = False) -> Any:
    t = tangents[0]
    if t is None:
        return None
    v = _matched_vectors(ops, out, x, scipy)
    return ops.diagonal(ops.solve(v, t @ v), axis1=-2, axis2=-1)


RULES[Op.EIGVALS] = _eigvals_vjp


# --- lu ---------------------------------------------------------------------------------


def _lu_vjp(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    _gp, gl, gu = _parts(ops, g, 3, None)
    p, lower, upper = _parts(ops, out, 3, lambda: ops.lu(x))
    inner = 0
    if not _absent(ops, gl):
        inner = ops.tril(_mT(ops, lower) @ gl, k=-1)
    if not _absent(ops, gu):
        inner = inner + ops.triu(gu @ _mT(ops, upper))
    if isinstance(inner, int):
        return (ops.zeros_like(x),)
    z = _right_inv_t(ops, inner, upper)
    return (p @ ops.solve(_mT(ops, lower), z),)


@jvp_rule(Op.LU)
def _lu_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any) -> Any:
    t = tangents[0]
    if t is None:
        return None
    p, lower, upper = _parts(ops, out, 3, lambda: ops.lu(x))
    f = _right_inv(ops, ops.solve(lower, _mT(ops, p) @ t), upper)
    return None, lower @ ops.tril(f, k=-1), ops.triu(f) @ upper


RULES[Op.LU] = _lu_vjp


# --- matrix_exp -------------------------------------------------------------------------


def _frechet(ops: Any, a: Any, e: Any) -> Any:
    """The Fréchet derivative of ``exp`` at ``a`` in the direction ``e``."""
    n = _sizes(ops, a, "matrix_exp")[1]
    top = ops.concatenate(a, e, axis=-1)
    bottom = ops.concatenate(ops.zeros_like(e), a, axis=-1)
    block = ops.matrix_exp(ops.concatenate(top, bottom, axis=-2))
    return _cols(ops, _rows(ops, block, 0, n), n, 2 * n)


def _matrix_exp_vjp(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    return (_frechet(ops, _mT(ops, x), g),)


@jvp_rule(Op.MATRIX_EXP)
def _matrix_exp_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any) -> Any:
    t = tangents[0]
    return None if t is None else _frechet(ops, x, t)


RULES[Op.MATRIX_EXP] = _matrix_exp_vjp
