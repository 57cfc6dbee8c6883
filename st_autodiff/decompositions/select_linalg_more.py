"""Selectors of the linalg family (see ``decompositions/__init__``): ``numpy.linalg``'s
``qr``, ``eig``, ``eigvals``, ``cond``, ``tensorsolve`` and ``trace``, and ``scipy.linalg``'s
``eig``, ``eigvals``, ``expm_frechet``, ``cosm``, ``sinm``, ``tanm``, ``tanhm``,
``fractional_matrix_power``, ``solveh_banded``, ``cholesky_banded``, ``cho_solve_banded``
and ``null_space``.

Conventions (docs/linalg.md): ``eig``/``eigvals`` cover real spectra, returned as real
arrays (SciPy's complex arrays become real ones); a complex eigenvalue is a run-time
error.  ``qr`` with ``mode='complete'`` of a tall matrix and ``mode='raw'`` are refused
(the extra columns of Q are not unique; the raw reflectors are LAPACK's internals), as
is ``null_space`` of a runtime matrix: a basis of a subspace is not a function of the
matrix (any rotation of it is as good), so it has no derivative; JAX and PyTorch have no
such function.  Use the projector ``I - pinv(A) @ A`` instead.
"""

from __future__ import annotations

import inspect
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import linalg_more_impl as impl
from .common import Node, Selection, Unsupported, constant, dtype_of, shape_of, static


def _real_matrix(a: Any, what: str = "a", square: bool = True) -> tuple[int, ...]:
    shape = shape_of(a, what)
    if len(shape) < 2:
        raise Unsupported(f"{len(shape)}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if square and shape[-1] != shape[-2]:
        raise Unsupported("Last 2 dimensions of the array must be square")
    if dtype_of(a).kind == "c":
        raise Unsupported(f"{what} is complex; only real matrices have derivative rules")
    return shape


# --- numpy.linalg -----------------------------------------------------------------------


def _qr(a: Any, mode: Any = "reduced") -> Selection:
    mode = static(mode, "mode")
    shape = _real_matrix(a, square=False)
    if mode == "raw":
        raise Unsupported("mode='raw' (LAPACK's Householder reflectors) is not supported")
    if mode == "r":
        return impl.qr_r, (a,)
    if mode not in ("reduced", "complete"):
        raise Unsupported(f"Unrecognized mode '{mode}'")
    if mode == "complete" and shape[-2] > shape[-1]:
        raise Unsupported("mode='complete' of a matrix with more rows than columns is not "
                          "supported: the extra columns of Q are not unique, so they have no "
                          "derivative; use mode='reduced'")
    return impl.qr, (a, mode)


def _eig(a: Any) -> Selection:
    _real_matrix(a)
    return impl.eig, (a, False)


def _eigvals(a: Any) -> Selection:
    _real_matrix(a)
    return impl.eigvals, (a, False)


def _cond(x: Any, p: Any = None) -> Selection:
    p = static(p, "p")
    if p in (None, 2, -2):
        _real_matrix(x, "x", square=False)
        return impl.cond_svd, (x, p == -2)
    _real_matrix(x, "x")
    if p not in ("fro", "nuc", 1, -1, np.inf, -np.inf):
        raise Unsupported("Invalid norm order for matrices.")
    return impl.cond_norm, (x, p)


def _tensorsolve(a: Any, b: Any, axes: Any = None) -> Selection:
    sa, sb = shape_of(a), shape_of(b, "b")
    an = len(sa)
    order: list[int] | tuple[int, ...] | None = None
    if axes is not None:
        order = list(range(an))
        for k in static(axes, "axes"):
            order.remove(operator.index(k) % an)
            order.insert(an, operator.index(k) % an)
        sa = tuple(sa[i] for i in order)
        order = tuple(order)
    oldshape = sa[-(an - len(sb)):] if an > len(sb) else ()
    prod = math.prod(oldshape)
    if math.prod(sa) != prod ** 2:
        raise Unsupported("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return impl.tensorsolve, (a, b, order, prod, tuple(oldshape))


def _trace(x: Any, /, *, offset: Any = 0, dtype: Any = None) -> Selection:
    if dtype is not None:
        raise Unsupported("dtype= is not supported")
    if len(shape_of(x, "x")) < 2:
        raise Unsupported("x must be at least 2-dimensional")
    return impl.trace, (x, operator.index(static(offset, "offset")))


def _chain(order: Any, i: int, j: int, steps: list[Any]) -> None:
    """NumPy's recursive ``_multi_dot`` as steps on slots (the product ``i..j`` ends in
    slot ``i``)."""
    if i == j:
        return
    k = int(order[i, j])
    _chain(order, i, k, steps)
    _chain(order, k + 1, j, steps)
    steps.append((i, k + 1))


def _multi_dot(arrays: Any, *, out: Any = None) -> Selection:
    """The matrix-chain order NumPy picks from the shapes (its own cost functions, on
    stand-in arrays of the same shapes), so the products and their rounding are NumPy's."""
    if out is not None:
        raise Unsupported("out= is not supported")
    arrays = list(arrays)
    n = len(arrays)
    if n < 2:
        raise Unsupported("Expecting at least two arrays.")
    shapes = [shape_of(a, f"array {k}") for k, a in enumerate(arrays)]
    first, last = len(shapes[0]) == 1, len(shapes[-1]) == 1
    if n == 2:
        return impl.dot, (arrays[0], arrays[1])
    if first:
        shapes[0] = (1,) + shapes[0]
    if last:
        shapes[-1] = shapes[-1] + (1,)
    if any(len(s) != 2 for s in shapes):
        raise Unsupported("multi_dot takes 2-d arrays (the first and last may be 1-d)")
    if n == 3:
        (a0, a1b0), (b1c0, c1) = shapes[0], shapes[2]
        cheaper_left = a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0)
        steps = [(0, 1), (0, 2)] if cheaper_left else [(1, 2), (0, 1)]
    else:
        from numpy.linalg._linalg import (  # type: ignore[attr-defined]  # noqa: PLC0415
            _multi_dot_matrix_chain_order,  # private: not in NumPy's stubs
        )

        order = _multi_dot_matrix_chain_order([np.empty(s) for s in shapes])
        steps = []
        _chain(order, 0, n - 1, steps)
    return impl.multi_dot, (tuple(steps), first, last, *arrays)


def numpy_table() -> dict[Any, Callable[..., Selection]]:
    """``numpy.linalg`` functions and their selectors."""
    return {np.linalg.qr: _qr, np.linalg.eig: _eig, np.linalg.eigvals: _eigvals,
            np.linalg.cond: _cond, np.linalg.tensorsolve: _tensorsolve,
            np.linalg.trace: _trace, np.linalg.multi_dot: _multi_dot}


# --- scipy.linalg -----------------------------------------------------------------------


def _flag(v: Any, what: str) -> bool:
    return bool(static(v, what))


def _plain(a: Any, what: str = "a") -> None:
    if len(_real_matrix(a, what)) != 2:
        raise Unsupported(f"{what} must be a 2-d matrix (stacks are not supported here)")


def _sp_eig(a: Any, b: Any = None, left: Any = False, right: Any = True,
            overwrite_a: Any = False, overwrite_b: Any = False, check_finite: Any = True,
            homogeneous_eigvals: Any = False) -> Selection:
    if b is not None:
        raise Unsupported("the generalized eigenproblem (b=) is not supported")
    if _flag(left, "left") or _flag(homogeneous_eigvals, "homogeneous_eigvals"):
        raise Unsupported("left eigenvectors and homogeneous eigenvalues are not supported")
    _real_matrix(a)
    return impl.scipy_eig, (a, _flag(right, "right"), _flag(check_finite, "check_finite"))


def _sp_eigvals(a: Any, b: Any = None, overwrite_a: Any = False, check_finite: Any = True,
                homogeneous_eigvals: Any = False) -> Selection:
    if b is not None:
        raise Unsupported("the generalized eigenproblem (b=) is not supported")
    if _flag(homogeneous_eigvals, "homogeneous_eigvals"):
        raise Unsupported("homogeneous eigenvalues are not supported")
    _real_matrix(a)
    return impl.scipy_eigvals, (a, _flag(check_finite, "check_finite"))


def _matrix_function(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(A: Any) -> Selection:  # noqa: N803 (SciPy's name)
        _real_matrix(A, "A")
        return fn, (A,)
    return select


def _expm_frechet(A: Any, E: Any, method: Any = None, compute_expm: Any = True,  # noqa: N803
                  check_finite: Any = True) -> Selection:
    _plain(A, "A")
    _plain(E, "E")
    if shape_of(E) != shape_of(A):
        raise Unsupported("expected A and E to be the same shape")
    method = static(method, "method")
    if method not in (None, "SPS", "blockEnlarge"):
        raise Unsupported(f"Unknown implementation {method}")
    return impl.expm_frechet, (A, E, method == "blockEnlarge",
                               _flag(compute_expm, "compute_expm"),
                               _flag(check_finite, "check_finite"))


def _fractional_matrix_power(A: Any, t: Any) -> Selection:  # noqa: N803 (SciPy's name)
    _plain(A, "A")
    if isinstance(t, Node) and shape_of(t, "t") != ():
        raise Unsupported("t must be a scalar")
    return impl.fractional_matrix_power, (A, t)


def _rhs(n: int, b: Any) -> bool:
    sb = shape_of(b, "b")
    if len(sb) not in (1, 2) or sb[0] != n:
        raise Unsupported(f"b must have shape ({n},) or ({n}, k), got {sb}")
    if dtype_of(b).kind == "c":
        raise Unsupported("b is complex; only real systems have derivative rules")
    return len(sb) == 1


def _band(ab: Any, what: str) -> int:
    shape = shape_of(ab, what)
    if len(shape) != 2:
        raise Unsupported(f"{what} must be 2-d (LAPACK band storage)")
    if dtype_of(ab).kind == "c":
        raise Unsupported(f"{what} is complex; only real systems have derivative rules")
    return shape[1]


def _solveh_banded(ab: Any, b: Any, overwrite_ab: Any = False, overwrite_b: Any = False,
                   lower: Any = False, check_finite: Any = True) -> Selection:
    vector = _rhs(_band(ab, "ab"), b)
    return impl.solveh_banded, (ab, b, _flag(lower, "lower"), vector,
                                _flag(check_finite, "check_finite"))


def _cho_solve_banded(cb_and_lower: Any, b: Any, overwrite_b: Any = False,
                      check_finite: Any = True) -> Selection:
    if not isinstance(cb_and_lower, (tuple, list)) or len(cb_and_lower) != 2:
        raise Unsupported("(cb, lower) must be the pair of cholesky_banded's factor and flag")
    cb, lower = cb_and_lower
    vector = _rhs(_band(cb, "cb"), b)
    return impl.cho_solve_banded, (cb, _flag(lower, "lower"), b, vector,
                                   _flag(check_finite, "check_finite"))


def _cholesky_banded(ab: Any, overwrite_ab: Any = False, lower: Any = False,
                     check_finite: Any = True) -> Selection:
    _band(ab, "ab")
    return impl.cholesky_banded, (ab, _flag(lower, "lower"), _flag(check_finite, "check_finite"))


def _null_space(A: Any, rcond: Any = None, *, overwrite_a: Any = False,  # noqa: N803
                check_finite: Any = True, lapack_driver: Any = "gesdd") -> Selection:
    A = constant(A)  # noqa: N806
    if not isinstance(A, Node):
        import scipy.linalg  # noqa: PLC0415

        return impl.constant, (scipy.linalg.null_space(
            np.asarray(A), rcond, check_finite=check_finite, lapack_driver=lapack_driver),)
    raise Unsupported("null_space of a matrix computed at run time is not supported: a "
                      "basis of the null space is not unique (any rotation of it is as "
                      "good), so it has no derivative (JAX and PyTorch have no null_space "
                      "either); differentiate the projector I - pinv(A) @ A instead")


_SCIPY: dict[str, Callable[..., Selection]] = {
    "eig": _sp_eig, "eigvals": _sp_eigvals, "expm_frechet": _expm_frechet,
    "cosm": _matrix_function(impl.cosm), "sinm": _matrix_function(impl.sinm),
    "tanm": _matrix_function(impl.tanm), "tanhm": _matrix_function(impl.tanhm),
    "fractional_matrix_power": _fractional_matrix_power, "solveh_banded": _solveh_banded,
    "cho_solve_banded": _cho_solve_banded, "cholesky_banded": _cholesky_banded,
    "null_space": _null_space,
}


def scipy_names() -> dict[str, Callable[..., Selection]]:
    """``scipy.linalg``'s names and their selectors, each following the installed
    SciPy's signature (a call it refuses is refused here too)."""
    import scipy.linalg  # noqa: PLC0415

    out = {}
    for name, select in _SCIPY.items():
        fn = getattr(scipy.linalg, name, None)
        if fn is not None:
            out[name] = _bound(inspect.signature(fn), select)
    return out


def _bound(signature: inspect.Signature, select: Callable[..., Selection]
           ) -> Callable[..., Selection]:
    def selector(*args: Any, **kwargs: Any) -> Selection:
        signature.bind(*args, **kwargs)  # TypeError: the installed SciPy refuses it too
        return select(*args, **kwargs)
    return selector
