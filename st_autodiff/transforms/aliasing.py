"""Holders of an array that a write could miss, across loop iterations (for ``writes``).

``WriteLowering.check_writable`` logs every in-place write it accepts (``_Write``: the
memory written, the name, the location).  Once a loop body is lowered, the loop lowering
calls ``check_loop_aliases``: a write into a carried value is refused when the array the
previous iteration left in it is also an item that iteration appended to a list, or the
value of another carried name the body reads, since NumPy would change that too.  The
body's own appends and names are checked at the write itself (``_appended_list`` names the
list an ``#app``/``#last:`` scope slot belongs to).

Lists have the same problem: a loop's appends become a new list bound to the appended
name, and ``xs += [...]`` rebinds ``xs``, while in Python both change the list object, so
another name or container holding it would see the new items.  ``check_list_unshared``
refuses both when anything else holds the list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Loc, Node
from ..ir.ops import Op
from .scope import Closure, Scope, scope_chain

if TYPE_CHECKING:
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only

#: ``(id, op, inputs, params, loc)`` identifies a node across ``rename`` (which replaces a
#: node by a renamed copy sharing its inputs and params) and across region builders
#: (whose node ids start again at 0).
NodeKey = tuple[int, Op, int, int, Loc | None]


def _key(n: Node) -> NodeKey:
    return (n.id, n.op, id(n.inputs), id(n.params), n.loc)


class LoopAliasing(LowererAPI):
    """The cross-iteration half of ``writes.WriteLowering``, and the check that a list
    changed in place has no other holder (see the module docstring)."""

    def check_loop_aliases(self, sub: Any, slots: list[tuple[str, Any]], args: list[Node],
                           outs: list[Node], sites: list[tuple[str, Node]], mark: int) -> None:
        """After a loop body is lowered: refuse an in-place write, in the body, into a
        carried value whose array the previous iteration also left somewhere else (an
        item appended to a list, or another carried name the body reads), which NumPy
        would change too.  ``slots`` name the carried values (``args`` their body
        arguments, ``outs`` their values at the end of the body); ``sites`` are the
        appended values with their lists' names; ``mark`` is where this body's writes
        start in the write log."""
        writes = self._write_log()[mark:]
        if not writes:
            return
        used = {_key(i) for n in sub.nodes for i in n.inputs}
        mems = [self._body_memory(o) for o in outs]
        for j, a in enumerate(args):
            hit = next((w for w in writes if _key(a) in w.memory), None)
            if hit is None:
                continue
            holders = [(f"the previous iteration stored it in the list {lst}",
                        self._body_memory(v)) for lst, v in sites]
            holders += [(self._slot_holder(slots[k]), mems[k])
                        for k, b in enumerate(args) if k != j and (
                            _key(b) in used or outs[k] is b)]
            for why, mem in holders:
                if not mems[j].isdisjoint(mem):
                    verb = "in-place update of" if hit.update else "writing into"
                    raise UnsupportedSyntaxError(
                        f"{verb} {hit.name!r} is not supported here: {why}, which would "
                        "change too", hit.loc, hit.hint)

    def _slot_holder(self, slot: tuple[str, Any]) -> str:
        name, key = slot
        listed = _appended_list(name)
        if listed is not None:
            return f"the previous iteration stored it in the list {listed!r}"
        held = f"{name}[{key!r}]" if key is not None else repr(name)
        return f"the previous iteration left it in {held} too"

    def _body_memory(self, n: Node) -> set[NodeKey]:
        """The keys of the nodes of a loop body whose memory ``n`` may share, stopping at
        the body's arguments (the arrays the previous iteration left)."""
        found: set[NodeKey] = set()
        todo = [n]
        while todo:
            m = todo.pop()
            if _key(m) in found:
                continue
            found.add(_key(m))
            if m.op is not Op.ARG:
                todo.extend(self._parents(m))
        return found

    def _line_of(self, listed: str, sc: Scope) -> str:
        """`` (line N)`` of the first ``append`` to the list ``listed`` in ``sc``."""
        app = sc.vars.get(listed)
        lines = getattr(app, "lines", None)
        return f" (line {lines[0].line})" if lines else ""

    def _write_log(self) -> list[_Write]:
        """The in-place writes accepted so far, for ``check_loop_aliases``."""
        log = self.__dict__.get("_writes")
        if log is None:
            log = self.__dict__["_writes"] = []
        return log

    # --- lists changed in place ---------------------------------------------------------

    def check_list_unshared(self, name: str, lst: Any, scope: Scope, where: Any,
                            update: str | None = None) -> None:
        """Refuse changing the list bound to ``name`` in place (``xs += [...]`` when
        ``update``, else appends in a loop, which the loop lowering turns into a new list
        bound to ``name``) when another name, container or closure holds the same list:
        in Python it would see the new items, here it would keep the old list."""
        if not (isinstance(lst, list) or isinstance(lst, Node) and lst.type is not None
                and lst.type.kind == "list"):
            return
        for sc, k, v in self._other_bindings(name, scope):
            held = _holds(v, lst, set())
            if held is None:
                continue
            who = repr(k) + self._whose(sc, scope)
            why = f"{who} {'holds' if held else 'refers to'} the same list"
            if update:
                raise self.fail(f"in-place update of {name!r} is not supported here: "
                                f"{why} and would change too", where,
                                f"write {name} = {name} {update} ... to make a new list")
            raise self.fail(f"appending to {name!r} in a loop is not supported here: "
                            f"{why}, which would see the new items in Python but not "
                            "here", where, f"append to a new list and bind it to both "
                            f"names after the loop ({k} = {name})")

    def _other_bindings(self, name: str, scope: Scope) -> Iterator[tuple[Scope, str, Any]]:
        """Each binding ``(scope, name, value)`` visible from ``scope`` and the active
        callers' scopes, once, but for ``name`` itself in this frame and hidden names."""
        todo = [sc for top in [scope, *self.active_scopes] for sc in scope_chain(top)]
        seen: set[int] = set()
        for sc in todo:
            if id(sc) in seen:
                continue
            seen.add(id(sc))
            for k, v in sc.vars.items():
                if not (k.startswith("#") or (k == name and self._same_frame(sc, scope))):
                    yield sc, k, v


    def check_container_unshared(self, name: str, value: Any, scope: Scope,
                                 where: Any, region: str = "loop") -> None:
        """Refuse carrying the dict or list bound to ``name`` around a loop (value by
        value, under that name) when it, or a dict or list inside it, is also held by
        another name, container or closure, or twice inside it: in Python a write
        through one holder shows through the others; the loop would change only this
        name's values."""
        parts: list[Any] = []
        twice = _mutable_parts(value, parts, set())
        if twice is not None:
            raise self.fail(f"the {type(value).__name__} {name!r} is changed in this "
                            f"{region}, but it holds the same {type(twice).__name__} twice, which "
                            "would change together in Python but not here", where,
                            "make each item its own copy before the loop")
        if not parts:
            return
        for sc, k, v in self._other_bindings(name, scope):
            for part in parts:
                held = _holds(v, part, set())
                if held is not None:
                    what = "it" if part is value else f"a {type(part).__name__} in it"
                    verb = "holds" if held else "refers to"
                    raise self.fail(
                        f"the {type(value).__name__} {name!r} is changed in this "
                        f"{region}, but {k!r}{self._whose(sc, scope)} {verb} {what} too, which "
                        "would change with it in Python but not here", where,
                        f"copy it before the {region} ({name} = copy.deepcopy({name})), "
                        "or change it through one name only")


def object_containers(lw: Any, values: Any) -> list[tuple[Any, Any, list[Any]]]:
    """The dicts and lists that objects built in this compile hold (attributes, nested
    containers in them), reachable from ``values``, each with its structure and items:
    a region copies the containers bound to names, not those inside objects, so
    ``changed_object_container`` can tell a change a loop body or branch made to one."""
    found: list[tuple[Any, Any, list[Any]]] = []
    seen: set[int] = set()

    def walk(v: Any, inside: bool) -> None:
        if id(v) in seen or isinstance(v, (str, bytes, int, float, Node)):
            return
        if isinstance(v, (dict, list)):
            seen.add(id(v))
            items = list(v.values()) if isinstance(v, dict) else list(v)
            if inside:
                keys = list(v) if isinstance(v, dict) else len(v)
                found.append((v, keys, items))
            for x in items:
                walk(x, inside)
        elif isinstance(v, tuple):
            for x in v:
                walk(x, inside)
        else:
            rec = lw.built_of(v)
            if rec is not None:
                seen.add(id(v))
                own = getattr(v, "__dict__", {})
                for x in [*rec.runtime.values(), *own.values()]:
                    walk(x, True)

    for v in values:
        walk(v, False)
    return found


def changed_object_container(found: list[tuple[Any, Any, list[Any]]]) -> bool:
    """Whether a container ``object_containers`` listed has changed since."""
    for v, keys, items in found:
        now = list(v.values()) if isinstance(v, dict) else list(v)
        if (list(v) if isinstance(v, dict) else len(v)) != keys or len(now) != len(items) or \
                any(a is not b for a, b in zip(now, items)):
            return True
    return False


def _mutable_parts(v: Any, parts: list[Any], seen: set[int]) -> Any:
    """Collect the dicts and lists in ``v`` (``v`` too, through tuples) into ``parts``;
    the first one met twice, or ``None``."""
    if isinstance(v, (dict, list)):
        if id(v) in seen:
            return v
        seen.add(id(v))
        parts.append(v)
    if isinstance(v, (tuple, list, dict)):
        for x in (v.values() if isinstance(v, dict) else v):
            twice = _mutable_parts(x, parts, seen)
            if twice is not None:
                return twice
    return None


@dataclass
class _Write:
    """An in-place write ``check_writable`` accepted: the memory it writes and where."""

    memory: set[NodeKey]
    name: str
    loc: Loc | None
    hint: str
    update: str | None


def _appended_list(key: str) -> str | None:
    """The list whose appended item the scope key ``#app0:hs`` (or ``#app0.1:hs``, or
    ``#last:hs``) holds; None for other keys (``#apf0:hs`` is a flag)."""
    if key.startswith("#last:") or (key.startswith("#app") and not key.startswith("#apf")):
        return key.split(":", 1)[1]
    return None


def _holds(v: Any, lst: Any, seen: set[int]) -> bool | None:
    """Whether ``v`` is the list ``lst`` (False), holds it in a tuple, list, dict or a
    closure's defaults (True), or neither (None).  A list node is matched by identity
    through renames."""
    if v is lst or (isinstance(v, Node) and isinstance(lst, Node) and _key(v) == _key(lst)):
        return False
    if id(v) in seen:
        return None
    if isinstance(v, (tuple, list)):
        seen.add(id(v))
        items: Any = v
    elif isinstance(v, dict):
        seen.add(id(v))
        items = v.values()
    elif isinstance(v, Closure):
        seen.add(id(v))
        items = v.fn.defaults.values()
    else:
        return None
    return True if any(_holds(x, lst, seen) is not None for x in items) else None


def first_append(body: list[Any], name: str) -> cst.CSTNode | None:
    """The first ``name.append(...)`` call in ``body``, for locating a refusal."""
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if not found and isinstance(f, cst.Attribute) and f.attr.value == "append" and \
                    isinstance(f.value, cst.Name) and f.value.value == name:
                found.append(node)

    for s in body:
        s.visit(V())
    return found[0] if found else None
