"""Static values in lowering: calls evaluated while compiling, writes into static lists.

Static-call folding (design §2.1 item 5): a call whose arguments are all static runs
while compiling when the callee is on a purity allowlist: ``operator``, NumPy functions
outside ``numpy.random`` and the op table (``np.result_type``, ``np.polynomial`` helpers on
ints), a few builtins (``isinstance``, ``sorted``, ``dict``...), exception classes, and the
non-mutating methods of static strings and tuples.  Methods of static lists and dicts
(``append``, ``extend``, ``update``, ``setdefault``, ``pop``...) change the Python
container, which may hold runtime values; a container from outside the function
(a global, a default) is never changed (``external.check_write`` refuses).  Everything
else falls through to ``dispatch.call_value``: op-table and creation functions stay graph
nodes (so generated code is unchanged), and ``np.random`` draws are never baked in.

``list_item_write`` is ``shape[axis] = 1`` on a list built while compiling.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node, holds_node
from ..ir.ops import Op
from ..ir.types import type_module
from . import aliases, static_calls, static_format
from .static_numpy import StaticArray
from .static_numpy_writes import check_item_unshared
from .static_stmts import static_exception

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

_STR_METHODS = frozenset({
    "join", "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "replace",
    "startswith", "endswith", "capitalize", "title", "zfill", "center", "ljust", "rjust",
    "count", "find", "rfind", "index", "rindex", "isdigit", "isalpha", "isalnum",
    "isidentifier", "isspace", "islower", "isupper", "partition", "rpartition", "casefold",
    "splitlines", "removeprefix", "removesuffix", "expandtabs", "swapcase"})
#: list and dict methods: those that may hold runtime values, and those comparing items
_LIST_ANY = {"extend": True, "insert": True, "pop": True, "copy": False, "clear": True,
             "reverse": True}
_LIST_STATIC = {"index": False, "count": False, "remove": True, "sort": True}
_DICT_ANY = {"get": False, "keys": False, "values": False, "items": False, "copy": False,
             "update": True, "setdefault": True, "pop": True, "popitem": True, "clear": True}
_TUPLE_STATIC = {"index": False, "count": False}
#: set methods (items are hashed: static values only); True: changes the set
_SET_STATIC = {"add": True, "discard": True, "remove": True, "update": True, "pop": True,
               "clear": True, "difference_update": True, "intersection_update": True,
               "symmetric_difference_update": True, "copy": False, "union": False,
               "intersection": False, "difference": False, "symmetric_difference": False,
               "issubset": False, "issuperset": False, "isdisjoint": False}


def static_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """Calls evaluated while compiling: exception classes, methods of static strings,
    lists, dicts and tuples, ``str``/``repr``/``format`` of static values.  Returns
    ``NotImplemented`` for every other call, and for formatting a runtime value outside
    the message of a certain raise (the compiled code formats it: ``effects``)."""
    if holds_node([*args, *kwargs.values()]) and not static_format.lenient(lw) and (
            fn in (builtins.str, builtins.repr, builtins.format, builtins.ascii) or (
                isinstance(getattr(fn, "__self__", None), str) and
                getattr(fn, "__name__", "") in ("format", "format_map"))):
        return NotImplemented
    if isinstance(fn, type) and issubclass(fn, BaseException):
        values = [static_format.static_value(lw, a, e) for a in args]
        kw = {k: static_format.static_value(lw, v, e) for k, v in kwargs.items()}
        try:
            return fn(*values, **kw)
        except Exception as exc:
            raise static_exception(lw, exc, e) from None
    if fn in (builtins.list, builtins.tuple) and len(args) == 1 and not kwargs and \
            isinstance(args[0], Node) and args[0].op is Op.CONST and \
            isinstance(args[0].param("value"), tuple):
        return fn(args[0].param("value"))  # list(x.shape) of a known shape
    if fn in (builtins.str, builtins.repr, builtins.format, builtins.ascii) and args:
        return static_format.call_format(lw, fn, args, kwargs, e)
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, (str, list, dict, tuple, set, frozenset)) and all(
            _plain(a) for a in [*args, *kwargs.values()]) and \
            static_calls.pure(fn, args, kwargs):  # one purity allowlist (static_calls)
        return static_calls.fresh(lw, _run(lw, fn, args, kwargs, e), e)
    name = getattr(fn, "__name__", "")
    if not isinstance(fn, types.BuiltinMethodType) or owner is None:
        return NotImplemented
    if isinstance(owner, str):
        if name in ("format", "format_map"):
            return static_format.call_format(lw, fn, args, kwargs, e)
        if name in _STR_METHODS:
            return _run(lw, fn, [static_format.static_value(lw, a, e) for a in args],
                        {k: static_format.static_value(lw, v, e) for k, v in kwargs.items()},
                        e)
        return NotImplemented
    table: dict[str, bool] | None = None
    if isinstance(owner, list):
        table = _LIST_ANY if name in _LIST_ANY else _LIST_STATIC if name in _LIST_STATIC \
            else None
        static_only = name in _LIST_STATIC
    elif isinstance(owner, dict):
        table, static_only = (_DICT_ANY if name in _DICT_ANY else None), False
    elif isinstance(owner, tuple):
        table, static_only = (_TUPLE_STATIC if name in _TUPLE_STATIC else None), True
    elif isinstance(owner, (set, frozenset)):
        table, static_only = (_SET_STATIC if name in _SET_STATIC else None), True
    if table is None:
        return NotImplemented
    if static_only and (holds_node([owner, *args, *kwargs.values()])):
        raise lw.fail(f"{type(owner).__name__}.{name}() compares items, and some are only "
                      "known at run time", e, "compare values known when compiling",
                      kind=CompileError)
    if table[name]:
        lw.external.check_write(owner, f"change ({name})", lw.loc(e))
    if name == "pop" and isinstance(owner, dict) and args and holds_node(args[:1]):
        raise lw.fail("dict keys must be constants", e, kind=CompileError)
    result = _run(lw, fn, args, kwargs, e)
    if name in ("keys", "values", "items"):
        return list(result)
    return result


def _run(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        raise static_exception(lw, exc, e) from None


def _plain(v: Any, depth: int = 0) -> bool:
    """Whether ``v`` is plain static data a pure function may see: no node, no array (its
    contents may change between calls), none of lowering's own objects (closures, lists
    a loop builds), in containers too."""
    if isinstance(v, (Node, np.ndarray)) or depth > 8:
        return False
    if isinstance(v, (list, tuple, set, frozenset)):
        return all(_plain(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return all(_plain(x, depth + 1) for x in (*v.keys(), *v.values()))
    return not type_module(v).startswith("st_autodiff")


# --- item writes into static lists -------------------------------------------------------


_SYMBOLS = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/", Op.POW: "**", Op.MOD: "%",
            Op.FLOORDIV: "//", Op.MATMUL: "@"}


def list_item_write(lw: Lowerer, lst: list[Any], target: cst.Subscript, value: Any,
                    scope: Scope, op: Op | None = None, where: cst.CSTNode | None = None
                    ) -> None:
    """``lst[i] = v`` (``op``: ``lst[i] op= v``) on a list built while compiling, with an
    index known when compiling (``shape = list(x.shape); shape[axis] = 1``)."""
    where = where or target
    lw.external.check_write(lst, "write into", lw.loc(target))
    parts = [lw.index_part(el, scope) for el in target.slice]
    key: Any = parts[0] if len(parts) == 1 else tuple(parts)
    if holds_node([key]) or isinstance(key, slice) and holds_node(
            [key.start, key.stop, key.step]):
        raise lw.fail("the index of a list known when compiling must be known when "
                      "compiling too", target, "index with ints computed from shapes or int "
                      "arguments, or build an array and write into it")
    label = lw.fn.module.tree.code_for_node(target).strip()
    if op is not None:
        try:
            current = lst[key]
        except Exception as exc:
            raise static_exception(lw, exc, target) from None
        sym = _SYMBOLS.get(op, op.value)
        check: Callable[[], None] | None = None
        if isinstance(current, StaticArray):
            check = lambda: check_item_unshared(lw, current, label, scope, where, sym)  # noqa: E731
        elif isinstance(current, Node) and current.type is not None and \
                current.type.kind == "array" and current.type.shape != ():
            check = lambda: lw._check_holders(  # noqa: E731, SLF001
                label, current, scope, where, sym,
                f"write {label} = {label} {sym} ... to make a new array")
        if check is not None:
            lst[key] = None  # the entry itself is the one holder allowed
            try:
                check()
            finally:
                lst[key] = current
        value = lw.binary(op, current, value, where)
    try:
        lst[key] = value
    except Exception as exc:
        raise static_exception(lw, exc, target) from None
    if op is not None:  # the other names holding that array see the update (NumPy's +=)
        aliases.rebind_update(lw, label, current, scope, where, value)
