"""``scipy.linalg`` functions written with functions the compiler has rules for (read like
the user's own code, see ``numpy_impl``): ``det``/``inv``/``solve`` on the ``numpy.linalg``
ops, the triangular solves, ``cholesky``/``cho_factor``/``cho_solve``, ``expm``/``logm``
on the kernels of ``scipy_linalg_kernels``, ``eigh``, ``block_diag`` and ``toeplitz``.

SciPy reads one triangle of a matrix it is told is symmetric (``assume_a='sym'``/``'pos'``,
``cholesky``, ``eigh``): the matrix is rebuilt here from that triangle, so the function
compiled is the one SciPy computes, the other triangle gets a zero gradient and the
gradient agrees with central differences in every entry.  ``check_finite=True`` is
SciPy's run-time check of the values, with its ``ValueError``.  ``overwrite_*`` is a
permission SciPy may ignore: nothing is written into the caller's arrays here.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from . import numpy_impl
from . import scipy_linalg_kernels as kernels
from .scipy_kernels import solve_sylvester


def check_finite(a: Any) -> None:
    """SciPy's ``check_finite``: a ``ValueError`` where ``a`` holds an inf or a NaN."""
    if not np.all(np.isfinite(a)):
        raise ValueError("array must not contain infs or NaNs")


def symmetric(a: Any, lower: bool) -> Any:
    """The symmetric matrix SciPy reads from one triangle of ``a``."""
    if lower:
        return np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    return np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)


def det(a: Any, finite: bool, cast: Any) -> Any:
    """``scipy.linalg.det``: NumPy's, cast to SciPy's result dtype where it differs
    (``cast``: SciPy 1.17 gives float64 for float32 matrices, NumPy float32)."""
    if finite:
        check_finite(a)
    d = np.linalg.det(a)
    if cast is not None:
        d = d.astype(cast)
    return d


def inv(a: Any, finite: bool) -> Any:
    if finite:
        check_finite(a)
    return np.linalg.inv(a)


def inv_symmetric(a: Any, lower: bool, finite: bool) -> Any:
    """``inv(a, assume_a='sym', lower=lower)``: the inverse of the triangle's matrix."""
    if finite:
        check_finite(a)
    return np.linalg.inv(symmetric(a, lower))


def inv_positive(a: Any, eye: Any, lower: bool, finite: bool) -> Any:
    """``inv(a, assume_a='pos')``: through the Cholesky factor (raises ``LinAlgError``
    where the triangle's matrix is not positive definite, as SciPy does)."""
    if finite:
        check_finite(a)
    return cho_solve_lower(np.linalg.cholesky(symmetric(a, lower)), eye)


def solve(a: Any, b: Any, transposed: bool, finite: bool) -> Any:
    """``solve(a, b)`` for a general ``a`` (``a^T x = b`` where ``transposed``)."""
    if finite:
        check_finite(a)
        check_finite(b)
    if transposed:
        a = np.swapaxes(a, -1, -2)
    return np.linalg.solve(a, b)


def solve_masked(a: Any, b: Any, mask: Any, transposed: bool, finite: bool) -> Any:
    """``solve(a, b, assume_a='tridiagonal')``: the entries outside the band are not read."""
    return solve(a * mask, b, transposed, finite)


def solve_symmetric(a: Any, b: Any, lower: bool, finite: bool) -> Any:
    if finite:
        check_finite(a)
        check_finite(b)
    return np.linalg.solve(symmetric(a, lower), b)


def solve_positive(a: Any, b: Any, lower: bool, vector: bool, finite: bool) -> Any:
    """``solve(a, b, assume_a='pos')``: two triangular solves with the Cholesky factor."""
    if finite:
        check_finite(a)
        check_finite(b)
    if vector:
        b = np.expand_dims(b, -1)
    x = cho_solve_lower(np.linalg.cholesky(symmetric(a, lower)), b)
    return x[..., 0] if vector else x


def solve_diagonal(a: Any, b: Any, vector: bool, finite: bool) -> Any:
    """``solve(a, b, assume_a='diagonal')``: ``b`` divided by the diagonal."""
    if finite:
        check_finite(a)
        check_finite(b)
    d = np.diagonal(a)
    if np.any(d == 0):
        raise np.linalg.LinAlgError("Matrix is singular.")
    return b / d if vector else b / np.expand_dims(d, -1)


def triangular(a: Any, b: Any, lower: bool, unit: bool, vector: bool, finite: bool) -> Any:
    """``X`` with ``T X = b`` for ``T`` the lower (or upper) triangle of ``a`` (with ones
    on the diagonal where ``unit``); a 1-d ``b`` is solved as one column."""
    if finite:
        check_finite(a)
        check_finite(b)
    if unit:
        eye = np.eye(np.shape(a)[-1], dtype=a.dtype)
        a = (np.tril(a, -1) if lower else np.triu(a, 1)) + eye
    if vector:
        b = np.expand_dims(b, -1)
    x = kernels.solve_lower(a, b) if lower else kernels.solve_upper(a, b)
    return x[..., 0] if vector else x


def triangular_transposed(a: Any, b: Any, lower: bool, unit: bool, vector: bool,
                          finite: bool) -> Any:
    """``T^T X = b`` (``trans=1``): the other triangle's solve with ``a`` transposed."""
    return triangular(np.swapaxes(a, -1, -2), b, not lower, unit, vector, finite)


def cho_solve_lower(factor: Any, b: Any) -> Any:
    """``X`` with ``L L^T X = b`` for the lower factor ``L`` (``b`` 2-d)."""
    y = kernels.solve_lower(factor, b)
    return kernels.solve_upper(np.swapaxes(factor, -1, -2), y)


def cholesky(a: Any, lower: bool, finite: bool) -> Any:
    """``scipy.linalg.cholesky``: the factor of the matrix read from one triangle."""
    if finite:
        check_finite(a)
    factor = np.linalg.cholesky(symmetric(a, lower))
    return factor if lower else np.swapaxes(factor, -1, -2)


def cho_factor(a: Any, lower: bool, finite: bool, keep: bool) -> Any:
    """``scipy.linalg.cho_factor``: the factor in one triangle and, in the other, ``a``'s
    entries (LAPACK leaves them there; SciPy up to 1.17) or zeros (SciPy 1.18), with the
    flag: as the installed SciPy does (``keep``)."""
    if finite:
        check_finite(a)
    factor = cholesky(a, lower, False)
    if not keep:
        return factor, lower
    if lower:
        return factor + np.triu(a, 1), lower
    return factor + np.tril(a, -1), lower


def cho_solve(c: Any, lower: bool, b: Any, vector: bool, finite: bool) -> Any:
    """``scipy.linalg.cho_solve((c, lower), b)``: only the factor's triangle is read."""
    if finite:
        check_finite(c)
        check_finite(b)
    if vector:
        b = np.expand_dims(b, -1)
    factor = np.tril(c) if lower else np.swapaxes(np.triu(c), -1, -2)
    x = cho_solve_lower(factor, b)
    return x[..., 0] if vector else x


def expm(a: Any) -> Any:
    """``scipy.linalg.expm``: one compiled kernel with its own rules."""
    return kernels.expm(a)


def logm(a: Any) -> Any:
    """``scipy.linalg.logm``: one compiled kernel with its own rules."""
    return kernels.logm(a)


def eigh(a: Any, lower: bool, values_only: bool, finite: bool) -> Any:
    """``scipy.linalg.eigh`` of one matrix (no ``b``): NumPy's ``eigh`` of the triangle,
    its eigenvectors' signs made SciPy's (SciPy's LAPACK driver may choose others, and
    may flip them under a tiny perturbation: the derivative is that of the branch the
    signs pick, constant near the point, as for any eigenvector sign convention)."""
    if finite:
        check_finite(a)
    uplo: Literal["L", "U"] = "L" if lower else "U"
    if values_only:
        return np.linalg.eigvalsh(a, UPLO=uplo)
    w, v = np.linalg.eigh(a, UPLO=uplo)
    if lower:  # SciPy's eigenvectors' signs
        signs = kernels.eigh_signs_lower(a, v)
    else:
        signs = kernels.eigh_signs_upper(a, v)
    return w, v * np.expand_dims(signs, -2)


def block_diag(shapes: Any, dtype: Any, *blocks: Any) -> Any:
    """``scipy.linalg.block_diag``: each block (reshaped to 2-d) on the diagonal."""
    width = sum(s[1] for s in shapes)
    rows = []
    left = 0
    for block, shape in zip(blocks, shapes):  # unrolled
        parts = []
        if left > 0:
            parts.append(np.zeros((shape[0], left), dtype=dtype))
        parts.append(np.reshape(block, shape).astype(dtype))
        if width - left - shape[1] > 0:
            parts.append(np.zeros((shape[0], width - left - shape[1]), dtype=dtype))
        rows.append(np.concatenate(parts, axis=1))
        left = left + shape[1]
    return np.concatenate(rows, axis=0)


def toeplitz(c: Any, r: Any, index: Any) -> Any:
    """``scipy.linalg.toeplitz(c, r)``: ``out[i, j]`` is ``c[i - j]`` below the diagonal
    and ``r[j - i]`` above (``index`` reads the joined values)."""
    values = np.concatenate((np.flip(c), r[1:]))
    return values[index]


def solve_banded(ab: Any, b: Any, rows: Any, cols: Any, finite: bool) -> Any:
    """``scipy.linalg.solve_banded``: the dense matrix ``a[i, j] = ab[u + i - j, j]``
    (``rows`` points outside the band at an appended row of zeros), solved densely."""
    if finite:
        check_finite(ab)
        check_finite(b)
    padded = np.concatenate((ab, np.zeros_like(ab[:1])), axis=0)
    return np.linalg.solve(padded[rows, cols], b)


def lu_factor(a: Any, finite: bool) -> Any:
    """``scipy.linalg.lu_factor``: the packed factors and LAPACK's pivots."""
    if finite:
        check_finite(a)
    return kernels.lu_packed(a), kernels.lu_pivots(a)


def lu_solve(lu: Any, piv: Any, b: Any, transposed: bool, vector: bool, finite: bool) -> Any:
    """``scipy.linalg.lu_solve((lu, piv), b, trans)``: ``a[perm] = L U`` solved by two
    triangular solves (``a^T x = b`` where ``transposed``)."""
    if finite:
        check_finite(lu)
        check_finite(b)
    if vector:
        b = np.expand_dims(b, -1)
    perm, inverse = kernels.pivots_permutation(piv)
    eye = np.eye(np.shape(lu)[-1], dtype=lu.dtype)
    lower = np.tril(lu, -1) + eye
    if transposed:
        z = kernels.solve_lower(np.swapaxes(lu, -1, -2), b)
        x = kernels.solve_upper(np.swapaxes(lower, -1, -2), z)[inverse]
    else:
        x = kernels.solve_upper(lu, kernels.solve_lower(lower, b[perm]))
    return x[..., 0] if vector else x


def qr(a: Any, mode: str, extra: int, finite: bool) -> Any:
    """``scipy.linalg.qr`` of a tall (or square) matrix: ``(Q, R)``, or ``(R,)`` for
    ``mode='r'`` (``R`` with ``extra`` rows of zeros below, as SciPy gives it)."""
    if finite:
        check_finite(a)
    q, r = kernels.qr_reduced(a)
    if mode == "r":
        if extra > 0:
            r = np.concatenate((r, np.zeros((extra, np.shape(r)[-1]), dtype=r.dtype)))
        return (r,)
    return q, r


def lstsq(a: Any, b: Any, cond: float, residuals: bool, vector: bool, finite: bool,
          zero_d: bool) -> Any:
    """``scipy.linalg.lstsq``: NumPy's minimum-norm solution with SciPy's ``cond``
    (``zero_d``: the residues of a 1-d ``b`` as a 0-d array, SciPy 1.18's kind)."""
    if finite:
        check_finite(a)
        check_finite(b)
    x, r, rank, s = numpy_impl.lstsq(a, b, cond, residuals, vector)
    if zero_d:
        r = np.asarray(r)
    return x, r, rank, s


def lu(a: Any, eye: Any, permute_l: bool, indices: bool, finite: bool) -> Any:
    """``scipy.linalg.lu`` of a square matrix: ``a = P L U`` with ``P = eye[inverse]``
    (``(P L, U)`` where ``permute_l``, the row indices ``inverse`` where ``indices``)."""
    if finite:
        check_finite(a)
    packed = kernels.lu_packed(a)
    inverse = kernels.pivots_permutation(kernels.lu_pivots(a))[1]
    lower = np.tril(packed, -1) + eye
    upper = np.triu(packed)
    if permute_l:
        return lower[inverse], upper
    if indices:
        return inverse.astype(np.int32), lower, upper
    rows = np.expand_dims(inverse, -1) == np.arange(np.shape(a)[-1])
    return rows.astype(lower.dtype), lower, upper


def hankel(c: Any, r: Any, index: Any) -> Any:
    """``scipy.linalg.hankel(c, r)``: ``out[i, j]`` is ``c[i + j]``, then ``r[i + j - m + 1]``."""
    return np.concatenate((c, r[1:]))[index]


def take(c: Any, index: Any) -> Any:
    """``c[index]`` (``circulant``: ``index[i, j] = (i - j) % n``)."""
    return c[index]


def continuous_lyapunov(a: Any, q: Any) -> Any:
    """``scipy.linalg.solve_continuous_lyapunov``: ``a X + X a^T = q``, a Sylvester
    equation (the kernel with its rules)."""
    return solve_sylvester(a, np.swapaxes(a, -1, -2), q)


def discrete_lyapunov(a: Any, q: Any, eye: Any) -> Any:
    """``scipy.linalg.solve_discrete_lyapunov``: ``a X a^T - X + q = 0`` solved as
    ``(I - a (x) a) vec(X) = vec(q)`` (SciPy's direct method; its bilinear one solves
    the same equation)."""
    n = np.shape(a)[-1]
    x = np.linalg.solve(eye - np.kron(a, a), np.reshape(q, (n * n,)))
    return np.reshape(x, (n, n))
