"""Sorting and order statistics: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``,
``median``, ``nanmedian`` and ``mode``, as PyTorch computes them on the CPU.

Every op that returns values picked out of its input records one node (``SortBackward0``,
``TopkBackward0`` ...) over the input and the int64 indices it chose; its backward scatters
the incoming gradient back to those positions (the rule of ``take_along_axis``).  The
indices output has no graph, as in PyTorch.  Ordering follows PyTorch: NaN sorts above
every number, ``stable=True`` keeps equal elements in their original order (also when
descending), ``stable=False`` (the default) orders equal elements as ``std::sort`` does
(``introsort.py``; stable for rows of at most 16), medians of an even count are the lower
middle value, and ``mode`` returns the smallest of the most frequent values with the index
of its last occurrence.  ``topk`` replays the C++ selection PyTorch runs where equal
elements (or ``sorted=False``) make it matter; ``kthvalue`` takes the first of equal
elements in stable order, where PyTorch's own quickselect may pick another.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import device as D
from .function import node_class
from .grad_mode import STATE
from .reductions import _return_type, _rule_max_dim
from .tensor import Tensor, _dim, plain
from .tensor_ops import record

__all__ = ["argsort", "kthvalue", "median", "mode", "msort", "nanmedian", "sort", "topk"]

RETURN_TYPES = {n: _return_type(n) for n in ("sort", "topk", "kthvalue", "median",
                                               "nanmedian", "mode")}


def _plan(keepdim: bool) -> tuple[Any, ...]:
    plan: tuple[Any, ...] = (("dim", lambda a, p: p["dim"], None), ("indices", 1, None))
    if keepdim:
        plan += (("keepdim", lambda a, p: p["keepdim"], None),)
    return plan + (("self_sym_sizes", lambda a, p: tuple(a[0].shape), None),)


_NODES = {name: node_class(name, _rule_max_dim, (0,), _plan(keep), False)
          for name, keep in (("SortBackward0", False), ("SortBackward1", False),
                             ("TopkBackward0", False), ("KthvalueBackward0", True),
                             ("MedianBackward1", True), ("NanmedianBackward1", True),
                             ("ModeBackward0", True))}


def _picked(name: str, input: Tensor, data: Any, idx: Any, dim: int, keepdim: bool,
            kind: str) -> Any:
    """``(values, indices)`` of a picking op, recording ``name`` when input needs grad."""
    idx = D.asarray(idx, dtype=np.int64)
    if input._requires_grad and STATE.enabled and input._data.dtype.kind == "f":
        values = record(_NODES[name], data, (input, idx), {"dim": dim, "keepdim": keepdim})
    else:
        values = plain(data)
    return RETURN_TYPES[kind](values, plain(idx))


def _stable_order(a: np.ndarray[Any, Any], axis: int, descending: bool) -> np.ndarray[Any, Any]:
    """Stable sorting indices along ``axis``; NaN is the largest value."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    flipped = np.flip(a, axis)
    back = np.flip(n - 1 - np.argsort(flipped, axis=axis, kind="stable"), axis)
    result: np.ndarray[Any, Any] = D.xp_of(a).ascontiguousarray(back)
    return result


#: the replays of the C++ algorithms are pure Python: they run on at most this many
#: elements per call (rows to replay times their length); beyond it ``sort`` keeps the
#: stable order and ``topk`` the sorted one, which can differ from PyTorch among equal
#: elements (and in the order of ``sorted=False``)
_REPLAY_LIMIT = 200_000


def _sort_order(a: np.ndarray[Any, Any], axis: int, descending: bool,
                stable: bool) -> np.ndarray[Any, Any]:
    """The indices PyTorch's CPU sort gives: stable, or for ``stable=False`` the order
    ``std::sort`` leaves equal elements in (the same as stable for rows of at most 16)."""
    order = _stable_order(a, axis, descending)
    n = a.shape[axis]
    if stable or n <= 16 or D.is_device(a):  # (a GPU sort is no std::sort: stable there)
        return order
    moved = np.moveaxis(order, axis, -1)
    keys = np.moveaxis(a, axis, -1)
    ranked = np.take_along_axis(keys, moved, -1)
    tied = (ranked[..., 1:] == ranked[..., :-1]).any(-1)
    if a.dtype.kind == "f":
        tied |= np.isnan(ranked).sum(-1) > 1
    if not tied.any() or int(tied.sum()) * n > _REPLAY_LIMIT:
        return order
    from .introsort import std_sort_order

    less = _greater if descending else _less
    moved = moved.copy()
    for row in np.ndindex(tied.shape):
        if tied[row]:
            moved[row] = std_sort_order(keys[row].tolist(), less)
    return np.ascontiguousarray(np.moveaxis(moved, -1, axis))


def _less(x: Any, y: Any) -> bool:
    return bool((x < y) or (x == x and y != y))  # NaN (x != x) above every number


def _greater(x: Any, y: Any) -> bool:
    return bool((x > y) or (x != x and y == y))


def sort(input: Tensor, dim: int = -1, descending: bool = False, *,
         stable: bool | None = None) -> Any:
    """The values along ``dim`` in order, and where each came from (``return_types.sort``).

    >>> import st_autodiff as torch
    >>> torch.sort(torch.tensor([3, 1, 2])).indices
    tensor([1, 2, 0])
    """
    a = input._data
    axis = _dim(dim, a.ndim)
    if a.ndim == 0:
        return _picked("SortBackward0" if stable is None else "SortBackward1", input, a.copy(),
                       np.int64(0), 0, True, "sort")
    idx = _sort_order(a, axis, bool(descending), bool(stable))
    data = np.take_along_axis(a, idx, axis)
    return _picked("SortBackward0" if stable is None else "SortBackward1", input, data, idx,
                   axis, True, "sort")


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
            ) -> Tensor:
    """The int64 indices that sort ``input`` along ``dim`` (stable)."""
    a = input._data
    if a.ndim == 0:
        return plain(np.int64(0))
    order = _sort_order(a, _dim(dim, a.ndim), bool(descending), bool(stable))
    return plain(order.astype(np.int64))


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``."""
    values: Tensor = sort(input, 0).values
    return values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
         ) -> Any:
    """The ``k`` largest (or smallest) values along ``dim`` with their indices.

    Ties, and the order with ``sorted=False``, follow PyTorch's CPU kernel: a partial sort
    when ``64 * k <= n``, else ``nth_element`` (then a sort of the first ``k - 1``)."""
    a = input._data
    axis = _dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a.ndim == 0:
        return _picked("TopkBackward0", input, a.copy(), np.int64(0), 0, True, "topk")
    order = _stable_order(a, axis, bool(largest))
    idx = order[(slice(None),) * axis + (slice(0, k),)]
    if k and not D.is_device(a):  # the CPU kernel's tie order; stable order on a device
        idx = _replay_topk(a, order, idx, axis, k, bool(largest), bool(sorted))
    return _picked("TopkBackward0", input, np.take_along_axis(a, idx, axis), idx, axis, True,
                   "topk")


def _replay_topk(a: np.ndarray[Any, Any], order: np.ndarray[Any, Any], idx: np.ndarray[Any, Any],
                 axis: int,
                 k: int,
                 largest: bool, sorted_: bool) -> np.ndarray[Any, Any]:
    """``idx`` with the rows whose result depends on the selection algorithm replaced by
    its replay (rows with equal elements, and every row when ``sorted=False``)."""
    from .introsort import std_nth_element_order, std_partial_sort_order, std_sort_range

    keys = np.moveaxis(a, axis, -1)
    ranked = np.take_along_axis(keys, np.moveaxis(order, axis, -1), -1)
    redo = (ranked[..., 1:] == ranked[..., :-1]).any(-1)
    if a.dtype.kind == "f":
        redo |= np.isnan(ranked).sum(-1) > 1
    if not sorted_:
        redo = np.ones(redo.shape, bool)
    if not redo.any() or int(redo.sum()) * keys.shape[-1] > _REPLAY_LIMIT:
        return idx
    less = _greater if largest else _less
    out = np.moveaxis(idx, axis, -1).copy()
    n = keys.shape[-1]
    for row in np.ndindex(redo.shape):
        if not redo[row]:
            continue
        values = keys[row].tolist()
        if k * 64 <= n:
            picked = std_partial_sort_order(values, k, less)
        else:
            picked = std_nth_element_order(values, k - 1, less)
            if sorted_:
                picked = std_sort_range(picked, values, 0, k - 1, less)
        out[row] = picked[:k]
    return np.ascontiguousarray(np.moveaxis(out, -1, axis))


def _kth(a: np.ndarray[Any, Any], axis: int, pos: Any) -> np.ndarray[Any, Any]:
    """Indices (keepdims) of the element at sorted position ``pos`` along ``axis``."""
    xp = D.xp_of(a)
    order = _stable_order(a, axis, False)
    picked: np.ndarray[Any, Any]
    if isinstance(pos, int):
        picked = xp.take(order, [pos], axis=axis)
    else:
        picked = xp.take_along_axis(order, xp.expand_dims(pos, axis), axis)
    return picked


def _finish(name: str, kind: str, input: Tensor, a: np.ndarray[Any, Any], idx: Any, axis: int,
            keepdim: bool) -> Any:  # idx: an index array (a NumPy int for a 0-d input)
    xp = D.xp_of(a)
    data = xp.take_along_axis(a, idx, axis) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        idx, data = xp.squeeze(idx, axis), xp.squeeze(data, axis)
    return _picked(name, input, data, idx, axis, bool(keepdim), kind)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest value along ``dim`` (1-based) and its index."""
    a = input._data
    axis = _dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    idx = _kth(a, axis, k - 1) if a.ndim else np.int64(0)
    return _finish("KthvalueBackward0", "kthvalue", input, a, idx, axis, keepdim)


def _rule_even(ops: Any, g: Any, out: Any, x: Any, share: Any) -> tuple[Any, ...]:
    """``median()``/``nanmedian()`` of all elements: the gradient is shared evenly by the
    elements equal to the result; the others get 0 even when ``g`` is NaN or infinite (as
    PyTorch writes the shares into zeros rather than multiplying ``g`` by a mask)."""
    return (ops.where(ops.const(share != 0), ops.mul(g, ops.const(share)), 0), None)


_MEDIAN_ALL = {n: node_class(n, _rule_even, (0,), (("self", 0, None), ("result", "result",
                                                                         None)), False)
               for n in ("MedianBackward0", "NanmedianBackward0")}


def _median_all(input: Tensor, ignore_nan: bool) -> Tensor:
    a = input._data
    xp = D.xp_of(a)
    flat = a.reshape(-1)
    n = flat.size
    order = xp.sort(flat)  # NaN sorts last
    if n == 0:
        value = xp.asarray(np.nan, dtype=a.dtype)
    elif a.dtype.kind == "f":  # chosen with device arithmetic: no host read of the data
        nans = xp.isnan(flat).sum()
        mid = order[xp.maximum((n - nans - 1) // 2, 0)] if ignore_nan else order[(n - 1) // 2]
        void = nans == n if ignore_nan else nans > 0
        value = xp.where(void, xp.asarray(np.nan, dtype=a.dtype), mid).astype(a.dtype)
    else:
        value = D.asarray(order[(n - 1) // 2], dtype=a.dtype)
    name = "NanmedianBackward0" if ignore_nan else "MedianBackward0"
    if input._requires_grad and STATE.enabled and a.dtype.kind == "f":
        mask = xp.where(xp.isnan(value), xp.isnan(a), a == value)
        share = (mask / mask.sum()).astype(a.dtype)
        return record(_MEDIAN_ALL[name], value, (input, share), {})
    return plain(value)


def _median(input: Tensor, dim: Any, keepdim: bool, ignore_nan: bool) -> Any:
    if dim is None:
        return _median_all(input, ignore_nan)
    a = input._data
    axis = _dim(dim, a.ndim)
    kind = "nanmedian" if ignore_nan else "median"
    name = "NanmedianBackward1" if ignore_nan else "MedianBackward1"
    if a.ndim == 0:
        return _finish(name, kind, input, a, np.int64(0), 0, keepdim)
    n = a.shape[axis]
    if n == 0:
        raise IndexError(f"{kind}(): Expected reduction dim {axis} to have non-zero size.")
    xp = D.xp_of(a)
    if a.dtype.kind == "f":
        nans = xp.isnan(a).sum(axis=axis)
        if ignore_nan:  # lower middle of the numbers; all NaN: the first NaN
            pos = xp.where(nans == n, 0, (n - nans - 1) // 2)
        else:  # any NaN: the first NaN (NaN sorts last)
            pos = xp.where(nans > 0, n - nans, (n - 1) // 2)
    else:
        pos = xp.full(a.shape[:axis] + a.shape[axis + 1:], (n - 1) // 2)
    return _finish(name, kind, input, a, _kth(a, axis, pos), axis, keepdim)


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of all elements, or ``(values, indices)`` along ``dim``; NaN wins."""
    return _median(input, dim, keepdim, False)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median`` ignoring NaN (NaN only where every element is NaN)."""
    return _median(input, dim, keepdim, True)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along ``dim`` (the smallest on ties) and the index of its last
    occurrence."""
    a = input._data
    axis = _dim(dim, a.ndim)
    if a.ndim == 0:
        return _finish("ModeBackward0", "mode", input, a, np.int64(0), 0, keepdim)
    xp = D.xp_of(a)
    moved = xp.moveaxis(a, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    picks = _mode_rows(xp, rows)
    idx = xp.moveaxis(picks.reshape(moved.shape[:-1] + (1,)), -1, axis)
    return _finish("ModeBackward0", "mode", input, a, idx, axis, keepdim)


def _mode_rows(xp: Any, rows: Any) -> Any:
    """Per row, the index of the last occurrence of its most frequent value (the smallest
    such value on ties; NaN equals NaN), with whole-array ops only (no loop over rows, no
    host reads): runs of equal values in stable sorted order, their starts and lengths."""
    r, n = rows.shape
    order = xp.argsort(rows, axis=-1, kind="stable")
    s = xp.take_along_axis(rows, order, -1)
    new = s[:, 1:] != s[:, :-1]
    if rows.dtype.kind == "f":
        new &= ~(xp.isnan(s[:, 1:]) & xp.isnan(s[:, :-1]))
    starts = xp.concatenate([xp.ones((r, 1), dtype=bool), new], axis=-1)
    j = xp.arange(n)
    first = xp.sort(xp.where(starts, j, n), axis=-1)  # run k starts at first[:, k] (n: none)
    lengths = xp.diff(first, axis=-1, append=xp.full((r, 1), n))
    best = xp.argmax(lengths, axis=-1)[:, None]  # the first (smallest) most frequent value
    lo = xp.take_along_axis(first, best, -1)
    hi = lo + xp.take_along_axis(lengths, best, -1)
    return xp.where((j >= lo) & (j < hi), order, -1).max(-1)
