"""Type rules of the decompositions eigh, eigvalsh, svd, svdvals, qr, eig, eigvals, lu and
of matrix_exp (see ``ir/infer``): shapes by the documented rule, dtypes from a probe on
1x1 matrices."""

from __future__ import annotations

from typing import Any

from .infer_core import make, probe, shape_of, stand_in
from .infer_linalg import _LinAlgError, _square
from .ops import Op


def _probe(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    return shape, probe(op, [stand_in(inputs[0], (1, 1) if shape is None else None)], params)


def _eigh(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, res = _probe(op, inputs, params)
    if shape is not None:
        _square(shape)
    if op is Op.EIGVALSH:
        return make(res, None if shape is None else shape[:-1])
    w, v = res
    return (make(w, None if shape is None else shape[:-1]), make(v, shape))


def _svd(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, res = _probe(op, inputs, params)
    if shape is not None and len(shape) < 2:
        raise _LinAlgError(f"{len(shape)}-dimensional array given. Array must be at least "
                           "two-dimensional")
    if shape is None:
        return make(res, None) if op is Op.SVDVALS else tuple(make(r, None) for r in res)
    *batch, m, n = shape
    k = min(m, n)
    s = make(res if op is Op.SVDVALS else res[1], (*batch, k))
    if op is Op.SVDVALS:
        return s
    full = params.get("full_matrices", True)
    u, vh = res[0], res[2]
    return (make(u, (*batch, m, m if full else k)), s, make(vh, (*batch, n if full else k, n)))


def _qr(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, res = _probe(op, inputs, params)
    if shape is None:
        return tuple(make(r, None) for r in res)
    if len(shape) < 2:
        raise _LinAlgError(f"{len(shape)}-dimensional array given. Array must be at least "
                           "two-dimensional")
    *batch, m, n = shape
    k = m if params.get("mode", "reduced") == "complete" else min(m, n)
    return make(res[0], (*batch, m, k)), make(res[1], (*batch, k, n))


def _square_op(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """eig, eigvals, lu and matrix_exp: one square matrix (or a stack of them) in."""
    shape, res = _probe(op, inputs, params)
    if shape is not None:
        _square(shape)
    if op is Op.EIGVALS:
        return make(res, None if shape is None else shape[:-1])
    if op is Op.MATRIX_EXP:
        return make(res, shape)
    if op is Op.EIG:
        return (make(res[0], None if shape is None else shape[:-1]), make(res[1], shape))
    return tuple(make(r, shape) for r in res)


RULES = {Op.EIGH: _eigh, Op.EIGVALSH: _eigh, Op.SVD: _svd, Op.SVDVALS: _svd, Op.QR: _qr,
         Op.EIG: _square_op, Op.EIGVALS: _square_op, Op.MATRIX_EXP: _square_op,
         Op.LU: _square_op}
