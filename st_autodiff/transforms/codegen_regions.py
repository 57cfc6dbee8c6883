"""Codegen of regions: ``if`` and ``for``/``while`` nodes as Python statements.

A region is written as the statement it came from.  Carried values live in one
variable each, assigned before the loop and again at the end of each iteration; the
region's outputs are those variables after it.  Stacked outputs are lists, appended to
once per iteration (``_stack_h.append(h)``); a reverse loop walks ``reversed(range(...))``
zipped with ``reversed`` stacks, so its reader sees the loop running backwards over the
values the forward loop saved.  A branch assigns the same variables on both sides.
Bodies are written by a nested writer that shares the function's names and globals.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from ..ir.graph import Graph, Node
from ..ir.ops import Op
from ..ir.regions import for_layout
from .regions import ACCUMULATE

if TYPE_CHECKING:
    from ..ir.names import Namespace

_IND = "    "


class _WriterAPI(Protocol):
    """What ``RegionWriter`` uses of ``codegen._Writer`` (its base while type checking)."""

    users: dict[Node, list[Node]]
    outputs: set[Node]
    ns: Namespace
    names: dict[Node, str]
    name: str
    functional: bool
    region_text: dict[Node, str]
    adjoint: set[Node]
    split: bool

    def __init__(self, graph: Graph, name: str, defaults: dict[str, str],
                 functional: bool = False, parent: Any = None,
                 private: frozenset[Node] = frozenset()) -> None: ...

    def ref(self, n: Node, prec: int = 0) -> str: ...


if TYPE_CHECKING:
    _WriterBase = _WriterAPI
else:
    _WriterBase = object  # the interface exists for the type checker only


class RegionWriter(_WriterBase):
    """Mixed into ``codegen._Writer``."""

    def _items_of(self, n: Node) -> dict[int, Node]:
        return {u.param("index"): u for u in self.users[n] if u.op is Op.ITEM}

    def _out_names(self, n: Node, count: int, base: list[str | None]) -> list[str]:
        """A variable per region output: the name its ``item`` reader has in the source."""
        items = self._items_of(n)
        names = []
        for k in range(count):
            it = items.get(k)
            hint = (it.name if it is not None else None) or base[k] or "_t"
            names.append(self.ns.fresh(hint))
            if it is not None:
                self.names[it] = names[-1]
        return names

    def _sub(self, graph: Graph, arg_names: list[str], private: frozenset[Node] = frozenset()
             ) -> Any:
        """A writer for a body, with its arguments already named."""
        w = type(self)(graph, self.name, {}, self.functional, parent=self, private=private)
        for a, name in zip(graph.args, arg_names):
            w.names[a] = name
        return w

    def _block(self, w: Any, tail: Any) -> list[str]:
        """The body's statements, then the lines ``tail()`` gives, indented one level."""
        lines = [text for text, _ in w._body(w._order(), set(w.g.outputs))]
        lines += tail()
        out = []
        for text in lines or ["pass"]:
            for ln in text.split("\n" + _IND):
                out.append(_IND + ln)
        return out

    def _assign(self, targets: list[str], values: list[str]) -> list[str]:
        pairs = [(t, v) for t, v in zip(targets, values) if t != v]
        if not pairs:
            return []
        if len(pairs) == 1:
            return [f"{pairs[0][0]} = {pairs[0][1]}"]
        # CPython builds and unpacks a tuple for more than three targets (a reverse loop
        # carrying adjoints, accumulators and a value): one by one where that is the same
        if len(pairs) > 3 and not any(re.search(rf"\b{t}\b", v) for k, (_, v) in
                                      enumerate(pairs) for t, _ in pairs[:k]):
            return [f"{t} = {v}" for t, v in pairs]
        # a parallel assignment: each value is read before any target is written
        return [", ".join(t for t, _ in pairs) + " = " + ", ".join(v for _, v in pairs)]

    def _region(self, n: Node) -> str:
        done = self.region_text.get(n)
        if done is not None:
            return done
        if n.op is Op.IF:
            lines = self._if(n)
        elif n.op is Op.FOR:
            lines = self._for(n)
        else:
            lines = self._while(n)
        self.region_text[n] = ("\n" + _IND).join(lines)
        return self.region_text[n]

    def _if(self, n: Node) -> list[str]:
        p = n.kwargs
        then, orelse = p["then"], p["orelse"]
        count = len(then.outputs)
        outs = self._out_names(n, count, [o.name for o in then.outputs])
        ins = [self.ref(i) for i in n.inputs[1:]]
        lines = [f"if {self.ref(n.inputs[0])}:"]
        for k, g in enumerate((then, orelse)):
            w = self._sub(g, ins)
            if k == 1:
                lines.append("else:")
            lines += self._block(w, lambda w=w, g=g: self._assign(
                outs, [w.ref(o) for o in g.outputs]))
        return lines

    def _loop_vars(self, n: Node, body: Graph, n_carry: int, n_ys: int
                   ) -> tuple[list[str], list[str]]:
        """Names of carried values and stacks; the lines that set them up."""
        base: list[str | None] = [o.name for o in body.outputs[:n_carry]]
        carry_args = self._carry_args(n, body)
        base = [a.name or b for b, a in zip(base, carry_args)]  # the name the loop carries
        ys_base = ["_stack_" + (o.name or "t").lstrip("_") for o in
                   body.outputs[n_carry:n_carry + n_ys]]
        names = self._out_names(n, n_carry + n_ys + 1, base + ys_base + ["_trips"])
        return names, [f"{name} = []" for name in names[n_carry:n_carry + n_ys]]

    @staticmethod
    def _private(body: Graph, carry_args: list[Node], n_carry: int) -> frozenset[Node]:
        """Carried arguments whose new value is not also pushed on a stack: the loop may
        write into them."""
        outs = list(body.outputs)
        return frozenset(a for k, a in enumerate(carry_args)
                         if outs.count(outs[k]) == 1 and outs[k] not in carry_args[:k] +
                         carry_args[k + 1:])

    def _setup_carried(self, n: Node, w: Any, carry_args: list[Node], names: list[str],
                       inits: list[Node]) -> list[str]:
        from .codegen import MAY_SHARE  # noqa: PLC0415  (codegen imports this module)

        """``name = init`` for each carried value; a copy where the loop writes into the
        array (its accumulators, ``a[i] = v``) and someone else may still hold it."""
        written = {m.inputs[0] for m in w.acc_add} | set(w.writes.values()) | \
            {m.inputs[0] for m in w.in_place if m.role == ACCUMULATE}
        lines = []
        for a, name, init in zip(carry_args, names, inits):
            text = self.ref(init)
            array = init.type is None or init.type.kind == "array" and \
                init.type.shape != ()  # (untyped, and written into: an array)
            residual = self.split and init not in self.adjoint  # NAME_bwd may run again
            if a in written and array and (self.users[init] != [n] or init.op is Op.ARG or
                                           init.op in MAY_SHARE or init in self.outputs or
                                           residual):
                text = f"xp.copy({self.ref(init)})"  # the loop writes into it
            if text != name:
                lines.append(f"{name} = {text}")
        return lines

    def _used(self, item: Node | None) -> Node | None:
        """``item`` if anything reads it (a trip count nobody reads is not counted)."""
        if item is None or (not self.users[item] and item not in self.outputs):
            return None
        return item

    @staticmethod
    def _carry_args(n: Node, body: Graph) -> list[Node]:
        p = n.kwargs
        if n.op is Op.FOR:
            n_xs = p["n_xs"]
            return list(body.args[1 + n_xs:1 + n_xs + p["n_carry"]])
        return list(body.args[:p["n_carry"]])

    def _loop_tail(self, w: Any, body: Graph, names: list[str], n_carry: int, n_ys: int,
                   has_break: bool, count: str | None) -> list[str]:
        tail = []
        for name, o in zip(names[n_carry:n_carry + n_ys], body.outputs[n_carry:n_carry + n_ys]):
            tail.append(f"{name}.append({w.ref(o)})")
        tail += self._assign(names[:n_carry], [w.ref(o) for o in body.outputs[:n_carry]])
        if count is not None:
            tail.append(f"{count} += 1")
        if has_break:
            tail.append(f"if not {w.ref(body.outputs[-1], 14)}:")
            tail.append(_IND + "break")
        return tail

    def _for(self, n: Node) -> list[str]:
        p = n.kwargs
        body: Graph = p["body"]
        n_xs, n_carry, _ = for_layout(p, len(n.inputs))
        n_ys, has_break, reverse = p["n_ys"], p["has_break"], p["reverse"]
        start, stop, step = n.inputs[:3]
        xs = n.inputs[3:3 + n_xs]
        inits = list(n.inputs[3 + n_xs:3 + n_xs + n_carry])
        free = n.inputs[3 + n_xs + n_carry:]
        names, lines = self._loop_vars(n, body, n_carry, n_ys)
        trips_item = self._used(self._items_of(n).get(n_carry + n_ys))
        count = names[-1] if trips_item is not None and has_break else None
        rng = self._range(start, stop, step)
        if reverse:
            rng = f"reversed({rng})"
        index = self.ns.fresh(body.args[0].name or "i")
        x_names = [self.ns.fresh(a.name or "x") for a in body.args[1:1 + n_xs]]
        if n_xs:
            seqs = [f"reversed({self.ref(x)})" if reverse else self.ref(x) for x in xs]
            header = f"for {', '.join([index, *x_names])} in zip({', '.join([rng, *seqs])}):"
        else:
            header = f"for {index} in {rng}:"
        if count is not None:
            lines.append(f"{count} = 0")
        carry_args = self._carry_args(n, body)
        w = self._sub(body, [index, *x_names, *names[:n_carry], *[self.ref(f) for f in free]],
                      self._private(body, carry_args, n_carry))
        lines[:0] = self._setup_carried(n, w, carry_args, names[:n_carry], inits)
        lines.append(header)
        lines += self._block(w, lambda: self._loop_tail(w, body, names, n_carry, n_ys,
                                                        has_break, count))
        if trips_item is not None and count is None:
            lines.append(f"{names[-1]} = len({self._range(start, stop, step)})")
        return lines

    def _range(self, start: Node, stop: Node, step: Node) -> str:
        a, b, c = (self.ref(v) for v in (start, stop, step))
        if c == "1":
            return f"range({b})" if a == "0" else f"range({a}, {b})"
        return f"range({a}, {b}, {c})"

    def _while(self, n: Node) -> list[str]:
        p = n.kwargs
        body: Graph = p["body"]
        n_carry, n_ys = p["n_carry"], p["n_ys"]
        inits = list(n.inputs[:n_carry])
        free = n.inputs[n_carry:]
        names, lines = self._loop_vars(n, body, n_carry, n_ys)
        trips_item = self._used(self._items_of(n).get(n_carry + n_ys))
        count = names[-1] if trips_item is not None else None
        if count is not None:
            lines.append(f"{count} = 0")
        carry_args = self._carry_args(n, body)
        w = self._sub(body, [*names[:n_carry], *[self.ref(f) for f in free]],
                      self._private(body, carry_args, n_carry))
        lines[:0] = self._setup_carried(n, w, carry_args, names[:n_carry], inits)
        lines.append("while True:")
        lines += self._block(w, lambda: self._loop_tail(w, body, names, n_carry, n_ys, True,
                                                        count))
        return lines
