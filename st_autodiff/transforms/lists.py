"""Lists a loop builds with ``append``, for ``lower`` (mixed into ``ControlLowering``).

Each ``xs.append(v)`` statement a loop body lowers is an append *site* ``k``.  Its value
and whether it ran are the scope variables ``#app{k}:xs`` and ``#apf{k}:xs`` (True, or a
flag known only at run time when the append sits in an ``if``, after a ``break`` or
``continue``, or in a ``while``): they flow through the body's branches like any other
variable, so an ``if`` merges them, a site that did not run reads as ``(None, False)``.
The loop stacks every site's value and flag; after the loop ``list_gather`` interleaves
the sites' stacks, iteration by iteration and site by site, keeping the items whose flag
is set (a single site that always appends is its own stack, nothing to gather).

* ``xs[-1]`` inside the loop is the carried variable ``#last:xs``: the prefix's last item
  before the first iteration, then whatever the latest append stored (merged by branches
  like any variable).
* Tuples appended (``pairs.append((a, b))``) are one site per component (``#app{k}.{c}``)
  sharing the site's flag; after the loop the name holds a ``TupleList`` of one runtime
  list per component, which a ``for`` iterates as their zip, ``len`` measures and
  ``pairs[k]`` indexes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from ..errors import CompileError
from ..ir.graph import GraphBuilder, Loc, Node
from ..ir.ops import Op
from .scope import MISSING, Scope

if TYPE_CHECKING:
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only


class Appender:
    """A list being appended to inside a loop body (see the module docstring)."""

    def __init__(self, name: str, prefix: Any) -> None:
        self.name = name
        self.prefix = prefix
        self.sites = 0
        self.lines: list[Loc | None] = []  # where each site appends, for messages
        self.arity: int | None = None  # tuples appended: their length

    def append(self, value: Any) -> None:
        """Never called: ``append_statement`` lowers ``xs.append(v)`` in user code."""
        raise NotImplementedError


class TupleList:
    """A list of tuples a loop built: one runtime list per tuple component."""

    def __init__(self, lists: list[Node]) -> None:
        self.lists = lists


class ListLowering(LowererAPI):
    """The list-building half of ``ControlLowering`` (see the module docstring)."""

    def append_statement(self, call: cst.BaseExpression, scope: Scope) -> bool:
        """Lower ``xs.append(v)`` on a list a loop appends to as one append site; False
        for any other expression statement."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and
                call.func.attr.value == "append" and isinstance(call.func.value, cst.Name)):
            return False
        name = call.func.value.value
        app = scope.vars.get(name)
        if not isinstance(app, Appender):
            return False
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            raise self.fail("append() takes exactly one argument", call, kind=CompileError)
        value = self.expr(call.args[0].value, scope)
        arity = len(value) if isinstance(value, tuple) else None
        if app.sites and arity != app.arity:
            raise self.fail(f"{name!r} gets items of different kinds in this loop (tuples of "
                            "other lengths, or tuples and single values)", call,
                            "append values of one kind")
        app.arity = arity
        site = app.sites
        app.sites += 1
        app.lines.append(self.loc(call))
        if arity is None:
            scope.vars[f"#app{site}:{name}"] = self.to_node(value, call)
        else:
            for c, part in enumerate(value):
                scope.vars[f"#app{site}.{c}:{name}"] = self.to_node(part, call)
        scope.vars[f"#apf{site}:{name}"] = True
        if f"#last:{name}" in scope.vars:
            scope.vars[f"#last:{name}"] = value if arity is None else tuple(
                scope.vars[f"#app{site}.{c}:{name}"] for c in range(arity))
        return True

    def appended_last(self, app: Appender, index: Any, scope: Scope, where: cst.CSTNode
                      ) -> Any:
        """``xs[-1]`` read inside the loop that appends to ``xs``."""
        last = scope.vars.get(f"#last:{app.name}", MISSING)
        if not (isinstance(index, int) and index == -1) or last is MISSING:
            raise self.fail(f"the list {app.name!r} is appended to in this loop; inside it "
                            f"only its last item ({app.name}[-1]) can be read", where,
                            "keep other values in variables of their own")
        if app.sites == 0 and isinstance(app.prefix, list) and not app.prefix:
            raise self.fail(f"{app.name}[-1] is read before anything was appended to "
                            f"{app.name!r}, which is empty", where, kind=CompileError)
        return last

    def last_slots(self, body: list[Any], appended: list[str], before: dict[str, Any],
                   where: cst.CSTNode) -> list[str]:
        """The carried ``#last:xs`` variables of the lists whose last item the body reads,
        with their values before the loop added to ``before``."""
        names = []
        for name in appended:
            if not _reads_last(body, name):
                continue
            prefix = before[name]
            if isinstance(prefix, list):
                first = prefix[-1] if prefix else None
            else:
                first = self.emit(Op.LIST_GET, [prefix, -1], None, where)
            before[f"#last:{name}"] = first
            names.append(f"#last:{name}")
        return names

    def append_sites(self, sc: Scope, name: str, sub: GraphBuilder, ys: list[Node],
                     where: cst.CSTNode) -> tuple[int | None, list[tuple[list[int], int | None]]]:
        """Add the body outputs of the list ``name``'s append sites to ``ys``: each site's
        value (one per tuple component), then its flag when only known at run time.
        Returns the tuple arity and, per site, the positions of its values and flag in
        ``ys`` (flag None: the site always appends)."""
        app = sc.vars.get(name)
        if not isinstance(app, Appender):
            raise self.fail(f"{name!r} is appended to in the loop and also rebound in it",
                            where, "append to one list, and rebind a different name")
        parts = [""] if app.arity is None else [f".{c}" for c in range(app.arity)]
        layout: list[tuple[list[int], int | None]] = []
        for site in range(app.sites):
            values = [sc.vars.get(f"#app{site}{p}:{name}", MISSING) for p in parts]
            flag = sc.vars.get(f"#apf{site}:{name}", False)
            if MISSING in values or flag is False:
                continue  # a site in a branch the lowering folded away
            at = []
            for v in values:
                ys.append(sub.capture(self.to_node(v, where)))
                at.append(len(ys) - 1)
            if flag is True:
                layout.append((at, None))
            else:
                ys.append(sub.capture(self.to_node(flag, where)))
                layout.append((at, len(ys) - 1))
        return app.arity, layout

    def gathered(self, node: Node, n_slots: int,
                 sites: tuple[int | None, list[tuple[list[int], int | None]]],
                 prefix: Any, where: cst.CSTNode) -> Any:
        """The list a loop's append sites built after ``prefix``: the one stack of a site
        that always appends, else ``list_gather`` of every site's stacks and flags; a
        ``TupleList`` when tuples were appended.  None when nothing was appended."""
        arity, layout = sites
        loc = self.loc(where)
        if not layout:
            return None

        def item(k: int) -> Node:
            return self.b.emit(Op.ITEM, [node], {"index": n_slots + k}, loc=loc)

        flags = [self.b.const(None) if f is None else item(f) for _, f in layout]
        lists = []
        for c in range(arity or 1):
            if len(layout) == 1 and layout[0][1] is None:
                lists.append(item(layout[0][0][c]))
            else:
                values = [item(at[c]) for at, _ in layout]
                lists.append(self.emit(Op.LIST_GATHER, [*values, *flags], None, where))
        if arity is not None:
            if not (isinstance(prefix, list) and not prefix):
                raise self.fail("a loop can append tuples only to a list that starts empty",
                                where, "start from [] and add the first items in the loop")
            return TupleList(lists)
        out = lists[0]
        if isinstance(prefix, list) and prefix:
            out = self.emit(Op.LIST_CONCAT, [self.emit(Op.LIST, list(prefix), None, where),
                                             out], None, where)
        elif isinstance(prefix, Node):
            out = self.emit(Op.LIST_CONCAT, [prefix, out], None, where)
        return out

    def tuple_list_call(self, fn: Any, lst: TupleList, args: list[Any], e: cst.Call) -> Any:
        """``len(pairs)`` of a list of tuples a loop built; other calls are refused."""
        if fn is len and len(args) == 1:
            return self.emit(Op.LIST_LEN, [lst.lists[0]], None, e)
        raise self.fail("a list of tuples built in a loop can only be iterated, indexed "
                        "or measured with len()", e, "append each item to a list of its "
                        "own to stack or sum them")

    def tuple_list_item(self, lst: TupleList, index: Any, e: cst.CSTNode) -> tuple[Any, ...]:
        """``pairs[k]``: the tuple of the components' ``k``-th items."""
        if isinstance(index, (slice, tuple)):
            raise self.fail("a list of tuples built in a loop can only be indexed with one "
                            "integer", e)
        return tuple(self.emit(Op.LIST_GET, [part, index], None, e) for part in lst.lists)


def _reads_last(body: list[Any], name: str) -> bool:
    """Whether ``body`` contains ``name[-1]``."""
    found = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == name and \
                    len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                v = node.slice[0].slice.value
                if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus) \
                        and isinstance(v.expression, cst.Integer) and \
                        v.expression.value == "1":
                    found.append(node)

    for s in body:
        s.visit(V())
    return bool(found)
