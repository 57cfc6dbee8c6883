"""Matrix products (``matmul``/``@``, ``mm``, ``bmm``, ``mv``, ``dot``) and friends.

``matmul`` is built the way PyTorch builds it, so the graph has PyTorch's nodes: a vector
on the left is a row (``SqueezeBackward4`` over ``MmBackward0``), a batch times a matrix
folds the batch into rows (``UnsafeViewBackward0`` over ``MmBackward0``), and other
batched products broadcast and use ``bmm``.  All of them run the table's ``matmul`` rule.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..derivatives import RULES, _matmul_vjp
from ..ir.ops import Op
from .device import is_device, same_device
from .fast_nodes import mm_class
from .function import node_class
from .function import renamed as _renamed
from .functional import (
    _MUL_PLAN,
    EMPTY,
    _broadcast_error,
    _need_tensor,
    _param,
    _sizes,
    add,
    div,
    mul,
    needs_grad_any,
    sub,
)
from .grad_mode import STATE
from .reductions import norm
from .tensor import Tensor, plain
from .tensor_ops import record

# --- linear algebra --------------------------------------------------------------------------

def _mm_plan(a: str, b: str) -> tuple[Any, ...]:
    return ((a, 0, (1,)), (b, 1, (0,)), (f"{a}_sym_sizes", _sizes(0), None),
            (f"{b}_sym_sizes", _sizes(1), None))


def _rule_matmul(ops: Any, g: Any, out: Any, x: Any, y: Any, live: int | None = None) -> tuple[Any,
                 ...]:
    """speedcore: the table's ``matmul`` rule, computing only input ``live``'s gradient when
    the other input needs none (its edge is empty, so its gradient would be dropped)."""
    nx, ny = ops.rank(x), ops.rank(y)
    if live is None or nx is None or ny is None:
        return RULES[Op.MATMUL](ops, g, out, x, y)
    part = _matmul_vjp(ops, g, x, y, nx, ny, live)[0]
    return (part, None) if live == 0 else (None, part)


_MATMUL = {
    "dot": node_class("DotBackward0", _rule_matmul, (0, 1),
                      (("self", 0, (1,)), ("tensor", 1, (0,))), False),
    "mm": mm_class(node_class("MmBackward0", _rule_matmul, (0, 1), _mm_plan("self", "mat2"),
                              False)),  # speed2: a cheaper NumPy backward (fast_nodes)
    "mv": node_class("MvBackward0", _rule_matmul, (0, 1),
                     (("self", 0, (1,)), ("vec", 1, (0,))), False),
    "bmm": node_class("BmmBackward0", _rule_matmul, (0, 1),
                      (("self", 0, (1,)), ("mat2", 1, (0,))), False),
    "vm": node_class("SqueezeBackward4", RULES[Op.MATMUL], (0, 1), _MUL_PLAN, False),
    "batched": node_class("UnsafeViewBackward0", RULES[Op.MATMUL], (0, 1), _MUL_PLAN, False),
}


def _matmul_node(kind: str, a: Tensor, b: Tensor) -> Tensor:
    ad, bd = a._data, b._data
    if ad.dtype is not bd.dtype:
        if ad.dtype != bd.dtype:
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{a.dtype.name} != {b.dtype.name}")
    try:
        r = ad @ bd
    except ValueError:
        raise _matmul_error(kind, ad, bd) from None
    except TypeError:  # bke: a host and a device operand (PyTorch's words for the mix)
        if is_device(ad) == is_device(bd):
            raise
        r = operator.matmul(*same_device(ad, bd))
    if STATE.enabled and (a._requires_grad or b._requires_grad):
        # speedcore: one input without grad: only the other's gradient is computed
        params = EMPTY if a._requires_grad and b._requires_grad else {
            "live": 0 if a._requires_grad else 1}
        return record(_MATMUL[kind], r, (a, b), params)
    return plain(r)


def _matmul_error(kind: str, a: Any, b: Any) -> RuntimeError:
    sa = "x".join(str(s) for s in a.shape)
    sb = "x".join(str(s) for s in b.shape)
    if kind == "mv":
        return RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({sa}), vec "
                            f"({b.shape[0]})")
    if kind == "dot":
        n, m = a.shape[0], b.shape[0]
        return RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                            f"have the same number of elements, but got {n} and {m} elements "
                            "respectively")
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")


_SQUEEZE4 = node_class("SqueezeBackward4", RULES[Op.SQUEEZE], (0,),
                       (("dim", _param("axis"), None), ("self_sym_sizes", _sizes(), None)), False)
_UNSAFE_VIEW = node_class("UnsafeViewBackward0", RULES[Op.RESHAPE], (0,),
                          (("self_sym_sizes", _sizes(), None),), False)


def _unsafe_view(t: Tensor, shape: tuple[Any, ...]) -> Tensor:
    data = t._data.reshape(shape)
    if needs_grad_any(t):
        return record(_UNSAFE_VIEW, data, (t, shape), EMPTY)
    return plain(data)


_KINDS = {(1, 1): "dot", (2, 2): "mm", (2, 1): "mv"}


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with broadcasting (``@``), built from mm/mv/dot/bmm like PyTorch's.

    A vector on the left is a row (``SqueezeBackward4`` over ``MmBackward0``); a batch
    times a matrix folds the batch into rows (``UnsafeViewBackward0`` over ``MmBackward0``);
    other batches broadcast and use ``bmm``.
    """
    _need_tensor(input, "matmul")
    _need_tensor(other, "matmul", "other", 2)
    na, nb = input._data.ndim, other._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    kind = _KINDS.get((na, nb))
    if kind is not None:
        return _matmul_node(kind, input, other)
    from . import shape_ops as S  # (here: the products above need none of it)

    if (na, nb) == (1, 2):
        out = mm(S.unsqueeze(input, 0), other)
        if needs_grad_any(out):
            return record(_SQUEEZE4, out._data[0], (out,), {"axis": (0,)})
        return plain(out._data[0])
    if na >= 3 and nb <= 2:
        rows = S.reshape(input, (-1, input.shape[-1]))
        out = mm(rows, other if nb == 2 else S.unsqueeze(other, -1))
        shape = tuple(input.shape[:-1]) + ((other.shape[-1],) if nb == 2 else ())
        return _unsafe_view(out, shape)
    a = S.unsqueeze(input, 0) if na == 1 else input
    b = S.unsqueeze(other, -1) if nb == 1 else other
    try:
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise _broadcast_error(np.empty(a.shape[:-2]), np.empty(b.shape[:-2])) from None
    n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
    a3 = S.reshape(S.expand(a, batch + (n, k)), (-1, n, k))
    b3 = S.reshape(S.expand(b, batch + (b.shape[-2], m)), (-1, b.shape[-2], m))
    out = bmm(a3, b3)
    shape = batch + ((n,) if na > 1 else ()) + ((m,) if nb > 1 else ())
    return _unsafe_view(out, shape)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two matrices (``MmBackward0``)."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul_node("mm", input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-d tensors (``BmmBackward0``)."""
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _matmul_node("bmm", input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix times vector (``MvBackward0``)."""
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{1}, {input.ndim}, {vec.ndim}")
    return _matmul_node("mv", input, vec)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product of two 1-d tensors (``DotBackward0``)."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError("1D tensors expected, but got "
                           f"{input.ndim}D and {tensor.ndim}D tensors")
    return _matmul_node("dot", input, tensor)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sum over the last dimensions of both (a product when one is 0-d), through
    ``tensordot`` as PyTorch's (not ``dot``, even for two vectors)."""
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    from .contractions import tensordot

    return tensordot(input, other, ([-1], [-1]))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors (recorded as a broadcast ``mul``)."""
    return mul(input.unsqueeze(1), vec2)


ger = outer


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``AddmmBackward0`` when both are 1)."""
    if (beta == 1 and alpha == 1 and isinstance(input, Tensor) and mat1.ndim == 2
            and mat2.ndim == 2 and input._data.dtype == mat1._data.dtype):
        from .nn.nodes import addmm as addmm_node

        out_shape = (mat1.shape[0], mat2.shape[1])
        if tuple(input.shape) != out_shape:
            input.expand(*out_shape)  # (PyTorch's error when it does not broadcast)
        return addmm_node(input, mat1, mat2)
    prod_ = mm(mat1, mat2)
    return add(mul(input, beta) if beta != 1 else input, mul(prod_, alpha) if alpha != 1 else prod_)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    return add(input, mul(mul(tensor1, tensor2), value) if value != 1 else mul(tensor1, tensor2))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``."""
    q = div(tensor1, tensor2)
    return add(input, mul(q, value) if value != 1 else q)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``."""
    return add(input, mul(sub(end, input), weight))


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of ``input - other``."""
    return norm(sub(input, other), p)


def trace(input: Tensor) -> Tensor:
    """The sum of the diagonal of a matrix."""
    from .tensor_ops import apply_op

    return _renamed(apply_op(Op.TRACE, input), "TraceBackward0")
