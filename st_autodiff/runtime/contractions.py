"""Products and integrals: ``addmv``, ``baddbmm``, ``addbmm`` (each one PyTorch node),
``tensordot``, ``kron``, ``chain_matmul``, ``trapezoid``/``trapz``, plus ``gcd``/``lcm``.

The fused ``add*`` ops compute ``beta * input + alpha * product`` and record
``AddmvBackward0``, ``BaddbmmBackward0`` or ``AddbmmBackward0``; their rules use only ops of
the shared table, so a ``create_graph`` backward records them again.  ``tensordot`` and
``kron`` are the reshapes and products PyTorch's composites are, ending in ``ViewBackward0``
and ``UnsafeViewBackward0``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import device as D
from . import dtypes
from . import shape_ops as S
from .function import TensorBase, node_class
from .function import renamed as _renamed
from .grad_mode import STATE
from .tensor import Tensor, _dim, plain
from .tensor_ops import record

__all__ = ["addbmm", "addmv", "baddbmm", "chain_matmul", "corrcoef", "cov", "gcd", "kron", "lcm",
           "tensordot", "trapezoid", "trapz", "vander"]


def _grad(*values: Any) -> bool:
    return STATE.enabled and any(isinstance(v, TensorBase) and v._requires_grad
                                 for v in values)


def _mT(ops: Any, x: Any) -> Any:  # noqa: N802
    return ops.swapaxes(x, axis1=-1, axis2=-2)


def _scale(ops: Any, g: Any, factor: Any) -> Any:
    return g if factor == 1 else ops.mul(g, factor)


def _rule_addmv(ops: Any, g: Any, out: Any, input: Any, mat: Any, vec: Any, beta: Any = 1,
                alpha: Any = 1) -> tuple[Any, ...]:
    return (_scale(ops, g, beta), _scale(ops, ops.outer(g, vec), alpha),
            _scale(ops, ops.matmul(_mT(ops, mat), g), alpha))


def _rule_baddbmm(ops: Any, g: Any, out: Any, input: Any, b1: Any, b2: Any, beta: Any = 1,
                  alpha: Any = 1) -> tuple[Any, ...]:
    return (_scale(ops, g, beta), _scale(ops, ops.matmul(g, _mT(ops, b2)), alpha),
            _scale(ops, ops.matmul(_mT(ops, b1), g), alpha))


def _rule_addbmm(ops: Any, g: Any, out: Any, input: Any, b1: Any, b2: Any, beta: Any = 1,
                 alpha: Any = 1) -> tuple[Any, ...]:
    gb = ops.expand_dims(g, axis=0)
    return (_scale(ops, g, beta), _scale(ops, ops.matmul(gb, _mT(ops, b2)), alpha),
            _scale(ops, ops.matmul(_mT(ops, b1), gb), alpha))


def _plan(a: str, b: str) -> tuple[Any, ...]:
    return (("alpha", lambda args, p: p["alpha"], None), ("beta", lambda args, p: p["beta"],
                                                           None), (a, 1, (2,)), (b, 2, (1,)))


_ADDMV = node_class("AddmvBackward0", _rule_addmv, (0, 1, 2), _plan("mat", "vec"), False)
_BADDBMM = node_class("BaddbmmBackward0", _rule_baddbmm, (0, 1, 2),
                      _plan("batch1", "batch2"), False)
_ADDBMM = node_class("AddbmmBackward0", _rule_addbmm, (0, 1, 2), _plan("batch1", "batch2"),
                     False)


def _fused(cls: type, input: Tensor, a: Tensor, b: Tensor, product: Any, beta: Any,
           alpha: Any) -> Tensor:
    base = input._data
    data = product * alpha if alpha != 1 else product
    if beta == 0:  # beta = 0 ignores input, NaN included
        data = np.broadcast_to(data, np.broadcast_shapes(data.shape, base.shape)).copy()
    else:
        data = (base * beta if beta != 1 else base) + data
    data = D.asarray(data, dtype=np.result_type(base, a._data, b._data))
    if _grad(input, a, b):
        return record(cls, data, (input, a, b), {"beta": beta, "alpha": alpha})
    return plain(data)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` (``AddmvBackward0``)."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    return _fused(_ADDMV, input, mat, vec, mat._data @ vec._data, beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, batch by batch (``BaddbmmBackward0``)."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return _fused(_BADDBMM, input, batch1, batch2, batch1._data @ batch2._data, beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
           alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])`` (``AddbmmBackward0``)."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    product = (batch1._data @ batch2._data).sum(axis=0)
    return _fused(_ADDBMM, input, batch1, batch2, product, beta, alpha)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Contract ``a``'s last ``dims`` dims with ``b``'s first ones, or the listed pairs."""
    from .functional import mm

    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    da = [_dim(d, a.ndim) for d in da]
    db = [_dim(d, b.ndim) for d in db]
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    size = int(np.prod([a.shape[d] for d in da]))
    left = S.reshape(S.permute(a, *free_a, *da), -1, size)
    right = S.reshape(S.permute(b, *db, *free_b), size, -1)
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return S.view(mm(left, right), *shape) if shape else S.view(mm(left, right), ())


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times a block ``other``."""
    from .functional import mul

    nd = max(input.ndim, other.ndim)
    a = S.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = S.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    wide_a = S.reshape(a, tuple(x for n in a.shape for x in (n, 1)))
    wide_b = S.reshape(b, tuple(x for n in b.shape for x in (1, n)))
    prod = mul(wide_a, wide_b)
    shape = tuple(m * n for m, n in zip(a.shape, b.shape, strict=True))
    data = prod._data.reshape(shape)
    if prod._requires_grad and STATE.enabled:
        return record(S._UNSAFE_VIEW, data, (prod, shape), {})
    return plain(data)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of the matrices, left to right (deprecated in PyTorch)."""
    from .functional import matmul

    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.", UserWarning, stacklevel=2)
    out = matrices[0]
    for m in matrices[1:]:
        out = matmul(out, m)
    return out


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: spacing ``dx`` (1 by default) or sample points
    ``x``."""
    from .functional import mul, sub, sum
    from .indexing import narrow

    axis = _dim(dim, y.ndim)
    n = y.shape[axis]
    if n == 0:
        return sum(y, axis)
    if isinstance(x, Tensor):
        gaps = sub(narrow(x, -1 if x.ndim == 1 else axis, 1, n - 1),
                   narrow(x, -1 if x.ndim == 1 else axis, 0, n - 1))
        if x.ndim == 1 and y.ndim > 1:
            gaps = S.reshape(gaps, (n - 1,) + (1,) * (y.ndim - axis - 1))
        ends = narrow(y, axis, 1, n - 1) + narrow(y, axis, 0, n - 1)
        return _renamed(sum(mul(gaps, ends), axis) / 2, "DivBackward1")
    step = 1 if dx is None and x is None else (x if dx is None else dx)
    first = S.select(y, axis, 0)
    last = S.select(y, axis, n - 1)
    out = mul(sub(sum(y, axis), mul(first + last, 0.5)), step)
    return _renamed(out, "MulBackward1") if not isinstance(step, TensorBase) else out


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """``trapezoid`` under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cov(input: Tensor, *, correction: int = 1, fweights: Any = None,
        aweights: Any = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in
    columns), optionally weighted; a 0-d tensor for one variable."""
    from .functional import div, matmul, mul, sub, sum

    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = S.reshape(input, 1, -1) if input.ndim < 2 else input
    if x._data.dtype.kind != "f":
        x = x.to(dtypes.get_default_dtype())
    n = x.shape[1]
    weights = None
    for w in (fweights, aweights):
        if w is not None:
            weights = w if weights is None else mul(weights, w)
    if weights is None:
        total = n
        avg = sum(x, 1) / n
    else:
        total = sum(weights)
        avg = div(sum(mul(x, weights), 1), total)
    if weights is None:
        norm: Any = total - correction
    elif correction == 0:
        norm = total
    elif aweights is None:
        norm = sub(total, correction)
    else:
        norm = sub(total, div(mul(sum(mul(weights, aweights)), correction), total))
    centred = sub(x, S.unsqueeze(avg, 1))
    scaled = centred if weights is None else mul(centred, weights)
    prod = matmul(scaled, S.t(centred))
    if not isinstance(norm, TensorBase) and norm <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = 0
    return S.squeeze(div(prod, norm))


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in ``input``'s rows, clipped to
    ``[-1, 1]``."""
    from .conditional import clamp
    from .functional import div, sqrt

    c = cov(input)
    if c.ndim == 0:
        return div(c, c)
    d = sqrt(c.diagonal())
    c = div(c, S.unsqueeze(d, 1))
    c = div(c, S.unsqueeze(d, 0))
    return clamp(c, -1, 1)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of a 1-D tensor: columns ``x**(N-1) ... x**0`` (or increasing
    powers)."""
    from .factory import ones
    from .tensor_extras import cumprod

    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return plain(D.zeros((x.shape[0], 0), x._data.dtype, like=x._data))
    first = ones(x.shape[0], 1, dtype=x.dtype, device=x.device)  # (on x's device)
    if n == 1:
        out = first
    else:
        rest = S.expand(S.unsqueeze(x, 1), x.shape[0], n - 1)
        out = cumprod(S.cat([first, rest], 1), 1)
    return out if increasing else S.flip(out, [1])


def _integer_op(ufunc: Any, name: str) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        a = input._data
        b = other._data if isinstance(other, TensorBase) else np.asarray(other)
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            word = "Float" if (a if a.dtype.kind == "f" else b).dtype == np.float32 else "Double"
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{word}\'')
        return plain(D.asarray(ufunc(a, b)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of integer tensors."
    return op


gcd = _integer_op(np.gcd, "gcd")
lcm = _integer_op(np.lcm, "lcm")
