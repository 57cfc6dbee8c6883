"""NumPy keyword arguments that the op table does not carry, with NumPy's semantics.

* ``out=`` on a ufunc or an op-table function (a ufunc's outputs may also come
  positionally, ``np.exp(K, K)``; an expression such as ``np.asarray(X)`` names the array
  a local name holds: ``aliases.out_name``): the result is written into the named array
  as ``name[...] = result`` would be (``writes.assign_subscript``: refused with a located
  error when the array may be seen elsewhere, a caller's array among them), and the call's
  value is that array.  ``where=`` (ufuncs, with ``out=``) keeps ``out``'s entries where the
  mask is false: ``np.where(mask, result, out)``.  ``where=`` without ``out=`` leaves
  NumPy's uninitialised entries, which no compiled code can reproduce: a located refusal.
* ``dtype=`` on reductions and scans (``np.sum``, ``np.cumsum``...): NumPy casts the input
  to ``dtype`` and accumulates in it, which is ``x.astype(dtype)`` followed by the op.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Node, holds_node
from ..ir.ops import Op
from . import aliases, calls
from .parse import synthesize

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

#: the keywords ``keyword_call`` looks at (other calls never reach it)
KEYWORDS = frozenset({"out", "where", "dtype", "endpoint", "retstep", "initial"})
#: ops whose ``dtype=`` means "cast the input, then accumulate"
_CAST_FIRST = frozenset({Op.SUM, Op.CUMSUM, Op.CUMPROD, Op.PROD, Op.MEAN})
#: ops that make a new array: ``out=np.zeros_like(a)`` written in the call is seen by no one
_FRESH = frozenset({Op.ZEROS, Op.ONES, Op.FULL, Op.ZEROS_LIKE, Op.ONES_LIKE, Op.FULL_LIKE})
_FRESH_NAME = re.compile(r"(zeros|ones|full|empty)(_like)?")


def keyword_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                 e: cst.Call, scope: Scope) -> Any:
    """``fn(*args, **kwargs)`` with ``out=``/``where=``/``dtype=`` handled as above;
    ``NotImplemented`` when none of them applies (the ordinary call path)."""
    op = _op_of(fn)
    if op is None:
        return NotImplemented
    if op is Op.LINSPACE and {"endpoint", "retstep", "dtype"} & kwargs.keys():
        return _linspace(lw, fn, args, kwargs, e)
    if "initial" in kwargs and op in (Op.MAX, Op.MIN) and not _op_takes(op, "initial") and \
            "out" not in kwargs and "where" not in kwargs:
        return _initial(lw, fn, op, args, kwargs, e)
    if "dtype" in kwargs and op in _CAST_FIRST and not _op_takes(op, "dtype"):
        kwargs = dict(kwargs)
        dtype = calls.dtype_name(lw.static(kwargs.pop("dtype"), "argument 'dtype'", e))
        if dtype is not None and args:
            args = [_astype(lw, args[0], dtype, e), *args[1:]]
        if "out" not in kwargs and "where" not in kwargs:
            return lw.call(fn, args, kwargs, e)
    if "out" not in kwargs and "where" not in kwargs:
        return NotImplemented
    kwargs = dict(kwargs)
    out, where = kwargs.pop("out", None), kwargs.pop("where", True)
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if where is not True and not isinstance(fn, np.ufunc):
        return NotImplemented  # the op's own binding refuses the keyword, located
    if out is None:
        if where is not True:
            raise lw.fail(f"{calls.callable_name(fn)}(..., where=...) without out= leaves "
                          "the entries where the mask is false uninitialised", e,
                          "pass out= an array holding the values to keep, or use np.where",
                          kind=UnsupportedSyntaxError)
        return lw.call(fn, args, kwargs, e)
    expr = _out_expr(e) or aliases.positional_out(fn, e)
    name = aliases.out_name(lw, out, expr, e, scope)
    # (a CONST: an array made while compiling that nothing else holds, static_numpy_writes)
    fresh = isinstance(out, Node) and out.op in (*_FRESH, Op.CONST) and \
        isinstance(expr, cst.Call) and \
        isinstance(expr.func, (cst.Name, cst.Attribute)) and _FRESH_NAME.fullmatch(
            (expr.func.attr if isinstance(expr.func, cst.Attribute) else expr.func).value
        ) is not None
    if name is None and not fresh:
        raise lw.fail(f"out= of {calls.callable_name(fn)} must name an array", e,
                      "bind the array to a local name and pass that name",
                      kind=UnsupportedSyntaxError)
    value = lw.call(fn, args, kwargs, e)
    if where is not True:
        value = lw.emit(Op.WHERE, [where, value, out], None, e)
    if name is None:  # out=np.zeros_like(a): an array nobody else sees, made here
        return lw.emit(Op.SETITEM, [out, value], {"index": (Ellipsis,)}, e)
    target = cst.Subscript(value=name, slice=[
        cst.SubscriptElement(slice=cst.Index(value=cst.Ellipsis()))])
    synthesize(target, e)
    lw.assign_subscript(target, value, scope)
    return lw.name(name, scope)


def _linspace(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    """``np.linspace(start, stop, num, endpoint=, retstep=, dtype=)``.  NumPy computes
    ``start + arange(num) * step`` with ``step = (stop - start) / div`` (``div`` is
    ``num - 1``, or ``num`` without the endpoint), so ``endpoint=False`` is exactly
    ``linspace(start, stop, num + 1)[:-1]``; ``dtype`` casts the float result (flooring
    first for an integer dtype, as NumPy does)."""
    kwargs = dict(kwargs)
    names = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            return NotImplemented  # the ordinary binding's located error
        bound[k] = v
    static = {k: lw.static(bound.get(k, d), f"argument {k!r} of numpy.linspace", e)
              for k, d in (("num", 50), ("endpoint", True), ("retstep", False),
                           ("dtype", None), ("axis", 0))}
    if static["axis"] != 0 or "start" not in bound or "stop" not in bound:
        return NotImplemented
    num, endpoint = int(static["num"]), bool(static["endpoint"])
    start, stop = bound["start"], bound["stop"]
    div = num - 1 if endpoint else num
    if not isinstance(start, Node) and not isinstance(stop, Node):
        from .static_calls import fresh  # noqa: PLC0415

        return fresh(lw, np.linspace(start, stop, num, endpoint=endpoint,  # type: ignore[call-overload]  # retstep not a literal
                                     retstep=bool(static["retstep"]),
                                     dtype=static["dtype"]), e)
    y = lw.call(fn, [start, stop, num if endpoint else num + 1], {}, e)
    if not endpoint:
        y = lw.emit(Op.GETITEM, [y], {"index": (slice(None, -1, None),)}, e)
    dtype = calls.dtype_name(static["dtype"])
    if dtype is not None:
        if np.issubdtype(np.dtype(dtype), np.integer):
            y = lw.emit(Op.FLOOR, [y], None, e)
        y = lw.emit(Op.ASTYPE, [y], {"dtype": dtype}, e)
    if not static["retstep"]:
        return y
    if div <= 0:
        raise lw.fail("numpy.linspace(retstep=True) with fewer than two intervals "
                      "(its step is NaN) is not supported", e, kind=UnsupportedSyntaxError)
    return y, lw.binary(Op.DIV, lw.binary(Op.SUB, stop, start, e), div, e)


def _initial(lw: Lowerer, fn: Any, op: Op, args: list[Any], kwargs: dict[str, Any],
             e: cst.Call) -> Any:
    """``np.max(x, ..., initial=v)`` of a non-empty float array: ``np.maximum(np.max(x,
    ...), v)`` (``np.minimum`` for ``min``), NumPy's value; SciPy 1.15's Akima reads it.
    An empty or non-float ``x`` is refused at the call (NumPy casts ``v`` to its dtype)."""
    if not holds_node(args) and not holds_node(kwargs):
        return NotImplemented  # all static: NumPy's own answer while compiling
    kwargs = dict(kwargs)
    initial = kwargs.pop("initial")
    x: Any = args[0] if args else kwargs.get("a")
    t = x.type if isinstance(x, Node) else None
    shape = t.shape if t is not None else np.shape(x)
    dtype = t.dtype if t is not None else np.asarray(x).dtype
    if shape is None or 0 in shape or dtype is None or np.dtype(dtype).kind != "f":
        raise lw.fail(f"{calls.callable_name(fn)}(..., initial=...) is supported for a "
                      "non-empty float array of known shape", e, kind=UnsupportedSyntaxError)
    reduced = lw.call(fn, args, kwargs, e)
    return lw.call(np.maximum if op is Op.MAX else np.minimum, [reduced, initial], {}, e)


def _op_of(fn: Any) -> Op | None:
    try:
        return calls.FUNCTIONS.get(id(fn)) or calls.special_op(fn)
    except Exception:  # noqa: BLE001  (an object NumPy's tables do not know)
        return None


def _op_takes(op: Op, key: str) -> bool:
    from ..ir.ops import OP_INFO  # noqa: PLC0415

    return any(k == key for k, _ in OP_INFO[op].params)


def _astype(lw: Lowerer, x: Any, dtype: str, e: cst.Call) -> Any:
    if not isinstance(x, Node):
        return np.asarray(x, dtype=dtype)
    if x.type is not None and x.type.kind != "array":
        x = lw.emit(Op.ASARRAY, [x], None, e)
    if x.type is not None and x.type.dtype == dtype:
        return x
    return lw.emit(Op.ASTYPE, [x], {"dtype": dtype}, e)


def _out_expr(e: cst.Call) -> cst.BaseExpression | None:
    for a in e.args:
        if a.keyword is not None and a.keyword.value == "out":
            v = a.value
            if isinstance(v, cst.Tuple) and len(v.elements) == 1:
                v = v.elements[0].value
            return v
    return None


