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

import inspect
import re
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError, UnsupportedSyntaxError
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
    fn, args = _method_as_function(fn, args, kwargs)
    op = _op_of(fn)
    if op is None:
        return NotImplemented
    if op in _MASKED and "out" not in kwargs and (
            "where" in kwargs or ("initial" in kwargs and op in (Op.SUM, Op.PROD))):
        args, kwargs = _cast_first(lw, op, args, kwargs, e) or (args, kwargs)
        return _masked_reduction(lw, fn, op, args, kwargs, e)
    if op is Op.LINSPACE and {"endpoint", "retstep", "dtype"} & kwargs.keys():
        return _linspace(lw, fn, args, kwargs, e)
    if "initial" in kwargs and op in (Op.MAX, Op.MIN) and not _op_takes(op, "initial") and \
            "out" not in kwargs and "where" not in kwargs:
        return _initial(lw, fn, op, args, kwargs, e)
    cast = _cast_first(lw, op, args, kwargs, e)
    if cast is not None:
        args, kwargs = cast
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


def _cast_first(lw: Lowerer, op: Op, args: list[Any], kwargs: dict[str, Any], e: cst.Call
                ) -> tuple[list[Any], dict[str, Any]] | None:
    """``dtype=`` of an op that takes none (``_CAST_FIRST``) as a cast of its first
    argument: the arguments without it; None where it does not apply."""
    if "dtype" not in kwargs or op not in _CAST_FIRST or _op_takes(op, "dtype"):
        return None
    kwargs = dict(kwargs)
    dtype = calls.dtype_name(lw.static(kwargs.pop("dtype"), "argument 'dtype'", e))
    if dtype is not None and args:
        args = [_astype(lw, args[0], dtype, e), *args[1:]]
    return args, kwargs


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
    # NumPy casts v to x's dtype (np.max(float32, initial=np.float64(0.5)) is float32)
    initial = lw.emit(Op.ASTYPE, [initial], {"dtype": str(dtype)}, e) if isinstance(
        initial, Node) else np.asarray(initial, dtype=dtype)[()]
    return lw.call(np.maximum if op is Op.MAX else np.minimum, [reduced, initial], {}, e)


#: reductions whose ``where=`` (and, for sum and prod, ``initial=``) ``_masked_reduction``
#: rewrites with the op table's ops
_MASKED = frozenset({Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.MEAN, Op.VAR, Op.STD})
_METHODS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
            "var": np.var, "std": np.std}


def _method_as_function(fn: Any, args: list[Any], kwargs: dict[str, Any]
                        ) -> tuple[Any, list[Any]]:
    """``x.max(..., initial=v)`` as ``np.max(x, ..., initial=v)`` (a reduction method
    of a runtime array with one of ``KEYWORDS`` the methods do not bind)."""
    from .scope import BoundMethod  # noqa: PLC0415  (scope imports lowering)

    if isinstance(fn, BoundMethod) and fn.name in _METHODS and \
            {"where", "initial", "dtype"} & kwargs.keys():
        return _METHODS[fn.name], [fn.receiver, *args]
    return fn, args


def _masked_reduction(lw: Lowerer, fn: Any, op: Op, args: list[Any], kwargs: dict[str, Any],
                      e: cst.Call) -> Any:
    """``np.sum(x, ..., where=m, initial=v)`` and kin with NumPy's meaning: the masked-out
    entries take the reduction's identity (``initial`` for max and min, which NumPy
    requires with ``where=``), ``initial`` joins the result (cast to ``x``'s dtype, as
    NumPy does); ``mean``, ``var`` and ``std`` count only the entries the mask keeps."""
    name = calls.callable_name(fn)
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except TypeError as exc:
        raise lw.fail(f"{name}: {exc}", e, kind=CompileError) from None
    if set(bound) - {"a", "axis", "keepdims", "ddof", "where", "initial"}:
        return NotImplemented  # (mean=, correction=: the op's own binding refuses them)
    x, where = bound["a"], bound.get("where", True)
    t = x.type if isinstance(x, Node) else None
    dtype = t.dtype if t is not None else np.asarray(x).dtype
    shape = t.shape if t is not None else np.shape(x)
    if dtype is None or np.dtype(dtype).kind != "f" or shape is None or 0 in shape:
        raise lw.fail(f"{name}(..., where=/initial=) is supported for a non-empty float "
                      "array of known shape", e, kind=UnsupportedSyntaxError)
    if not holds_node([x, where, bound.get("initial")]):
        return NotImplemented  # all static: NumPy's own answer while compiling
    axis, keepdims = bound.get("axis"), bound.get("keepdims", False)
    initial = bound.get("initial")
    if initial is not None:
        initial = lw.emit(Op.ASTYPE, [initial], {"dtype": str(dtype)}, e) if isinstance(
            initial, Node) else np.asarray(initial, dtype=dtype)[()]
    if op in (Op.MAX, Op.MIN) and initial is None:
        which = "maximum" if op is Op.MAX else "minimum"
        raise lw.fail(f"ValueError: reduction operation '{which}' does not have an "
                      "identity, so to use a where mask one has to specify 'initial'", e,
                      kind=CompileError)
    fill = initial if op in (Op.MAX, Op.MIN) else 1 if op is Op.PROD else 0
    masked = x if where is True else lw.emit(Op.WHERE, [where, x, fill], None, e)
    reduce = {"axis": axis, "keepdims": keepdims}
    if op in (Op.SUM, Op.PROD, Op.MAX, Op.MIN):
        out = lw.call(fn, [masked], reduce, e)
        if initial is None:
            return out
        pair = {Op.SUM: np.add, Op.PROD: np.multiply, Op.MAX: np.maximum,
                Op.MIN: np.minimum}[op]
        return lw.call(pair, [out, initial], {}, e)
    ones = lw.emit(Op.ASTYPE, [lw.call(np.broadcast_to, [where, lw.call(np.shape, [x], {}, e)],
                                       {}, e)], {"dtype": str(dtype)}, e)
    count = lw.call(np.sum, [ones], reduce, e)
    total = lw.call(np.sum, [masked], reduce, e)
    if op is Op.MEAN:
        return lw.binary(Op.DIV, total, count, e)
    mean = lw.binary(Op.DIV, lw.call(np.sum, [masked], {"axis": axis, "keepdims": True}, e),
                     lw.call(np.sum, [ones], {"axis": axis, "keepdims": True}, e), e)
    dev = lw.emit(Op.WHERE, [where, lw.binary(Op.SUB, x, mean, e), 0], None, e)
    squares = lw.call(np.sum, [lw.binary(Op.MUL, dev, dev, e)], reduce, e)
    ddof = bound.get("ddof", 0)
    var = lw.binary(Op.DIV, squares, lw.binary(Op.SUB, count, ddof, e), e)
    return var if op is Op.VAR else lw.call(np.sqrt, [var], {}, e)


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


