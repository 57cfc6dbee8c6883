"""Scatter-add on an array-API namespace, which has none (``rt.index_add_``'s fallback).

NumPy has ``np.add.at`` and CuPy ``cupyx.scatter_add``; the array API standard has
neither, so the adjoint of ``x[i]`` on such arrays adds through a one-hot matrix.
"""

from __future__ import annotations

import math
from typing import Any


def one_hot_add(xp: Any, out: Any, index: tuple[Any, ...], g: Any) -> Any:
    """``out`` with ``g`` added at ``index`` on any array-API namespace (no scatter-add
    there): the index arrays (adjacent, the other entries full slices) are made one
    linear index into their axes, whose one-hot matrix (repeated indices accumulate) is
    contracted with ``g``.  Costs O(n * len(i)); NumPy and CuPy never come here."""
    index = tuple(xp.asarray(e) if isinstance(e, list) else e for e in index)
    at = next((k for k, e in enumerate(index) if e is Ellipsis), None)
    if at is not None:
        fill = (slice(None),) * (out.ndim - len(index) + 1)
        index = index[:at] + fill + index[at + 1:]
    index = index + (slice(None),) * (out.ndim - len(index))
    if any(isinstance(e, slice) and e != slice(None) for e in index):
        # x[i, 1:]: add into the block the slices pick, then write the block back
        block = tuple(e if isinstance(e, slice) else slice(None) for e in index)
        inner = tuple(slice(None) if isinstance(e, slice) else e for e in index)
        out = xp.asarray(out, copy=True)
        out[block] = one_hot_add(xp, out[block], inner, g)
        return out
    arrays = [k for k, e in enumerate(index) if not isinstance(e, slice)]
    full = all(e == slice(None) for e in index if isinstance(e, slice))
    ints = all(not isinstance(index[k], bool) and hasattr(index[k], "dtype") or
               isinstance(index[k], int) for k in arrays)
    if not arrays or not full or not ints or arrays != list(range(arrays[0],
                                                                  arrays[-1] + 1)):
        raise TypeError(f"adding into {xp.__name__[15:]} arrays at this index needs a "
                        "scatter-add, which the array API does not have; index with "
                        "adjacent integer arrays and full slices, or use NumPy or CuPy")
    a0, a1 = arrays[0], arrays[-1] + 1
    dims = out.shape[a0:a1]
    parts = [xp.asarray(index[k]) for k in arrays]
    bshape = xp.broadcast_arrays(*parts)[0].shape if len(parts) > 1 else parts[0].shape
    lin = 0
    for k, p in zip(range(a0, a1), parts):
        lin = lin * out.shape[k] + xp.astype(xp.broadcast_to(p, bshape), xp.int64)
    n = math.prod(dims)
    flat = xp.reshape(lin, (-1,))
    hot = xp.astype(xp.reshape(xp.arange(n), (n, 1)) == xp.reshape(flat, (1, -1)),
                    out.dtype)
    g = xp.broadcast_to(xp.asarray(g), out.shape[:a0] + tuple(bshape) + out.shape[a1:])
    g = xp.reshape(g, out.shape[:a0] + (flat.shape[0],) + out.shape[a1:])
    added = xp.moveaxis(xp.matmul(xp.moveaxis(g, a0, -1), hot.T), -1, a0)
    merged = xp.reshape(out, out.shape[:a0] + (n,) + out.shape[a1:])
    return xp.reshape(merged + added, out.shape)
