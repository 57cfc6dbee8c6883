"""Writes into static arrays (static_numpy.py): ``a[i] = v``, ``a op= v``, ``np.place``...

A write whose index and value are known when compiling is done in place on the ndarray
(views see it, as in NumPy), and ``Lowerer.static_epoch`` moves on so that no node made
before it stands for the array any more.  A write of a runtime value, or one inside a
runtime ``if``/loop into an array made outside it, turns the array into a node first
(``to_runtime``): the name is rebound to the node, provided no other name, container or
view can see the array's memory (those would keep the static contents); otherwise the
write is a located refusal.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..ir.ops import Op
from .static_numpy import (
    _OPERATORS,
    StaticArray,
    _index,
    _run,
    _static,
    epoch,
    materialize,
    unwrap,
)
from .static_numpy_calls import StaticMethod

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope


def setitem(lw: Lowerer, sa: StaticArray, target: cst.Subscript, value: Any, scope: Scope,
            op: Op | None = None, where: cst.CSTNode | None = None) -> bool:
    """``a[index] = value`` (``op=``) into a static array: in place when the index and the
    value are static and the write is not inside a runtime ``if``/loop the array was made
    outside of (True).  Otherwise the array becomes a node, where nothing else can see its
    memory, and the ordinary write goes on (False)."""
    parts = [lw.index_part(el, scope) for el in target.slice]
    if len(parts) == 1 and isinstance(parts[0], tuple):
        parts = list(parts[0])
    where = where or target
    if _static(value) and all(_static(p) for p in parts) and sa.builder is lw.b:
        index = _index(parts)
        if op is None:
            _run(lw, operator.setitem, [sa.value, index, unwrap(value)], {}, where)
        else:
            current = _run(lw, operator.getitem, [sa.value, index], {}, where)
            fn = _OPERATORS.get(op)
            if fn is None:
                raise lw.fail(f"the operator {op.value} is not supported here", where)
            inplace = getattr(operator, "i" + fn.__name__.strip("_"), None)
            if isinstance(current, np.ndarray) and inplace is not None:
                _run(lw, inplace, [current, unwrap(value)], {}, where)  # a view: in place
            else:
                new = _run(lw, fn, [current, unwrap(value)], {}, where)
                _run(lw, operator.setitem, [sa.value, index, new], {}, where)
        lw.static_epoch = epoch(lw) + 1
        return True
    to_runtime(lw, target.value, sa, scope, where)
    return False


def inplace_name(lw: Lowerer, name: cst.Name, sa: StaticArray, op: Op, value: Any,
                 scope: Scope, where: cst.CSTNode) -> bool:
    """``a op= value`` on a static array: NumPy's in-place update (views see it)."""
    if _static(value) and sa.builder is lw.b:
        fn = _OPERATORS.get(op)
        inplace = getattr(operator, "i" + fn.__name__.strip("_"), None) if fn else None
        if inplace is None:
            raise lw.fail(f"the operator {op.value} is not supported here", where)
        _run(lw, inplace, [sa.value, unwrap(value)], {}, where)
        lw.static_epoch = epoch(lw) + 1
        return True
    from .static_values import _SYMBOLS  # noqa: PLC0415  (one table of symbols)

    to_runtime(lw, name, sa, scope, where, _SYMBOLS.get(op, op.value))
    return False


def to_runtime(lw: Lowerer, target: cst.BaseExpression, sa: StaticArray, scope: Scope,
               where: cst.CSTNode, update: str | None = None) -> None:
    """Rebind the name ``target`` from the static array ``sa`` to its node, so a runtime
    value can be written into it; refused where another name, container or view would
    keep the static contents."""
    if isinstance(target, cst.Subscript):  # a[i][j] = v writes through a view into a
        while isinstance(target, cst.Subscript):
            target = target.value
        root = scope.vars.get(target.value) if isinstance(target, cst.Name) else None
        if not isinstance(root, StaticArray):
            return
        sa = root
    if not isinstance(target, cst.Name):
        return  # the ordinary write refuses it (only named arrays are written)
    if target.value not in scope.vars:
        raise lw.fail("a value known only at run time is written into an array computed "
                      "while compiling that is not a local name of this function", where,
                      "bind the array to a local name first, or copy it: a = a.copy()")
    name = target.value
    node = None
    for who, same, sc, k in _holders(lw, sa, scope, name):
        if same and sc is not None:  # another plain name for the array: it sees the node,
            node = node if node is not None else materialize(lw, sa, where)  # and the alias
            sc.vars[k] = node  # sets (aliases.py) rebind it on the write, as for any array
            continue
        why = f"{who} refers to the same array" if same else \
            f"it may be a view of {who}" if sa.value.base is not None else \
            f"{who} may be a view of it"
        hint = f"write {name} = {name} {update} ... to make a new array" if update else \
            f"copy it first ({name} = {name}.copy()) and write into the copy"
        raise lw._refuse(name, why + " (made while compiling) and would keep its old "  # noqa: SLF001
                         "values", where, hint, update)
    scope.vars[name] = node if node is not None else \
        lw.b.rename(materialize(lw, sa, where), name)


def check_item_unshared(lw: Lowerer, sa: StaticArray, label: str, scope: Scope,
                        where: cst.CSTNode, update: str) -> None:
    """``d[k] op= v`` / ``lst[i] op= v`` where the entry is a static array: NumPy updates
    that very array, so every other holder would see the change, while the entry is
    rebound to the result here; refused where anything but the entry (taken out by the
    caller) can see its memory (``lst = [np.zeros(2)] * 3``, ``lst = [z]``)."""
    found = _holders(lw, sa, scope, "")
    if found:
        who, same = found[0][0], found[0][1]
        why = f"{who} refers to the same array" if same else f"{who} may share its memory"
        raise lw._refuse(label, why + " (made while compiling) and would change too",  # noqa: SLF001
                         where, f"write {label} = {label} {update} ... to make a new array",
                         update)


def _holders(lw: Lowerer, sa: StaticArray, scope: Scope, name: str
             ) -> list[tuple[str, bool, Scope | None, str]]:
    """Names (and containers) other than ``name`` in ``scope`` that can see ``sa``'s memory:
    (what to call it, whether it is ``sa`` itself, and the scope and name to rebind where it
    is a plain name of this frame, else None)."""
    from .scope import BoundMethod, Closure, scope_chain  # noqa: PLC0415

    found: list[tuple[str, bool, Scope | None, str]] = []
    todo = [sc for top in [scope, *lw.active_scopes] for sc in scope_chain(top)]
    seen: set[int] = set()
    while todo:
        sc = todo.pop(0)
        if id(sc) in seen:
            continue
        seen.add(id(sc))
        for k, v in list(sc.vars.items()):
            stack: list[tuple[Any, bool]] = [(v, False)]
            while stack:
                item, held = stack.pop()
                if isinstance(item, StaticArray):
                    same = lw._same_frame(sc, scope)  # noqa: SLF001  (writes.py's rule)
                    if k == name and not held and same or \
                            sc is not scope and k in scope.vars and same:
                        continue  # the name itself, or its copy outside this if/for body
                    if np.may_share_memory(item.value, sa.value):
                        plain = not held and same and item is sa
                        found.append((repr(k), item is sa, sc if plain else None, k))
                elif isinstance(item, StaticMethod):
                    stack.append((item.receiver, True))
                elif isinstance(item, (tuple, list)) and id(item) not in seen:
                    seen.add(id(item))
                    stack.extend((x, True) for x in item)
                elif isinstance(item, dict) and id(item) not in seen:
                    seen.add(id(item))
                    stack.extend((x, True) for x in item.values())
                elif isinstance(item, BoundMethod):
                    stack.append((item.receiver, True))
                elif isinstance(item, Closure) and id(item) not in seen:
                    seen.add(id(item))
                    todo.extend(scope_chain(item.scope))
    return found


def writer(lw: Lowerer, fn: Any, name: str, sa: StaticArray, args: list[Any],
           kwargs: dict[str, Any], scope: Scope, e: cst.Call) -> bool:
    """``np.place``/``np.putmask``/``np.copyto``/``np.fill_diagonal`` into the static array
    bound to ``name``: run in place when every argument is static (True); otherwise the
    array becomes a node for the ordinary write (False)."""
    if all(_static(v) for v in [*args, *kwargs.values()]) and sa.builder is lw.b:
        _run(lw, fn, unwrap(list(args)), unwrap(dict(kwargs)), e)
        lw.static_epoch = epoch(lw) + 1
        return True
    to_runtime(lw, cst.Name(name), sa, scope, e)
    return False


def out_target(lw: Lowerer, e: cst.Call, kwargs: dict[str, Any], scope: Scope) -> None:
    """``out=a`` into a static array ``a``: ``a`` becomes a runtime array first (where
    nothing else shares its memory), so the ordinary ``out=`` write reaches it."""
    sa = kwargs.get("out")
    if not isinstance(sa, StaticArray):
        return
    target = next((a.value for a in e.args if a.keyword is not None and
                   a.keyword.value == "out"), None)
    if isinstance(target, cst.Call) and not _holders(lw, sa, scope, ""):
        # out=np.zeros_like(h): an array made right there that nothing else can see (SciPy's
        # simpson): its new values are only the call's result
        kwargs["out"] = materialize(lw, sa, e)
        return
    if not isinstance(target, cst.Name):
        raise lw.fail("out= into an array computed while compiling must name it", e,
                      "bind the array to a local name and pass out=name")
    to_runtime(lw, target, sa, scope, e)
    kwargs["out"] = scope.vars[target.value]


def method_target(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                  e: cst.Call, scope: Scope) -> Any:
    """``a.fill(v)``/``a.sort()`` on a static array that a runtime value or a runtime
    ``if``/loop reaches: ``a`` becomes a runtime array and the ordinary in-place method
    (``inplace.InPlaceMethod``) writes it.  Any other callable is returned unchanged."""
    if not isinstance(fn, StaticMethod) or fn.name not in ("fill", "sort"):
        return fn
    sa = fn.receiver
    if all(_static(v) for v in [*args, *kwargs.values()]) and sa.builder is lw.b:
        return fn  # in place while compiling (static_numpy_calls)
    from .inplace import InPlaceMethod  # noqa: PLC0415  (inplace imports this module)

    target = e.func.value if isinstance(e.func, cst.Attribute) else None
    if not isinstance(target, cst.Name):
        return fn  # refused where it is called, with the hint
    to_runtime(lw, target, sa, scope, e)
    return InPlaceMethod(scope.vars[target.value], fn.name)
