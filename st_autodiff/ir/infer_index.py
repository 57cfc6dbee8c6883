"""Type rules of indexing: ``getitem``, ``setitem``, ``index_add``, ``scatter_add``.

An index is the node's static structure (``params["index"]``) with its runtime parts
(``kernels.build_index``).  The result shape follows NumPy's rules entry by entry: a
slice keeps ``len(range(*slice.indices(n)))`` elements, an integer drops its axis
(bounds checked when both are known), ``None`` adds one; advanced entries (integer
arrays and lists, boolean masks, and integers once any array is present) broadcast
together and go where the first one is when they are adjacent in the index, else in
front.  A mask's count is data: unknown unless the mask is a constant.  Dtype and
"NumPy scalar or 0-d array" come from a tiny probe of the same index.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .abstract import Abstract
from .infer_core import (
    NoTypeRule,
    any_abstract,
    array,
    dtype_of,
    fits,
    probe,
    shape_of,
    stand_in,
    static_int,
    static_shape,
    tiny,
)
from .kernels import build_index, index_add, setitem
from .ops import Op


def _kind(e: Any) -> str:
    """How NumPy reads one index entry: new, ell, slice, int, bool0, adv, mask."""
    if e is None:
        return "new"
    if e is Ellipsis:
        return "ell"
    if isinstance(e, slice):
        return "slice"
    if isinstance(e, (bool, np.bool_)):
        return "bool0"
    if static_int(e):
        return "int"
    if isinstance(e, list):
        return "adv"
    if isinstance(e, Abstract):
        k = e.type.kind
        if k == "int":
            return "int"
        if k == "bool":
            return "bool0"
        if k != "array":
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
    if isinstance(e, (Abstract, np.ndarray)):
        dt = dtype_of(e)
        if dt.kind == "b":
            return "bool0" if shape_of(e) == () else "mask"
        if dt.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return "int" if shape_of(e) == () else "adv"
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                     "(`None`) and integer or boolean arrays are valid indices")


def index_shape(shape: tuple[int, ...] | None, index: tuple[Any, ...]) -> tuple[int, ...] | None:
    """The shape of ``x[index]`` for ``x`` of ``shape``; ``None`` when unknown."""
    dims = index_dims(shape, index)
    return None if dims is None or None in dims else tuple(dims)


def index_dims(shape: tuple[int, ...] | None, index: tuple[Any, ...]) -> list[Any] | None:
    """The dimensions of ``x[index]``, ``None`` for each one the types do not give (a
    mask's count, a slice with runtime bounds); ``None`` when the rank is unknown."""
    kinds = [_kind(e) for e in index]
    if kinds.count("ell") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ranked = [shape_of(e) for e, k in zip(index, kinds) if k in ("mask", "adv")]
    if shape is None or any(m is None for m in ranked):
        return None
    nd = len(shape)
    consumed = sum(k in ("int", "slice", "adv") for k in kinds) + sum(
        len(shape_of(e)) for e, k in zip(index, kinds) if k == "mask")  # type: ignore[arg-type, misc]
    if consumed > nd:
        raise IndexError(f"too many indices for array: array is {nd}-dimensional, but "
                         f"{consumed} were indexed")
    advanced = any(k in ("adv", "mask", "bool0") for k in kinds)
    out: list[int | None] = []
    blocks: list[tuple[Any, ...]] = []
    marked: list[int] = []
    block_at = 0
    dim = 0
    # (array, axis size, axis): checked unless the gather is empty
    checks: list[tuple[Any, int, int]] = []
    for i, (e, k) in enumerate(zip(index, kinds)):
        if k in ("adv", "mask", "bool0") or k == "int" and advanced:
            if not marked:
                block_at = len(out)
            marked.append(i)
        if k == "new":
            out.append(1)
        elif k == "ell":
            n = nd - consumed
            out.extend(shape[dim:dim + n])
            dim += n
        elif k == "slice":
            known = not any_abstract((e.start, e.stop, e.step))
            out.append(len(range(*e.indices(shape[dim]))) if known else None)
            dim += 1
        elif k == "int":
            _check_bounds(e, shape[dim], dim)
            dim += 1
            if advanced:
                blocks.append(())
        elif k == "adv":
            checks.append((e, shape[dim], dim))
            blocks.append(shape_of(e))  # type: ignore[arg-type]
            dim += 1
        elif k == "mask":
            m = shape_of(e)
            for j, d in enumerate(m):  # type: ignore[arg-type]
                if d not in (shape[dim + j], 0):  # (NumPy lets an empty dimension pass)
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {dim + j}; "
                        f"size of axis is {shape[dim + j]} but size of corresponding "
                        f"boolean axis is {d}")
            blocks.append((None,) if isinstance(e, Abstract) else (
                int(np.count_nonzero(e)),))
            dim += len(m)  # type: ignore[arg-type]
        else:  # bool0
            blocks.append((None,) if isinstance(e, Abstract) else (int(bool(e)),))
    out.extend(shape[dim:])
    block = _broadcast_blocks(blocks) if advanced else []
    if not advanced or None not in block and 0 not in block:  # (an empty gather: no check)
        for e, n, axis in checks:
            _check_bounds(e, n, axis)
    if advanced:
        if marked == list(range(marked[0], marked[-1] + 1)):
            out[block_at:block_at] = block
        else:
            out = list(block) + out
    return out


def _broadcast_blocks(blocks: list[tuple[Any, ...]]) -> list[Any]:
    """Advanced index shapes broadcast together; ``None`` dims (a mask's count) stay
    unknown unless another index array fixes them."""
    nd = max((len(b) for b in blocks), default=0)
    out: list[int | None] = [1] * nd
    seen_unknown = [False] * nd
    for b in blocks:
        for k, d in enumerate(b, nd - len(b)):
            if d is None:
                seen_unknown[k] = True
            elif d != 1 and out[k] not in (1, d):
                text = " ".join(str(tuple(x)).replace(" ", "") for x in blocks if x != ())
                raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                                 f"together with shapes {text} ")
            elif d != 1:
                out[k] = d
    return [None if u and d == 1 else d for d, u in zip(out, seen_unknown)]


def _check_bounds(e: Any, n: int, dim: int) -> None:
    """IndexError for a constant index array with an entry outside ``[-n, n)``."""
    if isinstance(e, Abstract):
        return
    if not isinstance(e, (np.ndarray, list)):
        if not -n <= int(e) < n:
            raise IndexError(f"index {int(e)} is out of bounds for axis {dim} with size {n}")
        return
    a = np.asarray(e)
    if a.size and (a.max() >= n or a.min() < -n):
        bad = int(a.max()) if a.max() >= n else int(a.min())
        raise IndexError(f"index {bad} is out of bounds for axis {dim} with size {n}")


def _probe_index(index: tuple[Any, ...]) -> tuple[Any, ...]:
    """The index a tiny stand-in is probed with: valid wherever the real one is."""
    out: list[Any] = []
    for e in index:
        k = _kind(e)
        if k == "slice":
            out.append(slice(None))
        elif k == "int":
            out.append(0 if not isinstance(e, np.ndarray) and not (
                isinstance(e, Abstract) and e.type.kind == "array") else stand_in(e, fill=0))
        elif k == "adv":
            s = shape_of(e)
            out.append(np.zeros(tiny(s) if s is not None else (1,), np.intp))
        elif k == "mask":  # as empty as the real one (empty gathers skip bounds checks)
            full = not isinstance(e, Abstract) and bool(np.any(e))
            out.append(np.full(tiny(cast(tuple[int, ...], shape_of(e))), full, bool))
        elif k == "bool0":
            out.append(True if isinstance(e, Abstract) else e)
        else:
            out.append(e)
    return tuple(out)


def _array_in(x: Any, write: bool = False) -> None:
    """TypeError for indexing a Python number, or writing into a NumPy scalar."""
    if isinstance(x, Abstract) and x.type.kind in ("float", "int", "bool"):
        raise TypeError(f"'{x.type.kind}' object is not subscriptable")
    if write and (isinstance(x, Abstract) and x.generic or isinstance(x, np.generic)):
        name = f"numpy.{dtype_of(x).name}"
        raise TypeError(f"'{name}' object does not support item assignment")


def _getitem(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    index = build_index(params["index"], inputs[1:])
    if isinstance(x, (tuple, list)):
        return _container_item(x, index)
    if isinstance(x, Abstract) and x.type.kind in ("tuple", "list"):
        if x.item is not None and len(index) == 1:
            return x if isinstance(index[0], slice) else x.item
        raise NoTypeRule("an item of a container of unknown items")
    _array_in(x)
    shape = index_shape(shape_of(x), index)
    if shape_of(x) is None:
        return array(dtype_of(x), None)
    pidx = _probe_index(index)
    res = probe(Op.GETITEM, [stand_in(x)], {"index": pidx}, fn=lambda a: a[pidx])
    return array(res.dtype, shape, generic=isinstance(res, np.generic))


def _container_item(x: tuple[Any, ...] | list[Any], index: tuple[Any, ...]) -> Any:
    if len(index) != 1:
        raise TypeError(f"{type(x).__name__} indices must be integers or slices, not tuple")
    i = index[0]
    if isinstance(i, Abstract):
        if x and all(v == x[0] for v in x):
            return x[0]
        raise NoTypeRule("a runtime index into a tuple of items of different types")
    if isinstance(i, slice) and any_abstract((i.start, i.stop, i.step)):
        raise NoTypeRule("a runtime slice of a tuple")
    return x[i]


#: NumPy before 2.3, whose element writes still take a one-element array
_OLD_NUMPY = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 3)


def _write(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """setitem, index_add: a copy of ``x`` of its own type; ``v`` must fit."""
    x, v = inputs[0], inputs[1]
    _array_in(x, write=True)
    index = build_index(params["index"], inputs[2:])
    shape = shape_of(x)
    if _OLD_NUMPY and shape is not None and (0 in shape or (
            0 < len(shape_of(v) or ()) and all(d == 1 for d in cast(tuple[int, ...],
                                                                     shape_of(v))))):
        # NumPy < 2.3 bends its write rules at empty axes and one-element values:
        # typed by running the kernel on stand-ins instead
        raise NoTypeRule("a write NumPy < 2.3 checks by its own older rules")
    fits(shape_of(v), index_dims(shape, index), grows=op is Op.SETITEM)
    vshape = shape_of(v)
    if shape is not None and vshape and len(index) == len(shape) and all(
            _kind(e) == "int" for e in index) and not (
            _OLD_NUMPY and all(d == 1 for d in vshape)):  # one element: a scalar goes there
        # (NumPy < 2.3 still converts a one-element array to that scalar, deprecated)
        raise ValueError("setting an array element with a sequence.")
    if op is Op.SETITEM and vshape and len(vshape) > 1 and len(index) == 1 and _kind(
            index[0]) == "mask" and len(shape_of(index[0]) or ()) == len(shape or ()):
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                        f"1-dimensional input, input has {len(vshape)} dimensions")
    if shape is None:
        return array(dtype_of(x), None)
    xs = stand_in(x)
    pidx = _probe_index(index)
    fn = (lambda a, b: setitem(a, b, pidx)) if op is Op.SETITEM else (
        lambda a, b: index_add(a, b, pidx))
    # a 0-d value fits any target: the probe checks the casting, ``_fits`` the shapes
    res = probe(op, [xs, stand_in(v, ())], {"index": pidx}, fn=fn)
    return array(res.dtype, shape)


def _scatter_add(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Zeros of the ``shape`` input (dtype: ``g``'s, float64 for Python numbers) with
    ``g`` added at the index."""
    g = inputs[1]
    dt = g.type.dtype if isinstance(g, Abstract) and g.type.kind == "array" else \
        getattr(g, "dtype", np.float64)
    shape = static_shape(inputs[0])
    x = Abstract(array(dt, shape).type)
    return _write(Op.INDEX_ADD, (x, g, *inputs[2:]), params)


RULES = {Op.GETITEM: _getitem, Op.SETITEM: _write, Op.INDEX_ADD: _write,
         Op.SCATTER_ADD: _scatter_add}
