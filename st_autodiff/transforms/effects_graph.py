"""Graph facts about effects: which nodes must run (DCE roots), which passed-through
calls the outputs read (forward mode needs no tangent for the others), and how forward
mode runs a region with effects once (``merge_regions``)."""

from __future__ import annotations

from typing import Any

from ..ir.graph import Graph, Node
from ..ir.ops import Op
from ..ir.regions import REGIONS


def has_effect(n: Node) -> bool:
    """Whether ``n`` must run as often as Python runs it: a call of a user's function, a
    passed-through call with an effect, or a region whose bodies hold one."""
    if n.op is Op.CALL:
        return True
    if n.op is Op.OPAQUE_CALL:
        return bool(n.param("effect"))
    if n.op in REGIONS:
        return any(isinstance(v, Graph) and any(has_effect(m) for m in v.nodes)
                   for _, v in n.params)
    return False


def holds_opaque(graph: Graph) -> bool:
    """Whether a passed-through call is in ``graph`` or in a region body of it."""
    return any(n.op is Op.OPAQUE_CALL or n.op in REGIONS and any(
        isinstance(v, Graph) and holds_opaque(v) for _, v in n.params) for n in graph.nodes)


def body_read(n: Node, graph: Graph, useful: set[Node] | None) -> set[int] | None:
    """The outputs of region ``n``'s bodies the enclosing graph needs (``None``: all):
    a branch's outputs whose items are useful; a loop's carried values always (the next
    iteration reads them), its stacks where useful, and its continue flag."""
    if not useful:
        return None
    taken = {m.param("index") for m in graph.nodes
             if m.op is Op.ITEM and m.inputs[0] is n and m in useful}
    if n.op is Op.IF:
        return taken
    n_carry, n_ys = n.param("n_carry"), n.param("n_ys")
    body = n.param("body")
    return set(range(n_carry)) | {k for k in range(n_carry, n_carry + n_ys) if k in taken} | \
        set(range(n_carry + n_ys, len(body.outputs)))


def useful_nodes(graph: Graph, read: set[int] | None = None) -> set[Node]:
    """Nodes the graph's outputs (those in ``read``; ``None``: all) depend on."""
    useful = {o for k, o in enumerate(graph.outputs) if read is None or k in read}
    for n in reversed(graph.nodes):
        if n in useful:
            useful.update(n.inputs)
    return useful


# --- forward mode: one run of a region with effects -------------------------------------


def primal_index(n: Node, r: Node, k: int) -> int:
    """Where the tangent region ``r`` (built from ``n`` by ``forward.region_jvp``) keeps
    ``n``'s output ``k``: branches keep their outputs first; loops keep carried values
    first, then their stacks after the carried tangents, then the trip count."""
    if n.op is Op.IF:
        return k
    n_carry: int = n.param("n_carry")
    n_ys: int = n.param("n_ys")
    carry_all: int = r.param("n_carry")
    if k < n_carry:
        return k
    if k < n_carry + n_ys:
        return carry_all + (k - n_carry)
    return carry_all + 2 * n_ys + (k - n_carry - n_ys)


def merge_regions(graph: Graph, values: dict[Node, Any], pairs: dict[Node, Node]
                  ) -> tuple[Graph, dict[Node, Any]]:
    """``graph`` with each primal region ``n`` of ``pairs`` dropped and its outputs read
    from its tangent region ``pairs[n]``, which takes ``n``'s place (what it reads is
    placed before it): a region with effects runs once, not once for the primal and once
    more for the tangents."""
    new: dict[Node, Node] = {}
    out: list[Node] = []
    items: dict[tuple[Node, int], Node] = {}

    def rebuilt(m: Node) -> Node:
        if m.op is Op.ITEM and m.inputs[0] in pairs:
            n = m.inputs[0]
            r = pairs[n]
            key = (r, primal_index(n, r, m.param("index")))
            if key not in items:
                place(r)
                items[key] = _renode(len(out), m.op, (new[r],), (("index", key[1]),), m)
                out.append(items[key])
            return items[key]
        return _renode(len(out), m.op, tuple(new[i] for i in m.inputs), m.params, m)

    def place(start: Node) -> None:
        stack = [start]
        while stack:
            m = stack[-1]
            if m in new:
                stack.pop()
                continue
            waiting = [i for i in _sources(m, pairs) if i not in new]
            if waiting:
                stack.extend(reversed(waiting))
                continue
            stack.pop()
            node = rebuilt(m)
            if node not in out:
                out.append(node)
            new[m] = node

    for m in graph.nodes:
        place(pairs.get(m, m))
    new_values = {new[k]: v for k, v in values.items() if k in new}
    args = tuple(new[a] for a in graph.args)
    outs = tuple(new[o] for o in graph.outputs)
    return Graph(graph.name, args, tuple(out), outs, graph.output_names), new_values


def _sources(m: Node, pairs: dict[Node, Node]) -> list[Node]:
    if m.op is Op.ITEM and m.inputs[0] in pairs:
        return [pairs[m.inputs[0]]]
    return list(m.inputs)


def _renode(k: int, op: Op, inputs: tuple[Node, ...], params: Any, like: Node) -> Node:
    return Node(k, op, inputs, params, like.type, like.name, like.loc, like.role)
