"""``index_select``/``index_add``/``index_copy``/``index_fill``, ``masked_fill``/
``masked_select`` and ``take``/``put`` with PyTorch's node names and checks.

As in ``indexing_more``: NumPy computes the value, one node per call runs a rule written
here, on raw arrays in a plain backward and through this module's own recorded ops under
``create_graph``.  Index tensors are node inputs without an edge.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import device as D
from .function import TensorBase, node_class
from .tensor import Tensor, _dim, plain
from .tensor_ops import needs_grad, record

__all__ = ["index_add", "index_copy", "index_fill", "index_select", "masked_fill",
           "masked_select", "put", "take"]


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _DIM(args: tuple[Any, ...], params: dict[str, Any]) -> Any:  # noqa: N802  (the dim given)
    return args[1]


def _at(d: int, idx: Any) -> tuple[Any, ...]:
    return (slice(None),) * d + (idx,)


def _index(op: str, index: Any, like: Any = None) -> np.ndarray[Any, Any]:
    """The index as a 1-D integer array (PyTorch's checks for a vector index); given
    ``like`` (the input's data), on its device or PyTorch's error."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    idx: np.ndarray[Any, Any] = D.asarray(index._data)
    if like is not None and D.is_device(idx) != D.is_device(like):
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, cuda:0 and cpu! (when checking argument for argument "
                           f"index in method {op})")
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    return idx.reshape(-1)


def _first_bad(idx: np.ndarray[Any, Any], n: int, lowest: int) -> int | None:
    bad = idx[(idx >= n) | (idx < lowest)]
    return int(bad.flat[0]) if bad.size else None


def _bounds(idx: np.ndarray[Any, Any], n: int, d: int) -> None:
    """index_select's checks: PyTorch's dim-0 kernel and its other kernel word them apart."""
    v = _first_bad(idx, n, 0)
    if v is not None:
        if d == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={v} axis_dim={n}")


def _same_dtype(op: str, a: np.ndarray[Any, Any], s: np.ndarray[Any, Any]) -> None:
    if a.dtype != s.dtype:
        from .dtypes import from_numpy_dtype
        from .functional import _type_word

        wa, ws = _type_word(from_numpy_dtype(a.dtype)), _type_word(from_numpy_dtype(s.dtype))
        if op == "index_add":
            raise RuntimeError(f"index_add_(): self ({wa}) and source ({ws}) must have the same "
                               "scalar type")
        if op == "put":
            raise RuntimeError("put_(): self and source expected to have the same dtype, but "
                               f"got self.dtype = {wa} and source.dtype = {ws}")
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {wa} and (source) {ws}")


# --- index_select ------------------------------------------------------------------------------

def _rule_index_select(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any) -> tuple[Any, ...]:
    """The gradient goes back to the selected rows (repeats add up)."""
    if ops.tensors:
        from .factory import zeros_like

        return (index_add(zeros_like(x), dim, index, g), None, None)
    z = D.zeros(np.shape(x), g.dtype, like=g)
    D.add_at(z, _at(dim, D.asarray(index).reshape(-1)), g)
    return (z, None, None)


_SIZES = ("self_sym_sizes", lambda a, p: tuple(a[0].shape), None)
_INDEX_SELECT = node_class("IndexSelectBackward0", _rule_index_select, (0,),
                           (("dim", _DIM, None), ("index", 2, None), _SIZES), False)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` at ``index`` along ``dim`` (a copy)."""
    a = input._data
    idx = _index("index_select", index, a)
    d = _dim(dim, a.ndim)
    _bounds(idx, a.shape[d] if a.ndim else 1, d)
    r = np.take(a, idx, axis=d) if a.ndim else D.asarray(a).reshape(1)[idx].reshape(())
    if needs_grad((input,)):
        return record(_INDEX_SELECT, r, (input, d, index), {})
    return plain(r)


# --- index_add / index_copy / index_fill ----------------------------------------------------

def _check_source(op: str, a: np.ndarray[Any, Any], d: int, idx: np.ndarray[Any, Any],
                  s: np.ndarray[Any, Any]) -> None:
    if s.ndim and s.shape[d if s.ndim > d else 0] != idx.size:
        n = s.shape[d if s.ndim > d else 0]
        if op == "index_add_":  # (PyTorch's index_add_ words and types it differently)
            raise RuntimeError(f"{op}(): Number of indices ({idx.size}) should be equal to "
                               f"source.size(dim): ({n}), for dim: {d}")
        raise IndexError(f"{op}(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({n})")
    if op == "index_add_" and s.ndim and a.ndim and (
            s.shape[:d] + s.shape[d + 1:] != a.shape[:d] + a.shape[d + 1:]):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(a.shape)} "
                           f"source.shape = {list(s.shape)}")


def _rule_index_add(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any, source: Any,
                    alpha: Any = 1) -> tuple[Any, ...]:
    gs: Any  # a Tensor or an array
    if ops.tensors:
        gs = index_select(g, dim, index)
    else:
        gs = np.take(g, D.asarray(index).reshape(-1), axis=dim)
    if alpha != 1:
        gs = gs * alpha
    return (g, None, None, gs.reshape(tuple(source.shape)))


def _source_args(name: str, input: Tensor, dim: int, index: Tensor, source: Tensor
                 ) -> tuple[Any, ...]:
    """The checked arguments of ``index_add``/``index_copy``: the arrays, the flat index,
    the dim, its size and the first index out of range (``None`` when all are in range)."""
    a, s = input._data, source._data
    idx = _index(name, index)
    d = _dim(dim, a.ndim)
    _check_source(name + "_", a, d, idx, s)
    _same_dtype(name, a, s)
    size = a.shape[d] if a.ndim else 1
    return a, s, idx, d, size, _first_bad(idx, size, 0)


_INDEX_ADD = node_class("IndexAddBackward0", _rule_index_add, (0, 3),
                        (("alpha", _p("alpha"), None), ("dim", _DIM, None),
                         ("index", 2, (3,)), ("source_dim", lambda a, p: a[3].ndim, None)),
                        False)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1
              ) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``."""
    a, s, idx, d, size, v = _source_args("index_add", input, dim, index, source)
    if v is not None:  # (PyTorch's kernels word it by the rank of ``input``)
        if a.ndim <= 1:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"index {v} is out of bounds for dimension {d} with size {size}")
    r = D.copy(a)
    vals = s * alpha if alpha != 1 else s
    D.add_at(r, _at(d, idx), np.reshape(vals, np.shape(np.take(r, idx, axis=d))))
    if needs_grad((input, source)):
        return record(_INDEX_ADD, r, (input, d, index, source), {"alpha": alpha})
    return plain(r)


def _rule_index_copy(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any,
                     source: Any) -> tuple[Any, ...]:
    if ops.tensors:
        return (index_fill(g, dim, index, 0.0), None, None,
                index_select(g, dim, index).reshape(tuple(source.shape)))
    idx = D.asarray(index).reshape(-1)
    gx = D.copy(g)
    gx[_at(dim, idx)] = 0
    return (gx, None, None, np.take(g, idx, axis=dim).reshape(np.shape(source)))


_INDEX_COPY = node_class("IndexCopyBackward0", _rule_index_copy, (0, 3),
                         (("dim", _DIM, None), ("index", 2, None)), False)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``."""
    a, s, idx, d, size, v = _source_args("index_copy", input, dim, index, source)
    if v is not None:
        raise IndexError(f"index_copy_(): index {v} is out of bounds for dimension {d} with "
                         f"size {size}")
    r = D.copy(a)
    r[_at(d, idx)] = np.reshape(s, np.shape(r[_at(d, idx)]))
    if needs_grad((input, source)):
        return record(_INDEX_COPY, r, (input, d, index, source), {})
    return plain(r)


def _filled(idx: Any, n: int, dim: int, ndim: int) -> Any:
    """The positions ``index_fill`` wrote along ``dim`` as a mask that broadcasts against
    the input, made where the index lives (a device index is never read on the host)."""
    xp = D.xp_of(idx)
    filled = xp.zeros(n, dtype=bool)
    filled[idx % n] = True
    shape = [1] * ndim
    shape[dim] = n
    return filled.reshape(shape)


def _rule_index_fill(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any,
                     value: Any) -> tuple[Any, ...]:
    # value's gradient: the sum of g over the filled positions, each once; on the host as
    # PyTorch sums it (over the unique indices, bit for bit), on a device through a mask
    # (unique needs its count on the host: a synchronisation)
    if ops.tensors:
        n = max(tuple(g.shape)[dim], 1)
        flat = D.asarray(index._data).reshape(-1)
        gv = None
        if isinstance(value, TensorBase):
            if D.is_device(flat):
                gv = masked_fill(g, plain(~_filled(flat, n, dim, g.ndim)), 0.0).sum()
            else:
                gv = index_select(g, dim, plain(np.unique(flat % n))).sum()
        return (index_fill(g, dim, index, 0.0), None, None, gv)
    idx = D.asarray(index).reshape(-1)
    gx = D.copy(g)
    gx[_at(dim, idx)] = 0
    gv = None
    if hasattr(value, "shape"):
        n = max(np.shape(g)[dim], 1)
        if D.is_device(g):
            gv = D.xp_of(g).where(_filled(idx, n, dim, g.ndim), g, 0).sum()
        else:
            gv = np.take(g, np.unique(idx % n), axis=dim).sum()
    return (gx, None, None, gv)


_FILL_PLAN = (("dim", _DIM, None), ("index", 2, None))
_INDEX_FILL = {k: node_class(f"IndexFillBackward{k}", _rule_index_fill, (0, 3) if k else (0,),
                             _FILL_PLAN, False) for k in (0, 1)}


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    is_tensor = isinstance(value, TensorBase)
    if is_tensor and value.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    a = input._data
    idx = _index("index_fill", index)
    d = _dim(dim, a.ndim)
    r = D.copy(a)
    if is_tensor and D.is_device(value._data) and D.is_device(a):  # written on the device
        r[_at(d, idx)] = value._data.astype(a.dtype)
    else:
        r[_at(d, idx)] = value.item() if is_tensor else value
    if needs_grad((input, value)):
        return record(_INDEX_FILL[int(is_tensor)], r, (input, d, index, value), {})
    return plain(r)


# --- masked_fill / masked_select ---------------------------------------------------------------

def _mask(op: str, mask: Any) -> np.ndarray[Any, Any]:
    m: np.ndarray[Any, Any] = D.asarray(mask._data)
    if m.dtype.kind != "b":
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype "
                           f"{_word(mask)}")
    return m


def _word(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "uint8": "unsigned char"}.get(t.dtype.name, t.dtype.name)


def _rule_masked_fill(ops: Any, g: Any, out: Any, x: Any, mask: Any, value: Any) -> tuple[Any, ...]:
    if ops.tensors:
        from . import functional as F

        m: Any = plain(D.asarray(mask._data if isinstance(mask, TensorBase) else mask))
        gv = F.where(m, g, 0.0).sum() if isinstance(value, TensorBase) else None
        return (F.where(m, 0.0, g), None, gv)
    m = D.asarray(mask)
    gv = np.where(m, g, 0).sum().astype(g.dtype) if hasattr(value, "shape") else None
    return (np.where(m, 0, g).astype(g.dtype), None, gv)


_MASKED_FILL = {k: node_class(f"MaskedFillBackward{k}", _rule_masked_fill,
                              (0, 2) if k else (0,), (("mask", 1, None),), False)
                for k in (0, 1)}


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` where ``mask`` is true (both broadcast)."""
    m = _mask("masked_fill_", mask)
    is_tensor = isinstance(value, TensorBase)
    if is_tensor and value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    a = input._data
    if is_tensor and D.is_device(value._data) and D.is_device(a):  # no read on the host
        r = D.xp_of(a).where(m, value._data.astype(a.dtype), a)
    else:
        v = value.item() if is_tensor else value
        if a.dtype.kind == "b" and isinstance(v, (int, float)):
            v = bool(v)  # (PyTorch casts the value: 0.5 fills True)
        elif a.dtype.kind != "f" and isinstance(v, float) and not float(v).is_integer():
            v = int(v)
        r = np.where(m, np.asarray(v).astype(a.dtype)[()], a)  # a scalar: fine on any device
    if needs_grad((input, value)):
        return record(_MASKED_FILL[int(is_tensor)], r, (input, mask, value), {})
    return plain(r)


def _rule_masked_select(ops: Any, g: Any, out: Any, x: Any, mask: Any) -> tuple[Any, ...]:
    m = D.asarray(mask._data if isinstance(mask, TensorBase) else mask)
    shape = np.broadcast_shapes(tuple(x.shape), m.shape)
    mb = np.broadcast_to(m, shape)
    if ops.tensors:
        from .factory import zeros

        z: Any = zeros(*shape, dtype=g.dtype, device=g.device)  # a Tensor here, an array below
        z[plain(mb)] = g
        return (z, None)
    z = D.zeros(shape, g.dtype, like=g)
    z[mb] = g
    return (z, None)


_MASKED_SELECT = node_class("MaskedSelectBackward0", _rule_masked_select, (0,),
                            (("mask", 1, None), ("self", 0, None)), False)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where ``mask`` is true, as a 1-D tensor (both broadcast first)."""
    m = _mask("masked_select:", mask)
    a = input._data
    shape = np.broadcast_shapes(np.shape(a), m.shape)
    r = np.broadcast_to(a, shape)[np.broadcast_to(m, shape)]
    if needs_grad((input,)):
        return record(_MASKED_SELECT, r, (input, mask), {})
    return plain(r)


# --- take / put ----------------------------------------------------------------------------------

def _flat_index(idx: np.ndarray[Any, Any], n: int) -> np.ndarray[Any, Any]:
    if idx.size:
        bad = idx[(idx >= n) | (idx < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of "
                             f"{n} elements.")
    return idx


def _rule_take(ops: Any, g: Any, out: Any, x: Any, index: Any) -> tuple[Any, ...]:
    if ops.tensors:
        from .factory import zeros_like

        return (put(zeros_like(x), index, g, accumulate=True), None)
    z = D.zeros(int(np.prod(np.shape(x))), g.dtype, like=g)
    D.add_at(z, D.asarray(index).reshape(-1), np.reshape(g, -1))
    return (z.reshape(np.shape(x)), None)


_TAKE = node_class("TakeBackward0", _rule_take, (0,), (("index", 1, None), ("self", 0, None)),
                   False)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of the flattened ``input`` at ``index``, in ``index``'s shape."""
    a = D.asarray(input._data)
    idx = _flat_index(D.asarray(index._data), a.size)
    r = a.reshape(-1)[idx]
    if needs_grad((input,)):
        return record(_TAKE, r, (input, index), {})
    return plain(r)


def _rule_put(ops: Any, g: Any, out: Any, x: Any, index: Any, source: Any,
              accumulate: bool = False) -> tuple[Any, ...]:
    if ops.tensors:
        from .factory import zeros_like

        gx = g if accumulate else put(g, index, zeros_like(source))
        return (gx, None, take(g, index).reshape(tuple(source.shape)))
    flat = D.asarray(index).reshape(-1)
    gx = g
    if not accumulate:
        gx = D.copy(g)
        gx.reshape(-1)[flat] = 0
    return (gx, None, np.reshape(g, -1)[flat].reshape(np.shape(source)))


_PUT = node_class("PutBackward0", _rule_put, (0, 2),
                  (("accumulate", _p("accumulate"), None), ("index", 1, None),
                   ("source", 2, None)), False)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` written (or added) at flat positions ``index``."""
    a, s = D.asarray(input._data), D.asarray(source._data)
    idx = D.asarray(index._data)
    if s.size != idx.size:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {s.size}, index.numel() = "
                         f"{idx.size}")
    _same_dtype("put", a, s)
    idx = _flat_index(idx, a.size).reshape(-1)
    r = D.copy(a)
    flat = r.reshape(-1)
    if accumulate:
        D.add_at(flat, idx, s.reshape(-1))
    else:
        flat[idx] = s.reshape(-1)
    if needs_grad((input, source)):
        return record(_PUT, r, (input, index, source), {"accumulate": accumulate})
    return plain(r)
