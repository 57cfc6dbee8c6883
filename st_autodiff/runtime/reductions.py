"""Reductions (``sum``, ``mean``, ``max`` ...), norms and the softmax family.

Like ``functional``: NumPy computes, the shared rule table differentiates, and each node
is named and saves what PyTorch names and saves (``SumBackward0`` for a full sum,
``SumBackward1`` over ``dim`` ...).  ``max``/``min`` along a dimension send the gradient
to the index they return (``_rule_max_dim``, composed from the table's
``take_along_axis`` rule), while full ``max``/``min`` and ``amax``/``amin`` share it
evenly between ties, as PyTorch does.
"""

from __future__ import annotations

import builtins
import contextlib
import math
import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, NamedTuple, cast

import numpy as np

from ..derivatives import RULES
from ..ir.kernels import log_softmax as _k_log_softmax
from ..ir.kernels import logsumexp as _k_logsumexp
from ..ir.kernels import resolve
from ..ir.kernels import softmax as _k_softmax
from ..ir.ops import OP_INFO, Op
from . import dtypes
from .device import is_device, xp_of
from .fast_nodes import log_softmax_class
from .function import TensorBase, node_class, renamed
from .functional import (
    NONE,
    RESULT,
    SELF,
    _float_data,
    _param,
    _sizes,
    _type_word,
    maximum,
    minimum,
)
from .grad_mode import STATE
from .tensor import Tensor, _dim, plain
from .tensor_ops import record
from .zero_links import linked

_ = builtins

# --- reductions ------------------------------------------------------------------------------

def dims_of(dim: Any, ndim: int) -> tuple[int, ...] | None:
    """``dim`` (int, sequence or None) as a sorted tuple of non-negative axes."""
    if dim is None:
        return None
    seq = dim if isinstance(dim, (tuple, list)) else (dim,)
    if ndim == 0:
        for d in seq:
            _dim(d, 0)
        return ()
    return tuple(sorted({_dim(d, ndim) for d in seq}))


#: ``np.add.reduce`` untyped: NumPy's stubs (2.2 to 2.5 differently) have no overload for a bool
#: ``keepdims`` variable
_ADD_REDUCE: Any = np.add.reduce


def _full_reduction_class(base: type[Any], mean: bool) -> type[Any]:
    """``base`` (``SumBackward0`` or ``MeanBackward0``, a reduction over all elements) with a
    backward for a NumPy gradient of the input's dtype (per-op cost: every loss ends in
    one): the rule's ``broadcast_to(g, shape)`` (``g / count`` first for the mean) as
    ``ArrayOps.broadcast_to`` fills a small array; anything else takes the rule."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g: Any = grads[0]
        if ops.tensors or self.next_functions[0][0] is None or not (
                type(g) is np.ndarray or isinstance(g, np.generic)):
            return slow(self, grads, ops)
        x = self._args[0]._data
        if type(x) is not np.ndarray or g.dtype != x.dtype or g.ndim or x.size > 65536:
            return slow(self, grads, ops)
        if mean:
            num: Any = g  # (the division of the rule: ``g / count``)
            g = num / x.size
        shape = x.shape
        if g.shape == shape:
            return [g]
        out = np.empty(shape, g.dtype)
        out.fill(g)
        return [out]

    return type(base.__name__, (base,), {"__slots__": (), "backward": backward,
                                          "__module__": base.__module__,
                                          "__qualname__": base.__qualname__})


def _reduction(name: str, op: Op, node0: str, node1: str, plan0: tuple[Any, ...],
               plan1: tuple[Any, ...],
               keeps_out: bool, float_only: bool = False,
               rule0: Callable[..., tuple[Any, ...]] | None = None) -> Callable[..., Tensor]:
    cls0 = node_class(node0, rule0 or RULES[op], (0,), plan0, keeps_out)
    if op is Op.SUM or op is Op.MEAN:
        cls0 = _full_reduction_class(cls0, op is Op.MEAN)
    cls1 = node_class(node1, RULES[op], (0,), plan1, keeps_out)
    kernel = _k_logsumexp if op is Op.LOGSUMEXP else resolve(np, OP_INFO[op].numpy)  # type: ignore

    def fn(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        d = input._data
        if dtype is not None:
            d = d.astype(dtypes.to_dtype(dtype).np)
        if float_only and d.dtype.kind != "f":
            which = "Optional" if dtype is not None else "Input"
            raise RuntimeError(f"{name}(): could not infer output dtype. {which} dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{_type_word(dtypes.from_numpy_dtype(d.dtype))}")
        axes = dims_of(dim, d.ndim)
        if (d.dtype.kind == "b" and op is not Op.MAX and op is not Op.MIN) or (
                d.dtype.kind in "iu" and op in (Op.SUM, Op.PROD)):
            d = d.astype(np.int64)
        if op is Op.SUM and type(d) is np.ndarray:
            # np.sum minus its wrapper (numpy's stubs have no overload for a bool keepdims)
            r = _ADD_REDUCE(d, axis=axes, keepdims=bool(keepdim))
        elif op is Op.MEAN and type(d) is np.ndarray and d.size and d.dtype.itemsize >= 4:
            # np.mean's own steps (sum, then divide by the count in the input's float dtype)
            # without its Python wrapper: the same bits
            n = d.size if axes is None else math.prod(d.shape[k] for k in axes)
            r = _ADD_REDUCE(d, axis=axes, keepdims=bool(keepdim)) / n
        else:
            r = kernel(d, axis=axes, keepdims=bool(keepdim))
        if not (input._requires_grad and STATE.enabled):
            return plain(r)
        if dim is None:
            return record(cls0, r, (input,), {"axis": None, "keepdims": False})
        return record(cls1, r, (input,), {"axis": axes, "keepdims": bool(keepdim)})

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}`` over all elements (``{node0}``) or over ``dim`` "
                  f"(``{node1}``).")
    return fn


_DIM_PLAN = (("dim", _param("axis"), None), ("keepdim", _param("keepdims"), None))
_SIZES = (("self_sym_sizes", _sizes(), None),)
sum = _reduction("sum", Op.SUM, "SumBackward0", "SumBackward1", _SIZES,  # noqa: A001
                 _DIM_PLAN + _SIZES, False)
mean = _reduction("mean", Op.MEAN, "MeanBackward0", "MeanBackward1", _SIZES,
                  _DIM_PLAN + _SIZES, False, float_only=True)
prod = _reduction("prod", Op.PROD, "ProdBackward0", "ProdBackward1", SELF + RESULT,
                  _DIM_PLAN + SELF + RESULT, True)
_amax = _reduction("amax", Op.MAX, "AmaxBackward0", "AmaxBackward0", SELF + RESULT,
                   _DIM_PLAN + SELF + RESULT, True)
_amin = _reduction("amin", Op.MIN, "AminBackward0", "AminBackward0", SELF + RESULT,
                   _DIM_PLAN + SELF + RESULT, True)


def _rule_extremum_all(ops: Any, g: Any, out: Any, x: Any, axis: Any = None,
                       keepdims: bool = False) -> tuple[Any, ...]:
    """Full ``max()``/``min()``: PyTorch's ``evenly_distribute_backward``, which shares the
    gradient between the elements equal to the result or, when the result is NaN, between
    the NaN elements (the table's rule compares with ``==``, so a NaN result would give
    NaN everywhere)."""
    if not ops.tensors and getattr(out, "size", 2) == 1 and getattr(g, "size", 2) == 1 \
            and math.isfinite(out) and math.isfinite(g):  # (the usual case: the table's rule)
        return RULES[Op.MAX](ops, g, out, x, axis=axis, keepdims=keepdims)
    hit = ops.logical_or(ops.eq(x, out), ops.logical_and(ops.isnan(x), ops.isnan(out)))
    share = g / ops.sum(ops.astype(hit, dtype=ops.dtype(x)))
    # (a select, as PyTorch's masked_fill: a NaN gradient does not reach the other elements)
    return (ops.where(hit, share, ops.zeros_like(x)),)


_max_all = _reduction("max", Op.MAX, "MaxBackward1", "MaxBackward1", SELF + RESULT, NONE, True,
                      rule0=_rule_extremum_all)
_min_all = _reduction("min", Op.MIN, "MinBackward1", "MinBackward1", SELF + RESULT, NONE, True,
                      rule0=_rule_extremum_all)
logsumexp_ = _reduction("logsumexp", Op.LOGSUMEXP, "LogsumexpBackward0", "LogsumexpBackward0",
                        SELF + RESULT, _DIM_PLAN + SELF + RESULT, True)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The maximum over ``dim`` (all dims by default); ties share the gradient evenly."""
    return _amax(input, None if dim in ((), []) else dim, keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The minimum over ``dim`` (all dims by default); ties share the gradient evenly."""
    return _amin(input, None if dim in ((), []) else dim, keepdim)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, computed stably."""
    r = logsumexp_(input.float() if input._data.dtype.kind != "f" else input, dim, keepdim)
    return r


class ValuesIndices(NamedTuple):
    """``(values, indices)`` of ``max``/``min``/``sort`` along a dimension."""

    values: Tensor
    indices: Tensor


def _return_type(name: str) -> type:
    def __repr__(self: Any) -> str:  # noqa: N807
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (ValuesIndices,), {"__repr__": __repr__, "__slots__": ()})


_RETURN_TYPES = {n: _return_type(n) for n in ("max", "min", "sort", "mode", "median", "topk")}


def _rule_max_dim(ops: Any, g: Any, out: Any, x: Any, idx: Any, dim: int = 0,
                  keepdim: bool = False) -> tuple[Any, ...]:
    """The gradient of ``max``/``min`` along ``dim`` goes to the index they returned."""
    if not keepdim:
        g = ops.expand_dims(g, axis=dim)
        idx = np.expand_dims(idx, dim)
    return RULES[Op.TAKE_ALONG_AXIS](ops, g, None, x, idx, axis=dim)


def _select_along(name: str, arg: Callable[..., Any], node: str,
                  full: Callable[..., Any]) -> Callable[..., Any]:
    plan = (("indices", 1, None), ("dim", _param("dim"), None),
            ("keepdim", _param("keepdim"), None), ("self_sym_sizes", _sizes(), None))
    cls = node_class(node, _rule_max_dim, (0,), plan, False)
    result_type = _RETURN_TYPES[name]

    def fn(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if dim is None:
            return full(input)
        if isinstance(dim, TensorBase):
            return (maximum if name == "max" else minimum)(input, dim)
        d = input._data
        axis = _dim(dim, d.ndim)
        if d.ndim == 0:
            idx = np.int64(0)
            values = plain(d) if not input._requires_grad else input.clone()
            return result_type(values, plain(idx))
        idx = arg(d, axis=axis, keepdims=True)
        vals = np.take_along_axis(d, idx, axis=axis)
        if not keepdim:
            idx, vals = np.squeeze(idx, axis), np.squeeze(vals, axis)
        idx = idx.astype(np.int64)
        if input._requires_grad and STATE.enabled:
            values = record(cls, vals, (input, idx), {"dim": axis, "keepdim": bool(keepdim)})
        else:
            values = plain(vals)
        return result_type(values, plain(idx[()] if idx.ndim == 0 else idx))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}(input)``: the {name}imum element; ``{name}(input, dim)``: values "
                  "and indices along ``dim``; ``{name}(input, other)``: elementwise.")
    return fn


max = _select_along("max", np.argmax, "MaxBackward0", _max_all)  # noqa: A001
min = _select_along("min", np.argmin, "MinBackward0", _min_all)  # noqa: A001


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    d = input._data
    if dim is None:
        return plain(np.argmax(d).astype(np.int64))
    axis = _dim(dim, d.ndim)  # (keepdims as a literal: NumPy 2.5's stubs overload on it)
    r = np.argmax(d, axis=axis, keepdims=True) if keepdim else np.argmax(d, axis=axis)
    return plain(r.astype(np.int64))


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    d = input._data
    if dim is None:
        return plain(np.argmin(d).astype(np.int64))
    axis = _dim(dim, d.ndim)  # (keepdims as a literal: NumPy 2.5's stubs overload on it)
    r = np.argmin(d, axis=axis, keepdims=True) if keepdim else np.argmin(d, axis=axis)
    return plain(r.astype(np.int64))


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def dof_guard(name: str, d: Any, axes: Any, ddof: Any) -> Any:
    """A context for computing ``name`` (var, std, var_mean ...) over ``axes`` of ``d``:
    where no degree of freedom is left, PyTorch's warning (once) and NumPy's own
    RuntimeWarnings silenced (the value is NaN in both)."""
    picked = range(d.ndim) if axes is None else (axes if isinstance(axes, tuple) else (axes,))
    if math.prod(d.shape[a] for a in picked) - ddof > 0:
        return contextlib.nullcontext()
    level, frame = 1, cast("FrameType | None", sys._getframe(0))  # at the user's line
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                  "than the reduction factor (input numel divided by output numel).",
                  UserWarning, stacklevel=level)
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore", RuntimeWarning)
    stack.enter_context(np.errstate(all="ignore"))
    return stack


def _var_std(op: Op, node: str, keeps_out: bool) -> Callable[..., Tensor]:
    plan = (("correction", _param("ddof"), None), ("dim", _param("axis"), None),
            ("keepdim", _param("keepdims"), None)) + SELF + (RESULT if keeps_out else ())
    cls = node_class(node, RULES[op], (0,), plan, keeps_out)
    method = OP_INFO[op].numpy

    def fn(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False,
           *, correction: Any = None) -> Tensor:
        if isinstance(dim, bool):  # std(input, unbiased)
            unbiased, dim = dim, None
        ddof = correction if correction is not None else (1 if unbiased in (None, True) else 0)
        d = _float_data(input)
        axes = dims_of(dim, d.ndim)
        with dof_guard(str(method), d, axes, ddof):
            r = getattr(d, method)(axis=axes, ddof=ddof, keepdims=bool(keepdim))  # type: ignore
        if input._requires_grad and STATE.enabled:
            return record(cls, r, (input,), {"axis": axes, "keepdims": bool(keepdim),
                                             "ddof": ddof})
        return plain(r)

    return fn


var = _var_std(Op.VAR, "VarBackward0", False)
std = _var_std(Op.STD, "StdBackward0", True)


def _rule_flat_norm(ops: Any, g: Any, out: Any, x: Any, ord: Any = None) -> tuple[Any, ...]:
    """A vector norm over all elements of ``x``: the table's norm rule on ``ravel(x)``."""
    (gf,) = RULES[Op.NORM](ops, g, out, ops.ravel(x), ord=ord)
    return (ops.reshape(gf, ops.shape(x)),)


_NORM_PLAN = (("ord", _param("ord"), None), ("dim", lambda a, p: p.get("axis"), None),
              ("keepdim", lambda a, p: p.get("keepdims", False), None)) + SELF + RESULT
# (linked: the 1-norm's gradient ``sgn(x) * g`` stays connected to ``x`` under create_graph)
_norm_cls = node_class("LinalgVectorNormBackward0", linked(RULES[Op.NORM], "MulBackward0"),
                       (0,), _NORM_PLAN)
_flat_norm_cls = node_class("LinalgVectorNormBackward0", linked(_rule_flat_norm, "MulBackward0"),
                            (0,), _NORM_PLAN)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    """The vector p-norm over ``dim`` (all elements by default), like ``linalg.vector_norm``."""
    d = _float_data(input)
    ord_: Any = None if p in ("fro", 2, 2.0) else float(p) if not isinstance(p, str) else p
    axes = dims_of(dim, d.ndim)
    if not d.ndim:  # a 0-d tensor: its own dim -1/0 is all of it (keepdim changes nothing)
        axes, keepdim = None, False
    rec = input._requires_grad and STATE.enabled
    if axes is None or (len(axes) > 1 and (ord_ is not None or len(axes) > 2)):
        if axes is not None and len(axes) != d.ndim:
            raise NotImplementedError("norm over several (not all) dims with p != 2")
        xp = xp_of(d)
        r: Any = xp.linalg.norm(d.reshape(-1), ord=ord_)
        if keepdim:
            r = xp.reshape(r, (1,) * d.ndim)
        r = xp.asarray(r, dtype=d.dtype)[()]
        if rec:
            if keepdim:
                raise NotImplementedError("norm(keepdim=True) over all dims with autograd")
            return record(_flat_norm_cls, r, (input,), {"ord": ord_})
        return plain(r)
    axis = axes[0] if len(axes) == 1 else axes
    xp = xp_of(d)
    r = xp.asarray(xp.linalg.norm(d, ord=ord_, axis=axis, keepdims=bool(keepdim)),
                   dtype=d.dtype)[()]
    if rec:
        return record(_norm_cls, r, (input,), {"ord": ord_, "axis": axis,
                                               "keepdims": bool(keepdim)})
    return plain(r)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Cumulative sum along ``dim`` (``CumsumBackward0``)."""
    from .tensor_ops import apply_op

    d = input if dtype is None else input.to(dtype)
    if not input.ndim:  # a 0-d tensor stays 0-d (NumPy's cumsum would give one element)
        return cumsum(d.reshape(1), _dim(dim, 0)).reshape(())
    out = apply_op(Op.CUMSUM, d, axis=_dim(dim, input.ndim))
    return renamed(out, "CumsumBackward0")


# --- softmax family --------------------------------------------------------------------------

def _softmax_like(op: Op, node: str, kernel: Callable[..., Any]) -> Callable[..., Tensor]:
    cls = node_class(node, RULES[op], (0,), (("dim", _param("axis"), None),) + RESULT)
    if op is Op.LOG_SOFTMAX:  # speed2: a cheaper NumPy backward (fast_nodes)
        cls = log_softmax_class(cls)

    def fn(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
        if dtype is not None:
            input = input.to(dtype)
        d = _float_data(input)
        if dim is None:
            dim = 0 if d.ndim in (0, 1, 3) else 1  # PyTorch's legacy implicit choice
        axis = _dim(dim, d.ndim) if d.ndim else None
        r = kernel(d, axis=axis) if d.ndim else kernel(
            d if is_device(d) else np.asarray(d), axis=None)
        if input._requires_grad and STATE.enabled:
            return record(cls, r, (input,), {"axis": axis})
        return plain(r)

    return fn


softmax = _softmax_like(Op.SOFTMAX, "SoftmaxBackward0", _k_softmax)
log_softmax = _softmax_like(Op.LOG_SOFTMAX, "LogSoftmaxBackward0", _k_log_softmax)
