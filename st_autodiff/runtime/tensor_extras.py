"""More everyday functions: ``lerp``, ``clamp_min``/``clamp_max`` with PyTorch's own nodes,
cumulative ops (``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp``), paired reductions
(``std_mean``, ``var_mean``, ``aminmax``), small elementwise ops (``nan_to_num``,
``copysign``, ``signbit``, ``float_power``, ``deg2rad``, ``rad2deg``, ``logaddexp2``).

Ops with a node of their own in PyTorch record it (``LerpBackward0``, ``ClampMinBackward1``,
``CummaxBackward0``, ``StdMeanBackward0`` ...); the rest are compositions of ops that do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op
from . import device as D
from . import dtypes
from .function import MultiRuleNode, TensorBase, node_class, renamed
from .grad_mode import STATE
from .reductions import _return_type, _rule_max_dim, dims_of
from .tensor import Tensor, _dim, plain
from .tensor_ops import apply_op, record, record_multi
from .zero_links import linked

__all__ = [
    "aminmax", "clamp_max", "clamp_min", "copysign", "cummax", "cummin", "cumprod", "deg2rad",
    "float_power", "lerp", "logaddexp2", "logcumsumexp", "nan_to_num", "positive", "rad2deg",
    "signbit", "std_mean", "var_mean",
]


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _grad(*values: Any) -> bool:
    return STATE.enabled and any(isinstance(v, TensorBase) and v._requires_grad
                                 for v in values)


# --- lerp and one-sided clamps ----------------------------------------------------------------

def _rule_lerp(ops: Any, g: Any, out: Any, start: Any, end: Any, weight: Any) -> tuple[Any, ...]:
    if isinstance(weight, (int, float)):
        return ops.mul(g, 1 - weight), ops.mul(g, weight), None
    return (ops.mul(g, ops.sub(1, weight)), ops.mul(g, weight),
            ops.mul(g, ops.sub(end, start)))


_LERP0 = node_class("LerpBackward0", _rule_lerp, (0, 1), (("weight", lambda a, p: a[2], None),),
                    False)
_LERP1 = node_class("LerpBackward1", _rule_lerp, (0, 1, 2),
                    (("end", 1, (2,)), ("self", 0, (2,)), ("weight", 2, (0, 1))), False)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``, computed from the nearer end as PyTorch does
    (``end - (end - input) * (1 - weight)`` once ``weight >= 0.5``)."""
    a, b = input._data, end._data
    if isinstance(weight, TensorBase):
        w = weight._data
        data = np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))
        data = D.asarray(data, dtype=np.result_type(a, b, w))
        if _grad(input, end, weight):
            return record(_LERP1, data, (input, end, weight), {})
        return plain(data)
    w = float(weight.item() if hasattr(weight, "item") else weight)
    wt = a.dtype.type(w)
    data = a + wt * (b - a) if abs(w) < 0.5 else b - (b - a) * (a.dtype.type(1) - wt)
    data = D.asarray(data, dtype=np.result_type(a, b))
    if _grad(input, end):
        return record(_LERP0, data, (input, end, w), {})
    return plain(data)


_CLAMP_PLAN = (("self", 0, None),)
_CLAMP = {
    ("min", False): node_class("ClampMinBackward0", RULES[Op.CLIP], (0,),
                               _CLAMP_PLAN + (("min", lambda a, p: a[1], None),), False),
    ("min", True): node_class("ClampMinBackward1", RULES[Op.CLIP], (0, 1),
                              _CLAMP_PLAN + (("min", 1, None),), False),
    ("max", False): node_class("ClampMaxBackward0", RULES[Op.CLIP], (0,),
                               _CLAMP_PLAN + (("max", lambda a, p: a[2], None),), False),
    ("max", True): node_class("ClampMaxBackward1", RULES[Op.CLIP], (0, 2),
                              _CLAMP_PLAN + (("max", 2, None),), False),
}


def _one_sided(input: Tensor, bound: Any, side: str) -> Tensor:
    tensor = isinstance(bound, TensorBase)
    d = input._data
    v = bound._data if tensor else (bound.item() if isinstance(bound, np.generic) else bound)
    if d.dtype.kind != "f" and isinstance(v, float):
        d = d.astype(dtypes.get_default_dtype().np)
    data = np.maximum(d, v) if side == "min" else np.minimum(d, v)
    if not tensor:
        data = D.asarray(data, dtype=d.dtype)
    elif D.is_device(v) and v.dtype.kind == "f":  # NaN bounds kept without a host read
        data = D.xp_of(v).where(D.xp_of(v).isnan(v), v, data)
    elif np.isnan(v).any() if D.asarray(v).dtype.kind == "f" else False:
        data = np.where(np.isnan(v), v, data)
    args = (input, bound, None) if side == "min" else (input, None, bound)
    if _grad(input, bound) and data.dtype.kind == "f":
        return record(_CLAMP[(side, tensor)], data, args, {})
    return plain(data)


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """Raise elements below ``min`` to ``min``."""
    return _one_sided(input, min, "min")


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """Lower elements above ``max`` to ``max``."""
    return _one_sided(input, max, "max")


# --- cumulative ops ---------------------------------------------------------------------------

def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Cumulative product along ``dim`` (``CumprodBackward0``)."""
    d = input if dtype is None else input.to(dtype)
    if d._data.dtype.kind == "b":
        d = d.long()
    if not input.ndim:  # a 0-d tensor stays 0-d (NumPy's cumprod would give one element)
        return cumprod(d.reshape(1), _dim(dim, 0)).reshape(())
    return renamed(apply_op(Op.CUMPROD, d, axis=_dim(dim, input.ndim)), "CumprodBackward0")


_CUM = {n: node_class(n, _rule_max_dim, (0,),
                      (("dim", _p("dim"), None), ("indices", 1, None)), False)
        for n in ("CummaxBackward0", "CumminBackward0")}
_CUM_TYPES = {n: _return_type(n) for n in ("cummax", "cummin")}


def _cumulative_pick(input: Tensor, dim: int, largest: bool) -> Any:
    a = input._data
    axis = _dim(dim, a.ndim)
    name = "cummax" if largest else "cummin"
    idx: Any  # a 0-d index, or one per element along axis
    if a.ndim == 0:
        values, idx = a.copy(), np.zeros((), np.int64)
    else:
        moved = np.moveaxis(a, axis, -1)
        n = moved.shape[-1]
        idx = D.zeros(moved.shape, np.int64, like=a)
        best = moved[..., 0].copy()
        where = D.zeros(moved.shape[:-1], np.int64, like=a)
        for i in range(n):  # ties and NaN move the index forward, as in PyTorch
            cur = moved[..., i]
            nan_cur = np.isnan(cur) if a.dtype.kind == "f" else False
            nan_best = np.isnan(best) if a.dtype.kind == "f" else False
            better = (cur >= best) if largest else (cur <= best)
            take = (better | nan_cur) & ~(nan_best & ~nan_cur)
            if i == 0:
                take = np.ones_like(take)
            best = np.where(take, cur, best)
            where = np.where(take, i, where)
            idx[..., i] = where
        values = np.take_along_axis(moved, idx, -1)
        values, idx = np.moveaxis(values, -1, axis), np.moveaxis(idx, -1, axis)
    node = "CummaxBackward0" if largest else "CumminBackward0"
    if _grad(input) and a.dtype.kind == "f":
        out = record(_CUM[node], values, (input, idx), {"dim": axis, "keepdim": True})
    else:
        out = plain(values)
    return _CUM_TYPES[name](out, plain(idx))


def cummax(input: Tensor, dim: int) -> Any:
    """Running maximum along ``dim`` and where each was reached (the latest on ties)."""
    return _cumulative_pick(input, dim, True)


def cummin(input: Tensor, dim: int) -> Any:
    """Running minimum along ``dim`` and where each was reached (the latest on ties)."""
    return _cumulative_pick(input, dim, False)


def _rule_logcumsumexp(ops: Any, g: Any, out: Any, x: Any, axis: int = 0) -> tuple[Any, ...]:
    """``dx_i = sum_{j >= i} g_j exp(x_i - out_j)``: a reversed cumulative sum, scaled."""
    if ops.tensors:
        w = g * (-out).exp()
        rev = w.flip([axis]).cumsum(axis).flip([axis])
        return (rev * x.exp(),)
    shift = np.max(out, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0)
    w = g * np.exp(shift - out)
    rev = np.flip(np.cumsum(np.flip(w, axis), axis), axis)
    return (rev * np.exp(x - shift),)


_LOGCUMSUMEXP = node_class("LogcumsumexpBackward0", _rule_logcumsumexp, (0,),
                           (("dim", _p("axis"), None), ("self", 0, None),
                            ("result", "result", None)))


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow."""
    a = input._data
    if a.dtype.kind != "f":
        a = a.astype(dtypes.get_default_dtype().np)
    axis = _dim(dim, a.ndim)
    data = np.logaddexp.accumulate(a, axis=axis) if a.ndim else a.copy()
    if _grad(input):
        return record(_LOGCUMSUMEXP, data, (input,), {"axis": axis})
    return plain(data)


# --- paired reductions ------------------------------------------------------------------------

def _rule_moments(ops: Any, g: tuple[Any, ...], out: tuple[Any, ...], x: Any, op: Op = Op.STD,
                  axis: Any = None, keepdims: bool = False, ddof: int = 1) -> tuple[Any, ...]:
    (g_first,) = RULES[op](ops, g[0], out[0], x, axis=axis, keepdims=keepdims, ddof=ddof)
    (g_mean,) = RULES[Op.MEAN](ops, g[1], out[1], x, axis=axis, keepdims=keepdims)
    return (ops.add(g_first, g_mean),)


_MOMENTS = {op: node_class(name, _rule_moments, (0,),
                           (("correction", _p("ddof"), None), ("dim", _p("axis"), None),
                            ("keepdim", _p("keepdims"), None), ("self", 0, None)),
                           True, MultiRuleNode)
            for op, name in ((Op.STD, "StdMeanBackward0"), (Op.VAR, "VarMeanBackward0"))}


def _moments(op: Op, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> tuple[Any, ...]:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    ddof = correction if correction is not None else (1 if unbiased in (None, True) else 0)
    d = input._data if input._data.dtype.kind == "f" else input._data.astype(np.float32)
    axes = dims_of(dim, d.ndim)
    from .reductions import dof_guard  # noqa: PLC0415  (reductions imports this module's users)

    with dof_guard("std_mean" if op is Op.STD else "var_mean", d, axes, ddof):
        first = (d.std if op is Op.STD else d.var)(axis=axes, ddof=ddof,
                                                   keepdims=bool(keepdim))
    mean = d.mean(axis=axes, keepdims=bool(keepdim))
    datas = (D.asarray(first, d.dtype), D.asarray(mean, d.dtype))
    if _grad(input):
        return record_multi(_MOMENTS[op], datas, (input,),
                            {"op": op, "axis": axes, "keepdims": bool(keepdim), "ddof": ddof})
    return tuple(plain(v) for v in datas)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Any, ...]:
    """``(std, mean)`` over ``dim`` in one pass (``StdMeanBackward0``)."""
    return _moments(Op.STD, input, dim, unbiased, keepdim, correction)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Any, ...]:
    """``(var, mean)`` over ``dim`` in one pass (``VarMeanBackward0``)."""
    return _moments(Op.VAR, input, dim, unbiased, keepdim, correction)


def _rule_aminmax(ops: Any, g: tuple[Any, ...], out: tuple[Any, ...], x: Any, axis: Any = None,
                  keepdims: bool = False) -> tuple[Any, ...]:
    (g_min,) = RULES[Op.MIN](ops, g[0], out[0], x, axis=axis, keepdims=keepdims)
    (g_max,) = RULES[Op.MAX](ops, g[1], out[1], x, axis=axis, keepdims=keepdims)
    return (ops.add(g_min, g_max),)


_AMINMAX = node_class("AminmaxBackward0", _rule_aminmax, (0,), (("self", 0, None),), True,
                      MultiRuleNode)


class _MinMax(tuple[Tensor, Tensor]):
    """``torch.return_types.aminmax``: ``(min, max)``."""

    __slots__ = ()

    @property
    def min(self) -> Tensor:
        return self[0]

    @property
    def max(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


_MinMax.__name__ = _MinMax.__qualname__ = "aminmax"


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """The minimum and maximum together (``return_types.aminmax``)."""
    a = input._data
    if a.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    axis = None if dim is None else _dim(dim, a.ndim)
    datas = (D.asarray(a.min(axis=axis, keepdims=keepdim)),
             D.asarray(a.max(axis=axis, keepdims=keepdim)))
    if _grad(input) and a.dtype.kind == "f":
        outs = record_multi(_AMINMAX, datas, (input,), {"axis": axis, "keepdims": keepdim})
    else:
        outs = tuple(plain(v) for v in datas)
    return _MinMax(outs)


# --- small elementwise ------------------------------------------------------------------------

def _rule_mask(ops: Any, g: Any, out: Any, x: Any, mask: Any) -> tuple[Any, ...]:
    return (ops.mul(g, ops.const(mask)), None)


_NAN_TO_NUM = node_class("NanToNumBackward0", _rule_mask, (0,), (), False)


def _rule_copysign(ops: Any, g: Any, out: Any, x: Any, other: Any, ratio: Any) -> tuple[Any, ...]:
    """``d copysign(x, y) / dx = copysign(x, y) / x`` (0 at x = 0); nothing reaches ``y``."""
    return ops.mul(g, ops.const(ratio)), ops.zeros_like(other), None


_COPYSIGN = {k: node_class(f"CopysignBackward{k}", linked(_rule_copysign, "MulBackward0"),
                           (0, 1) if k == 0 else (0,),
                           (("self", 0, None), ("result", "result", None)))
             for k in (0, 1)}


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest values)."""
    a = input._data
    if a.dtype.kind != "f":
        return plain(a.copy())
    data = np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
    if _grad(input):
        return record(_NAN_TO_NUM, data, (input, np.isfinite(a).astype(a.dtype)), {})
    return plain(data)


def copysign(input: Tensor, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (gradient only to ``input``)."""
    a = input._data
    b = other._data if isinstance(other, TensorBase) else other
    if isinstance(other, TensorBase):  # PyTorch's promotion (a 0-d operand does not widen)
        target = dtypes.result_type(input, other).np
        if target.kind != "f":
            target = dtypes.get_default_dtype().np
        a = a.astype(target, copy=False)
    elif a.dtype.kind != "f":
        a = a.astype(dtypes.get_default_dtype().np)
    data = D.asarray(np.copysign(a, b), dtype=a.dtype)
    if _grad(input, other):  # (``other`` alone: CopysignBackward0 gives it zeros)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(a == 0, 0, np.broadcast_to(data, data.shape) / a)
        kind = 0 if isinstance(other, TensorBase) else 1
        return record(_COPYSIGN[kind], data, (input, other, D.asarray(ratio, data.dtype)), {})
    return plain(data)


def signbit(input: Tensor) -> Tensor:
    """Whether the sign bit is set (true for -0.0)."""
    return plain(np.signbit(input._data))


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` in float64."""
    from .functional import pow as power

    def up(v: Any) -> Any:
        return v.to(dtypes.float64) if isinstance(v, Tensor) else float(v)

    base = up(input)
    if not isinstance(base, TensorBase):
        from .factory import tensor

        base = tensor(base, dtype=dtypes.float64)
    return power(base, up(exponent))


def _scaled(name: str, op: Op, factor: float) -> Any:
    def fn(input: Tensor) -> Tensor:
        d = input._data
        if d.dtype.kind != "f":
            d = d.astype(dtypes.get_default_dtype().np)
        if not _grad(input):
            return plain(d * d.dtype.type(factor))
        return renamed(apply_op(op, input if input._data is d else plain(d)),
                        name + "Backward0")

    return fn


deg2rad = _scaled("Deg2Rad", Op.DEG2RAD, math.pi / 180)
rad2deg = _scaled("Rad2Deg", Op.RAD2DEG, 180 / math.pi)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2**input + 2**other)``, computed stably."""
    return renamed(apply_op(Op.LOGADDEXP2, input, other), "Logaddexp2Backward0")


def positive(input: Tensor) -> Tensor:
    """The input itself (errors for bool, as in PyTorch)."""
    if input._data.dtype.kind == "b":
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input
