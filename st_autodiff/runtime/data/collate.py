"""``default_collate`` and ``default_convert``: samples into batches, as PyTorch builds them.

A batch is a list of samples; collating recurses into the first sample's structure:
tensors are stacked, NumPy arrays become tensors and are stacked, Python floats become one
float64 tensor and ints one int64 tensor (bools a bool tensor), strings stay a list,
mappings collate per key (keeping the mapping's type), namedtuples per field, and other
sequences are transposed into a list of collated columns (tuples come back as lists).
"""

from __future__ import annotations

import collections.abc as abc
import copy
import re
from typing import Any

import numpy as np

from .. import dtypes
from ..factory import as_tensor, tensor
from ..grad_mode import STATE
from ..shape_ops import stack
from ..tensor import Tensor, plain

__all__ = ["default_collate", "default_convert"]

_BAD_NUMPY = re.compile(r"[SaUO]")
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


def _is_numpy(elem: Any) -> bool:
    return type(elem).__module__ == "numpy" and not isinstance(elem, (np.str_, np.bytes_))


def _same_mapping(elem: Any, cols: dict[Any, Any]) -> Any:
    """``cols`` in ``elem``'s mapping type (a copy updated in place when mutable)."""
    try:
        if isinstance(elem, abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(cols)
            return clone
        return type(elem)(cols)
    except TypeError:
        return cols


def _same_sequence(elem: Any, items: list[Any]) -> Any:
    """``items`` in ``elem``'s sequence type (a copy written in place when mutable)."""
    try:
        if isinstance(elem, abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def _stack_host(batch: Any) -> Tensor | None:
    """The common case at NumPy speed: host tensors of one dtype and shape that need no
    graph.  ``None`` when ``stack`` must do it (grads, mixed dtypes or shapes, GPU)."""
    if STATE.inference:
        return None
    first = batch[0]._data
    kinds = (np.ndarray, np.generic)
    for t in batch:
        d = t._data
        if (t._requires_grad or not isinstance(d, kinds) or d.dtype != first.dtype
                or d.shape != first.shape):
            return None
    return plain(np.stack([t._data for t in batch]))


def default_collate(batch: Any) -> Any:
    """Merge a list of samples into a batch (see the module docstring).

    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    elem = batch[0]
    kind = type(elem)
    if isinstance(elem, Tensor):
        fast = _stack_host(batch)
        return stack(batch, 0) if fast is None else fast
    if _is_numpy(elem):
        if isinstance(elem, np.ndarray):
            if _BAD_NUMPY.search(elem.dtype.str) is not None:
                raise TypeError(_COLLATE_ERROR.format(elem.dtype))
            return default_collate([as_tensor(b) for b in batch])
        if elem.shape == ():
            return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, abc.Mapping):
        return _same_mapping(elem, {key: default_collate([d[key] for d in batch])
                                    for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return kind(*(default_collate(col) for col in zip(*batch)))
    if isinstance(elem, abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(col) for col in zip(*batch)]
        return cols if isinstance(elem, tuple) else _same_sequence(elem, cols)
    raise TypeError(_COLLATE_ERROR.format(kind))


def default_convert(data: Any) -> Any:
    """Turn NumPy arrays (also inside mappings and sequences) into tensors, for
    ``batch_size=None``."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _BAD_NUMPY.search(data.dtype.str) is not None:
            return data
        return as_tensor(np.asarray(data))
    if isinstance(data, abc.Mapping):
        return _same_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data
