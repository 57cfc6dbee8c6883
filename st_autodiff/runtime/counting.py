"""Counting, binning and set ops with no gradient: ``bincount``, ``histc``, ``bucketize``,
``searchsorted``, ``unique``, ``unique_consecutive``, ``isin``, ``count_nonzero``,
``triu_indices``/``tril_indices``, ``heaviside`` and the ``bitwise_*`` family.

Results follow PyTorch's dtypes: indices and counts are int64 (int32 with
``out_int32=True``), ``bincount`` without weights counts in int64 and with weights sums in
the weights' floating dtype (float64 for integer weights), ``histc`` counts in the input's
float dtype.  ``unique`` always returns sorted values (as PyTorch's CPU kernel does, even
with ``sorted=False``) and never merges NaNs.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from . import device as D
from . import dtypes
from .function import TensorBase
from .tensor import Tensor, _dim, plain

__all__ = [
    "bincount", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bucketize", "count_nonzero", "heaviside", "histc",
    "isin", "searchsorted", "tril_indices", "triu_indices", "unique", "unique_consecutive",
]


def _word(a: Any) -> str:
    from .functional import _type_word

    return _type_word(dtypes.from_numpy_dtype(a.dtype))


def _data(v: Any) -> Any:
    return v._data if isinstance(v, TensorBase) else np.asarray(v)


def _same_device(x: Any, a: Any, y: Any, b: Any) -> tuple[Any, Any]:
    """``a`` and ``b`` (the data of ``x`` and ``y``), one on a device: a Python value joins
    the device; host tensors follow PyTorch (0-d: a scalar, else an error)."""
    if not isinstance(x, TensorBase) and not D.is_device(a):
        return D.to_device(a), b
    if not isinstance(y, TensorBase) and not D.is_device(b):
        return a, D.to_device(b)
    return D.same_device(a, b) if D.is_device(a) != D.is_device(b) else (a, b)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value ``0..max`` occurs in a 1-D int tensor (or the sum of its
    ``weights``), at least ``minlength`` long."""
    a = input._data
    if a.dtype.kind == "f":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{_word(a)}\'')
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return plain(np.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    return plain(np.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(dt))


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both
    are 0); elements outside are ignored."""
    a = input._data
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{_word(a)}\'')
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got "
                           f"{bins} for dimension 0")  # noqa: ISC001
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    flat = a.reshape(-1)
    inside = flat[(flat >= lo) & (flat <= hi)].astype(np.float64)
    pos = np.floor((inside - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return plain(np.bincount(pos, minlength=bins).astype(a.dtype))


def _index_dtype(out_int32: bool) -> Any:
    return np.int32 if out_int32 else np.int64


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Tensor:
    """Where each value of ``input`` would go in ``sorted_sequence`` (along its last dim) to
    keep it sorted: before equal entries, or after them with ``right``/``side='right'``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites,"
                               " got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, _data(sorter), -1)
    values = _data(input)
    how: Literal["left", "right"] = "right" if right else "left"
    dt = _index_dtype(out_int32)
    if seq.ndim == 1:
        return plain(D.asarray(np.searchsorted(seq, values, side=how)).astype(dt))
    if values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(values.shape)}")
    rows_s = seq.reshape(-1, seq.shape[-1])
    rows_v = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v, strict=True)])
    return plain(out.reshape(values.shape).astype(dt))


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
              ) -> Tensor:
    """The bucket of each element for the 1-D sorted ``boundaries`` (``searchsorted``)."""
    if boundaries.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _pack(values: Any, inverse: Any, counts: Any, return_inverse: bool,
          return_counts: bool) -> Any:
    out = [plain(values)]
    if return_inverse:
        out.append(plain(inverse.astype(np.int64)))
    if return_counts:
        out.append(plain(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (or distinct slices along ``dim``) in ascending order, with
    where each element went (``return_inverse``) and how many there were
    (``return_counts``)."""
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _pack(values, inverse.reshape(a.shape), counts, return_inverse, return_counts)
    axis = _dim(dim, a.ndim)
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=axis)
    return _pack(values, inverse.reshape(-1), counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Collapse each run of equal consecutive elements (or slices along ``dim``) to one."""
    a = input._data
    if dim is None:
        moved = a.reshape(-1, 1)
        shape_inverse: tuple[Any, ...] = a.shape
    else:
        axis = _dim(dim, a.ndim)
        moved = np.moveaxis(a, axis, 0).reshape(a.shape[axis], -1)
        shape_inverse = (a.shape[axis],)
    n = moved.shape[0]
    xp = D.xp_of(a)
    # a run starts where a slice differs from the one before; the number of runs is the one
    # host read (``flatnonzero``), as the size of PyTorch's result is
    first = xp.concatenate([xp.ones(min(n, 1), dtype=bool),
                            xp.any(moved[1:] != moved[:-1], axis=1)])
    starts = xp.flatnonzero(first)
    counts = xp.diff(starts, append=xp.full(1, n, dtype=starts.dtype))
    inverse = (xp.cumsum(first) - 1).reshape(shape_inverse)
    if dim is None:
        values = a.reshape(-1)[starts]
    else:
        values = xp.take(a, starts, axis=axis)
    return _pack(values, inverse, counts, return_inverse, return_counts)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each of ``elements`` occurs in ``test_elements`` (a bool tensor)."""
    a, b = _data(elements), _data(test_elements)
    if D.is_device(a) or D.is_device(b):
        a, b = _same_device(elements, a, test_elements, b)
        return plain(D.xp_of(a, b).isin(a, b, invert=invert))
    return plain(D.asarray(np.isin(a, b, invert=invert)))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """How many elements are not zero (over ``dim``, all by default), as int64."""
    a = input._data
    if dim is None:
        if D.is_device(a):
            xp = D.xp_of(a)  # NumPy < 2.3 gives a Python int for the whole array
            return plain(xp.asarray(xp.count_nonzero(a)).astype(np.int64))
        return plain(np.int64(np.count_nonzero(a)))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(_dim(d, a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
    return plain(D.asarray(D.xp_of(a).count_nonzero(a, axis=axes)).astype(np.int64))


def _tri_indices(row: int, col: int, offset: int, upper: bool, dtype: Any,
                 device: Any) -> Tensor:
    """Computed from the shape alone on the host, then placed as every factory places
    (``device``, else the default device)."""
    from .factory import _finish  # noqa: PLC0415

    mask = np.triu(np.ones((row, col), bool), offset) if upper else \
        np.tril(np.ones((row, col), bool), offset)
    r, c = np.nonzero(mask)
    dt = dtypes.to_dtype(dtype) if dtype is not None else None
    return _finish(np.stack([r, c]).astype(np.int64), dt, device, False)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The ``(2, N)`` row and column indices of the upper triangle of a ``row x col``
    matrix, row by row."""
    return _tri_indices(row, col, offset, True, dtype, device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The ``(2, N)`` row and column indices of the lower triangle, row by row."""
    return _tri_indices(row, col, offset, False, dtype, device)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where ``input < 0``, 1 where ``input > 0`` and ``values`` where it is 0."""
    a, v = input._data, _data(values)
    if a.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return plain(D.asarray(np.heaviside(a, v)).astype(a.dtype))


def _bitwise(ufunc: Any, name: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        a, b = _data(input), _data(other)
        for d in (a, b):
            if d.dtype.kind == "f":
                raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_word(d)}\'')
        if isinstance(input, TensorBase) and isinstance(other, TensorBase):
            dt = dtypes.result_type(input, other).np
        else:
            dt = a.dtype if isinstance(input, TensorBase) else b.dtype
        if D.is_device(a) or D.is_device(b):
            a, b = _same_device(input, a, other, b)
        return plain(D.asarray(ufunc(a.astype(dt), b.astype(dt))))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``{name}`` elementwise on integer or bool tensors."
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "lshift")
bitwise_right_shift = _bitwise(np.right_shift, "rshift")


def bitwise_not(input: Tensor) -> Tensor:
    """Bitwise NOT (logical NOT for bool tensors)."""
    a = input._data
    if a.dtype.kind == "f":
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for \'{_word(a)}\'')
    return plain(np.invert(a))
