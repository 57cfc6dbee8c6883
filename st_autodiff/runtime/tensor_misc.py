"""Everyday shape and matrix helpers: ``triu``/``tril``, ``roll``, ``rot90``, ``fliplr``,
``repeat_interleave``, ``diag``, ``diag_embed``, ``diagflat``, ``fill_diagonal_``,
``cross``, ``meshgrid``, ``cartesian_prod``, ``tensor_split``, ``frac`` and ``sgn``.

Each differentiable op records the node PyTorch records (``TriuBackward0``,
``RollBackward0``, ``Rot90Backward0``, ``DiagEmbedBackward0``, ``LinalgCrossBackward0`` ...)
or is built from ops that do (``meshgrid`` from views and ``expand``, ``cartesian_prod``
ending in ``stack``), so ``grad_fn`` reads as in PyTorch.  Rules that have no op in the
shared table take raw arrays in the usual backward and call the Tensor function itself
when ``ops.tensors`` (a ``create_graph`` backward), so their backward is differentiable
again.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op
from . import device as D
from . import shape_ops as S
from .function import TensorBase, node_class
from .grad_mode import STATE
from .tensor import Tensor, _dim, plain
from .tensor_ops import record

__all__ = [
    "cartesian_prod", "cross", "diag", "diag_embed", "diagflat", "fill_diagonal_", "fliplr",
    "flipud", "frac", "linalg_cross", "meshgrid", "repeat_interleave", "roll", "rot90", "sgn",
    "tensor_split", "tril", "tril_", "triu", "triu_",
]


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _grad(input: Tensor, *others: Any) -> bool:
    if not STATE.enabled:
        return False
    return any(isinstance(t, TensorBase) and t._requires_grad and t._data.dtype.kind == "f"
               for t in (input, *others))


# --- triangles ------------------------------------------------------------------------------

_TRIU = node_class("TriuBackward0", RULES[Op.TRIU], (0,), (("diagonal", _p("k"), None),), False)
_TRIL = node_class("TrilBackward0", RULES[Op.TRIL], (0,), (("diagonal", _p("k"), None),), False)


def _triangle(input: Tensor, diagonal: int, upper: bool) -> Tensor:
    a = input._data
    if a.ndim < 2:
        name = "triu" if upper else "tril"
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    data = np.triu(a, diagonal) if upper else np.tril(a, diagonal)
    if _grad(input):
        return record(_TRIU if upper else _TRIL, data, (input,), {"k": int(diagonal)})
    return plain(data)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims (on and above ``diagonal``), zeros below."""
    return _triangle(input, diagonal, True)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims (on and below ``diagonal``), zeros above."""
    return _triangle(input, diagonal, False)


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``triu``."""
    from .inplace import inplace

    return inplace(self, triu, diagonal)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``tril``."""
    from .inplace import inplace

    return inplace(self, tril, diagonal)


# --- flips, rolls and rotations -------------------------------------------------------------

def fliplr(input: Tensor) -> Tensor:
    """Reverse the columns (dim 1)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return S.flip(input, [1])


def flipud(input: Tensor) -> Tensor:
    """Reverse the rows (dim 0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return S.flip(input, [0])


_ROLL = node_class("RollBackward0", RULES[Op.ROLL], (0,),
                   (("shifts", _p("shift"), None), ("dims", _p("axis"), None)), False)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Shift elements along ``dims`` cyclically (over the flattened tensor without dims)."""
    a = input._data
    shift = tuple(int(s) for s in shifts) if isinstance(shifts, (tuple, list)) else int(shifts)
    if dims is None:
        if isinstance(shift, tuple) and len(shift) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift)}, dims:0")
        axis: Any = None
        shift = shift[0] if isinstance(shift, tuple) else shift
    else:
        dims_t = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
        shift_t = shift if isinstance(shift, tuple) else (shift,)
        if len(shift_t) != len(dims_t):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_t)}, "
                               f"dims:{len(dims_t)}")
        axis, shift = tuple(_dim(d, a.ndim) for d in dims_t), shift_t
    data = np.roll(a, shift, axis)
    if _grad(input):
        return record(_ROLL, data, (input,), {"shift": shift, "axis": axis})
    return plain(data)


def _rule_rot90(ops: Any, g: Any, out: Any, x: Any, k: int = 1,
                dims: tuple[Any, ...] = (0, 1)) -> tuple[Any, ...]:
    if ops.tensors:
        return (rot90(g, -k, list(dims)),)
    return (np.rot90(g, -k, dims),)


_ROT90 = node_class("Rot90Backward0", _rule_rot90, (0,),
                    (("k", _p("k"), None), ("dims", _p("dims"), None)), False)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotate by ``k`` quarter turns in the plane ``dims`` (from the first towards the
    second)."""
    a = input._data
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d0, d1 = _dim(dims[0], a.ndim), _dim(dims[1], a.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    data = D.ascontiguous(np.rot90(a, k, (d0, d1)))
    if _grad(input):
        return record(_ROT90, data, (input,), {"k": int(k), "dims": (d0, d1)})
    return plain(data)


# --- repeat_interleave ------------------------------------------------------------------------

def _rule_index_select(ops: Any, g: Any, out: Any, x: Any, index: Any,
                       dim: int = 0) -> tuple[Any, ...]:
    return RULES[Op.TAKE](ops, g, None, x, index, axis=dim)


_INDEX_SELECT = node_class("IndexSelectBackward0", _rule_index_select, (0,),
                           (("dim", _p("dim"), None), ("index", 1, None),
                            ("self_sym_sizes", lambda a, p: tuple(a[0].shape), None)), False)


def _repeat_positions(counts: Any, output_size: int | None) -> Any:
    """``repeat(arange(n), counts)`` as int64.  CuPy's ``repeat`` takes no device array of
    repeats: on a device each output position finds its element by ``searchsorted`` in the
    running total, whose length is read once on the host (as PyTorch reads it) unless
    ``output_size`` gives it."""
    xp = D.xp_of(counts)
    if xp is np:
        return np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    ends = xp.cumsum(counts)
    total = output_size if output_size is not None else int(ends[-1]) if counts.size else 0
    return xp.searchsorted(ends, xp.arange(total), side="right").astype(np.int64)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times along ``dim`` (of the flattened tensor without
    one); ``repeat_interleave(counts)`` gives ``0..n-1`` each repeated ``counts[i]`` times."""
    if repeats is None:  # torch.repeat_interleave(repeats)
        counts = input._data
        if counts.ndim != 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        return plain(_repeat_positions(counts, output_size))
    if dim is None:
        input, dim = S.flatten(input), 0
    axis = _dim(dim, input.ndim)
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        counts = repeats._data.astype(np.int64)
        if counts.ndim != 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size != input.shape[axis]:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({axis}) = "
                               f"{input.shape[axis]}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = _repeat_positions(counts, output_size)
        data = np.take(input._data, D.to_device(index) if D.is_device(input._data) else index,
                       axis=axis)
        if _grad(input):
            return record(_INDEX_SELECT, data, (input, index), {"dim": axis})
        return plain(data)
    n = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if n < 0:
        raise RuntimeError("repeats can not be negative")
    shape = tuple(input.shape)
    wide = S.expand(S.unsqueeze(input, axis + 1), *shape[:axis + 1], n, *shape[axis + 1:])
    return S.view(S.clone(wide), *shape[:axis], shape[axis] * n, *shape[axis + 1:])


# --- diagonals --------------------------------------------------------------------------------

def _embed_data(a: Any, offset: int, d1: int, d2: int) -> Any:
    """``a``'s last dim placed on the ``offset`` diagonal of new dims ``d1``, ``d2``."""
    n = a.shape[-1] if a.ndim else 1
    m = n + abs(offset)
    out = D.zeros(a.shape[:-1] + (m, m), a.dtype, like=a)
    i = D.xp_of(a).arange(n)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = a
    return D.ascontiguous(np.moveaxis(out, (-2, -1), (d1, d2)))


def _rule_embed(ops: Any, g: Any, out: Any, x: Any, offset: int = 0, dim1: int = -2,
                dim2: int = -1) -> tuple[Any, ...]:
    if ops.tensors:
        return (g.diagonal(offset, dim1, dim2),)
    return (np.diagonal(g, offset, dim1, dim2),)


_EMBED = node_class("DiagEmbedBackward0", _rule_embed, (0,),
                    (("offset", _p("offset"), None), ("dim1", _p("dim1"), None),
                     ("dim2", _p("dim2"), None)), False)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2``) with ``input``'s last dim on a diagonal."""
    a = input._data
    nd = a.ndim + 1
    d1, d2 = _dim(dim1, nd), _dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    data = _embed_data(a, int(offset), d1, d2)
    if _grad(input):
        return record(_EMBED, data, (input,), {"offset": int(offset), "dim1": d1, "dim2": d2})
    return plain(data)


_DIAG2 = node_class("DiagonalBackward0_copy", RULES[Op.DIAGONAL], (0,),
                    (("offset", _p("offset"), None), ("dim1", _p("axis1"), None),
                     ("dim2", _p("axis2"), None)), False)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D tensor made the ``diagonal`` of a square matrix, or a matrix's diagonal."""
    a = input._data
    if a.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if a.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{a.ndim}D")
    data = np.diagonal(a, diagonal).copy()
    if _grad(input):
        return record(_DIAG2, data, (input,), {"offset": int(diagonal), "axis1": 0, "axis2": 1})
    return plain(data)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on its ``offset`` diagonal."""
    return diag_embed(S.reshape(input, -1), offset, 0, 1)


def _diag_positions(shape: tuple[Any, ...], wrap: bool) -> tuple[Any, ...]:
    """The indices ``fill_diagonal_`` writes: ``(i, i, ...)``; tall 2-D with ``wrap`` goes on
    after a blank row."""
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    if len(shape) == 2 and wrap and shape[0] > shape[1] + 1:
        flat = np.arange(0, shape[0] * shape[1], shape[1] + 1)
        return np.unravel_index(flat, shape)
    return (np.arange(n),) * len(shape)


def _rule_fill_diag(ops: Any, g: Any, out: Any, x: Any, mask: Any) -> tuple[Any, ...]:
    return (ops.mul(g, ops.const(mask)), None)


_COPY_SLICES = node_class("CopySlices", _rule_fill_diag, (0,), (), False)


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal (all indices equal), in place."""
    from .inplace import inplace

    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    where = _diag_positions(tuple(self.shape), wrap)
    if D.is_device(self._data):  # positions from the shape alone: copied to the device
        where = tuple(D.to_device(w) for w in where)
    value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value

    def compute(t: Tensor) -> Tensor:
        data = t._data.copy()
        data[where] = value
        if _grad(t):
            keep = D.zeros(data.shape, data.dtype, like=data) + 1
            keep[where] = 0
            return record(_COPY_SLICES, data, (t, keep), {})
        return plain(data)

    return inplace(self, compute)


# --- cross, grids, splits ---------------------------------------------------------------------

def _rule_cross(ops: Any, g: Any, out: Any, a: Any, b: Any, dim: int = -1) -> tuple[Any, ...]:
    if ops.tensors:
        return linalg_cross(b, g, dim=dim), linalg_cross(g, a, dim=dim)
    return np.cross(b, g, axis=dim), np.cross(g, a, axis=dim)


_CROSS = node_class("LinalgCrossBackward0", _rule_cross, (0, 1),
                    (("dim", _p("dim"), None), ("other", 1, (0,)), ("self", 0, (1,))), False)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dims)."""
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. Got "
                           f"{a.ndim} and {b.ndim}")
    axis = _dim(dim, a.ndim)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[axis]} and {b.shape[axis]}")
    if a.dtype != b.dtype:
        from .dtypes import result_type

        dt = result_type(input, other).np
        a, b = a.astype(dt), b.astype(dt)
    data = np.cross(a, b, axis=axis)
    if _grad(input, other):
        return record(_CROSS, data, (input, other), {"dim": axis})
    return plain(data)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``linalg.cross`` along ``dim`` (by default the first dim of length 3, with
    PyTorch's deprecation warning)."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, n in enumerate(shape) if n == 3), -1)
    return linalg_cross(input, other, dim=dim)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """Coordinate grids from 1-D (or 0-d) tensors: ``'ij'`` (the default) or ``'xy'``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received:'
                           f' {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    order = list(tensors)
    swap = indexing == "xy" and len(order) >= 2
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = tuple(t.numel() for t in order)
    nd = len(order)
    grids = []
    for i, t in enumerate(order):
        shape = [1] * nd
        shape[i] = -1
        grids.append(S.expand(S.view(t, *shape), *sizes))
    if swap:  # 'xy': the first two inputs swap places in the grid, not in the result
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return S.stack([S.reshape(g, -1) for g in grids], 1)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``sections`` parts as equal as possible (the first ones one longer), or at
    the given ``indices``; every part is a view (``SliceBackward0``)."""
    from .indexing import narrow

    axis = _dim(dim, input.ndim)
    n = input.shape[axis]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        spec = spec.tolist() if spec.ndim else int(spec.item())
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        base, extra = divmod(n, spec)
        sizes = [base + 1] * extra + [base] * (spec - extra)
        cuts = np.cumsum([0] + sizes).tolist()
    else:
        cuts = [0] + [int(i) for i in spec] + [n]
    parts = []
    for start, stop in zip(cuts[:-1], cuts[1:], strict=True):
        lo = min(max(start if start >= 0 else start + n, 0), n)
        hi = min(max(stop if stop >= 0 else stop + n, 0), n)
        parts.append(narrow(input, axis, lo, max(hi - lo, 0)))
    return tuple(parts)


# --- small elementwise ------------------------------------------------------------------------

def _rule_frac(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    return (g,)


_FRAC = node_class("FracBackward0", _rule_frac, (0,), (), False)
_SGN = node_class("SgnBackward0", lambda ops, g, out, x: (ops.zeros_like(g),), (0,),
                  (("result", "result", None),), False)


def frac(input: Tensor) -> Tensor:
    """The fractional part ``x - trunc(x)`` (floating point only)."""
    a = input._data
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"frac_cpu" not implemented for \'{_word(a)}\'')
    data = a - np.trunc(a)
    if _grad(input):
        return record(_FRAC, data, (input,), {})
    return plain(data)


def sgn(input: Tensor) -> Tensor:
    """``sign`` (for real tensors); its gradient is zero."""
    a = input._data
    from .functional import _sign_kernel

    data = _sign_kernel(a) if a.dtype.kind != "b" else a.copy()
    if _grad(input):
        return record(_SGN, data, (input,), {})
    return plain(data)


def _word(a: Any) -> str:
    from .dtypes import from_numpy_dtype
    from .functional import _type_word

    return _type_word(from_numpy_dtype(a.dtype))
