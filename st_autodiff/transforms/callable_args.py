"""Functions passed as arguments: static values keyed by identity.

``st.grad(apply)(x, np.sin)`` passes a function the differentiated code calls.  Such an
argument is a compile-time value, like a ``static_argnums`` argument: the specialisation
is keyed on the callable's identity (another function compiles another specialisation,
the same one hits the cache) and its calls go through the usual paths (Python functions
are inlined, NumPy functions through the op table).  What the compiled code read from the
callable (its code, defaults, closure cells, a receiver's attributes) is guarded like a
global helper function is (``guards.py``), so a rebinding is never served stale code.
Calling a value computed at run time is a located error saying what the value is.
"""

from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError, WrtError
from ..ir.graph import Node

if TYPE_CHECKING:
    from .lower import Lowerer

STATIC = "static"  # (the head ``specialize.STATIC`` gives a static argument's key)

#: callable types whose objects compare by identity or soundly by value
_PLAIN = (types.FunctionType, types.BuiltinFunctionType, np.ufunc, functools.partial, type)


class CallableKey:
    """A callable argument's part of a cache key: identity, but a bound method by its
    function and the identity of its receiver (``obj.f`` makes a new method object on
    every read) and a builtin method by its own equality (receiver identity and name)."""

    __slots__ = ("obj", "_hash")

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        if isinstance(obj, types.MethodType):
            self._hash = hash((obj.__func__, id(obj.__self__)))
        elif isinstance(obj, types.BuiltinMethodType):
            self._hash = hash(obj)
        else:
            self._hash = id(obj)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if type(other) is not CallableKey:
            return False
        a, b = self.obj, other.obj
        if a is b:
            return True
        if isinstance(a, types.MethodType) and isinstance(b, types.MethodType):
            return a.__self__ is b.__self__ and a.__func__ == b.__func__
        if isinstance(a, types.BuiltinMethodType) and isinstance(b, types.BuiltinMethodType):
            return bool(a == b)
        return False

    def __repr__(self) -> str:
        return repr(self.obj)


def is_static_callable(value: Any) -> bool:
    """Whether an argument is a callable the compiler takes as a static value: a Python
    function or lambda, a builtin, a NumPy ufunc or function, a class, a bound method, a
    ``functools.partial``, or an object whose class defines ``__call__`` in Python."""
    if isinstance(value, (Node, np.ndarray, np.generic)) or not callable(value):
        return False
    if isinstance(value, (*_PLAIN, types.MethodType)):
        return True
    call = next((c.__dict__["__call__"] for c in type(value).__mro__
                 if "__call__" in c.__dict__), None)
    if isinstance(call, types.FunctionType):  # a callable object (its own attributes are
        return True  # guarded as a receiver's are)
    module = getattr(type(value), "__module__", "")
    return isinstance(module, str) and module.split(".")[0] in ("numpy", "scipy")


def is_static_argument(value: Any) -> bool:
    """A static callable, or a non-empty tuple of them (``(np.sin, np.cos)``: a loop over it
    unrolls).  Lists stay runtime values: a write into one must reach the caller's list."""
    if type(value) is tuple:
        return bool(value) and all(is_static_argument(v) for v in value)
    return is_static_callable(value)


def callable_kind(value: Any) -> Any:
    """The cache-key part of a callable argument (``("static", type, key)``), or
    ``type(value)`` for a value that is not one (an opaque object keyed by its type)."""
    if not is_static_callable(value):
        return type(value)
    t = type(value)
    if t is not types.MethodType and t.__eq__ is object.__eq__ and (  # type: ignore[comparison-overlap]  # slot functions compared by identity
            t.__hash__ is not None):
        return (STATIC, t, value)  # compared by identity, in C (the cached-call hot path)
    return (STATIC, t, CallableKey(value))


def _identity_kind(value: Any) -> Any:
    """``callable_kind`` of functions, builtins, ufuncs, partials and classes (which
    compare by identity, or a builtin method soundly by receiver identity and name)."""
    return (STATIC, type(value), value)


def _method_kind(value: Any) -> Any:
    """A bound method by its function and its receiver's identity (``obj.f`` makes a new
    method object on every read).  The receiver cannot die and lend its id to another
    object while the key is cached: lowering notes it in the specialisation's guards."""
    return (STATIC, types.MethodType, (value.__func__, id(value.__self__)))


#: fast paths for ``api._KINDS`` (the cached-call hot path), by argument type
KINDS: dict[type, Any] = {
    **dict.fromkeys((types.FunctionType, types.BuiltinFunctionType, np.ufunc,
                     functools.partial, type(np.sum), type), _identity_kind),
    types.MethodType: _method_kind}


def refuse_wrt(parsed: Any, example_args: list[Any] | None, wrt: Any) -> None:
    """A located error when ``wrt`` selects a callable argument: a function has no
    gradient."""
    if example_args is None:
        return
    for i in wrt if isinstance(wrt, (tuple, list)) else ():
        if isinstance(i, int) and i < len(example_args) and is_static_argument(
                example_args[i]):
            name, param, _ = parsed.slots[i]
            raise WrtError(f"cannot differentiate with respect to {name!r}: it is "
                           f"{_describe(example_args[i])}, and a function has no gradient",
                           parsed.loc(param), "drop it from wrt (callable arguments are "
                           "compile-time values: each one compiles its own specialisation)")


def wrt_error(fn: Any, p: int, value: Any, who: str) -> WrtError | None:
    """The located error for ``jacrev``/``jacfwd``/``hessian`` whose ``wrt`` selects a
    callable argument (position ``p`` of ``fn``), or None when ``value`` is no callable."""
    if not is_static_argument(value):
        return None
    from .parse import parse_function  # noqa: PLC0415  (parse imports lowering helpers)

    loc, name = None, f"argument {p}"
    while type(fn).__name__ == "GradFunction":  # a Hessian: the gradient's own function
        fn = fn._fn
    try:
        parsed = parse_function(fn)
        pname, param, _ = parsed.slots[p]
        loc, name = parsed.loc(param), repr(pname)
    except Exception:  # noqa: BLE001  (no readable source: the message without a place)
        pass
    return WrtError(f"{who}: cannot differentiate with respect to {name}: it is "
                    f"{_describe(value)}, and a function has no gradient", loc,
                    "drop it from wrt (callable arguments are compile-time values: each one "
                    "compiles its own specialisation)")


def _describe(value: Any) -> str:
    if type(value) is tuple:
        return "a tuple of functions"
    if isinstance(value, type):
        return f"the class {value.__qualname__}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    kind = type(value).__name__
    return f"a {kind} {name}" if isinstance(name, str) else f"a callable {kind} object"


def call_node(lw: Lowerer, fn: Node, e: cst.Call) -> CompileError:
    """The located error for calling a value computed at run time (never a callable the
    compiler can see through)."""
    t = fn.type
    what = "a value computed at run time" if t is None or t.kind == "object" else (
        f"a {t.dtype} array of shape {t.shape} computed at run time" if t.kind == "array"
        else f"a {t.kind} computed at run time")
    return lw.fail(f"cannot call {_code(e)!r}: it is {what}, not a function", e,
                   kind=CompileError, hint="call functions passed as arguments (several "
                   "as a tuple, not a list) or read from globals; a function chosen at run "
                   "time cannot be compiled")


#: static values that are never callable (calling one is the user's TypeError, located)
_NOT_CALLABLE = (bool, int, float, complex, str, bytes, type(None), tuple, list, dict, set,
                 np.ndarray, np.generic)


def call_static(lw: Lowerer, fn: Any, e: cst.Call) -> CompileError | None:
    """The located error for calling a static value that is not callable (an int passed
    where a function was expected), or None."""
    if not isinstance(fn, _NOT_CALLABLE) or isinstance(fn, type):
        return None
    shown = repr(fn) if len(repr(fn)) <= 40 else f"{repr(fn)[:37]}..."
    return lw.fail(f"cannot call {_code(e)!r}: it is the {type(fn).__name__} {shown}, which "
                   "is not callable", e, kind=CompileError,
                   hint="pass a function (or a class, a bound method, a functools.partial)")


def _code(e: cst.Call) -> str:
    return cst.Module([]).code_for_node(e.func)
