"""Arithmetic operators on objects built inside the function: ``p + q`` of two
``poly1d``, ``term * 2.0`` of a user class with ``__mul__``.

Python calls ``type(a).__add__(a, b)``, and where that is missing or returns
``NotImplemented``, ``type(b).__radd__(b, a)`` (first, where ``type(b)`` is a proper
subclass of ``type(a)`` that overrides it).  Those methods are inlined here in that
order.  Without this the compiler ran the operator on the objects while compiling,
outside the lowering (their attributes holding runtime values are markers there).  An
array or runtime number on the left of a built object stays a located refusal: NumPy's
own deferral rules (``__array_priority__``, ``__array_ufunc__``) decide that case.
"""

from __future__ import annotations

import types
from typing import Any

import libcst as cst

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op

_NAMES = {Op.ADD: "add", Op.SUB: "sub", Op.MUL: "mul", Op.DIV: "truediv", Op.POW: "pow",
          Op.MOD: "mod", Op.FLOORDIV: "floordiv", Op.MATMUL: "matmul"}
_SYMBOLS = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/", Op.POW: "**", Op.MOD: "%",
            Op.FLOORDIV: "//", Op.MATMUL: "@"}
NOT_OBJECTS = object()


def _lookup(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def object_binary(lw: Any, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
    """``a op b`` where either side is an object built in this compile; ``NOT_OBJECTS``
    where neither is."""
    built_a, built_b = lw.built_of(a) is not None, lw.built_of(b) is not None
    if not built_a and not built_b:
        return NOT_OBJECTS
    symbol = _SYMBOLS.get(op, op.value)
    if isinstance(a, Node) and not built_a:
        raise lw.fail(f"the operator {symbol} between an array or runtime number and a "
                      f"{type(b).__qualname__} object is not supported", where,
                      f"put the {type(b).__qualname__} object on the left")
    name = _NAMES.get(op)
    if name is None:
        raise lw.fail(f"the operator {symbol} on a {type(a if built_a else b).__qualname__} "
                      "object is not supported", where)
    forward = (a, b, f"__{name}__")
    reflected = (b, a, f"__r{name}__")
    order = [forward, reflected] if type(a) is not type(b) else [forward]
    if type(a) is not type(b) and isinstance(b, type(a)) and \
            _lookup(type(b), reflected[2]) is not _lookup(type(a), reflected[2]):
        order.reverse()  # a subclass's reflected method goes first
    for obj, other, method in order:
        if lw.built_of(obj) is None:
            continue
        fn = _lookup(type(obj), method)
        if fn is None:
            continue
        if not isinstance(fn, types.FunctionType):
            raise lw.fail(f"{type(obj).__qualname__}.{method} is not a Python function",
                          where)
        result = lw.inline_python(fn, [obj, other], {}, where)
        if result is not NotImplemented:
            return result
    raise lw.fail(f"TypeError: unsupported operand type(s) for {symbol}: "
                  f"{type(a).__name__!r} and {type(b).__name__!r}", where, kind=CompileError)


_UNARY = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}


def object_unary(lw: Any, word: str, v: Any, where: cst.CSTNode) -> Any:
    """``-obj``, ``+obj``, ``~obj`` and ``not obj`` where ``obj`` is an object built in this
    compile (its ``__neg__``/``__pos__``/``__invert__``, ``__bool__`` or ``__len__``
    inlined, never run on the object while compiling); ``NOT_OBJECTS`` where it is not."""
    if lw.built_of(v) is None:
        return NOT_OBJECTS
    cls = type(v)
    if word == "not":
        for method in ("__bool__", "__len__"):
            fn = _lookup(cls, method)
            if fn is not None:
                break
        else:
            return False  # an object without __bool__ or __len__ is true
    else:
        method = _UNARY[word]
        fn = _lookup(cls, method)
        if fn is None:
            raise lw.fail(f"TypeError: bad operand type for unary {word}: "
                          f"{cls.__name__!r}", where, kind=CompileError)
    if not isinstance(fn, types.FunctionType):
        raise lw.fail(f"{cls.__qualname__}.{method} is not a Python function", where)
    result = lw.inline_python(fn, [v], {}, where)
    if word != "not":
        return result
    if isinstance(result, Node):
        raise lw.fail(f"not on a {cls.__qualname__} object whose {method} is computed at run "
                      "time is not supported", where, "compare the value it tests instead")
    return not result


_BUILTINS = {"len": "__len__", "abs": "__abs__", "float": "__float__", "int": "__int__"}


def object_builtin(lw: Any, name: str, v: Any, where: cst.CSTNode) -> Any:
    """``len(obj)``, ``abs(obj)``, ``float(obj)`` and ``int(obj)`` of an object built in
    this compile: its ``__len__`` (``__abs__``, ...) inlined, as Python calls it; the
    compiler ran the builtin on the object while compiling, where its runtime attributes
    are markers (``len(self.v)`` failed).  ``NOT_OBJECTS`` where ``v`` is not one."""
    if lw.built_of(v) is None:
        return NOT_OBJECTS
    cls = type(v)
    method = _BUILTINS[name]
    fn = _lookup(cls, method)
    if fn is None:
        message = {"len": f"object of type {cls.__name__!r} has no len()",
                   "abs": f"bad operand type for abs(): {cls.__name__!r}"}.get(
            name, f"{name}() argument must be a string or a real number, not "
            f"{cls.__name__!r}")
        raise lw.fail(f"TypeError: {message}", where, kind=CompileError)
    if not isinstance(fn, types.FunctionType):
        raise lw.fail(f"{cls.__qualname__}.{method} is not a Python function", where)
    result = lw.inline_python(fn, [v], {}, where)
    if name == "len" and isinstance(result, Node):
        raise lw.fail(f"len() of a {cls.__qualname__} object whose __len__ is computed at "
                      "run time is not supported", where, "return a length known from shapes")
    return result


def check_in_place(lw: Any, op: Op, current: Any, where: cst.CSTNode) -> None:
    """``obj op= v`` on a built object: Python calls ``__i<op>__`` first, which may change
    the object in place (seen through its other names); only a class without one (the
    update is then ``obj = obj op v``, as lowered) is accepted."""
    if lw.built_of(current) is None or op not in _NAMES:
        return
    method = f"__i{_NAMES[op]}__"
    if _lookup(type(current), method) is not None:
        raise lw.fail(f"{type(current).__qualname__}.{method} updates the object in place, "
                      "which is not supported", where,
                      f"write x = x {_SYMBOLS[op]} ... (a new object) instead")
