"""Kernels of the linalg family's ops (``rt.qr``, ``rt.eig``, ``rt.eigvals``,
``rt.matrix_exp``, ``rt.lu``): each calls the library function, so values are the
library's bit for bit.

``eig``, ``eigvals`` (no general eigensolver in CuPy), ``matrix_exp`` and ``lu`` (SciPy)
run on NumPy arrays only.  Complex values are refused in this project: ``eig`` and
``eigvals`` of a real matrix are real arrays when every eigenvalue is real (NumPy returns
real arrays exactly then), and a
``ValueError`` that says so when some eigenvalue is complex, never a dropped imaginary
part.  SciPy's ``eig``/``eigvals`` return complex arrays even for a real spectrum; with
``scipy=True`` their real parts are returned when every imaginary part is exactly zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _scipy_linalg(x: Any = None) -> Any:
    """``scipy.linalg``, or ``cupyx.scipy.linalg`` for a CuPy array (``namespaces``)."""
    from .namespaces import scipy_module  # noqa: PLC0415 (SciPy: optional, loaded on use)

    return scipy_module("linalg", x)


def _check_square(x: Any) -> None:
    """NumPy's errors for what is not a (stack of) square matrices."""
    shape = np.shape(x)
    if len(shape) < 2:
        raise np.linalg.LinAlgError(f"{len(shape)}-dimensional array given. Array must be at "
                                    "least two-dimensional")
    if shape[-1] != shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def qr(x: Any, mode: str = "reduced") -> tuple[Any, Any]:
    """``np.linalg.qr(x, mode)`` (``'reduced'`` or ``'complete'``) as a tuple ``(Q, R)``
    (CuPy's for a CuPy array)."""
    from .kernels import array_namespace  # noqa: PLC0415 (kernels imports this module)

    q, r = array_namespace(x).linalg.qr(x, mode=mode)
    return q, r


def _real_spectrum(w: Any, where: str) -> Any:
    if w.dtype.kind != "c":
        return w
    if bool((w.imag == 0).all()):  # (a check on values: the eigenvalues must be real)
        return _real_part(w)
    raise ValueError(f"{where}: this matrix has complex eigenvalues; st_autodiff refuses "
                     "complex values (only matrices whose eigenvalues are all real are "
                     "supported)")


def eig(x: Any, scipy: bool = False) -> tuple[Any, Any]:
    """The real eigenvalues and unit eigenvectors of ``x`` (``np.linalg.eig``, or
    ``scipy.linalg.eig`` where ``scipy``); a ``ValueError`` if an eigenvalue is complex."""
    if scipy:
        _check_square(x)
        w, v = _scipy_linalg().eig(x)
        w = _real_spectrum(w, "scipy.linalg.eig")
        return w, np.ascontiguousarray(v.real) if v.dtype.kind == "c" else v
    from .kernels import array_namespace  # noqa: PLC0415 (kernels imports this module)

    # (complex arrays from NumPy 2.5 on, even for real spectra)
    w, v = array_namespace(x).linalg.eig(x)
    w = _real_spectrum(w, "numpy.linalg.eig")
    return w, _real_part(v)


def eigvals(x: Any, scipy: bool = False) -> Any:
    """The real eigenvalues of ``x`` (``np.linalg.eigvals`` or ``scipy.linalg.eigvals``);
    a ``ValueError`` if one is complex."""
    if scipy:
        _check_square(x)
        return _real_spectrum(_scipy_linalg().eigvals(x), "scipy.linalg.eigvals")
    from .kernels import array_namespace  # noqa: PLC0415 (kernels imports this module)

    return _real_spectrum(array_namespace(x).linalg.eigvals(x), "numpy.linalg.eigvals")


def _real_part(z: Any) -> Any:
    """The real part of ``z`` as a contiguous array of ``z``'s library (``z`` itself when
    real)."""
    if z.dtype.kind != "c":
        return z
    return z.real.copy()


def matrix_exp(x: Any) -> Any:
    """The matrix exponential (``scipy.linalg.expm``, batched over leading axes)."""
    _check_square(x)
    return _scipy_linalg(x).expm(x)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """``x = P L U`` with partial pivoting (``scipy.linalg.lu``): ``P`` a permutation
    matrix (no derivative), ``L`` unit lower and ``U`` upper triangular."""
    _check_square(x)
    p, lower, upper = _scipy_linalg(x).lu(x)
    return p.astype(lower.dtype), lower, upper
