"""Selectors of ``scipy.linalg`` functions whose Python wrappers end in LAPACK routines
without derivatives (see ``decompositions/__init__``): ``det``, ``inv``, ``solve``,
``solve_triangular``, ``cholesky``, ``cho_factor``/``cho_solve``, ``expm``, ``logm``,
``eigh``/``eigvalsh``, ``svd``/``svdvals``, ``pinv``, ``block_diag``, ``toeplitz``,
``solve_banded`` (as the dense system its band describes), ``lu``/``lu_factor``/
``lu_solve`` (square), ``qr`` (tall or square, without pivoting), ``lstsq`` (NumPy's,
with SciPy's default ``cond``), ``hankel``, ``circulant`` and the Lyapunov solvers.

The rule sits on the public function: the compiler reads ``scipy_linalg_impl`` in its
place.  Flags (``lower``, ``trans``, ``assume_a``, ``check_finite``, ``overwrite_*``) are
static.  Not covered, each a located error: complex matrices, generalized eigenproblems
(``b=``), eigenvalue subsets, ``pinv`` with ``atol``, ``assume_a='banded'``/``'tridiagonal'``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from . import numpy_impl
from . import scipy_linalg_impl as impl
from .common import Node, Selection, Unsupported, dtype_of, shape_of, static


def _flag(v: Any, what: str) -> bool:
    return bool(static(v, what))


def _matrix(a: Any, what: str = "a", square: bool = True) -> tuple[int, ...]:
    shape = shape_of(a, what)
    if len(shape) < 2:
        raise Unsupported(f"{what} must be at least 2-dimensional")
    if square and shape[-1] != shape[-2]:
        raise Unsupported(f"{what} must be a square matrix, got shape {shape}")
    if dtype_of(a).kind == "c":
        raise Unsupported(f"{what} is complex; only real matrices have derivative rules")
    return shape


def _plain(a: Any, what: str = "a") -> None:
    if len(_matrix(a, what)) != 2:
        raise Unsupported(f"{what} must be a 2-d matrix (stacks are not supported here)")


def _rhs(a: Any, b: Any) -> bool:
    """Whether ``b`` is one vector (else a matrix of columns) for the 2-d ``a``."""
    sb = shape_of(b, "b")
    n = shape_of(a)[-1]
    if len(sb) not in (1, 2) or sb[0] != n:
        raise Unsupported(f"b must have shape ({n},) or ({n}, k), got {sb}")
    if dtype_of(b).kind == "c":
        raise Unsupported("b is complex; only real systems have derivative rules")
    return len(sb) == 1


def _det(a: Any, overwrite_a: Any = False, check_finite: Any = True) -> Selection:
    _matrix(a)
    return impl.det, (a, _flag(check_finite, "check_finite"), _det_cast(dtype_of(a)))


def _det_cast(dtype: np.dtype[Any]) -> str | None:
    """The dtype ``scipy.linalg.det`` gives for ``dtype`` matrices when it is not NumPy's
    (asked of the installed SciPy on a 2 x 2 identity: versions differ), else None."""
    import scipy.linalg  # noqa: PLC0415  (only reached once SciPy is imported)

    eye = np.eye(2, dtype=dtype)
    ours, theirs = np.linalg.det(eye).dtype, np.asarray(scipy.linalg.det(eye)).dtype
    return None if ours == theirs else theirs.name


def _inv(a: Any, overwrite_a: Any = False, check_finite: Any = True, *, assume_a: Any = None,
         lower: Any = False) -> Selection:
    shape = _matrix(a)
    finite, lower = _flag(check_finite, "check_finite"), _flag(lower, "lower")
    kind = static(assume_a, "assume_a")
    if kind in (None, "gen", "general"):
        return impl.inv, (a, finite)
    if kind in ("sym", "her"):
        return impl.inv_symmetric, (a, lower, finite)
    if kind == "diagonal":  # SciPy 1.17 returns a's off-diagonal entries unchanged
        raise Unsupported("inv(a, assume_a='diagonal') is not supported (SciPy keeps a's "
                          "off-diagonal entries in its result); use 1 / np.diagonal(a)")
    if kind not in ("pos", "upper triangular", "lower triangular"):
        raise Unsupported(f"{kind!r} is not a recognized matrix structure")
    if len(shape) != 2:
        raise Unsupported(f"assume_a={kind!r} of a stack of matrices is not supported")
    eye = np.eye(shape[-1])
    if kind == "pos":
        return impl.inv_positive, (a, eye, lower, finite)
    return impl.triangular, (a, eye, kind == "lower triangular", False, False, finite)


def _solve(a: Any, b: Any, lower: Any = False, overwrite_a: Any = False, overwrite_b: Any = False,
           check_finite: Any = True, assume_a: Any = None, transposed: Any = False) -> Selection:
    _plain(a)
    vector = _rhs(a, b)
    finite, lower = _flag(check_finite, "check_finite"), _flag(lower, "lower")
    transposed = _flag(transposed, "transposed")
    kind = static(assume_a, "assume_a")
    if kind in (None, "gen", "general", "banded"):  # a band: the zeros outside are a's
        return impl.solve, (a, b, transposed, finite)
    if kind == "tridiagonal":  # SciPy reads the three diagonals only
        n = shape_of(a)[-1]
        band = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]) <= 1
        return impl.solve_masked, (a, b, band.astype(np.float64), transposed, finite)
    if kind in ("sym", "symmetric", "her", "hermitian"):
        return impl.solve_symmetric, (a, b, lower, finite)
    if kind in ("pos", "positive definite"):
        return impl.solve_positive, (a, b, lower, vector, finite)
    if kind == "diagonal":
        return impl.solve_diagonal, (a, b, vector, finite)
    if kind in ("lower triangular", "upper triangular"):
        fn = impl.triangular_transposed if transposed else impl.triangular
        return fn, (a, b, kind == "lower triangular", False, vector, finite)
    raise Unsupported(f"{kind} is not a recognized matrix structure")


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 1, "C": 1}


def _solve_triangular(a: Any, b: Any, trans: Any = 0, lower: Any = False,
                      unit_diagonal: Any = False, overwrite_b: Any = False,
                      check_finite: Any = True) -> Selection:
    _plain(a)
    vector = _rhs(a, b)
    trans = static(trans, "trans")
    if trans not in _TRANS:
        raise Unsupported(f"trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    fn = impl.triangular_transposed if _TRANS[trans] else impl.triangular
    return fn, (a, b, _flag(lower, "lower"), _flag(unit_diagonal, "unit_diagonal"), vector,
                _flag(check_finite, "check_finite"))


def _cholesky(a: Any, lower: Any = False, overwrite_a: Any = False, check_finite: Any = True
              ) -> Selection:
    _matrix(a)
    return impl.cholesky, (a, _flag(lower, "lower"), _flag(check_finite, "check_finite"))


def _cho_factor(a: Any, lower: Any = False, overwrite_a: Any = False, check_finite: Any = True
                ) -> Selection:
    _plain(a)
    return impl.cho_factor, (a, _flag(lower, "lower"), _flag(check_finite, "check_finite"),
                             _cho_factor_keeps_other_triangle())


@functools.cache
def _cho_factor_keeps_other_triangle() -> bool:
    """Whether the installed ``scipy.linalg.cho_factor`` leaves ``a``'s entries in the
    triangle its factor does not use (read once, from a 2x2 call)."""
    import scipy.linalg  # noqa: PLC0415

    c, _ = scipy.linalg.cho_factor(np.array([[4.0, 1.0], [3.0, 5.0]]))
    return bool(c[1, 0] == 3.0)


def _cho_solve(c_and_lower: Any, b: Any, overwrite_b: Any = False, check_finite: Any = True
               ) -> Selection:
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise Unsupported("c_and_lower must be the pair (c, lower) that cho_factor returns")
    c, lower = c_and_lower
    _plain(c, "c")
    vector = _rhs(c, b)
    return impl.cho_solve, (c, _flag(lower, "lower"), b, vector,
                            _flag(check_finite, "check_finite"))


def _expm(A: Any) -> Selection:  # noqa: N803 (SciPy's name)
    _matrix(A, "A")
    return impl.expm, (A,)


def _logm(A: Any, disp: Any = None) -> Selection:  # noqa: N803 (SciPy's name)
    if disp is False:
        raise Unsupported("disp=False is not supported")
    _plain(A, "A")
    return impl.logm, (A,)


def _eigh(a: Any, b: Any = None, *, lower: Any = True, eigvals_only: Any = False,
          overwrite_a: Any = False, overwrite_b: Any = False, type: Any = 1,
          check_finite: Any = True, subset_by_index: Any = None, subset_by_value: Any = None,
          driver: Any = None) -> Selection:
    if b is not None:
        raise Unsupported("the generalized eigenproblem (b=) is not supported")
    if subset_by_index is not None or subset_by_value is not None:
        raise Unsupported("eigenvalue subsets are not supported")
    _matrix(a)
    if driver is not None and not _flag(eigvals_only, "eigvals_only"):
        raise Unsupported("driver= is not supported for eigenvectors (their signs depend "
                          "on the driver)")
    return impl.eigh, (a, _flag(lower, "lower"), _flag(eigvals_only, "eigvals_only"),
                       _flag(check_finite, "check_finite"))


def _eigvalsh(a: Any, b: Any = None, **kwargs: Any) -> Selection:
    return _eigh(a, b, eigvals_only=True, **kwargs)


def _svd(a: Any, full_matrices: Any = True, compute_uv: Any = True, overwrite_a: Any = False,
         check_finite: Any = True, lapack_driver: Any = "gesdd") -> Selection:
    _matrix(a, square=False)
    if not _flag(compute_uv, "compute_uv"):
        return numpy_impl.svdvals, (a,)
    if static(lapack_driver, "lapack_driver") != "gesdd":
        raise Unsupported("lapack_driver='gesvd' is not supported for singular vectors "
                          "(their signs depend on the driver)")
    return numpy_impl.svd, (a, _flag(full_matrices, "full_matrices"))


def _svdvals(a: Any, overwrite_a: Any = False, check_finite: Any = True) -> Selection:
    _matrix(a, square=False)
    return numpy_impl.svdvals, (a,)


def _pinv(a: Any, *, atol: Any = None, rtol: Any = None, return_rank: Any = False,
          check_finite: Any = True) -> Selection:
    shape = _matrix(a, square=False)
    if static(atol, "atol") not in (None, 0, 0.0):
        raise Unsupported("pinv with atol > 0 is not supported")
    if _flag(return_rank, "return_rank"):
        raise Unsupported("return_rank=True is not supported")
    rtol = static(rtol, "rtol")
    if rtol is None:  # the eps of the dtype SciPy computes in
        single = dtype_of(a).kind == "f" and dtype_of(a).itemsize <= 4
        rtol = max(shape[-2:]) * np.finfo(np.float32 if single else np.float64).eps
    return numpy_impl.pinv, (a, float(rtol))


def _block_diag(*arrs: Any) -> Selection:
    if not arrs:
        raise Unsupported("block_diag() of no arrays is not supported")
    shapes = []
    for i, arr in enumerate(arrs):
        s = shape_of(arr, f"block {i}")
        if len(s) > 2:
            raise Unsupported("arguments in the following positions have dimension greater "
                              f"than 2: [{i}]")
        shapes.append((1,) * (2 - len(s)) + tuple(s))
    dtype = np.result_type(*(dtype_of(a) for a in arrs))
    blocks = tuple(a if isinstance(a, Node) else np.asarray(a) for a in arrs)
    return impl.block_diag, (tuple(shapes), dtype, *blocks)


def _toeplitz(c: Any, r: Any = None) -> Selection:
    sc = shape_of(c, "c")
    r = c if r is None else r
    sr = shape_of(r, "r")
    if len(sc) != 1 or len(sr) != 1:
        raise Unsupported("only 1-d c and r are supported")
    if dtype_of(c).kind == "c" or dtype_of(r).kind == "c":
        raise Unsupported("complex c or r is not supported")
    if not isinstance(c, Node):
        c = np.asarray(c)
    if not isinstance(r, Node):
        r = np.asarray(r)
    m, n = sc[0], sr[0]
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return impl.toeplitz, (c, r, index)


def _solve_banded(l_and_u: Any, ab: Any, b: Any, overwrite_ab: Any = False,
                  overwrite_b: Any = False, check_finite: Any = True) -> Selection:
    if not isinstance(l_and_u, (tuple, list)) or len(l_and_u) != 2:
        raise Unsupported("(l, u) must be a pair of integers")
    lower, upper = (int(static(v, "(l, u)")) for v in l_and_u)
    shape = shape_of(ab, "ab")
    if len(shape) != 2 or shape[0] != lower + upper + 1:
        raise Unsupported(f"ab must have shape ({lower + upper + 1}, M), got {shape}")
    if dtype_of(ab).kind == "c":
        raise Unsupported("ab is complex; only real systems have derivative rules")
    m = shape[1]
    _rhs(np.empty((m, m)), b)
    offset = upper + np.arange(m)[:, None] - np.arange(m)[None, :]
    rows = np.where((offset >= 0) & (offset <= lower + upper), offset, lower + upper + 1)
    cols = np.broadcast_to(np.arange(m)[None, :], (m, m))
    if not isinstance(ab, Node):
        ab = np.asarray(ab)
    return impl.solve_banded, (ab, b, rows, np.ascontiguousarray(cols),
                               _flag(check_finite, "check_finite"))


def _lu_factor(a: Any, overwrite_a: Any = False, check_finite: Any = True) -> Selection:
    _plain(a)
    return impl.lu_factor, (a, _flag(check_finite, "check_finite"))


def _lu(a: Any, permute_l: Any = False, overwrite_a: Any = False, check_finite: Any = True,
        p_indices: Any = False) -> Selection:
    shape = _matrix(a)
    if len(shape) != 2:
        raise Unsupported("a must be a square 2-d matrix")
    eye = np.eye(shape[0], dtype=np.result_type(dtype_of(a), np.float32))  # SciPy's dtype
    return impl.lu, (a, eye, _flag(permute_l, "permute_l"),
                     _flag(p_indices, "p_indices"), _flag(check_finite, "check_finite"))


def _lu_solve(lu_and_piv: Any, b: Any, trans: Any = 0, overwrite_b: Any = False,
              check_finite: Any = True) -> Selection:
    if not isinstance(lu_and_piv, (tuple, list)) or len(lu_and_piv) != 2:
        raise Unsupported("lu_and_piv must be the pair (lu, piv) that lu_factor returns")
    lu, piv = lu_and_piv
    _plain(lu, "lu")
    vector = _rhs(lu, b)
    trans = static(trans, "trans")
    if trans not in _TRANS:
        raise Unsupported(f"trans must be 0, 1 or 2, not {trans!r}")
    if not isinstance(piv, Node):
        piv = np.asarray(piv)
    return impl.lu_solve, (lu, piv, b, bool(_TRANS[trans]), vector,
                           _flag(check_finite, "check_finite"))


def _qr(a: Any, overwrite_a: Any = False, lwork: Any = None, mode: Any = "full",
        pivoting: Any = False, check_finite: Any = True) -> Selection:
    if _flag(pivoting, "pivoting"):
        raise Unsupported("pivoting=True is not supported (the column order jumps)")
    shape = _matrix(a, square=False)
    mode = static(mode, "mode")
    if mode not in ("full", "economic", "r", "raw"):
        raise Unsupported(f"mode must be 'full', 'r', 'economic' or 'raw', not {mode!r}")
    if mode == "raw":
        raise Unsupported("mode='raw' (LAPACK's Householder reflectors) is not supported")
    if len(shape) != 2 or shape[0] < shape[1]:
        raise Unsupported("only a 2-d matrix with at least as many rows as columns is "
                          "supported")
    if mode == "full" and shape[0] != shape[1]:
        raise Unsupported("mode='full' of a tall matrix is not supported: its extra columns "
                          "of Q are not unique; use mode='economic'")
    return impl.qr, (a, mode, shape[0] - shape[1], _flag(check_finite, "check_finite"))


def _lstsq(a: Any, b: Any, cond: Any = None, overwrite_a: Any = False, overwrite_b: Any = False,
           check_finite: Any = True, lapack_driver: Any = None) -> Selection:
    shape = _matrix(a, square=False)
    if len(shape) != 2:
        raise Unsupported("a must be a 2-d matrix")
    sb = shape_of(b, "b")
    if len(sb) not in (1, 2) or sb[0] != shape[0]:
        raise Unsupported(f"b must have shape ({shape[0]},) or ({shape[0]}, k), got {sb}")
    cond = static(cond, "cond")
    if cond is None:
        cond = np.finfo(np.result_type(dtype_of(a), np.float64)).eps
    # SciPy's residues of a 1-d b are 0-d (NumPy's have shape (1,)): vector=False; a
    # NumPy scalar in SciPy 1.17, a 0-d array in 1.18 (asked of the installed SciPy)
    return impl.lstsq, (a, b, float(cond), shape[0] > shape[1], False,
                        _flag(check_finite, "check_finite"), len(sb) == 1 and _residue_0d())


def _residue_0d() -> bool:
    """Whether the installed ``scipy.linalg.lstsq`` gives a 1-d right side's residue as a
    0-d array (SciPy 1.18) rather than a NumPy scalar (1.17)."""
    import scipy.linalg  # noqa: PLC0415  (only reached once SciPy is imported)

    return type(scipy.linalg.lstsq(np.eye(2, 1), np.ones(2))[1]) is np.ndarray


def _vector_of(v: Any, what: str) -> Any:
    shape = shape_of(v, what)
    if len(shape) != 1:
        raise Unsupported(f"only a 1-d {what} is supported")
    if dtype_of(v).kind == "c":
        raise Unsupported(f"complex {what} is not supported")
    return v if isinstance(v, Node) else np.asarray(v)


def _hankel(c: Any, r: Any = None) -> Selection:
    c = _vector_of(c, "c")
    m = shape_of(c)[0]
    if r is None:
        r = np.zeros(m, dtype=dtype_of(c))
    r = _vector_of(r, "r")
    n = shape_of(r)[0]
    index = np.arange(m)[:, None] + np.arange(n)[None, :]
    return impl.hankel, (c, r, index)


def _circulant(c: Any) -> Selection:
    c = _vector_of(c, "c")
    n = shape_of(c)[0]
    return impl.take, (c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def _solve_continuous_lyapunov(a: Any, q: Any) -> Selection:
    _plain(a)
    if shape_of(q, "q") != shape_of(a):
        raise Unsupported("a and q must be square matrices of the same shape")
    return impl.continuous_lyapunov, (a, q)


def _solve_discrete_lyapunov(a: Any, q: Any, method: Any = None) -> Selection:
    n = shape_of(a)[-1]
    _plain(a)
    if shape_of(q, "q") != (n, n):
        raise Unsupported("a and q must be square matrices of the same shape")
    if static(method, "method") not in (None, "direct", "bilinear"):
        raise Unsupported(f"method must be 'direct' or 'bilinear', not {method!r}")
    return impl.discrete_lyapunov, (a, q, np.eye(n * n))


_NAMES: dict[str, Callable[..., Selection]] = {
    "det": _det, "inv": _inv, "solve": _solve, "solve_triangular": _solve_triangular,
    "cholesky": _cholesky, "cho_factor": _cho_factor, "cho_solve": _cho_solve, "expm": _expm,
    "logm": _logm, "eigh": _eigh, "eigvalsh": _eigvalsh, "svd": _svd, "svdvals": _svdvals,
    "pinv": _pinv, "block_diag": _block_diag, "toeplitz": _toeplitz,
    "solve_banded": _solve_banded, "lu_factor": _lu_factor, "lu": _lu, "lu_solve": _lu_solve,
    "qr": _qr, "lstsq": _lstsq, "hankel": _hankel, "circulant": _circulant,
    "solve_continuous_lyapunov": _solve_continuous_lyapunov,
    "solve_discrete_lyapunov": _solve_discrete_lyapunov,
}


#: functions of one matrix that a SciPy release may or may not batch over leading axes
_ONE_MATRIX = ("det", "inv", "cholesky", "expm", "logm", "eigh", "eigvalsh", "svd", "svdvals",
               "pinv", "lu", "lu_factor", "qr")


@functools.cache
def _stack_refusal(name: str) -> str | None:
    """The installed SciPy's error for a stack of matrices given to ``name``, else None
    (SciPy 1.15's ``inv`` refuses one that 1.17 batches over)."""
    import scipy.linalg  # noqa: PLC0415  (only when a scipy.linalg call is compiled)

    try:
        getattr(scipy.linalg, name)(np.broadcast_to(2.0 * np.eye(2), (1, 2, 2)).copy())
    except (ValueError, TypeError, np.linalg.LinAlgError) as exc:
        return str(exc)
    return None


def _as_installed(name: str, select: Callable[..., Selection]) -> Callable[..., Selection]:
    """``select`` taking only the arguments the installed ``scipy.linalg.name`` takes, and
    refusing a stack of matrices where it does: its error, located at the call."""
    import scipy.linalg  # noqa: PLC0415

    signature = inspect.signature(getattr(scipy.linalg, name))

    @functools.wraps(select)
    def selector(*args: Any, **kwargs: Any) -> Selection:
        signature.bind(*args, **kwargs)  # TypeError: the installed SciPy refuses it too
        if name in _ONE_MATRIX and args and len(shape_of(args[0], "a")) > 2:
            refusal = _stack_refusal(name)
            if refusal is not None:
                raise Unsupported(refusal)
        return select(*args, **kwargs)
    return selector


@functools.cache
def names() -> dict[str, Callable[..., Selection]]:
    """``scipy.linalg``'s names and their selectors, for ``select_scipy.lookup``: each
    follows the installed SciPy's signature."""
    return {name: _as_installed(name, select) for name, select in _NAMES.items()}

