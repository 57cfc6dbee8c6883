"""``torch.linalg`` for the eager runtime: the decompositions and norms ``svd``,
``svdvals``, ``eigh``, ``eigvalsh``, ``vector_norm``, ``matrix_norm`` here, the rest in
``linalg_family`` (re-exported), their backward nodes running the compiler's rules
(``derivatives.linalg``, ``derivatives.linalg_more``, ``derivatives``).

``eigh`` reads one triangle (``UPLO``), like NumPy and PyTorch; its gradient is that of the
function computed (zero on the unread triangle), which equals PyTorch's along symmetric
perturbations.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..ir.ops import Op
from .function import renamed as _renamed
from .linalg_family import (
    cholesky,
    cond,
    cross,
    det,
    diagonal,
    inv,
    lstsq,
    lu,
    lu_factor,
    lu_solve,
    matrix_exp,
    matrix_power,
    multi_dot,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    solve_triangular,
    tensorinv,
    tensorsolve,
    vecdot,
)
from .tensor import Tensor
from .tensor_ops import apply_op

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "lstsq",
           "lu", "lu_factor", "lu_solve", "matrix_exp", "matrix_norm", "matrix_power",
           "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vecdot", "vector_norm"]


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def svd(A: Any, full_matrices: bool = True) -> SVDResult:
    """``A = U diag(S) Vh``; singular values in descending order."""
    return SVDResult(*apply_op(Op.SVD, A, full_matrices=full_matrices))


def svdvals(A: Any) -> Tensor:
    """The singular values of ``A``, descending (``LinalgSvdBackward0``, as PyTorch runs
    its SVD for them)."""
    return _renamed(apply_op(Op.SVDVALS, A), "LinalgSvdBackward0")


def eigh(A: Any, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of the symmetric matrix in ``A``'s
    ``UPLO`` triangle."""
    return EighResult(*apply_op(Op.EIGH, A, UPLO=UPLO))


def eigvalsh(A: Any, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of the symmetric matrix in ``A``'s ``UPLO`` triangle
    (``LinalgEighBackward0``, as PyTorch runs its ``eigh`` for them)."""
    return _renamed(apply_op(Op.EIGVALSH, A, UPLO=UPLO), "LinalgEighBackward0")


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (all elements when None) as one vector."""
    if dim is None:
        out = apply_op(Op.NORM, x.reshape(-1), ord=ord, axis=0)
        return out.reshape((1,) * x.dim()) if keepdim else out
    if isinstance(dim, (tuple, list)):
        if len(dim) != 1:
            return _norm_over(x, ord, tuple(d % x.dim() for d in dim), keepdim)
        dim = dim[0]
    return apply_op(Op.NORM, x, ord=ord, axis=dim, keepdims=keepdim)


def _norm_over(x: Any, ord: Any, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """The vector norm over several dims: those moved to the end and flattened."""
    rest = [d for d in range(x.dim()) if d not in dims]
    moved = x.permute(*rest, *dims).reshape(tuple(x.shape[d] for d in rest) + (-1,))
    out = apply_op(Op.NORM, moved, ord=ord, axis=-1)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else x.shape[d] for d in range(x.dim())))
    return _renamed(out, "LinalgVectorNormBackward0")


def matrix_norm(A: Any, ord: Any = "fro", dim: tuple[int, int] = (-2, -1),
                keepdim: bool = False) -> Tensor:
    """The matrix ``ord``-norm over the two axes ``dim`` ('fro', 'nuc', 1, -1, 2, -2, inf,
    -inf)."""
    out = apply_op(Op.NORM, A, ord=ord, axis=tuple(dim), keepdims=keepdim)
    return _renamed(out, _MATRIX_NORM_NODE.get(ord, "LinalgVectorNormBackward0"))


#: the node PyTorch's matrix_norm ends in (it computes 'nuc', 2, -2 from svdvals, 1, -1,
#: inf, -inf from column or row sums, 'fro' with vector_norm)
_MATRIX_NORM_NODE = {"nuc": "SumBackward1", 2: "AmaxBackward0", -2: "AminBackward0",
                     1: "AmaxBackward0", -1: "AminBackward0", float("inf"): "AmaxBackward0",
                     float("-inf"): "AminBackward0"}
