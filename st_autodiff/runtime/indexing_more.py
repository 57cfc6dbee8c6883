"""Index-driven reads and writes: ``gather``, ``scatter*``, ``index_*``, ``take``, ``put``,
``masked_fill``/``masked_select`` and ``take_along_dim``, with PyTorch's node names.

Every op computes its value with NumPy fancy indexing and records one node whose rule is
written here.  A rule sees raw arrays in a plain backward and Tensors under
``create_graph``; in the second case it is built from this module's own (recorded) ops,
so gradients of gradients work.  The index tensors ride along as node inputs without an
edge (they never get a gradient).  ``_along(index, dim)`` is the NumPy index tuple that
addresses "position ``index[i, j, ...]`` along ``dim``, ``i, j, ...`` elsewhere", the
addressing every gather/scatter shares.  In-place forms (``scatter_`` ...) run the
out-of-place op through ``inplace.inplace``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import device as D
from .device import add_at, is_device, sparse_grids, to_device, xp_of
from .function import TensorBase, node_class
from .tensor import Tensor, _dim, plain
from .tensor_ops import needs_grad, record

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "take_along_dim"]


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _DIM(args: tuple[Any, ...], params: dict[str, Any]) -> Any:  # noqa: N802  (the dim given)
    return args[1]


# --- helpers ----------------------------------------------------------------------------

def _along(index: np.ndarray[Any, Any], dim: int) -> tuple[Any, ...]:
    """The index tuple selecting ``index`` along ``dim`` and the identity elsewhere (a 0-d
    index into a 0-d tensor, which PyTorch treats as one element: the element itself)."""
    if not index.ndim:
        return ()
    idx: list[Any] = sparse_grids(index.shape, index) if is_device(index) else list(
        np.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _arr(t: Any) -> Any:
    return t._data if isinstance(t, TensorBase) else t


def _value(v: Any) -> Any:
    return v.item() if isinstance(v, (Tensor, np.generic)) else v


def _check_gather(op: str, a: np.ndarray[Any, Any], dim: int, idx: np.ndarray[Any, Any],
                  src: np.ndarray[Any, Any] | None = None) -> None:
    """PyTorch's shape and bounds checks for gather/scatter indices."""
    if idx.ndim != a.ndim and max(idx.ndim, a.ndim) > 1:
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{op}(): Expected dtype int64 for index")
    if a.ndim == idx.ndim:
        for d in range(a.ndim):
            too_big = d != dim and idx.shape[d] > a.shape[d]
            if src is not None and (too_big or idx.shape[d] > src.shape[d]):
                raise RuntimeError(
                    f"Expected index {list(idx.shape)} to be no larger than self "
                    f"{list(a.shape)} apart from dimension {dim} and to be no larger size than "
                    f"src {list(src.shape)}")
            if too_big:
                raise RuntimeError(
                    f"Size does not match at dimension {d} expected index {list(idx.shape)} to "
                    f"be no larger than self {list(a.shape)} apart from dimension {dim}")
    n = a.shape[dim] if a.ndim else 1
    if is_device(idx):  # one host synchronisation: a bad index must not wrap silently
        if _VALIDATED[0]:  # (a rule re-using the index its forward checked: no second one)
            return
        if idx.size and bool(((idx >= n) | (idx < 0)).any()):
            bad = int(idx.max()) if int(idx.max()) >= n else int(idx.min())
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
        return
    if idx.size and (idx.max() >= n or idx.min() < 0):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


_VALIDATED = [False]  # set while a rule re-uses the index its forward already checked


class _Validated:
    """``with _Validated():`` around a rule's own gather/scatter calls under
    ``create_graph``: their index is the forward's, already checked, so a device index is
    not read on the host a second time (PyTorch's backward reads nothing)."""

    def __enter__(self) -> None:
        self.old = _VALIDATED[0]
        _VALIDATED[0] = True

    def __exit__(self, *exc: object) -> None:
        _VALIDATED[0] = self.old


def _region(src: np.ndarray[Any, Any], shape: tuple[Any, ...]) -> np.ndarray[Any, Any]:
    """The leading ``shape`` block of ``src`` (scatter reads only as much src as index)."""
    return src[tuple(slice(0, n) for n in shape)]


def _prep(op: str, input: Tensor, dim: int, index: Tensor, src: Any = None) -> tuple[Any, ...]:
    a = input._data
    d = _dim(dim, a.ndim)
    idx = index._data
    idx = to_device(idx) if is_device(a) else np.asarray(idx)
    s = src._data if isinstance(src, TensorBase) else None
    if s is not None and s.dtype != a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_gather(op, a, d, idx, s)
    return a, d, idx, s


def _index_like(index: Any, like: Any) -> Any:
    """A saved index array where ``like`` lives (host NumPy, or the device)."""
    return to_device(index) if is_device(like) else np.asarray(index)


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else plain(x)


# --- gather / take_along_dim ----------------------------------------------------------------

def _gather_data(a: np.ndarray[Any, Any], d: int, idx: np.ndarray[Any, Any]) -> np.ndarray[Any,
                 Any]:
    if a.ndim == 0:
        result: np.ndarray[Any, Any] = xp_of(a).broadcast_to(a, idx.shape).copy()
        return result
    result = (a if is_device(a) else np.asarray(a))[_along(idx, d)]
    return result


def _rule_gather(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any) -> tuple[Any, ...]:
    """Each output element came from one input element: scatter-add the gradient back."""
    if ops.tensors:
        from .factory import zeros_like

        with _Validated():
            return (scatter_add(zeros_like(x), dim, index, g), None, None)
    xp = xp_of(g)
    if not np.ndim(x):
        return (xp.asarray(g).sum().astype(g.dtype), None, None)
    z = xp.zeros(np.shape(x), dtype=g.dtype)
    add_at(z, _along(_index_like(index, g), dim), g)
    return (z, None, None)


_GATHER = node_class("GatherBackward0", _rule_gather, (0,),
                     (("dim", _DIM, None), ("index", 2, None),
                      ("self", 0, None), ("sparse_grad", lambda a, p: False, None)), False)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim == 0`` (and so on for other dims)."""
    a, d, idx, _ = _prep("gather", input, dim, index)
    r = _gather_data(a, d, idx)
    if needs_grad((input,)):
        return record(_GATHER, r, (input, d, index), {})
    return plain(r)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """Gather along ``dim`` with NumPy's broadcasting (flattened when ``dim`` is None)."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = _dim(dim, input.ndim)
    shape_i = list(input.shape)
    shape_x = list(indices.shape)
    shape_i[d] = shape_x[d] = 1
    common = np.broadcast_shapes(tuple(shape_i), tuple(shape_x))
    xs, ix = list(common), list(common)
    xs[d], ix[d] = input.shape[d], indices.shape[d]
    return gather(input.expand(*xs), d, indices.expand(*ix))


# --- scatter family -----------------------------------------------------------------------

def _rule_scatter(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any,
                  src: Any) -> tuple[Any, ...]:
    """Overwritten positions get nothing; ``src`` gets the gradient at its destinations."""
    if ops.tensors:
        with _Validated():
            gx: Any = scatter(g, dim, index, 0.0)  # a Tensor here, an array below
            gs: Any = gather(g, dim, index) if isinstance(src, TensorBase) else None
        return (gx, None, None, gs)
    xp = xp_of(g)
    idx = _along(_index_like(index, g), dim)
    gx = g.copy()
    gx[idx] = 0
    gs = None
    if hasattr(src, "shape") and np.ndim(src):
        gs = xp.zeros(np.shape(src), g.dtype)
        gs[tuple(slice(0, n) for n in np.shape(index))] = g[idx]
    return (gx, None, None, gs)


_SCATTER_PLAN = (("dim", _DIM, None), ("index", 2, None))
_SCATTER0 = node_class("ScatterBackward0", _rule_scatter, (0, 3), _SCATTER_PLAN, False)
_SCATTER1 = node_class("ScatterBackward1", _rule_scatter, (0,),
                       _SCATTER_PLAN, False)


def _rule_not_implemented(ops: Any, g: Any, out: Any, *args: Any, **params: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::scatter is not implemented")


_NOT_IMPLEMENTED = node_class("NotImplemented", _rule_not_implemented, (0, 3), (), False)
_REDUCE_WARNING = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
    "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.")


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """``input`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``."""
    if src is None:
        src = value
    is_tensor = isinstance(src, TensorBase)
    a, d, idx, s = _prep("scatter", input, dim, index, src if is_tensor else None)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warnings.warn(_REDUCE_WARNING, UserWarning, stacklevel=2)
    xp = xp_of(a)
    r = xp.array(a, copy=True)
    where = _along(idx, d) if r.ndim else ()
    vals = _region(s, idx.shape).astype(r.dtype) if is_tensor else _value(src)
    if reduce == "add":
        add_at(r, where, vals)
    elif reduce == "multiply":
        xp.multiply.at(r, where, vals)
    else:
        r[where] = vals
    if not needs_grad((input, src)):
        return plain(r)
    if reduce is not None:
        return record(_NOT_IMPLEMENTED, r, (input, d, index, src), {})
    cls = _SCATTER0 if is_tensor else _SCATTER1
    return record(cls, r, (input, d, index, src), {})


def _rule_scatter_add(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any,
                      src: Any) -> tuple[Any, ...]:
    """``x`` passes the gradient through; ``src`` gathers it from its destinations."""
    if ops.tensors:
        with _Validated():
            return (g, None, None, gather(g, dim, index))
    gs = xp_of(g).zeros(np.shape(src), g.dtype)
    gs[tuple(slice(0, n) for n in np.shape(index))] = g[_along(_index_like(index, g), dim)]
    return (g, None, None, gs)


_SCATTER_ADD = node_class("ScatterAddBackward0", _rule_scatter_add, (0, 3),
                          (("dim", _DIM, None), ("index", 2, None)), False)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeats accumulate)."""
    a, d, idx, s = _prep("scatter_add", input, dim, index, src)
    dt = np.result_type(a.dtype, s.dtype)
    r = a.astype(dt, copy=True) if is_device(a) else np.array(a, dtype=dt, copy=True)
    add_at(r, _along(idx, d), _region(s, idx.shape))
    if needs_grad((input, src)):
        return record(_SCATTER_ADD, r, (input, d, index, src), {})
    return plain(r)


_REDUCES = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum,
            "amin": np.minimum, "max": np.maximum, "min": np.minimum}


def _scatter_reduce_data(a: np.ndarray[Any, Any], d: int, idx: np.ndarray[Any, Any],
                         s: np.ndarray[Any, Any],
                         reduce: str,
                         include_self: bool) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The reduced values and, per output position, how many values were combined."""
    where = _along(idx, d)
    vals = _region(s, idx.shape)
    r = D.copy(a)
    hit = D.zeros(a.shape, np.int64, like=a)
    add_at(hit, where, 1)
    if not include_self:
        start: float | None = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if start is None:
            big = np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).max
            start = big if reduce in ("amin", "min") else -big
        r[hit > 0] = start
    _REDUCES[reduce].at(r, where, vals)
    count = hit + (1 if include_self else 0)
    if reduce == "mean":
        safe = np.maximum(count, 1)
        r = r / safe if r.dtype.kind == "f" else r // safe
        r = r.astype(a.dtype)
    return r, count


def _rule_scatter_reduce(ops: Any, g: Any, out: Any, x: Any, dim: int, index: Any, src: Any,
                         reduce: str = "sum", include_self: bool = True) -> tuple[Any, ...]:
    """PyTorch's scatter_reduce gradients: sum/mean spread, prod divides out, amax/amin
    share the gradient evenly among the values that reached the extreme."""
    T = ops.tensors  # noqa: N806
    xa, ia, sa = (_arr(x), D.asarray(_arr(index)), _arr(src)) if T else (x, index, src)
    hit = D.zeros(np.shape(xa), np.int64, like=xa)
    add_at(hit, _along(ia, dim), 1)
    scattered = hit > 0
    if T:
        from . import functional as F

        def lift(v: Any) -> Any:
            return plain(v)

        def gat(v: Any) -> Any:
            with _Validated():
                return gather(v, dim, index)

        def where(c: Any, u: Any, v: Any) -> Any:
            return F.where(lift(c), u, v)
    else:
        def lift(v: Any) -> Any:
            return v

        def gat(v: Any) -> Any:
            return D.asarray(v)[_along(ia, dim)]

        def where(c: Any, u: Any, v: Any) -> Any:
            return np.where(c, u, v)
    zero = 0.0
    masked = where(scattered, zero, g) if not include_self else g
    if reduce == "sum":
        gx, gs = masked, gat(g)
    elif reduce == "mean":
        count = (hit + (1 if include_self else 0)).astype(np.dtype(str(_arr(g).dtype)))
        n = lift(np.maximum(count, 1))
        gx = g / n if include_self else where(scattered, zero, g)
        gs = gat(g / n)
    elif reduce == "prod":
        gx, gs = _prod_grads(g, out, x, src, dim, ia, include_self, T, lift, gat, where)
        if not include_self:
            gx = where(scattered, zero, g)
    else:
        res = out
        self_is = (xa == _arr(res)) if include_self else D.zeros(np.shape(xa), bool, like=xa)
        src_is = (_region(sa, ia.shape) == D.asarray(_arr(res))[_along(ia, dim)])
        n = self_is.astype(np.int64)
        add_at(n, _along(ia, dim), src_is)
        share = g / lift(np.maximum(n, 1).astype(np.dtype(str(_arr(g).dtype))))
        gx = where(self_is, share, zero) if include_self else where(scattered, zero, g)
        gs = where(src_is, gat(share), zero)
    return (gx, None, None, _pad(gs, sa, ia, T), None)


def _prod_grads(g: Any, out: Any, x: Any, src: Any, dim: int, ia: np.ndarray[Any, Any],
                include_self: bool, T: bool, lift: Any, gat: Any, where: Any) -> tuple[Any, ...]:  # noqa: N803
    """Gradients of a product: ``out / v`` for each factor; where a group holds one zero,
    that factor gets the product of the others (a differentiable ``scatter_reduce``)."""
    xa, sa = _arr(x), _region(_arr(src), ia.shape)
    at = _along(ia, dim)
    zeros = (xa == 0).astype(np.int64) if include_self else D.zeros(np.shape(xa), np.int64,
                                                                      like=xa)
    add_at(zeros, at, (sa == 0).astype(np.int64))
    s_reg = _region(src, ia.shape) if T else sa
    ones = D.zeros(np.shape(xa), sa.dtype, like=xa) + 1
    nz_x = where(xa == 0, 1.0, x) if include_self else lift(ones)
    nz_s = where(sa == 0, 1.0, s_reg)
    prod_nz: Any  # a Tensor or an array
    if T:
        prod_nz = scatter_reduce(nz_x, dim, plain(ia), nz_s, "prod")
    else:
        prod_nz = D.copy(nz_x)
        np.multiply.at(prod_nz, at, nz_s)
    gx = g * where(zeros == 0, out / nz_x, where((zeros == 1) & (xa == 0), prod_nz, 0.0))
    z_at = zeros[at]
    gs = gat(g) * where(z_at == 0, gat(out) / nz_s,
                        where((z_at == 1) & (sa == 0), gat(prod_nz), 0.0))
    return gx, gs


def _pad(gs: Any, sa: Any, ia: np.ndarray[Any, Any], T: bool) -> Any:  # noqa: N803
    """A gradient for the index-shaped part of ``src``, zero-padded to ``src``'s shape."""
    if tuple(np.shape(sa)) == tuple(ia.shape):
        return gs
    if T:
        from .factory import zeros

        full: Any = zeros(*np.shape(sa), dtype=gs.dtype)  # a Tensor here, an array below
        full[tuple(slice(0, n) for n in ia.shape)] = gs
        return full
    full = D.zeros(np.shape(sa), gs.dtype, like=gs)
    full[tuple(slice(0, n) for n in ia.shape)] = gs
    return full


_SCATTER_REDUCE = node_class(
    "ScatterReduceBackward0", _rule_scatter_reduce, (0, 3),
    (("dim", _DIM, None), ("include_self", _p("include_self"), None), ("index", 2, None),
     ("reduce", _p("reduce"), None), ("self", 0, None), ("src", 3, None),
     ("result", "result", None)), True)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """Combine ``src`` into ``input`` at ``index`` with sum/prod/mean/amax/amin."""
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    a, d, idx, s = _prep("scatter_reduce", input, dim, index, src)
    r, _count = _scatter_reduce_data(a, d, idx, s.astype(a.dtype), reduce, include_self)
    if needs_grad((input, src)):
        return record(_SCATTER_REDUCE, r, (input, d, index, src),
                      {"reduce": reduce, "include_self": include_self})
    return plain(r)
