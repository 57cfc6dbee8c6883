"""Holders of an array that a write could miss, across loop iterations (for ``writes``).

``WriteLowering.check_writable`` logs every in-place write it accepts (``_Write``: the
memory written, the name, the location).  Once a loop body is lowered, the loop lowering
calls ``check_loop_aliases``: a write into a carried value is refused when the array the
previous iteration left in it is also an item that iteration appended to a list, or the
value of another carried name the body reads, since NumPy would change that too.  The
body's own appends and names are checked at the write itself (``_appended_list`` names the
list an ``#app``/``#last:`` scope slot belongs to).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Loc, Node
from ..ir.ops import Op
from .scope import Scope

#: ``(id, op, inputs, params, loc)`` identifies a node across ``rename`` (which replaces a
#: node by a renamed copy sharing its inputs and params) and across region builders
#: (whose node ids start again at 0).
NodeKey = tuple[int, Op, int, int, Loc | None]


def _key(n: Node) -> NodeKey:
    return (n.id, n.op, id(n.inputs), id(n.params), n.loc)


class LoopAliasing:
    """The cross-iteration half of ``writes.WriteLowering`` (see the module docstring)."""

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
