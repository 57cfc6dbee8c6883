"""Shape helpers and predicates: ``atleast_1d``/``2d``/``3d``, ``broadcast_tensors``,
``broadcast_shapes``, ``moveaxis``, ``unflatten``, ``ravel``, ``column_stack``,
``row_stack``, ``dstack``, ``block_diag``, ``combinations``, ``is_nonzero``,
``is_complex`` and ``is_same_size``.

All but ``block_diag`` (``BlockDiagBackward0``) are compositions of views, ``cat`` and
``stack``, so their ``grad_fn`` is the node PyTorch's composite gives.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from . import device as D
from . import dtypes
from . import shape_ops as S
from .function import TensorBase, node_class
from .grad_mode import STATE
from .tensor import Tensor, _dim, plain
from .tensor_ops import record

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "column_stack", "combinations", "dstack", "is_complex", "is_nonzero",
    "is_same_size", "moveaxis", "ravel", "row_stack", "unflatten",
]


def _grad(*values: Any) -> bool:
    return STATE.enabled and any(isinstance(v, TensorBase) and v._requires_grad
                                 for v in values)


# --- shapes -----------------------------------------------------------------------------------

def _atleast(tensors: tuple[Any, ...], n: int) -> Any:
    one = len(tensors) == 1 and isinstance(tensors[0], TensorBase)
    items = tensors if not (len(tensors) == 1 and isinstance(tensors[0], (list, tuple))) \
        else tuple(tensors[0])
    out = []
    for t in items:
        if t.ndim == 0:
            t = S.reshape(t, (1,) * n)
        elif t.ndim == 1 and n >= 2:
            t = S.unsqueeze(t, 0)
            if n == 3:
                t = S.unsqueeze(t, -1)
        elif t.ndim == 2 and n == 3:
            t = S.unsqueeze(t, -1)
        out.append(t)
    return out[0] if one else tuple(out)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (1-D becomes a row)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions."""
    return _atleast(tensors, 3)


def broadcast_shapes(*shapes: Any) -> dtypes.Size:
    """The shape that ``shapes`` broadcast to."""
    norm = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return dtypes.Size(np.broadcast_shapes(*norm))
    except ValueError:
        raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape") \
            from None


def broadcast_tensors(*tensors: Tensor) -> tuple[Any, ...]:
    """Every tensor expanded to the common broadcast shape (views)."""
    shape = tuple(broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    return tuple(t if tuple(t.shape) == shape else S.expand(t, *shape) for t in tensors)


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:
    """``movedim`` under NumPy's name."""
    return S.movedim(input, source, destination)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (one may be -1)."""
    axis = _dim(dim, input.ndim)
    shape = tuple(input.shape)
    sizes = tuple(int(s) for s in sizes)
    if sizes.count(-1) == 1:
        known = math.prod(s for s in sizes if s != -1)
        sizes = tuple(shape[axis] // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != shape[axis]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[axis]}) in the input tensor")
    return S.view(input, *shape[:axis], *sizes, *shape[axis + 1:])


def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-D tensor (a view when the layout allows)."""
    return S.reshape(input, -1)


def column_stack(tensors: Any) -> Tensor:
    """1-D (and 0-d) tensors become columns; the rest join along dim 1."""
    cols = [S.reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors]
    return S.cat(cols, 1)


def row_stack(tensors: Any) -> Tensor:
    """``vstack``: rows joined along dim 0."""
    return S.cat(list(atleast_2d(*tensors)) if len(tensors) > 1 else [atleast_2d(tensors[0])],
                 0)


def dstack(tensors: Any) -> Tensor:
    """Tensors made at least 3-D, joined along dim 2."""
    ts = atleast_3d(*tensors)
    return S.cat(list(ts) if isinstance(ts, tuple) else [ts], 2)


def _rule_block_diag(ops: Any, g: Any, out: Any, *blocks: Any,
                     spans: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    return tuple(ops.reshape(g[r0:r1, c0:c1], ops.shape(b))
                 for (r0, r1, c0, c1), b in zip(spans, blocks, strict=True))


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d, 1-d as a row, or 2-d) placed along the diagonal of one matrix."""
    mats = [t._data.reshape(1, -1) if t.ndim <= 1 else t._data for t in tensors]
    for t in tensors:
        if t.ndim > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input 0 has {t.ndim} dimensions")
    dt = dtypes.result_type(*tensors).np if len(tensors) > 1 else mats[0].dtype
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    data = D.zeros((rows, cols), dt, like=mats[0])
    spans, r, c = [], 0, 0
    for m in mats:
        data[r:r + m.shape[0], c:c + m.shape[1]] = m
        spans.append((r, r + m.shape[0], c, c + m.shape[1]))
        r, c = r + m.shape[0], c + m.shape[1]
    if _grad(*tensors):
        cls = node_class("BlockDiagBackward0", _rule_block_diag, tuple(range(len(tensors))),
                         (), False)
        return record(cls, data, tuple(tensors), {"spans": tuple(spans)})
    return plain(data)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every length-``r`` combination of a 1-D tensor's elements, one per row."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    n = input.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(pick(range(n), r)), dtype=np.int64).reshape(-1, r)
    if rows.shape[0] == 0:
        return plain(np.zeros((0,) if r else (0,), input._data.dtype))
    from .indexing import getitem

    return S.stack([getitem(input, rows[:, k]) for k in range(r)], 1)


# --- predicates -------------------------------------------------------------------------------

def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0])


def is_complex(input: Tensor) -> bool:
    """False: this runtime's tensors are real."""
    kind: str = input._data.dtype.kind
    return kind == "c"


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal."""
    return tuple(input.shape) == tuple(other.shape)
