"""Values of the lowering's abstract interpretation that are not graph nodes.

``Scope`` maps names to values (graph nodes, or compile-time Python values); ``Closure``
is a lambda or inner ``def`` with the scope it was defined in; ``BoundMethod`` is
``x.sum`` before the call.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..ir.graph import Node
from .parse import ParsedFunction

if TYPE_CHECKING:
    import libcst as cst


@dataclass(eq=False)
class Closure:
    """A lambda or inner ``def`` together with the scope it was defined in."""

    fn: ParsedFunction
    scope: Scope


class Scope:
    """Variables of one function activation; misses go to ``parent`` then ``outer``."""

    # set on some scopes only (read with ``getattr``): a branch's scope that ends in a
    # runtime raise; a comprehension's scope, the comprehension (where a walrus binds)
    raised: bool
    comprehension: cst.BaseExpression

    def __init__(self, parent: Scope | None, outer: Callable[[str], Any] | None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.outer = outer

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            if scope.outer is not None:
                return scope.outer(name)
            scope = scope.parent
        raise KeyError(name)


def scope_chain(scope: Scope) -> list[Scope]:
    """``scope`` and its enclosing scopes, innermost first."""
    out = []
    cur: Scope | None = scope
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out


@dataclass(frozen=True)
class BoundMethod:
    """``x.sum`` before it is called."""

    receiver: Node
    name: str

#: control-flow flags kept in the scope: a pending return, break, continue
FLAGS = ("#ret", "#brk", "#cont")
#: a name a scope does not bind (distinct from one bound to None)
MISSING = object()
#: the key under which a branch's state says it ends in a runtime raise (control.py)
RAISED = "#raised"


class Diverged:
    """A name two sides of an ``if`` on a runtime condition bind to different static
    objects that have no runtime form (a dtype, a class): refused where it is read."""

    def __init__(self, name: str, values: tuple[Any, Any]) -> None:
        self.name = name
        self.values = values


def visible_name(name: str) -> str | None:
    """The name generated code gives a scope variable: flags (``#brk``) get none, an
    append site's value and flag are ``hs_item`` and ``hs_appended``."""
    if name.startswith("#last:"):
        return name[6:] + "_last"
    if name.startswith(("#app", "#apf")):
        return name.split(":", 1)[1] + ("_appended" if name.startswith("#apf") else "_item")
    return None if name.startswith("#") else name


def key_name(name: str, key: Any) -> str:
    """``d_a`` for ``d["a"]``: a variable name for one value of a dict."""
    return f"{name}_{re.sub(r'[^0-9A-Za-z_]', '_', str(key))}"


class Deleted:
    """What ``del name`` leaves bound in the scope: reading the name raises Python's
    UnboundLocalError while compiling (``maybe``: deleted in one branch of a runtime
    ``if`` only, a located refusal)."""

    def __init__(self, maybe: bool) -> None:
        self.maybe = maybe


DELETED, MAYBE_DELETED = Deleted(False), Deleted(True)


class StaticIterator:
    """``iter(xs)`` of a container known when compiling (its items may be runtime
    nodes): ``next`` advances ``pos`` while lowering (``small_ops``)."""

    def __init__(self, items: list[Any], pos: int = 0) -> None:
        self.items, self.pos = items, pos

    def rest(self) -> list[Any]:
        """The items not yet taken; the iterator is exhausted after, as in Python."""
        out = self.items[self.pos:]
        self.pos = len(self.items)
        return out


def copy_value(v: Any) -> Any:
    """Dicts, lists and static iterators are copied into a region's scope: a change inside
    shows up as a different object, which the region then outputs (or refuses).  The
    containers nested in them are copied too (a tuple only where it holds one), or a
    change to ``d["a"].append(x)`` in a branch or loop body would reach the scope before
    it, and the other branch, holding nodes of the body's graph."""
    if isinstance(v, StaticIterator):
        return StaticIterator(v.items, v.pos)
    if isinstance(v, set):
        return set(v)
    if isinstance(v, dict):  # (a defaultdict stays one, with its factory)
        out = dict(v) if type(v) is dict else copy.copy(v)
        for k, x in v.items():
            c = copy_value(x)
            if c is not x:
                out[k] = c
        return out
    if isinstance(v, list):  # a comprehension's own list stays one (``_same`` after the if)
        items = [copy_value(x) for x in v]
        return type(v)(items) if getattr(type(v), "hidden", False) else items
    if _plain_or_named_tuple(v):
        return _with_items(v, [copy_value(x) for x in v])
    return v


def _plain_or_named_tuple(v: Any) -> bool:
    return type(v) is tuple or isinstance(v, tuple) and hasattr(type(v), "_fields")


def _with_items(v: tuple[Any, ...], items: list[Any]) -> Any:
    """The tuple (or NamedTuple) ``v`` itself where ``items`` are its own, else one of its
    type holding ``items``."""
    if all(y is x for x, y in zip(v, items)):
        return v
    return type(v)(*items) if hasattr(type(v), "_fields") else tuple(items)


def rebind_closures(region: Scope, enclosing: Scope) -> dict[int, Closure]:
    """Point the closures defined in ``enclosing`` (an inner ``def`` or lambda of the
    function) at ``region``, the scope a branch or loop body is lowered in (a copy of
    ``enclosing``'s names): called there, a closure reads the names as the body has them
    (``k = a[i]; f(x)`` in a loop body reads the new ``k``), and changes the body's copy
    of a dict it writes into, not the one before the region.  The containers in
    ``region`` are its own copies (``copy_value``), changed in place.  Returns the
    original of each new closure, for ``restore_closures``."""
    originals: dict[int, Closure] = {}

    def rebind(c: Closure) -> Closure:
        if c.scope is not enclosing:
            return c
        new = Closure(c.fn, region)
        originals[id(new)] = c
        return new

    _map_closures(region, rebind)
    return originals


def restore_closures(region: Scope, originals: dict[int, Closure]) -> None:
    """Put back the closures ``rebind_closures`` replaced (after the body is lowered: a
    closure the body did not rebind is the same value after the region as before)."""
    if originals:
        _map_closures(region, lambda c: originals.get(id(c), c))


def _map_closures(region: Scope, fn: Callable[[Closure], Closure]) -> None:
    seen: set[int] = set()

    def fix(v: Any) -> Any:
        if isinstance(v, Closure):
            return fn(v)
        if id(v) in seen:
            return v
        if isinstance(v, dict):
            seen.add(id(v))
            for k, x in list(v.items()):
                y = fix(x)
                if y is not x:
                    v[k] = y
        elif isinstance(v, list):
            seen.add(id(v))
            for i, x in enumerate(v):
                y = fix(x)
                if y is not x:
                    v[i] = y
        elif _plain_or_named_tuple(v):
            return _with_items(v, [fix(x) for x in v])
        return v

    for k, v in list(region.vars.items()):
        y = fix(v)
        if y is not v:
            region.vars[k] = y


def without(scope: Scope, name: str) -> Scope:
    sc = Scope(scope.parent, scope.outer)
    sc.vars = {k: v for k, v in scope.vars.items() if k != name}
    return sc
