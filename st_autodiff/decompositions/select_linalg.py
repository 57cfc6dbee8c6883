"""Selectors of the numpy.linalg functions read as compositions (see ``__init__``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import numpy_impl as impl
from .common import (
    NO,
    Selection,
    Unsupported,
    dtype_of,
    norm_axis,
    shape_of,
    static,
)


def _vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2
                 ) -> Selection:
    shape = shape_of(x)
    ax = norm_axis(axis, len(shape))
    if ax is None:
        return impl.vector_norm_flat, (x, ord, bool(keepdims), (1,) * len(shape))
    if isinstance(ax, tuple) and len(ax) != 1:
        raise Unsupported("a tuple of several axes is not supported")
    return impl.norm, (x, ord, ax[0] if isinstance(ax, tuple) else ax, bool(keepdims))


def _matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Selection:
    return impl.norm, (x, ord, (-2, -1), bool(keepdims))


def _svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
         ) -> Selection:
    if hermitian:
        raise Unsupported("hermitian=True is not supported (use np.linalg.eigh)")
    if not compute_uv:
        return impl.svdvals, (a,)
    return impl.svd, (a, bool(static(full_matrices, "full_matrices")))


def _eigvalsh(a: Any, UPLO: str = "L") -> Selection:
    return impl.eigvalsh, (a, static(UPLO, "UPLO"))


def _pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = NO) -> Selection:
    shape = shape_of(a)
    if hermitian:
        raise Unsupported("hermitian=True is not supported")
    if rcond is None:
        if rtol is NO:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(shape[-2:]) * np.finfo(dtype_of(a)).eps
        else:
            rcond = rtol
    return impl.pinv, (a, static(rcond, "rcond"))


def _lstsq(a: Any, b: Any, rcond: Any = None) -> Selection:
    sa, sb = shape_of(a), shape_of(b, "b")
    if len(sa) != 2:
        raise Unsupported("a must be 2-d")
    m, n = sa
    if rcond is None:
        rcond = np.finfo(dtype_of(a)).eps * max(m, n)
    return impl.lstsq, (a, b, static(rcond, "rcond"), m > n, len(sb) == 1)
