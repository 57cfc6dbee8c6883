"""In-place array methods and NumPy writer functions, lowered onto element writes.

``x.fill(v)``, ``x.sort(axis)``, ``np.place``, ``np.putmask``, ``np.copyto`` and
``np.fill_diagonal`` change an array in place.  On an array the function itself made they
are exactly a whole-array write ``x[...] = new`` (``writes.WriteLowering``), where ``new``
is built from NumPy functions the compiler knows, so their gradients are those functions'
gradients.  The write goes through ``check_writable``, so writing into the caller's arrays,
globals or views of them stays a located refusal, as for ``x[i] = v``.

* ``x.fill(v)``: ``x[...] = v`` (``v`` one value).
* ``x.sort(axis=-1, kind=None)``: ``x[...] = np.sort(x, axis)`` (every kind sorts to
  the same values).
* ``np.copyto(dst, src, casting, where)``: ``dst[...] = src``, or
  ``dst[...] = np.where(where, src, dst)``; NumPy's casting rule is checked when compiling.
* ``np.putmask(a, mask, values)``: ``a.flat[n] = values.flat[n % values.size]`` where the
  mask is true: ``a[...] = np.where(mask, cycled, a)``.
* ``np.place(arr, mask, vals)``: the k-th true position of the mask gets
  ``vals.flat[k % vals.size]`` (k counted by ``cumsum(mask) - 1``), written as
  ``arr[mask] = picked``; ``vals`` may have a length known only at run time (SciPy's
  ``place(output, cond, f(*argsreduce(cond, ...)))``).  An empty ``vals`` fails at run
  time exactly when NumPy's does (an ``IndexError`` where NumPy raises ``ValueError``).
* ``np.fill_diagonal(a, val, wrap)``: the positions NumPy's ``a.flat[:end:step] = val``
  writes, as ``a[rows, cols] = cycled`` (shapes known when compiling).
"""

from __future__ import annotations

import math
import types
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op
from . import aliases, static_numpy, static_numpy_writes
from .scope import Scope

if TYPE_CHECKING:
    from .lower import Lowerer


class InPlaceMethod:
    """``x.fill`` or ``x.sort`` on an array: lowered by ``method_call`` when called."""

    def __init__(self, array: Node, attr: str) -> None:
        self.array = array
        self.attr = attr


def searchsorted_method(x: Node) -> Any:
    """``x.searchsorted`` before it is called: ``np.searchsorted`` with ``x`` bound (the
    method is a query, read here because SciPy calls it on the arrays it sorts)."""
    from .wrappers import Partial  # noqa: PLC0415  (wrappers imports lowering modules)

    return Partial(np.searchsorted, (x,), ())


#: the NumPy writer functions, by the name of their target parameter
WRITERS = {np.place: "arr", np.putmask: "a", np.copyto: "dst", np.fill_diagonal: "a"}
def is_writer(fn: Any) -> bool:
    """Whether ``fn`` is one of the NumPy functions lowered here (hashable or not)."""
    if _ufunc_at(fn):
        return True
    try:
        return fn in _PARAMS
    except TypeError:
        return False


def _ufunc_at(fn: Any) -> bool:
    """``np.add.at``/``np.subtract.at`` (a new bound method at each attribute read)."""
    return isinstance(fn, types.BuiltinMethodType) and fn.__name__ == "at" and any(
        fn.__self__ is u for u in (np.add, np.subtract))


_PARAMS = {
    np.place: ("arr", "mask", "vals"), np.putmask: ("a", "mask", "values"),
    np.copyto: ("dst", "src", "casting", "where"), np.fill_diagonal: ("a", "val", "wrap"),
}


def method_call(lw: Any, m: InPlaceMethod, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call, scope: Scope) -> None:
    """Lower ``x.fill(v)`` or ``x.sort(...)`` as a whole-array write into ``x``."""
    func = e.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        raise lw.fail(f"x.{m.attr}() writes into the array in place; only a method called "
                      "on a named array can be compiled", e,
                      f"bind the array to a local name and call name.{m.attr}(...)")
    name = func.value.value
    if m.attr == "fill":
        bound = _bind(lw, "fill", ("value",), args, kwargs, e)
        value = bound["value"]
        _one_value(lw, value, "x.fill(value)", e)
        _write(lw, name, m.array, value, scope, e)
        return None
    if m.attr == "partition":  # numpy-more family: np.partition's values, written back
        bound = dict(zip(("kth", "axis", "kind", "order"), args), **kwargs)
        if "kth" not in bound or len(args) > 4:
            raise lw.fail("partition() takes kth and optional axis, kind, order", e)
        lw.check_writable(name, m.array, scope, e)
        new = lw.call(np.partition, [m.array, bound["kth"]], {
            k: v for k, v in bound.items() if k in ("axis", "order")}, e)
        _write(lw, name, m.array, new, scope, e, checked=True)
        return None
    bound = _bind(lw, "sort", ("axis", "kind", "order"), args, kwargs, e)
    if bound.get("order") is not None:
        raise lw.fail("x.sort(order=...) sorts structured arrays, which are not supported", e)
    lw.check_writable(name, m.array, scope, e)
    # every kind gives the same sorted values (stability only orders equal ones)
    new = lw.call(np.sort, [m.array], {"axis": bound.get("axis", -1)}, e)
    _write(lw, name, m.array, new, scope, e, checked=True)
    return None


def writer_call(lw: Any, fn: Any, e: cst.Call, scope: Scope) -> None:
    """Lower a call to one of ``WRITERS`` as a whole-array write into its target."""
    if _ufunc_at(fn):
        return _add_at(lw, fn, e, scope)
    params = _PARAMS[fn]
    target = _target_expr(e, params[0])
    if not isinstance(target, cst.Name):
        raise lw.fail(f"np.{fn.__name__} writes into its first argument; only a named array "
                      "can be written", e, f"bind the array to a local name, call "
                      f"np.{fn.__name__} on it, and use that name")
    name = target.value
    args, kwargs = lw.call_arguments(e, scope)
    bound = _bind(lw, fn.__name__, params, args, kwargs, e)
    base = bound[params[0]]
    if static_numpy.is_static_array(base):  # in place while compiling, or made a node
        if static_numpy_writes.writer(lw, fn, name, base, args, kwargs, scope, e):
            return None
        base = scope.vars[name]
    bound = static_numpy.materialize_all(lw, bound, e)  # static masks and values: nodes
    lw.check_writable(name, base, scope, e)
    if fn is np.copyto:
        new = _copyto(lw, base, bound, e)
    elif fn is np.putmask:
        new = _putmask(lw, base, bound["mask"], bound["values"], e)
    elif fn is np.place:
        _place(lw, name, base, bound["mask"], bound["vals"], scope, e)
        return None
    else:
        _fill_diagonal(lw, name, base, bound["val"], bool(bound.get("wrap", False)), scope, e)
        return None
    _write(lw, name, base, new, scope, e, checked=True)
    return None


# --- the writers ----------------------------------------------------------------------------

def _add_at(lw: Any, fn: Any, e: cst.Call, scope: Scope) -> None:
    """``np.add.at(a, indices, b)`` (``np.subtract.at``): ``b`` added into ``a`` at
    ``indices``, repeated indices accumulating: an ``index_add`` into the named ``a``."""
    what = f"np.{fn.__self__.__name__}.at"
    target = _target_expr(e, "a")
    if not isinstance(target, cst.Name):
        raise lw.fail(f"{what} writes into its first argument; only a named array can be "
                      "written", e, f"bind the array to a local name, call {what} on it, "
                      "and use that name")
    name = target.value
    args, kwargs = lw.call_arguments(e, scope)
    if kwargs or len(args) != 3:
        raise lw.fail(f"{what}(a, indices, b) takes three positional arguments here", e)
    base, indices, value = static_numpy.materialize_all(lw, dict(zip("aib", args)),
                                                        e).values()
    if not isinstance(base, Node):
        raise lw.fail(f"{what} into a value known when compiling is not supported", e,
                      "make it an array first (np.zeros, x.copy())")
    lw.check_writable(name, base, scope, e)
    parts = list(indices) if isinstance(indices, tuple) else [indices]
    index, dyn = lw.index_spec(parts, e)
    if fn.__self__ is np.subtract:
        value = lw.emit(Op.NEG, [value], None, e) if isinstance(value, Node) else -value
    new = lw.emit(Op.INDEX_ADD, [base, value, *dyn], {"index": index}, e)
    scope.vars[name] = lw.b.rename(new, name)
    aliases.rebind(lw, name, base, scope, e)


def _copyto(lw: Any, dst: Node, bound: dict[str, Any], e: cst.Call) -> Any:
    src = bound["src"]
    casting = bound.get("casting", "same_kind")
    src_dtype = _dtype(src)
    dst_dtype = np.dtype(dst.type.dtype) if dst.type and dst.type.dtype else None
    if src_dtype is not None and dst_dtype is not None and not np.can_cast(
            src_dtype, dst_dtype, casting=casting):
        raise lw.fail(f"np.copyto cannot cast {src_dtype} to {dst_dtype} under the rule "
                      f"{casting!r}", e, "cast the source first (src.astype(...))")
    where = bound.get("where", True)
    if where is True:
        return src
    return lw.call(np.where, [where, src, dst], {}, e)


def _putmask(lw: Any, a: Node, mask: Any, values: Any, e: cst.Call) -> Any:
    shape = _shape(a)
    if shape is None:
        raise _unknown(lw, "np.putmask", e)
    size = math.prod(shape)
    vshape = _shape(values)
    if vshape is None:
        raise lw.fail("np.putmask with values whose size is known only at run time is not "
                      "supported", e, "use np.where(mask, values, a)")
    vsize = math.prod(vshape)
    if vsize == 0:
        return a  # NumPy writes nothing when values is empty
    flat = _ravel(lw, values, e)
    if vsize == 1:
        cycled = _getitem(lw, flat, [0], e)
    else:
        idx = [n % vsize for n in range(size)]
        cycled = lw.call(np.reshape, [_getitem(lw, flat, [idx], e), shape], {}, e)
    return lw.call(np.where, [_mask_like(lw, mask, shape, "np.putmask", e), cycled, a], {}, e)


def _place(lw: Any, name: str, arr: Node, mask: Any, vals: Any, scope: Scope,
           e: cst.Call) -> None:
    """``arr[mask] = picked``: the k-th true position gets ``vals.flat[k % vals.size]``.
    Only the true positions index ``vals``, so an empty ``vals`` fails (NumPy's error
    is a ``ValueError``; here an ``IndexError``) exactly when the mask has a true."""
    shape = _shape(arr)
    if shape is None:
        raise _unknown(lw, "np.place", e)
    m = _mask_like(lw, mask, shape, "np.place", e)
    vshape = _shape(vals)
    if vshape is not None and math.prod(vshape) == 1:
        one = _getitem(lw, _ravel(lw, vals, e), [0], e) if isinstance(vals, Node) else \
            np.ravel(vals)[0]
        _write(lw, name, arr, lw.call(np.where, [m, one, arr], {}, e), scope, e, True)
        return
    flat = _ravel(lw, vals, e)
    # the number of values: static, or counted at run time (a typed integer scalar)
    count = math.prod(vshape) if vshape is not None else lw.call(
        np.sum, [lw.call(np.ones_like, [flat], {"dtype": np.int64}, e)], {}, e)
    m_flat = _ravel(lw, m, e)
    rank = lw.call(np.subtract, [lw.call(np.cumsum, [m_flat], {}, e), 1], {}, e)
    ranks = lw.call(np.extract, [m_flat, rank], {}, e)  # 0, 1, ..., (number true) - 1
    at = lw.call(np.mod, [ranks, lw.call(np.maximum, [count, 1], {}, e)], {}, e)
    picked = _getitem(lw, flat, [at], e)
    index, dyn = lw.index_spec([m], e)
    new = lw.emit(Op.SETITEM, [arr, picked, *dyn], {"index": index}, e)
    scope.vars[name] = lw.b.rename(new, name)
    aliases.rebind(lw, name, arr, scope, e)


def _fill_diagonal(lw: Any, name: str, a: Node, val: Any, wrap: bool, scope: Scope,
                   e: cst.Call) -> None:
    shape = _shape(a)
    if shape is None:
        raise _unknown(lw, "np.fill_diagonal", e)
    if len(shape) < 2:
        raise lw.fail("np.fill_diagonal needs an array of at least 2 dimensions", e)
    if len(shape) == 2:
        step, end = shape[1] + 1, (None if wrap else shape[1] * shape[1])
    else:
        if len(set(shape)) != 1:
            raise lw.fail("np.fill_diagonal: all dimensions of the array must be equal", e)
        step, end = 1 + int(np.cumprod(shape[:-1]).sum()), None
    flat = list(range(math.prod(shape)))[:end:step]
    if not flat:
        aliases.forget(lw)
        return
    coords = [list(c) for c in np.unravel_index(flat, shape)]
    vshape = _shape(val)
    if vshape is None:
        raise lw.fail("np.fill_diagonal with values whose size is known only at run time "
                      "is not supported", e)
    vsize = math.prod(vshape)
    if vsize == 0:
        aliases.forget(lw)
        return
    if vsize == 1:
        cycled = _getitem(lw, _ravel(lw, val, e), [0], e) if isinstance(val, Node) else \
            np.ravel(val)[0]
    else:
        cycled = _getitem(lw, _ravel(lw, val, e), [[k % vsize for k in range(len(flat))]],
                          e)
    index, dyn = lw.index_spec(coords, e)
    new = lw.emit(Op.SETITEM, [a, cycled, *dyn], {"index": index}, e)
    scope.vars[name] = lw.b.rename(new, name)
    aliases.rebind(lw, name, a, scope, e)


# --- helpers --------------------------------------------------------------------------------

def _write(lw: Any, name: str, base: Node, value: Any, scope: Scope, e: cst.Call,
           checked: bool = False) -> None:
    """``name[...] = value`` (``check_writable`` first unless ``checked``)."""
    if not checked:
        lw.check_writable(name, base, scope, e)
    index, dyn = lw.index_spec([Ellipsis], e)
    new = lw.emit(Op.SETITEM, [base, value, *dyn], {"index": index}, e)
    scope.vars[name] = lw.b.rename(new, name)
    aliases.rebind(lw, name, base, scope, e)


def _bind(lw: Any, what: str, params: tuple[str, ...], args: list[Any],
          kwargs: dict[str, Any], e: cst.Call) -> dict[str, Any]:
    """Positional and keyword arguments by parameter name (a located error for others)."""
    if len(args) > len(params):
        raise lw.fail(f"{what}() takes at most {len(params)} arguments", e)
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params or k in bound:
            raise lw.fail(f"{what}() got an unexpected or repeated argument {k!r}", e)
        bound[k] = v
    needed = {"fill": 1, "sort": 0, "place": 3, "putmask": 3, "copyto": 2,
              "fill_diagonal": 2}[what]
    if any(p not in bound for p in params[:needed]):
        raise lw.fail(f"{what}() is missing a required argument", e)
    return bound


def _target_expr(e: cst.Call, param: str) -> cst.BaseExpression | None:
    """The expression passed for the written parameter (first positional or keyword)."""
    for a in e.args:
        if a.keyword is not None and a.keyword.value == param:
            return a.value
    first = e.args[0] if e.args else None
    if first is not None and first.keyword is None and not first.star:
        return first.value
    return None


def _shape(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, Node):
        t = v.type
        if t is None or t.shape is None:
            return None
        return tuple(t.shape)
    return cast("tuple[int, ...]", np.shape(v))


def _dtype(v: Any) -> np.dtype[Any] | None:
    if isinstance(v, Node):
        t = v.type
        return np.dtype(t.dtype) if t is not None and t.dtype is not None else None
    if isinstance(v, (bool, int, float)):
        return None  # Python numbers cast by value
    dt: np.dtype[Any] = np.asarray(v).dtype
    return dt


def _one_value(lw: Any, v: Any, what: str, e: cst.Call) -> None:
    shape = _shape(v)
    if shape is None or math.prod(shape) != 1:
        raise lw.fail(f"{what} takes one value (a scalar)", e,
                      "write name[...] = value to broadcast an array")


def _mask_like(lw: Any, mask: Any, shape: tuple[int, ...], what: str, e: cst.Call) -> Any:
    """The mask as booleans with the target's shape (NumPy reads both flat: equal sizes
    suffice)."""
    mshape = _shape(mask)
    if mshape is None or math.prod(mshape) != math.prod(shape):
        raise lw.fail(f"{what}: the mask must have as many elements as the array (its shape "
                      "must be known when compiling)", e)
    dtype = _dtype(mask)
    if dtype is None or dtype != np.bool_:  # NumPy reads any nonzero value as true
        mask = lw.call(np.not_equal, [mask, 0], {}, e)
    if tuple(mshape) == shape:
        return mask
    return lw.call(np.reshape, [mask, shape], {}, e)


def _ravel(lw: Any, v: Any, e: cst.Call) -> Any:
    if not isinstance(v, Node):
        return np.ravel(v)
    return lw.call(np.ravel, [v], {}, e)


def _getitem(lw: Any, base: Any, parts: list[Any], e: cst.Call) -> Any:
    if not isinstance(base, Node):
        base = lw.to_node(np.asarray(base), e)
    index, dyn = lw.index_spec(parts, e)
    return lw.emit(Op.GETITEM, [base, *dyn], {"index": index}, e)


def _unknown(lw: Lowerer, what: str, e: cst.Call) -> Exception:
    return lw.fail(f"{what} needs the shape of the array it writes into when compiling", e,
                   "call the gradient with arguments first")
