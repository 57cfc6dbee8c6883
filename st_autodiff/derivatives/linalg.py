"""Rules of the decompositions eigh, eigvalsh, svd and svdvals, and of the spectral and
nuclear matrix norms (VJP and JVP, see ``derivatives``).

Conventions: ``eigh`` reads one triangle of its input (``UPLO``), and its gradient is
that of the function NumPy computes: zero on the other triangle, twice the symmetric
gradient below (above) the diagonal, so that it matches central differences and, along
symmetric perturbations, equals the symmetric gradient JAX and PyTorch return.  ``svd``'s
rules use the
reduced factors, so ``full_matrices=True`` of a non-square matrix has a gradient only
when the extra columns are not used.  The eigenvectors' and singular vectors'
derivatives divide by differences of eigenvalues (of squared singular values): they are
undefined for repeated values, as in JAX and PyTorch, and come out infinite or NaN
there.  The eigenvalues and singular values alone (``eigvalsh``, ``svdvals``, an unused
vector output, the norms) have finite derivatives everywhere they are simple.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from ..ir.ops import Op
from . import RULES, Grads, RuleError, _mT
from .jvp import jvp_rule


def _absent(ops: Any, v: Any) -> bool:
    """Whether the cotangent ``v`` is the zeros the adjoint pass puts for an unused output
    (then the terms that divide by eigenvalue gaps are left out, not multiplied by 0)."""
    node = getattr(v, "node", None)
    if v is None or (node is not None and node.op is Op.ZEROS_LIKE):
        return True
    data = getattr(v, "_data", v)  # the eager runtime passes zeros for unused outputs
    return isinstance(data, _np.ndarray) and not data.any()


def _eye(ops: Any, w: Any) -> Any:
    """The identity of the size of the vector ``w`` (batched like ``w``'s outer product
    where the size is known only at run time)."""
    shape = ops.known_shape(w)
    if shape is not None:
        return ops.eye(shape[-1], dtype=ops.dtype(w))
    ones = ops.ones_like(ops.expand_dims(w, axis=-1) * ops.expand_dims(w, axis=-2))
    return ops.triu(ops.tril(ones))


def _gaps(ops: Any, w: Any, x: Any) -> Any:
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it."""
    eye = _eye(ops, w)
    d = ops.expand_dims(w, axis=-2) - ops.expand_dims(w, axis=-1)
    return 1 / (d + eye) - eye


def _sym(ops: Any, a: Any) -> Any:
    return (a + _mT(ops, a)) * 0.5


def _read(ops: Any, t: Any, uplo: Any) -> Any:
    """The symmetric matrix eigh sees of ``t``: its ``uplo`` triangle, mirrored."""
    if uplo == "U":
        return ops.triu(t) + _mT(ops, ops.triu(t, k=1))
    return ops.tril(t) + _mT(ops, ops.tril(t, k=-1))


def _read_adjoint(ops: Any, s: Any, uplo: Any) -> Any:
    """The adjoint of ``_read`` at the symmetric ``s``: the triangle eigh reads, its
    off-diagonal entries counted twice (each stands for two entries of the matrix)."""
    if uplo == "U":
        return ops.triu(s) + ops.triu(s, k=1)
    return ops.tril(s) + ops.tril(s, k=-1)


def _diag_matrix(ops: Any, v: Any, like: Any) -> Any:
    """``v`` (..., k) on the diagonal of a (..., k, k) matrix."""
    return ops.expand_dims(v, axis=-1) * _eye(ops, v)


# --- eigh / eigvalsh --------------------------------------------------------------------


@jvp_rule(Op.EIGVALSH)
def _eigvalsh_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, UPLO: str = "L") -> Any:
    t = tangents[0]
    if t is None:
        return None
    v = ops.eigh(x, UPLO=UPLO)[1]
    return ops.sum(v * (_read(ops, t, UPLO) @ v), axis=-2)


def _eigvalsh_vjp(ops: Any, g: Any, out: Any, x: Any, UPLO: str = "L") -> Grads:
    v = ops.eigh(x, UPLO=UPLO)[1]
    return (_read_adjoint(ops, (v * ops.expand_dims(g, axis=-2)) @ _mT(ops, v), UPLO),)


RULES[Op.EIGVALSH] = _eigvalsh_vjp


def _parts(ops: Any, parts: Any, n: Any, recompute: Any) -> Any:
    """All ``n`` parts of a tuple-valued op's adjoint or output: the adjoint pass passes
    only as many as the program reads (a missing adjoint is None; a missing output is
    computed again)."""
    parts = tuple(parts)
    if len(parts) >= n:
        return parts
    return parts + (None,) * (n - len(parts)) if recompute is None else tuple(
        recompute()[i] for i in range(n))


def _eigh_vjp(ops: Any, g: Any, out: Any, x: Any, UPLO: str = "L") -> Grads:
    gw, gv = _parts(ops, g, 2, None)
    w, v = _parts(ops, out, 2, lambda: ops.eigh(x, UPLO=UPLO))
    inner = 0 if _absent(ops, gw) else _diag_matrix(ops, gw, x)
    if not _absent(ops, gv):
        inner = inner + _gaps(ops, w, x) * (_mT(ops, v) @ gv)
    return (_read_adjoint(ops, _sym(ops, v @ inner @ _mT(ops, v)), UPLO),)


@jvp_rule(Op.EIGH)
def _eigh_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, UPLO: str = "L") -> Any:
    t = tangents[0]
    if t is None:
        return None
    w, v = _parts(ops, out, 2, lambda: ops.eigh(x, UPLO=UPLO))
    p = _mT(ops, v) @ _read(ops, t, UPLO) @ v
    dw = ops.diagonal(p, axis1=-2, axis2=-1)
    return dw, v @ (_gaps(ops, w, x) * p)


RULES[Op.EIGH] = _eigh_vjp


# --- svd / svdvals ----------------------------------------------------------------------


@jvp_rule(Op.SVDVALS)
def _svdvals_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any) -> Any:
    t = tangents[0]
    if t is None:
        return None
    u, _s, vh = (ops.svd(x, full_matrices=False)[i] for i in range(3))
    return ops.sum(u * (t @ _mT(ops, vh)), axis=-2)


def _svdvals_vjp(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    usv = ops.svd(x, full_matrices=False)
    return ((usv[0] * ops.expand_dims(g, axis=-2)) @ usv[2],)


RULES[Op.SVDVALS] = _svdvals_vjp


def _reduced(ops: Any, x: Any, full_matrices: Any, gu: Any = None,
             gvh: Any = None) -> tuple[Any, Any, Any]:
    """``x``'s sizes; with ``full_matrices`` of a non-square matrix, the extra columns of
    U (rows of Vh) must be unused: their derivative is not defined."""
    shape = ops.known_shape(x)
    if shape is None:
        raise RuleError("the derivative of svd needs the matrix size at compile time")
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    if full_matrices and m != n:
        raise RuleError("the derivative of svd with full_matrices=True of a non-square "
                        "matrix is not defined (the extra singular vectors are arbitrary); "
                        "use full_matrices=False")
    return m, n, k


def _svd_vjp(ops: Any, g: Any, out: Any, x: Any, full_matrices: bool = True) -> Grads:
    gu, gs, gvh = _parts(ops, g, 3, None)
    u, s, vh = _parts(ops, out, 3, lambda: ops.svd(x, full_matrices=full_matrices))
    m, n, _k = _reduced(ops, x, full_matrices)
    inner = 0 if _absent(ops, gs) else _diag_matrix(ops, gs, x)
    s_row = ops.expand_dims(s, axis=-2)
    s_col = ops.expand_dims(s, axis=-1)
    vectors = not (_absent(ops, gu) and _absent(ops, gvh))
    if vectors:
        gu = ops.zeros_like(u) if gu is None else gu
        gvh = ops.zeros_like(vh) if gvh is None else gvh
        f = _gaps(ops, ops.square(s), x)
        uu = _mT(ops, u) @ gu
        vv = vh @ _mT(ops, gvh)
        inner = inner + (f * (uu - _mT(ops, uu))) * s_row + s_col * (f * (vv - _mT(ops, vv)))
    grad = u @ inner @ vh
    if vectors and m > n:  # (I - U U^T) gU S^-1 Vh
        grad = grad + ((gu - u @ (_mT(ops, u) @ gu)) / s_row) @ vh
    if vectors and n > m:  # U S^-1 gVh (I - V Vh)
        grad = grad + u @ ((gvh - (gvh @ _mT(ops, vh)) @ vh) / s_col)
    return (grad,)


@jvp_rule(Op.SVD)
def _svd_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any,
             full_matrices: bool = True) -> Any:
    t = tangents[0]
    if t is None:
        return None
    u, s, vh = _parts(ops, out, 3, lambda: ops.svd(x, full_matrices=full_matrices))
    m, n, _k = _reduced(ops, x, full_matrices)
    v = _mT(ops, vh)
    p = _mT(ops, u) @ t @ v
    ds = ops.diagonal(p, axis1=-2, axis2=-1)
    s_row = ops.expand_dims(s, axis=-2)
    s_col = ops.expand_dims(s, axis=-1)
    f = _gaps(ops, ops.square(s), x)
    ps = p * s_row
    sp = s_col * p
    du = u @ (f * (ps + _mT(ops, ps)))
    dv = v @ (f * (sp + _mT(ops, sp)))
    if m > n:
        tv = t @ v
        du = du + (tv - u @ (_mT(ops, u) @ tv)) / s_row
    if n > m:
        tu = _mT(ops, t) @ u
        dv = dv + (tu - v @ (vh @ tu)) / s_row
    return du, ds, _mT(ops, dv)


RULES[Op.SVD] = _svd_vjp


# --- the spectral and nuclear matrix norms (np.linalg.norm's ord 2, -2, 'nuc') ----------


def spectral_norm_vjp(ops: Any, g: Any, x: Any, ord: Any, keepdims: Any) -> Any:
    """The gradient of ``norm(x, ord)`` for ``ord`` in 2, -2, 'nuc' over the last two
    axes: ``U Vh`` (nuclear) or the outer product of the extreme singular vectors."""
    usv = ops.svd(x, full_matrices=False)
    u, vh = usv[0], usv[2]
    gx = g if keepdims else ops.expand_dims(g, axis=(-2, -1))
    if ord == "nuc":
        return gx * (u @ vh)
    i = 0 if ord == 2 else -1
    shape = ops.known_shape(x)
    if shape is None:
        raise RuleError("the gradient of the matrix 2-norm needs the matrix size at compile "
                        "time")
    k = min(shape[-2], shape[-1])
    j = i % k
    col = ops.take(u, ops.const([j]), axis=-1)
    row = ops.take(vh, ops.const([j]), axis=-2)
    return gx * (col @ row)
