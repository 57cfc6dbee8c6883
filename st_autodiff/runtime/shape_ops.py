"""Shape functions and joining.

Views (``view``, ``reshape`` when it can, ``squeeze``, ``unsqueeze``, ``permute``,
``transpose``, ``t``, ``expand`` ...) share storage and the version counter with their
input, remember the tensor they came from (``_base``) and the recipe that took them there:
a tuple of steps ``(op, extra inputs, params, input shape)``, each an op of the table.  The
in-place machinery replays a recipe forwards (``ops.<op>``) and backwards (the op's rule)
to move gradients between a view and its base.  Indexing reads (``x[i]``, also views when
basic) are in ``indexing.py``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any
from weakref import ref as _ref

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op
from . import dtypes
from .device import xp_of
from .fast_nodes import reshape_class, transpose_class
from .function import MultiRuleNode, node_class
from .grad_mode import STATE
from .tensor import Tensor, _dim, plain
from .tensor_ops import needs_grad, record, record_multi

_FULL = ("slice", None, None, None)
_INT64_MAX = 9223372036854775807


def _sizes(args: tuple[Any, ...], params: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(args[0].shape)


def _p(name: str) -> Any:
    return lambda args, params: params[name]


_SIZES: tuple[tuple[str, Any, None], ...] = (("self_sym_sizes", _sizes, None),)


def _fast_reshape_rule(ops: Any, g: Any, out: Any, x: Any, shape: Any) -> tuple[Any, ...]:
    """The reshape rule; on NumPy arrays ``g.reshape`` (what ``np.reshape`` calls)."""
    if not ops.tensors and type(g) is np.ndarray and type(x) is np.ndarray:
        return (g.reshape(x.shape), None)
    return RULES[Op.RESHAPE](ops, g, out, x, shape)


def _fast_squeeze_rule(ops: Any, g: Any, out: Any, x: Any, axis: Any = None) -> tuple[Any, ...]:
    """The squeeze rule; on NumPy arrays ``g.reshape`` (what ``np.reshape`` calls)."""
    if not ops.tensors and type(g) is np.ndarray and type(x) is np.ndarray:
        return (g.reshape(x.shape),)
    return RULES[Op.SQUEEZE](ops, g, out, x, axis=axis)


def _fast_swapaxes_rule(ops: Any, g: Any, out: Any, x: Any, axis1: int = 0,
                        axis2: int = 1) -> tuple[Any, ...]:
    """The transpose rule; on NumPy arrays ``g.swapaxes`` (what ``np.swapaxes`` calls)."""
    if not ops.tensors and type(g) is np.ndarray:
        return (g.swapaxes(axis1, axis2),)
    return RULES[Op.SWAPAXES](ops, g, out, x, axis1=axis1, axis2=axis2)


_FAST_RULES: dict[Op, Callable[..., tuple[Any, ...]]] = {
    Op.RESHAPE: _fast_reshape_rule, Op.SQUEEZE: _fast_squeeze_rule,
    Op.SWAPAXES: _fast_swapaxes_rule}


def _cls(name: str, op: Op, plan: tuple[Any, ...] = _SIZES, edges: tuple[Any, ...] = (0,)) -> type:
    return node_class(name, _FAST_RULES.get(op, RULES[op]), edges, plan, False)


# speed2: reshapes get a cheaper NumPy backward (fast_nodes)
_VIEW = reshape_class(_cls("ViewBackward0", Op.RESHAPE))
_UNSAFE_VIEW = reshape_class(_cls("UnsafeViewBackward0", Op.RESHAPE))
_SQUEEZE = {k: reshape_class(_cls(f"SqueezeBackward{k}", Op.SQUEEZE)) for k in (0, 1, 2)}
_UNSQUEEZE = _cls("UnsqueezeBackward0", Op.EXPAND_DIMS, (("dim", _p("axis"), None),))
_PERMUTE = _cls("PermuteBackward0", Op.TRANSPOSE, (("dims", _p("axes"), None),))
_T = transpose_class(_cls("TBackward0", Op.TRANSPOSE, ()))  # part "speed": cheaper backward
_TRANSPOSE = _cls("TransposeBackward0", Op.SWAPAXES, (("dim0", _p("axis1"), None),
                                                       ("dim1", _p("axis2"), None)))
_EXPAND = _cls("ExpandBackward0", Op.BROADCAST_TO)
_CLONE = _cls("CloneBackward0", Op.COPY, ())

_ALIAS = _cls("AliasBackward0", Op.ASARRAY, ())
_DIAGONAL = _cls("DiagonalBackward0", Op.DIAGONAL, (
    ("dim1", _p("axis1"), None), ("dim2", _p("axis2"), None), ("offset", _p("offset"), None))
    + _SIZES)
_FLIP = _cls("FlipBackward0", Op.FLIP, (("dims", _p("axis"), None),))
_REPEAT = _cls("RepeatBackward0", Op.TILE, (("repeats", _p("reps"), None),) + _SIZES)


def _as_view(src: Tensor, out: Tensor, step: tuple[Any, ...]) -> Tensor:
    """Mark ``out`` as a view of ``src`` (same storage and version counter)."""
    out._vc = src._vc
    if src._base is None:
        out._base = src
        steps: tuple[Any, ...] = (step,)
    else:
        out._base = src._base
        # src is a view, so its _extra.view is set (no check: every view op runs this)
        steps = src._extra.view + (step,)  # type: ignore[union-attr,operator]
    out._ex().view = steps
    root = out._base
    if root._grad_fn is not None:  # a non-leaf base: an in-place change regenerates the view
        ex = root._extra or root._ex()
        views = ex.views
        if views is None:
            ex.views = [_ref(out)]
        else:
            if len(views) >= 32:  # (dead views dropped now and then)
                views = ex.views = [r for r in views if r() is not None]
            views.append(_ref(out))
    return out


def _view_op(src: Tensor, data: Any, cls: type, extra: tuple[Any, ...], params: dict[str, Any],
             op: Op) -> Tensor:
    """A recorded (when needed) view of ``src``; ``extra`` are the op's extra inputs."""
    if src._requires_grad and STATE.enabled:
        out = record(cls, data, (src, *extra), params)
    else:
        out = plain(data)
        if src._requires_grad:  # (under no_grad: in-place changes refused later, as PyTorch)
            _as_view(src, out, (op, extra, params, tuple(src._data.shape)))
            out._extra.nograd = True  # type: ignore[union-attr]
            return out
    return _as_view(src, out, (op, extra, params, tuple(src._data.shape)))


def _shape_arg(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape ``(2, 3)``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, dtypes.Size)):
        shape = tuple(shape[0])
    for s in shape:  # the usual case, plain ints, needs no conversion
        if type(s) is not int:
            return tuple(int(s) for s in shape)
    return shape


def _infer(shape: tuple[Any, ...], numel: int) -> tuple[Any, ...]:
    if -1 not in shape and math.prod(shape) == numel:  # fast path: nothing to infer
        return shape
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)  # exact ints (np.prod's wrapper is slow)
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input "
                               f"of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {numel}")
    return shape


def _try_view(a: Any, shape: tuple[Any, ...]) -> Any:
    """``a`` seen with ``shape`` without copying, or None when that needs a copy."""
    if type(a) is np.ndarray and a.base is None:
        # the usual case, a fresh array: a plain reshape is a view exactly when the result's
        # base is ``a`` (a copy's base is a new temporary); cheaper than ``copy=False``
        r = a.reshape(shape)
        if r.base is a:
            return r
    try:
        return a.reshape(shape, copy=False)  # (NumPy >= 2.1: raises instead of copying)
    except ValueError:
        return None
    except TypeError:  # an array library whose reshape takes no copy=
        v = a.view()
        try:
            v.shape = shape
        except AttributeError:
            return None
        return v


def view(input: Tensor, *shape: Any) -> Tensor:
    """The same storage seen with another shape (fails when that needs a copy)."""
    if len(shape) == 1 and isinstance(shape[0], (dtypes.dtype, type)):
        return _view_dtype(input, shape[0])
    a = input._array()
    target = _infer(_shape_arg(shape), a.size)
    data = _try_view(a, target)
    if data is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return _view_op(input, data, _VIEW, (target,), {}, Op.RESHAPE)


def _view_dtype(input: Tensor, dtype: Any) -> Tensor:
    return plain(input._array().view(dtypes.to_dtype(dtype).np))


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """``view`` when the storage allows, else a copy (``UnsafeViewBackward0`` on a clone)."""
    a = input._array()
    target = _infer(_shape_arg(shape), a.size)
    data = _try_view(a, target)
    if data is not None:
        return _view_op(input, data, _VIEW, (target,), {}, Op.RESHAPE)
    copied = clone(input)
    out = copied._data.reshape(target)
    if needs_grad((copied,)):
        return record(_UNSAFE_VIEW, out, (copied, target), {})
    return plain(out)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, tuple(other.shape))


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, tuple(other.shape))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` to ``end_dim`` into one."""
    shape = tuple(input._data.shape)  # (the array's: cheaper than Tensor.shape's Size)
    if not shape:
        return reshape(input, (1,))
    s, e = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    merged = math.prod(shape[s:e + 1])  # exact ints (np.prod's wrapper is slow)
    return reshape(input, shape[:s] + (merged,) + shape[e + 1:])


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Drop dimensions of size 1 (all, or those in ``dim`` that have size 1)."""
    a = input._array()
    if dim is None:
        axes = tuple(i for i, n in enumerate(a.shape) if n == 1)
        kind = 0
    else:
        kind = 2 if isinstance(dim, (tuple, list)) else 1
        dims = dim if kind == 2 else (dim,)
        axes = tuple(sorted({_dim(d, a.ndim) for d in dims} if a.ndim else ()))
        axes = tuple(i for i in axes if a.shape[i] == 1)
    return _view_op(input, np.squeeze(a, axis=axes), _SQUEEZE[kind], (), {"axis": axes},
                    Op.SQUEEZE)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``."""
    a = input._array()
    axis = _dim(dim, a.ndim + 1)
    return _view_op(input, a[(slice(None),) * axis + (None,)], _UNSQUEEZE, (), {"axis": axis},
                    Op.EXPAND_DIMS)


def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder the dimensions."""
    a = input._array()
    dims = _shape_arg(dims)
    if len(dims) != a.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}")
    axes = tuple(_dim(d, a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_op(input, a.transpose(axes), _PERMUTE, (), {"axes": axes}, Op.TRANSPOSE)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    a = input._array()
    if a.ndim == 0:
        return _view_op(input, a, _ALIAS, (), {}, Op.ASARRAY)
    d0, d1 = _dim(dim0, a.ndim), _dim(dim1, a.ndim)
    return _view_op(input, a.swapaxes(d0, d1), _TRANSPOSE, (), {"axis1": d0, "axis2": d1},
                    Op.SWAPAXES)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a matrix (vectors and scalars come back unchanged)."""
    a = input._array()
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return _view_op(input, a.T, _T, (), {"axes": None}, Op.TRANSPOSE)


def T(input: Tensor) -> Tensor:  # noqa: N802
    """``x.T``: all dimensions reversed."""
    a = input._data
    if a.ndim == 2 and type(a) is np.ndarray:  # per-op cost: ``permute(input, (1, 0))``
        a = input._array()
        return _view_op(input, a.transpose((1, 0)), _PERMUTE, (), {"axes": (1, 0)},
                        Op.TRANSPOSE)
    if input.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.", UserWarning, stacklevel=3)
    return permute(input, tuple(range(input.ndim - 1, -1, -1)))


def mT(input: Tensor) -> Tensor:  # noqa: N802
    """Transpose the last two dimensions."""
    if input.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{input.ndim}-D tensor.")
    return transpose(input, -2, -1)


def H(input: Tensor) -> Tensor:  # noqa: N802
    """``x.H``: the conjugate transpose of a matrix (real tensors: ``transpose(0, 1)``)."""
    if input.ndim != 2:
        more = (" For batches of matrices, consider using tensor.mH" if input.ndim > 2
                else "")
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{input.ndim}-D tensor.{more}")
    return transpose(input, 0, 1)


def mH(input: Tensor) -> Tensor:  # noqa: N802
    """``x.mH`` / ``x.adjoint()``: the conjugate transpose of the last two dimensions."""
    if input.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    return transpose(input, -2, -1)


def movedim(input: Tensor, source: int, destination: int) -> Tensor:
    order = list(range(input.ndim))
    s, d = _dim(source, input.ndim), _dim(destination, input.ndim)
    order.insert(d, order.pop(s))
    return permute(input, tuple(order))


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """Broadcast size-1 dimensions to ``sizes`` (-1 keeps a size) without copying."""
    a = input._array()
    sizes = _shape_arg(sizes)
    lead = len(sizes) - a.ndim
    if lead < 0:
        raise RuntimeError(f"expand(torch.FloatTensor{{[{', '.join(map(str, a.shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({a.ndim})")
    target = tuple(a.shape[i - lead] if s == -1 and i >= lead else s
                   for i, s in enumerate(sizes))
    for i in range(a.ndim):
        if a.shape[i] != 1 and a.shape[i] != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({a.shape[i]}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"[{', '.join(map(str, sizes))}].  Tensor sizes: "
                f"[{', '.join(map(str, a.shape))}]")
    return _view_op(input, np.broadcast_to(a, target), _EXPAND, (target,), {}, Op.BROADCAST_TO)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, tuple(other.shape))


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, tuple(size))


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own storage (``CloneBackward0``), laid out as the input is (PyTorch's
    ``preserve_format``: the clone of a transposed tensor is transposed too, so that a later
    ``view``/``reshape`` of it shares storage exactly when PyTorch's does)."""
    d = input._data
    data = d.copy(order="C" if 0 in getattr(d, "strides", ()) else "K")  # (expanded: packed)
    if input._requires_grad and STATE.enabled:
        return record(_CLONE, data, (input,), {})
    return plain(data)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset`` diagonal over ``dim1`` and ``dim2`` (moved last), a view of ``input``
    as in PyTorch: writing into it (``x.diagonal().add_(1)``) writes into ``input``."""
    a = input._array()
    nd = a.ndim
    d1, d2 = _dim(dim1, nd), _dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    if type(a) is not np.ndarray:  # a device array: its library's diagonal is a view
        data = xp_of(a).diagonal(a, offset, d1, d2)
        return _view_op(input, data, _DIAGONAL, (), {"offset": offset, "axis1": d1,
                                                     "axis2": d2}, Op.DIAGONAL)
    m = np.moveaxis(a, (d1, d2), (-2, -1))
    m = m[..., :, offset:] if offset >= 0 else m[..., -offset:, :]
    n = max(min(m.shape[-2], m.shape[-1]), 0)
    # (``np.diagonal`` gives a read-only view: the same strides, over a writable one)
    data = np.lib.stride_tricks.as_strided(m, m.shape[:-2] + (n,),
                                           m.strides[:-2] + (m.strides[-2] + m.strides[-1],),
                                           writeable=bool(a.flags.writeable))
    return _view_op(input, data, _DIAGONAL, (), {"offset": offset, "axis1": d1, "axis2": d2},
                    Op.DIAGONAL)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """The tensor itself when C-contiguous, else a contiguous copy."""
    d = input._data
    if isinstance(d, np.generic) or d.flags.c_contiguous:  # (device arrays have flags too)
        return input
    out = clone(input)
    out._data = xp_of(d).ascontiguousarray(out._data)
    return out


def is_contiguous(input: Tensor, memory_format: Any = None) -> bool:
    d = input._data
    return isinstance(d, np.generic) or bool(d.flags.c_contiguous)


def flip(input: Tensor, dims: Any) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, ``FlipBackward0``)."""
    axes = tuple(_dim(d, input.ndim) for d in ((dims,) if isinstance(dims, int) else dims))
    data = np.flip(input._data, axes).copy()
    if needs_grad((input,)):
        return record(_FLIP, data, (input,), {"axis": axes})
    return plain(data)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """Tile the tensor ``sizes`` times along each dimension (``RepeatBackward0``)."""
    reps = _shape_arg(sizes)
    if len(reps) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    data = np.tile(input._data, reps)
    if needs_grad((input,)):
        return record(_REPEAT, data, (input,), {"reps": reps})
    return plain(data)


def tile(input: Tensor, *dims: Any) -> Tensor:
    """``repeat`` with ``dims`` padded with leading ones to ``input.ndim`` (as PyTorch: a
    ``RepeatBackward0`` node)."""
    reps = _shape_arg(dims)
    return repeat(input, *((1,) * (input.ndim - len(reps)) + tuple(reps)))


# --- joining ----------------------------------------------------------------------------------

_CAT = node_class("CatBackward0", RULES[Op.CONCATENATE], (), (("dim", _p("axis"), None),), False)
_STACK = node_class("StackBackward0", RULES[Op.STACK], (), (("dim", _p("axis"), None),), False)


def _join(tensors: Any, dim: int, stack_: bool) -> Tensor:
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError(f"{'stack' if stack_ else 'cat'}(): expected a non-empty list of "
                           "Tensors")
    target = dtypes.result_type(*[t if t.ndim else t.reshape(1) for t in tensors]).np
    datas = [t._data if t._data.dtype == target else t._data.astype(target) for t in tensors]
    nd = datas[0].ndim + (1 if stack_ else 0)
    axis = _dim(dim, nd)
    try:
        data = np.stack(datas, axis) if stack_ else np.concatenate(datas, axis)
    except ValueError:
        raise _join_error(tensors, axis, stack_) from None
    if not needs_grad(tensors):
        return plain(data)
    base = _STACK if stack_ else _CAT
    cls = node_class(base.__name__, base._rule, tuple(range(len(tensors))), base._plan, False)
    return record(cls, data, tensors, {"axis": axis})


def _join_error(tensors: tuple[Any, ...], axis: int, stack_: bool) -> RuntimeError:
    first = tuple(tensors[0].shape)
    for k, t in enumerate(tensors[1:], 1):
        shape = tuple(t.shape)
        if stack_ and shape != first:
            return RuntimeError(f"stack expects each tensor to be equal size, but got "
                                f"[{', '.join(map(str, first))}] at entry 0 and "
                                f"[{', '.join(map(str, shape))}] at entry {k}")
        if len(shape) != len(first):
            return RuntimeError(f"Tensors must have same number of dimensions: got "
                                f"{len(first)} and {len(shape)}")
        for i, (p, q) in enumerate(zip(first, shape, strict=True)):
            if i != axis and p != q:
                return RuntimeError(f"Sizes of tensors must match except in dimension {axis}. "
                                    f"Expected size {p} but got size {q} for tensor number {k} "
                                    "in the list.")
    return RuntimeError("cannot join these tensors")


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension (``CatBackward0``)."""
    return _join(tensors, dim, False)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension (``StackBackward0``)."""
    return _join(tensors, dim, True)


def hstack(tensors: Any) -> Tensor:
    tensors = tuple(tensors)
    return cat(tensors, 0 if tensors[0].ndim <= 1 else 1)


def vstack(tensors: Any) -> Tensor:
    return cat([t if t.ndim >= 2 else t.reshape(1, -1) for t in tensors], 0)


def _rule_unbind(ops: Any, g: tuple[Any, ...], out: Any, x: Any, axis: int = 0) -> tuple[Any, ...]:
    """``unbind`` is a split into pieces of one, each squeezed: the table's split rule."""
    pieces = tuple(ops.expand_dims(gi, axis=axis) for gi in g)
    return RULES[Op.SPLIT](ops, pieces, None, x, indices_or_sections=len(g), axis=axis)


_UNBIND = node_class("UnbindBackward0", _rule_unbind, (0,), (("dim", _p("axis"), None),), False,
                     base=MultiRuleNode)
_SPLIT = node_class("SplitBackward0", RULES[Op.SPLIT], (0,),
                    (("dim", _p("axis"), None), ("self_sym_sizes", _sizes, None)), False,
                    base=MultiRuleNode)
_SPLIT_SIZES = node_class("SplitWithSizesBackward0", RULES[Op.SPLIT], (0,),
                          (("dim", _p("axis"), None), ("self_sym_sizes", _sizes, None)), False,
                          base=MultiRuleNode)


def _pieces(input: Tensor, datas: list[Any], cls: type, params: dict[str, Any],
            steps: list[Any]) -> tuple[Any, ...]:
    """Several views of ``input`` made by one node (``unbind``, ``split``)."""
    if needs_grad((input,)):
        outs = record_multi(cls, tuple(datas), (input,), params)
    else:
        outs = tuple(plain(d) for d in datas)
    shape = tuple(input._data.shape)
    for out, step in zip(outs, steps, strict=True):
        _as_view(input, out, (Op.GETITEM, (), {"index": step}, shape))
    return outs


def unbind(input: Tensor, dim: int = 0) -> tuple[Any, ...]:
    """The slices along ``dim``, without that dimension (views; ``UnbindBackward0``)."""
    a = input._array()
    d = _dim(dim, a.ndim)
    steps = [(_FULL,) * d + (i,) for i in range(a.shape[d])]
    datas = [a[(slice(None),) * d + (i, Ellipsis)] for i in range(a.shape[d])]
    return _pieces(input, datas, _UNBIND, {"axis": d}, steps)


def split(input: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    """Pieces of ``split_size`` (or of the listed sizes) along ``dim`` (views).

    One ``SplitBackward0`` node makes all the pieces, as in PyTorch.
    """
    a = input._array()
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, n - s) for s in range(0, n, step)] or [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got split_sizes="
                               f"[{', '.join(map(str, sizes))}]")
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    steps = [(_FULL,) * d + (("slice", s, s + m, None),) for s, m in zip(starts, sizes,
                                                                        strict=True)]
    datas = [a[(slice(None),) * d + (slice(s, s + m), Ellipsis)]
             for s, m in zip(starts, sizes, strict=True)]
    cuts = tuple(int(c) for c in np.cumsum(sizes)[:-1])
    cls = _SPLIT if isinstance(split_size_or_sections, int) else _SPLIT_SIZES
    return _pieces(input, datas, cls, {"indices_or_sections": cuts, "axis": d}, steps)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    n = input.shape[_dim(dim, input.ndim)]
    return split(input, -(-n // chunks) if n else 1, dim)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    idx = np.nonzero(input._array())
    if as_tuple:
        return tuple(plain(i.astype(np.int64)) for i in idx)
    return plain(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((1, 0), np.int64))


# indexing reads live in ``indexing.py`` (they build on the views above)
from .indexing import getitem, narrow, numpy_index, select  # noqa: E402

__all__ = [
    "T", "broadcast_to", "cat", "chunk", "clone", "concat", "concatenate", "contiguous",
    "expand", "expand_as", "flatten", "flip", "getitem", "hstack", "is_contiguous", "mT",
    "movedim", "narrow", "nonzero", "numpy_index", "permute", "repeat", "reshape", "reshape_as",
    "select", "split", "squeeze", "stack", "swapaxes", "swapdims", "t", "tile", "transpose",
    "unbind", "unsqueeze", "view", "view_as", "vstack",
]
