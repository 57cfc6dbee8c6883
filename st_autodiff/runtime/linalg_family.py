"""``torch.linalg`` functions of the eager runtime beyond the decompositions of
``linalg_more`` (which re-exports them), with PyTorch's semantics and ``grad_fn`` names.

Ops with rules of their own (``inv``, ``det``, ``slogdet``, ``solve``, ``cholesky``,
``qr``, ``lu``, ``matrix_exp``, ``diagonal``) record one node; the functions PyTorch
writes as compositions (``matrix_power``, ``multi_dot``, ``vecdot``, ``cond``,
``tensorsolve``, ``tensorinv``) record the nodes of their parts; the others are composed
here of ops with rules and their last node takes PyTorch's name (``pinv``:
``LinalgPinvBackward0``, ``solve_triangular``, ``lu_factor``, ``lu_solve``, ``cross``,
``lstsq``), so that ``grad_fn`` reads as in PyTorch while the derivative comes from the
rule table.  Real tensors only (``eig``/``eigvals`` return complex tensors in PyTorch:
not provided).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from ..ir.ops import Op
from .device import is_device, xp_of, zeros
from .function import renamed as _renamed
from .tensor import Tensor, plain
from .tensor_ops import apply_op


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class QRResult(NamedTuple):
    Q: Any
    R: Any


class LUResult(NamedTuple):
    P: Any
    L: Any
    U: Any


class LUFactorResult(NamedTuple):
    LU: Any
    pivots: Any


class LstsqResult(NamedTuple):
    solution: Any
    residuals: Any
    rank: Any
    singular_values: Any


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-2, -1)


def _eye_like(a: Tensor) -> Tensor:
    return plain(xp_of(a._data).eye(a.shape[-1], dtype=a._data.dtype))


def _square(a: Tensor, name: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.ndim > 1 else a.shape[-1]} by {a.shape[-1]} "
                           "matrices")


# --- one op each -------------------------------------------------------------------------


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix (``LinalgInvExBackward0``)."""
    _square(A, "inv")
    return apply_op(Op.INV, A)


def det(A: Tensor) -> Tensor:
    """The determinant (``LinalgDetBackward0``)."""
    _square(A, "det")
    return apply_op(Op.DET, A)


def slogdet(A: Tensor) -> SlogdetResult:
    """``(sign, log|det|)`` (``LinalgSlogdetBackward0``)."""
    _square(A, "slogdet")
    return SlogdetResult(*apply_op(Op.SLOGDET, A))


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-d, or has one dimension
    less than ``A`` and ``A``'s leading shape."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` where not ``left``) (``LinalgSolveExBackward0``)."""
    _square(A, "solve")
    if not left:
        return _renamed(_mT(solve(_mT(A), _mT(B))), "LinalgSolveExBackward0")
    if B.ndim == 1:
        return apply_op(Op.SOLVE, A, B)
    if _is_vector_rhs(A, B):
        return _renamed(apply_op(Op.SOLVE, A, B.unsqueeze(-1)).squeeze(-1),
                        "LinalgSolveExBackward0")
    return apply_op(Op.SOLVE, A, B)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor read from the lower (``upper``: upper) triangle of ``A``
    (``LinalgCholeskyExBackward0``)."""
    _square(A, "cholesky")
    if upper:
        return _renamed(_mT(apply_op(Op.CHOLESKY, _mT(A))), "LinalgCholeskyExBackward0")
    return apply_op(Op.CHOLESKY, A)


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    """``A = Q R`` (``LinalgQrBackward0``); ``mode='r'`` gives an empty ``Q``.  Its
    derivative needs the leading ``min(m, n)`` columns of full rank, and for
    ``mode='complete'`` at least as many columns as rows (PyTorch's conditions)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        return QRResult(plain(zeros((0,), A._data.dtype, like=A._data)),
                        apply_op(Op.QR, A, mode="reduced")[1])
    return QRResult(*apply_op(Op.QR, A, mode=mode))


def lu(A: Tensor, *, pivot: bool = True) -> LUResult:
    """``A = P L U`` with partial pivoting (``LinalgLuBackward0``; square matrices)."""
    if not pivot:
        raise RuntimeError("linalg.lu: LU without pivoting is not implemented on the CPU")
    _square(A, "lu")
    return LUResult(*apply_op(Op.LU, A))


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential (``LinalgMatrixExpBackward0``)."""
    _square(A, "matrix_exp")
    return apply_op(Op.MATRIX_EXP, A)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The ``offset`` diagonal over ``dim1``, ``dim2`` (``DiagonalBackward0``, a view)."""
    from .shape_ops import diagonal as view

    return view(A, offset, dim1, dim2)


# --- compositions --------------------------------------------------------------------------


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` to the integer power ``n`` (negative: of ``inv(A)``), by repeated squaring."""
    _square(A, "matrix_power")
    if n == 0:
        eye = _eye_like(A)._data
        return plain(xp_of(eye).broadcast_to(eye, tuple(A.shape)).copy())
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    assert result is not None  # n >= 2 here
    return result


def multi_dot(tensors: Iterable[Tensor]) -> Tensor:
    """The product of the matrices in order (the first may be a row vector, the last a
    column vector)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got "
                           f"{len(tensors)}")
    first, last = tensors[0].ndim == 1, tensors[-1].ndim == 1
    if first:
        tensors[0] = tensors[0].unsqueeze(0)
    if last:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    if first and last:
        return out.reshape(())
    if first:
        return out.squeeze(0)
    return out.squeeze(-1) if last else out


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of vectors along ``dim`` (with broadcasting)."""
    return (x * y).sum(dim)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (``LinalgCrossBackward0``)."""
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    axis = dim if dim < 0 else dim - max(input.ndim, other.ndim)

    def part(t: Tensor, order: list[int]) -> Tensor:
        return apply_op(Op.TAKE, t, np.array(order), axis=axis)

    out = (part(input, [1, 2, 0]) * part(other, [2, 0, 1])
           - part(input, [2, 0, 1]) * part(other, [1, 2, 0]))
    return _renamed(out, "LinalgCrossBackward0")


def _tril(a: Tensor, k: int) -> Tensor:
    return apply_op(Op.TRIL, a, k=k)


def _triu(a: Tensor, k: int) -> Tensor:
    return apply_op(Op.TRIU, a, k=k)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """``X`` with ``T X = B`` (``X T = B`` where not ``left``) for ``T`` the upper or
    lower triangle of ``A`` (ones on its diagonal where ``unitriangular``); the other
    triangle is not read (``LinalgSolveTriangularBackward0``)."""
    _square(A, "solve_triangular")
    if unitriangular:
        t = (_triu(A, 1) if upper else _tril(A, -1)) + _eye_like(A)
    else:
        t = _triu(A, 0) if upper else _tril(A, 0)
    x = apply_op(Op.SOLVE, t, B) if left else _mT(apply_op(Op.SOLVE, _mT(t), _mT(B)))
    return _renamed(x, "LinalgSolveTriangularBackward0")


def _pivots(data: Any) -> Any:
    """LAPACK's 1-based pivots of ``lu_factor`` (a loop over a stack of matrices), on the
    device of ``data`` (``cupyx.scipy.linalg`` there)."""
    from ..ir.namespaces import scipy_module  # noqa: PLC0415

    linalg = scipy_module("linalg", data)
    xp = xp_of(data)
    flat = data.reshape((-1,) + data.shape[-2:])
    piv = xp.stack([linalg.lu_factor(m, check_finite=False)[1] for m in flat])
    return (piv + 1).astype(np.int32).reshape(data.shape[:-1])


def _permutation(pivots: Any, n: int) -> Any:
    """The 0/1 matrices ``M`` with ``M A = L U`` for 1-based sequential row swaps (the
    swaps applied to a whole batch at once, on the pivots' device)."""
    xp = xp_of(pivots)
    flat = pivots.reshape((-1, pivots.shape[-1])).astype(np.int64) - 1
    batch = xp.arange(flat.shape[0])
    perm = xp.broadcast_to(xp.arange(n), (flat.shape[0], n)).copy()
    for i in range(flat.shape[1]):
        p = flat[:, i]
        row_i = perm[:, i].copy()
        perm[:, i] = perm[batch, p]
        perm[batch, p] = row_i
    return xp.eye(n)[perm].reshape(pivots.shape[:-1] + (n, n))


def lu_factor(A: Tensor, *, pivot: bool = True) -> LUFactorResult:
    """The packed LU factorization (``L`` below the diagonal, ``U`` on and above) and the
    1-based pivots (``LinalgLuFactorExBackward0``)."""
    p_l_u = lu(A, pivot=pivot)
    packed = _tril(p_l_u.L, -1) + p_l_u.U
    return LUFactorResult(_renamed(packed, "LinalgLuFactorExBackward0"),
                          plain(_pivots(A._data)))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
             adjoint: bool = False) -> Tensor:
    """Solve with ``lu_factor``'s factors: ``A X = B`` (``A^T X = B`` where ``adjoint``;
    ``X A = B`` where not ``left``) (``LinalgLuSolveBackward0``)."""
    if not left:
        return _renamed(_mT(lu_solve(LU, pivots, _mT(B), adjoint=not adjoint)),
                        "LinalgLuSolveBackward0")
    n = LU.shape[-1]
    m = plain(_permutation(pivots._data, n).astype(LU._data.dtype))
    lower = _tril(LU, -1) + _eye_like(LU)
    upper = _triu(LU, 0)
    if adjoint:
        x = _mT(m) @ apply_op(Op.SOLVE, _mT(lower), apply_op(Op.SOLVE, _mT(upper), B))
    else:
        x = apply_op(Op.SOLVE, upper, apply_op(Op.SOLVE, lower, m @ B))
    return _renamed(x, "LinalgLuSolveBackward0")


def _cutoff(s: Any, shape: tuple[Any, ...], atol: Any, rtol: Any) -> Any:
    """PyTorch's threshold ``max(atol, rtol * s_max)`` (``rtol`` defaults to
    ``max(m, n) eps`` when neither is given, else to 0)."""
    eps = np.finfo(s.dtype).eps
    if rtol is None:
        rtol = max(shape[-2:]) * eps if atol is None or atol == 0 else 0.0
    atol = 0.0 if atol is None else atol
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else \
        zeros(s.shape[:-1] + (1,), s.dtype, like=s)
    return np.maximum(atol, rtol * smax)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False
         ) -> Tensor:
    """The pseudo-inverse, from the SVD (``eigh`` where ``hermitian``), singular values
    up to PyTorch's threshold dropped (``LinalgPinvBackward0``)."""
    from .linalg_more import eigh, svd  # noqa: PLC0415

    if hermitian:
        w, v = eigh(A)
        keep = np.abs(w._data) > _cutoff(np.abs(w._data), tuple(A.shape), atol, rtol)
        mask = plain(keep.astype(w._data.dtype))
        inv_w = mask / (w * mask + plain((~keep).astype(w._data.dtype)))
        return _renamed((v * inv_w.unsqueeze(-2)) @ _mT(v), "LinalgPinvBackward0")
    u, s, vh = svd(A, full_matrices=False)
    keep = s._data > _cutoff(s._data, tuple(A.shape), atol, rtol)
    mask = plain(keep.astype(s._data.dtype))
    inv_s = mask / (s * mask + plain((~keep).astype(s._data.dtype)))
    return _renamed((_mT(vh) * inv_s.unsqueeze(-2)) @ _mT(u), "LinalgPinvBackward0")


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> LstsqResult:
    """The least-squares solution (minimum norm), as PyTorch's default CPU driver
    ``'gelsy'`` reports it: the rank, and empty residuals and singular values
    (``LinalgLstsqBackward0``)."""
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError("parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.ndim == A.ndim - 1
    rhs = B.unsqueeze(-1) if vector else B
    rtol = rcond if rcond is not None else max(A.shape[-2:]) * np.finfo(A._data.dtype).eps
    x = pinv(A, rtol=rtol) @ rhs
    if vector:
        x = x.squeeze(-1)
    data = A._data
    if is_device(data):  # NumPy's ``matrix_rank(rtol=)`` on the device (CuPy's has no rtol)
        sv = xp_of(data).linalg.svd(data, compute_uv=False)
        big = sv > sv.max(axis=-1, keepdims=True) * rtol if sv.shape[-1] else sv > 0
        rank = big.sum(axis=-1).astype(np.int64)
    else:
        rank = np.asarray(np.linalg.matrix_rank(data, rtol=rtol), dtype=np.int64)
    empty = plain(zeros((0,), data.dtype, like=data))
    return LstsqResult(_renamed(x, "LinalgLstsqBackward0"), empty, plain(rank), empty)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Tensor:
    """A vector norm (``dim`` an int, or ``A`` flattened when ``ord`` and ``dim`` are
    None) or a matrix norm (``dim`` a pair, or a 2-d ``A`` with ``ord`` given)."""
    from .linalg_more import matrix_norm, vector_norm  # noqa: PLC0415

    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim)
        if A.ndim == 1:
            return vector_norm(A, ord, None, keepdim)
        if A.ndim != 2:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
        dim = (-2, -1)
    return matrix_norm(A, "fro" if ord is None else ord, tuple(dim), keepdim)


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number: a ratio of singular values for ``p`` in None, 2, -2, else
    ``norm(A, p) norm(inv(A), p)``."""
    from .linalg_more import matrix_norm, svdvals  # noqa: PLC0415

    if p in (None, 2, -2):
        s = svdvals(A)
        return s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` read as a ``prod(A.shape[:ind])``-square matrix."""
    out, rest = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(out) != math.prod(rest):
        raise RuntimeError("Expected self to satisfy the requirement "
                           "prod(self.shape[ind:]) == prod(self.shape[:ind])")
    return inv(A.reshape((math.prod(out), math.prod(rest)))).reshape(rest + out)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B`` (``dims`` of ``A`` moved to the end)."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        order = [d for d in range(A.ndim) if d not in dims] + dims
        A = A.permute(*order)
    shape = tuple(A.shape[B.ndim:])
    n = math.prod(shape)
    x = solve(A.reshape((math.prod(tuple(B.shape)), n)), B.reshape((-1,)))
    return x.reshape(shape)


# --- torch.<name> --------------------------------------------------------------------------


def inverse(input: Tensor) -> Tensor:
    """``torch.inverse``: ``torch.linalg.inv``."""
    return inv(input)


def logdet(input: Tensor) -> Tensor:
    """``log(det(A))``: NaN where the determinant is negative (``LogdetBackward0``)."""
    sign, logabs = slogdet(input)
    bad = plain(np.where(sign._data < 0, np.nan, 0.0).astype(logabs._data.dtype))
    return _renamed(logabs + bad, "LogdetBackward0")


def torch_diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``torch.diagonal`` (its defaults are the first two dimensions; a view)."""
    from .shape_ops import diagonal as view

    return view(input, offset, dim1, dim2)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``pinv`` with the relative threshold ``rcond``."""
    return pinv(input, rtol=rcond)


#: torch.<name> -> function (``runtime.namespace`` exports them)
TOP_LEVEL = {"det": det, "inverse": inverse, "logdet": logdet, "slogdet": slogdet,
             "matrix_exp": matrix_exp, "matrix_power": matrix_power,
             "diagonal": torch_diagonal, "pinverse": pinverse}


def install_methods() -> None:
    """``Tensor.det()``, ``.inverse()``, ``.logdet()``, ``.slogdet()``, ``.matrix_exp()``,
    ``.matrix_power(n)``, ``.diagonal(offset, dim1, dim2)`` and ``.pinverse(rcond)``, as
    PyTorch's tensors have them."""
    for name, fn in TOP_LEVEL.items():
        setattr(Tensor, name, fn)
