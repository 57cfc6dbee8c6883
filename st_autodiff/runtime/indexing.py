"""Indexing reads: ``x[...]`` with PyTorch's node structure.

``None``, integers and slices apply one by one, left to right (``UnsqueezeBackward0``,
``SelectBackward0``, ``SliceBackward0`` nodes, each a view of the input), then all array
and boolean indices at once (``IndexBackward0``, a copy), with NumPy's rules for
combining them.  Error messages name the dimension of the original tensor, as PyTorch's
do.  Every node runs the table's ``getitem`` rule (a scatter-add of the gradient).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.kernels import build_index
from ..ir.ops import Op
from .device import is_device, to_device
from .fast_nodes import select_class
from .function import TensorBase
from .shape_ops import _ALIAS, _FULL, _INT64_MAX, _SIZES, _cls, _view_op, unsqueeze
from .tensor import Tensor, _dim, plain
from .tensor_ops import needs_grad, record


def _dim_of(args: tuple[Any, ...], params: dict[str, Any]) -> int:
    return len(params["index"]) - 1


def _part(k: int, default: Any) -> Any:
    def get(args: tuple[Any, ...], params: dict[str, Any]) -> Any:
        last = params["index"][-1]
        if not isinstance(last, tuple):
            return last
        value = last[k]
        return default if value is None else value

    return get


_SELECT = select_class(  # speed2: a cheaper NumPy backward (fast_nodes)
    _cls("SelectBackward0", Op.GETITEM, (("dim", _dim_of, None),
                                         ("index", _part(0, 0), None)) + _SIZES))
_SLICE = _cls("SliceBackward0", Op.GETITEM, (("dim", _dim_of, None), ("start", _part(1, 0), None),
                                              ("end", _part(2, _INT64_MAX), None),
                                              ("step", _part(3, 1), None)) + _SIZES)
_INDEX = _cls("IndexBackward0", Op.GETITEM, (("indices", lambda a, p: list(a[1:]), None),) + _SIZES)

# --- reads ------------------------------------------------------------------------------

def select(input: Tensor, dim: int, index: int, shown_dim: int | None = None) -> Tensor:
    """The slice at ``index`` along ``dim``, without that dimension (a view)."""
    a = input._array()
    if a.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        shown = d if shown_dim is None else shown_dim
        raise IndexError(f"index {index} is out of bounds for dimension {shown} with size {n}")
    static = (_FULL,) * d + (int(index),)
    data = a[(slice(None),) * d + (int(index), Ellipsis)]
    return _view_op(input, data, _SELECT, (), {"index": static}, Op.GETITEM)


def _slice(input: Tensor, d: int, s: slice) -> Tensor:
    a = input._array()
    start, stop, step = s.start, s.stop, s.step
    if step is not None and step <= 0:
        raise ValueError("step must be greater than zero")
    static = (_FULL,) * d + (("slice", start, stop, step),)
    data = a[(slice(None),) * d + (s, Ellipsis)]
    return _view_op(input, data, _SLICE, (), {"index": static}, Op.GETITEM)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = _dim(dim, input.ndim)
    start = start % input.shape[d] if start < 0 else start
    return _slice(input, d, slice(start, start + length, None))


def _index_part(c: Any) -> Any:
    """One index component as int, slice, None, Ellipsis or an index array."""
    if isinstance(c, TensorBase):
        d = c._data
        if d.ndim == 0 and d.dtype.kind in "iu":
            return int(d)
        return d if is_device(d) else np.asarray(d)  # a device index stays there
    if isinstance(c, (list, np.ndarray)):
        return np.asarray([x._host() if isinstance(x, Tensor) else x for x in c]
                          if isinstance(c, list) else c)
    if isinstance(c, (bool, np.bool_)):
        return np.asarray(c)
    if isinstance(c, (int, np.integer)):
        return int(c)
    if c is None or c is Ellipsis or isinstance(c, slice):
        return c
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     "Variables are valid indices (got " + type(c).__name__ + ")")


def getitem(input: Tensor, index: Any) -> Tensor:
    """``input[index]`` with PyTorch's node structure (see the module docstring)."""
    if type(index) is int:
        return select(input, 0, index)
    if index is Ellipsis or (type(index) is tuple and not index):
        return _view_op(input, input._array()[...], _ALIAS, (), {}, Op.ASARRAY)
    if isinstance(index, slice):
        return _slice(input, 0, index)
    parts = [_index_part(c) for c in (index if isinstance(index, tuple) else (index,))]
    used = sum(1 if isinstance(p, (int, slice)) else (p.ndim if p.dtype.kind == "b" else 1)
               for p in parts if p is not None and p is not Ellipsis)
    ndim = input.ndim
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    cur, dim, advanced = input, 0, []
    single = len(parts) == 1
    source = 0  # the dimension of ``input`` the next part indexes (for messages)
    for p in parts:
        if p is None:
            cur = unsqueeze(cur, dim)
            dim += 1
        elif p is Ellipsis:
            dim += ndim - used
            source += ndim - used
        elif isinstance(p, int):
            cur = select(cur, dim, p, source)
            source += 1
        elif isinstance(p, slice):
            source += 1
            if single or p != slice(None):
                cur = _slice(cur, dim, p)
            dim += 1
        else:
            advanced.append((dim, p))
            dim += p.ndim if p.dtype.kind == "b" else 1
            source += p.ndim if p.dtype.kind == "b" else 1
    if not advanced:
        return cur
    return _advanced(cur, advanced)


def _advanced(cur: Tensor, advanced: list[Any]) -> Tensor:
    static: list[Any] = []
    dyn: list[Any] = []
    at = 0
    for dim, arr in advanced:
        static.extend([_FULL] * (dim - at))
        if arr.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if is_device(cur._data) and not is_device(arr):
            arr = to_device(arr)  # a host index into a device tensor: copied there once
        elif is_device(arr) and not is_device(cur._data):
            raise RuntimeError("indices should be either on cpu or on the same device as the "
                               "indexed tensor (cpu)")
        if arr.dtype.kind == "b":
            shape = cur.shape[dim:dim + arr.ndim]
            if tuple(arr.shape) != tuple(shape):
                raise IndexError(f"The shape of the mask {list(arr.shape)} at index {dim} does "
                                 f"not match the shape of the indexed tensor {list(shape)} at "
                                 f"index {dim}")
            at = dim + arr.ndim
        else:
            n = cur.shape[dim]
            bad = arr[(arr >= n) | (arr < -n)]
            if bad.size:
                raise IndexError(f"index {int(bad.ravel()[0])} is out of bounds for dimension "
                                 f"{dim} with size {n}")
            at = dim + 1
        static.append(("in", len(dyn)))
        dyn.append(arr)
    data = cur._data[build_index(tuple(static), tuple(dyn))]
    if not isinstance(data, np.ndarray) and not is_device(data):
        data = np.asarray(data)[()]
    if needs_grad((cur,)):
        return record(_INDEX, data, (cur, *dyn), {"index": tuple(static)})
    return plain(data)


def numpy_index(index: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
    """An index for NumPy assignment, and its (static, dynamic) form for the table's rules."""
    parts = [_index_part(c) for c in (index if isinstance(index, tuple) else (index,))]
    static: list[Any] = []
    dyn: list[Any] = []
    np_parts: list[Any] = []
    for p in parts:
        if isinstance(p, np.ndarray):
            static.append(("in", len(dyn)))
            dyn.append(p)
        elif isinstance(p, slice):
            static.append(("slice", p.start, p.stop, p.step))
        else:
            static.append(p)
        np_parts.append(p)
    return tuple(np_parts), tuple(static), tuple(dyn)
