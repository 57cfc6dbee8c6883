"""Type rules of shape ops and indexing (see ``ir/infer``).

Ops that NumPy always answers with a view (transpose, swapaxes, moveaxis, expand_dims,
squeeze, flip, broadcast_to, diagonal) run on a zero-strided dummy of the real shape: an
O(1) view whose shape, scalar-ness and errors are NumPy's own.  The others compute their
shape by their rule and read dtype and scalar-ness from a tiny probe.  Indexing follows
NumPy's rules: basic parts by ``slice.indices``, advanced parts broadcast together and
placed where the first one is when they are adjacent, else in front; a boolean mask's
count is data (unknown) unless the mask is a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .abstract import Abstract
from .infer_core import (
    NoTypeRule,
    any_abstract,
    array,
    broadcast,
    dtype_of,
    make,
    normalize_axis_index,
    probe,
    probe_any,
    shape_of,
    size,
    stand_in,
    static_int,
    static_shape,
    tiny,
)
from .kernels import run
from .ops import Op
from .types import Type

_as_strided = np.lib.stride_tricks.as_strided


def zero_strided(v: Any) -> Any:
    """A dummy of ``v``'s real shape and dtype that costs O(1) memory (all strides 0);
    other values as tiny stand-ins (a constant array as it is: views of it are free)."""
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, Abstract) and v.type.kind == "array" and not v.generic:
        shape = v.shape
        if shape is None:
            raise NoTypeRule("unknown shape")
        dt = dtype_of(v)
        return _as_strided(np.zeros(1, dt), shape, (0,) * len(shape), writeable=False)
    return stand_in(v)


def _view(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """An op that returns a view: run it on a zero-strided dummy (exact, O(1))."""
    x = inputs[0]
    if isinstance(x, Abstract) and x.type.kind == "array" and x.shape is None:
        return array(dtype_of(x), None)
    args = [zero_strided(x)] + [v if not any_abstract(v) else None for v in inputs[1:]]
    if op is Op.BROADCAST_TO and args[1] is None:
        return array(dtype_of(x), None)
    with np.errstate(all="ignore"):  # a view: O(1) whatever the shape
        res = run(op, np, tuple(args), params)
    return make(res, tuple(res.shape))


def _tiny_probe(op: Op, inputs: tuple[Any, ...], params: dict[str, Any],
                shape: tuple[int, ...] | None) -> Any:
    return make(probe_any(op, inputs, params), shape)


def _reshape(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, target = inputs
    shape, target = shape_of(x), static_shape(target)
    out = None
    if target is not None:
        if sum(1 for d in target if d == -1) > 1:
            raise ValueError("can only specify one unknown dimension")
        if any(d < -1 for d in target):
            raise ValueError("negative dimensions not allowed")
        if -1 not in target:
            out = target
        elif shape is not None:
            rest = size([d for d in target if d != -1])
            if rest == 0 or size(shape) % rest:
                raise ValueError(f"cannot reshape array of size {size(shape)} into shape "
                                 f"{_spell(target)}")
            out = tuple(size(shape) // rest if d == -1 else d for d in target)
        if out is not None and shape is not None and size(out) != size(shape):
            raise ValueError(f"cannot reshape array of size {size(shape)} into shape "
                             f"{_spell(target)}")
    if isinstance(x, (Abstract, np.ndarray)) and not (isinstance(x, Abstract) and x.generic):
        xs = np.ones(1 if out is None else size(tiny(out)), dtype_of(x))  # (as many)
    else:
        xs = stand_in(x)  # a NumPy or Python scalar
    return make(probe(op, [xs, (-1,) if out is None else tiny(out)], params), out)


def _spell(shape: tuple[int, ...]) -> str:
    """A shape as NumPy's reshape error spells it (``-1`` as ``newaxis``)."""
    parts = ["newaxis" if d == -1 else str(d) for d in shape]
    return f"({parts[0]},)" if len(parts) == 1 else f"({','.join(parts)})"


def _ravel(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    return _tiny_probe(op, inputs, params, None if shape is None else (size(shape),))


def _same(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """roll: the input's shape (the probe checks the axes)."""
    return _tiny_probe(op, inputs, params, shape_of(inputs[0]))


def _sort(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    if shape == ():  # the probe is exact (argsort of a 0-d array is 1-d)
        res = probe_any(op, inputs, params)
        return make(res, np.shape(res))
    if shape is not None and params.get("axis") is None:
        shape = (size(shape),)
    return _tiny_probe(op, inputs, params, shape)


def _triangle(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    if shape is not None and len(shape) == 1:
        shape = (shape[0], shape[0])
    return _tiny_probe(op, inputs, params, shape)


def _diag(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, k = shape_of(inputs[0]), params.get("k", 0)
    out: tuple[int, ...] | None = None
    if shape is not None:
        if len(shape) == 1:
            n = shape[0] + abs(k)
            out = (n, n)
        elif len(shape) == 2:
            r, c = shape
            out = (max(0, min(r, c - k)) if k >= 0 else max(0, min(r + k, c)),)
        else:
            raise ValueError("Input must be 1- or 2-d.")
    return _tiny_probe(op, inputs, params, out)


def _concatenate(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shapes: list[Any] = [shape_of(v) for v in inputs]  # None where unknown
    out = None
    if op is Op.HSTACK and all(s is not None for s in shapes):
        shapes = [s if len(s) else (1,) for s in shapes]
        axis = 0 if all(len(s) == 1 for s in shapes) else 1
        out = _join(shapes, axis)
    elif op is Op.VSTACK and all(s is not None for s in shapes):
        shapes = [(1, *s) if len(s) == 1 else s if len(s) else (1, 1) for s in shapes]
        out = _join(shapes, 0)
    elif op is Op.STACK and all(s is not None for s in shapes):
        if len(set(shapes)) > 1:
            raise ValueError("all input arrays must have the same shape")
        if shapes:
            axis = normalize_axis_index(params.get("axis", 0), len(shapes[0]) + 1)
            out = shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]
    elif op is Op.CONCATENATE and all(s is not None for s in shapes):
        if params.get("axis", 0) is None:
            out = (sum(size(s) for s in shapes),)
        else:
            out = _join(shapes, params.get("axis", 0))
    return _tiny_probe(op, inputs, params, out)


def _join(shapes: list[tuple[int, ...]], axis: int) -> tuple[int, ...] | None:
    """The shape of ``np.concatenate`` of arrays of ``shapes`` along ``axis``."""
    if not shapes:
        return None  # the probe raises NumPy's "need at least one array"
    if any(len(s) == 0 for s in shapes):
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    nd = len(shapes[0])
    axis = normalize_axis_index(axis, nd)
    for i, s in enumerate(shapes):
        if len(s) != nd:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array "
                f"at index 0 has {nd} dimension(s) and the array at index {i} has "
                f"{len(s)} dimension(s)")
        for d in range(nd):
            if d != axis and s[d] != shapes[0][d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis "
                    f"must match exactly, but along dimension {d}, the array at index 0 "
                    f"has size {shapes[0][d]} and the array at index {i} has size {s[d]}")
    return shapes[0][:axis] + (sum(s[axis] for s in shapes),) + shapes[0][axis + 1:]


def _split(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    shape, sections = shape_of(x), params["indices_or_sections"]
    axis = params.get("axis", 0)
    piece = make(probe_any(op, (x,), dict(params, indices_or_sections=1))[0], None)
    if static_int(sections):
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if shape is None:
            return [piece] * int(sections)
        ax = normalize_axis_index(axis, len(shape))
        if shape[ax] % sections:
            raise ValueError("array split does not result in an equal division")
        lengths = [shape[ax] // sections] * int(sections)
    else:
        cuts = list(sections)
        if shape is None:
            return [piece] * (len(cuts) + 1)
        ax = normalize_axis_index(axis, len(shape))
        bounds = [0] + cuts + [shape[ax]]
        lengths = [len(range(*slice(a, b).indices(shape[ax])))
                   for a, b in zip(bounds[:-1], bounds[1:])]
    return [Abstract(Type("array", piece.type.dtype, shape[:ax] + (n,) + shape[ax + 1:]))
            for n in lengths]  # (np.split gives a list)


def _tile(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, reps = shape_of(inputs[0]), params["reps"]
    reps = (int(reps),) if static_int(reps) else tuple(int(r) for r in reps)
    out = None
    if shape is not None:
        nd = max(len(shape), len(reps))
        s = (1,) * (nd - len(shape)) + tuple(shape)
        r = (1,) * (nd - len(reps)) + reps
        out = tuple(a * b for a, b in zip(s, r))
    return make(probe_any(op, inputs, dict(params, reps=(1,) * len(reps))), out)


def _repeat(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape, rep, axis = shape_of(inputs[0]), params["repeats"], params.get("axis")
    out = None
    if shape is not None:
        nd = max(len(shape), 1)  # (a 0-d array repeats along axis 0 as if 1-d)
        shape = shape or (1,)
        n = size(shape) if axis is None else shape[normalize_axis_index(axis, nd)]
        reps = [int(rep)] if static_int(rep) else [int(r) for r in np.ravel(rep)]
        if any(r < 0 for r in reps):
            raise ValueError("repeats may not contain negative values.")
        if len(reps) not in (1, n):
            raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                             f"({len(reps)},)")
        total = n * reps[0] if len(reps) == 1 else sum(reps)
        out = (total,) if axis is None else tuple(
            total if i == normalize_axis_index(axis, nd) else d for i, d in enumerate(shape))
    return make(probe_any(op, inputs, dict(params, repeats=1)), out)


def _pad(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    out = None
    if shape is not None:
        pairs = _pad_pairs(params["pad_width"], len(shape))
        out = tuple(d + a + b for d, (a, b) in zip(shape, pairs))
    return make(probe_any(op, inputs, dict(params, pad_width=0)), out)


def _pad_pairs(width: Any, nd: int) -> list[tuple[int, int]]:
    """``np.pad``'s reading of ``pad_width``: one (before, after) per axis."""
    a = np.asarray(width)
    if not np.issubdtype(a.dtype, np.integer):
        raise TypeError("`pad_width` must be of integral type.")
    if a.size == 1:
        pairs = [(int(a.ravel()[0]),) * 2] * nd
    elif a.size == 2 and a.shape != (2, 1):
        pairs = [(int(a.ravel()[0]), int(a.ravel()[1]))] * nd
    else:
        pairs = [(int(p), int(q)) for p, q in np.broadcast_to(a, (nd, 2))]
    if any(p < 0 or q < 0 for p, q in pairs):
        raise ValueError("index can't contain negative values")
    return pairs


def _take(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, ind = inputs
    shape, ishape, axis = shape_of(x), shape_of(ind), params.get("axis")
    out = None
    if shape is not None and ishape is not None:
        if axis is None:
            out, n = ishape, size(shape)
        else:
            ax = normalize_axis_index(axis, max(len(shape), 1))
            out, n = shape[:ax] + ishape + shape[ax + 1:], shape[ax] if shape else 1
        outer = 1 if axis is None or not shape else size(shape[:ax])
        if outer and not isinstance(ind, Abstract):  # (NumPy checks none if no row is read)
            a = np.asarray(ind)
            bad = [int(v) for v in (a.min(), a.max()) if not -n <= v < n] if a.size else []
            if bad:
                raise IndexError(f"index {bad[0]} is out of bounds for axis "
                                 f"{0 if axis is None else ax} with size {n}")
    res = probe_any(op, (x, 0 if static_int(ind) else ind), params, fill={1: 0})
    if shape == () and ishape is not None:  # (0-d: NumPy takes along axis 0; exact)
        return make(res, np.shape(res))
    return make(res, out)


def _take_along_axis(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x, ind = inputs
    shape, ishape, axis = shape_of(x), shape_of(ind), params["axis"]
    out: tuple[int, ...] | None = None
    if shape is not None and ishape is not None:
        if axis is None:
            if len(ishape) != 1:
                raise ValueError("when axis=None, `indices` must have a single dimension.")
            out = ishape
        else:
            if len(ishape) != len(shape):
                raise ValueError("`indices` and `arr` must have the same number of "
                                 "dimensions")
            ax = normalize_axis_index(axis, len(shape))
            try:
                rest = broadcast(shape[:ax] + (1,) + shape[ax + 1:], ishape[:ax] + (1,) +
                                 ishape[ax + 1:])
            except ValueError as exc:
                raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                                 "together with shapes" + str(exc).split("shapes")[1]) \
                    from None
            out = rest[:ax] + (ishape[ax],) + rest[ax + 1:]
    return make(probe_any(op, inputs, params, fill={1: 0}), out)


def _nonzero(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    if shape_of(x) is None:
        raise NoTypeRule("nonzero of an array of unknown rank")
    parts = probe(op, [stand_in(x)], params)
    return tuple(array(p.dtype, None) for p in parts)


def _unbroadcast(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``kernels.unbroadcast`` on shapes: ``x`` itself when nothing is summed, else the
    sum over the broadcast axes reshaped to the target."""
    x, target = inputs
    shape, target = shape_of(x), static_shape(target)
    summed = probe(Op.SUM, [stand_in(x, () if isinstance(x, Abstract) and not x.generic
                                       else None)], {"axis": None, "keepdims": False})
    dt = summed.dtype if hasattr(summed, "dtype") else dtype_of(x)
    if shape is None or target is None:
        if shape is not None and shape == target:
            return x if isinstance(x, Abstract) else make(x, shape)
        if dt != dtype_of(x):  # summed (bool -> int64) or not: the shapes decide
            raise NoTypeRule("unbroadcast of a non-float value of unknown shape")
        return array(dt, target)
    if tuple(shape) == tuple(target):
        return x if isinstance(x, Abstract) else make(x, shape)
    lead = len(shape) - len(target)
    axes = set(range(lead)) | {lead + i for i, d in enumerate(target)
                               if d == 1 and shape[lead + i] != 1}
    if not axes and not lead:
        return x if isinstance(x, Abstract) else make(x, shape)
    kept = size([1 if i in axes else d for i, d in enumerate(shape)])
    if kept != size(target):
        raise ValueError(f"cannot reshape array of size {kept} into shape {_spell(target)}")
    return array(dt, target)


RULES = {
    Op.RESHAPE: _reshape, Op.RAVEL: _ravel, Op.ROLL: _same, Op.SORT: _sort,
    Op.ARGSORT: _sort, Op.TRIU: _triangle, Op.TRIL: _triangle, Op.DIAG: _diag,
    Op.CONCATENATE: _concatenate, Op.STACK: _concatenate, Op.HSTACK: _concatenate,
    Op.VSTACK: _concatenate, Op.SPLIT: _split, Op.TILE: _tile, Op.REPEAT: _repeat,
    Op.PAD: _pad, Op.TAKE: _take, Op.TAKE_ALONG_AXIS: _take_along_axis,
    Op.NONZERO: _nonzero, Op.UNBROADCAST: _unbroadcast,
    **{op: _view for op in (Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS, Op.EXPAND_DIMS,
                            Op.SQUEEZE, Op.FLIP, Op.BROADCAST_TO, Op.DIAGONAL)},
}
