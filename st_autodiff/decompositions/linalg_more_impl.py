"""numpy.linalg and scipy.linalg functions of the linalg family written with functions the
compiler has rules for (read like the user's own code, see ``numpy_impl``): ``qr``,
``eig``/``eigvals`` (real spectra), ``cond``, ``tensorsolve``, ``trace`` (NumPy 2's
``linalg.trace``), and SciPy's matrix functions on the kernels of ``linalg_more_kernels``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.linalg._linalg import EigResult, QRResult

from ..ir.kernels_linalg import eig as rt_eig
from ..ir.kernels_linalg import eigvals as rt_eigvals
from ..ir.kernels_linalg import qr as rt_qr
from . import linalg_more_kernels as kernels
from .scipy_linalg_impl import check_finite


def qr(a: Any, mode: str) -> Any:
    """``np.linalg.qr(a, mode)`` for ``'reduced'`` and ``'complete'``: NumPy's ``QRResult``
    (``.Q``, ``.R``, or unpacked)."""
    q, r = rt_qr(a, mode)
    return QRResult(q, r)


def qr_r(a: Any) -> Any:
    """``np.linalg.qr(a, mode='r')``: ``R`` alone (the reduced one, as NumPy's)."""
    return rt_qr(a, "reduced")[1]


def eig(a: Any, scipy: bool) -> Any:
    """The real eigenvalues and unit eigenvectors (a run-time error when complex): NumPy's
    ``EigResult`` (SciPy's plain pair where ``scipy``)."""
    w, v = rt_eig(a, scipy)
    if scipy:
        return w, v
    return EigResult(w, v)


def eigvals(a: Any, scipy: bool) -> Any:
    return rt_eigvals(a, scipy)


def scipy_eig(a: Any, right: bool, finite: bool) -> Any:
    """``scipy.linalg.eig(a)``: ``(w, v)`` where ``right``, else ``w`` (real arrays)."""
    if finite:
        check_finite(a)
    if right:
        return eig(a, True)
    return rt_eigvals(a, True)


def scipy_eigvals(a: Any, finite: bool) -> Any:
    if finite:
        check_finite(a)
    return rt_eigvals(a, True)


def cond_svd(x: Any, smallest_first: bool) -> Any:
    """``np.linalg.cond(x, p)`` for ``p`` in None, 2, -2: a ratio of singular values."""
    s = np.linalg.svd(x, compute_uv=False)
    if smallest_first:
        return s[..., -1] / s[..., 0]
    return s[..., 0] / s[..., -1]


def cond_norm(x: Any, p: Any) -> Any:
    """``np.linalg.cond(x, p)`` for the other ``p``: ``norm(x) norm(inv(x))``."""
    return np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(np.linalg.inv(x), p,
                                                                axis=(-2, -1))


def tensorsolve(a: Any, b: Any, axes: Any, prod: int, oldshape: Any) -> Any:
    """``np.linalg.tensorsolve``: the system as one ``prod x prod`` matrix."""
    if axes is not None:
        a = np.transpose(a, axes)
    x = np.linalg.solve(np.reshape(a, (prod, prod)), np.ravel(b))
    return np.reshape(x, oldshape)


def dot(a: Any, b: Any) -> Any:
    return np.dot(a, b)


def trace(x: Any, offset: int) -> Any:
    """NumPy 2's ``np.linalg.trace``: the trace over the last two axes."""
    return np.trace(x, offset, axis1=-2, axis2=-1)


def cosm(a: Any) -> Any:
    return kernels.cosm(a)


def sinm(a: Any) -> Any:
    return kernels.sinm(a)


def tanm(a: Any) -> Any:
    return kernels.tanm(a)


def tanhm(a: Any) -> Any:
    return kernels.tanhm(a)


def expm_frechet(a: Any, e: Any, block: bool, compute_expm: bool, finite: bool) -> Any:
    """``scipy.linalg.expm_frechet``: ``(expm(A), L(A, E))`` or ``L(A, E)`` alone."""
    if finite:
        check_finite(a)
        check_finite(e)
    if block:
        out = kernels.expm_frechet_block(a, e)
    else:
        out = kernels.expm_frechet_sps(a, e)
    if compute_expm:
        return out[0], out[1]
    return out[1]


def fractional_matrix_power(a: Any, t: Any) -> Any:
    return kernels.fractional_matrix_power(a, t)


def solveh_banded(ab: Any, b: Any, lower: bool, vector: bool, finite: bool) -> Any:
    """``scipy.linalg.solveh_banded``: the kernel on a matrix of columns."""
    if finite:
        check_finite(ab)
        check_finite(b)
    if vector:
        b = np.expand_dims(b, -1)
    if lower:
        x = kernels.solveh_banded_lower(ab, b)
    else:
        x = kernels.solveh_banded_upper(ab, b)
    return x[..., 0] if vector else x


def cho_solve_banded(cb: Any, lower: bool, b: Any, vector: bool, finite: bool) -> Any:
    """``scipy.linalg.cho_solve_banded((cb, lower), b)``: the kernel on columns."""
    if finite:
        check_finite(cb)
        check_finite(b)
    if vector:
        b = np.expand_dims(b, -1)
    if lower:
        x = kernels.cho_solve_banded_lower(cb, b)
    else:
        x = kernels.cho_solve_banded_upper(cb, b)
    return x[..., 0] if vector else x


def constant(value: Any) -> Any:
    """A value computed while compiling (a function of constants)."""
    return value


def multi_dot(steps: Any, first: bool, last: bool, *arrays: Any) -> Any:
    """``np.linalg.multi_dot``: the products in NumPy's order (``steps``: slot ``i``
    becomes ``slot_i @ slot_j``), a 1-d first (last) array read as a row (column)."""
    vals = list(arrays)
    if first:
        vals[0] = np.reshape(vals[0], (1, -1))
    if last:
        vals[len(vals) - 1] = np.reshape(vals[len(vals) - 1], (-1, 1))
    for i, j in steps:  # unrolled: the order is static
        vals[i] = np.dot(vals[i], vals[j])
    result = vals[0]
    if first and last:
        return result[0, 0]
    if first or last:
        return np.ravel(result)
    return result


def cholesky_banded(ab: Any, lower: bool, finite: bool) -> Any:
    """``scipy.linalg.cholesky_banded``: the factor in the same band storage."""
    if finite:
        check_finite(ab)
    if lower:
        return kernels.cholesky_banded_lower(ab)
    return kernels.cholesky_banded_upper(ab)
