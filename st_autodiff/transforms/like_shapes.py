"""``np.zeros_like(a, shape=...)`` and its siblings, and a static list indexed at run time.

``zeros_like``/``ones_like``/``empty_like``/``full_like`` with ``shape=`` make a new array
of that shape with ``a``'s dtype (unless ``dtype=`` is given); nothing else of ``a`` is
read.  They are lowered as ``np.zeros``/``np.ones``/``np.full`` of the static shape and the
prototype's dtype (``empty_like`` as zeros: its contents are arbitrary).  A shape known
only at run time, or a prototype whose dtype is not known while compiling, is refused at
the call.

A Python list or tuple built while compiling (``[1, *list(x)]``) and indexed with an int
known only at run time (the index of a loop kept as a loop) becomes a runtime list of its
items, indexed at run time.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node, holds_node
from ..ir.ops import Op

if TYPE_CHECKING:
    from .lower import Lowerer

_LIKE = {id(np.zeros_like): np.zeros, id(np.ones_like): np.ones,
         id(np.empty_like): np.zeros, id(np.full_like): np.full}


def like_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    """``fn(a, ..., shape=s)`` for the ``*_like`` creators given a shape; NotImplemented
    for any other call (the op table then handles ``*_like`` without ``shape``)."""
    make = _LIKE.get(id(fn))
    if make is None:
        return NotImplemented
    what = f"np.{fn.__name__}"
    try:
        bound = _signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        raise lw.fail(f"{what}: {exc}", e, kind=CompileError) from None
    given = bound.arguments
    if given.get("shape") is None:
        return NotImplemented
    shape = lw.static(given["shape"], f"the shape= of {what}", e)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    dtype = lw.static(given.get("dtype"), f"the dtype= of {what}", e)
    lw.static(given.get("order", "K"), f"the order= of {what}", e)  # memory layout only
    lw.static(given.get("subok", True), f"the subok= of {what}", e)  # plain ndarrays here
    if given.get("device") is not None:
        raise lw.fail(f"{what}(device=...) is not supported", e, kind=CompileError)
    proto = given[next(iter(_signature(fn).parameters))]  # a (prototype: empty_like)
    if not isinstance(proto, Node) and holds_node(proto):
        proto = lw.to_node(proto, e)  # np.zeros_like([a, b], shape=...): the stack's dtype
    if dtype is None:
        dtype = _dtype_of(proto)
        if dtype is None:
            raise lw.fail(f"{what}(..., shape=...) needs the dtype of its first argument "
                          "while compiling", e, "pass dtype= explicitly", kind=CompileError)
    from .dispatch import call_value  # noqa: PLC0415

    rest = [given["fill_value"]] if make is np.full else []
    return call_value(lw, make, [tuple(shape), *rest], {"dtype": np.dtype(dtype)}, e)


def _empty_like(prototype: Any, dtype: Any = None, order: Any = "K", subok: Any = True,
                shape: Any = None, *, device: Any = None) -> Any:
    """NumPy's documented signature of ``np.empty_like`` (a C function that carries no
    ``__text_signature__`` before NumPy 2.3)."""


def _signature(fn: Any) -> inspect.Signature:
    """``fn``'s signature; ``np.empty_like``'s from its documentation where the installed
    NumPy does not expose one."""
    try:
        return inspect.signature(fn)
    except ValueError:
        if fn is np.empty_like:
            return inspect.signature(_empty_like)
        raise


def _dtype_of(v: Any) -> np.dtype[Any] | None:
    if isinstance(v, Node):
        t = v.type
        if t is None:
            return None
        if t.kind == "array":
            return None if t.dtype is None else np.dtype(t.dtype)
        return {"float": np.dtype(float), "int": np.dtype(int),
                "bool": np.dtype(bool)}.get(t.kind)
    if holds_node(v):  # a list of runtime values: its dtype is its stack's
        return None
    try:
        dt: np.dtype[Any] = np.asarray(v).dtype
        return dt
    except Exception:  # noqa: BLE001 - a value holding nodes: not known here
        return None


def runtime_item(lw: Lowerer, base: Any, parts: list[Any], e: cst.CSTNode) -> Any:
    """``base[i]`` for a static list/tuple ``base`` and a runtime int ``i``: the items as a
    runtime list, read at run time; NotImplemented where that does not apply."""
    if not isinstance(base, (list, tuple)) or len(parts) != 1 or not base:
        return NotImplemented
    index = parts[0]
    if not isinstance(index, Node) or index.type is None or index.type.kind != "int":
        return NotImplemented
    if not all(isinstance(v, Node) or (isinstance(v, (int, float, np.number))
                                       and not isinstance(v, bool)) for v in base):
        return NotImplemented
    items = _same_typed(lw, list(base), e)
    if items is None:
        return NotImplemented
    runtime = lw.emit(Op.LIST, items, None, e)
    return lw.emit(Op.LIST_GET, [runtime, index], None, e)


def _same_typed(lw: Lowerer, base: list[Any], e: cst.CSTNode) -> list[Any] | None:
    """The items with the Python numbers among them made of the type the runtime items
    share (``1`` beside 0-d float arrays becomes a 0-d float array), so that the item read
    at run time has one known type (a gradient flows through it exactly when it is a float
    type); None when the runtime items' types differ or are not known."""
    types = {v.type for v in base if isinstance(v, Node)}
    if len(types) != 1 or None in types:
        return None
    (t,) = types
    assert t is not None  # (None is not in types)
    if t.kind == "array" and t.shape == () and t.dtype is not None:
        def make(v: Any) -> Any:
            return lw.to_node(np.asarray(v, dtype=t.dtype), e)
    elif t.kind in ("float", "int"):
        def make(v: Any) -> Any:
            return float(v) if t.kind == "float" else v
    else:
        return None
    out = [v if isinstance(v, Node) else make(v) for v in base]
    if not all(isinstance(v, Node) and v.type == t or not isinstance(v, Node)
               and type(v) is (float if t.kind == "float" else int) for v in out):
        return None
    return out
