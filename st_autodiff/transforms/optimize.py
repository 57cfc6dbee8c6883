"""Pass 5, optimize: algebraic simplification, CSE, broadcast elision and DCE.

Input and output: a ``Graph``.  Every rewrite keeps each node's type (dtype and shape),
so a rewrite is applied only when the types prove it changes nothing: ``x * 1`` becomes
``x`` only when the product has the type of ``x``; ``broadcast_to(g, s)`` disappears only
when every reader is elementwise and already has an operand of shape ``s``.  With
``enabled=False`` only dead code is removed (the corpus runs both ways).
"""

from __future__ import annotations

from typing import Any

from ..ir.graph import Graph, Node
from ..ir.ops import ELEMENTWISE, Op


def optimize(graph: Graph, enabled: bool = True) -> Graph:
    """Simplify, share common subexpressions, then drop dead nodes."""
    if enabled:
        graph = _rebuild(graph, _simplify)
        graph = _rebuild(graph, _elide_broadcasts(graph))
    return _dce(graph)


def _is_const(n: Node, *values: Any) -> bool:
    if n.op is not Op.CONST:
        return False
    v = n.param("value")
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v in values


def _same_type(a: Node, b: Node) -> bool:
    return a.type is not None and a.type == b.type


def _simplify(n: Node) -> Node | None:
    """A replacement for ``n`` among its (already rewritten) inputs, or None."""
    ins = n.inputs
    op = n.op
    if op is Op.MUL:
        for k, other in ((0, ins[1]), (1, ins[0])):
            if _is_const(ins[k], 1) and _same_type(other, n):
                return other
    if op is Op.ADD:
        for k, other in ((0, ins[1]), (1, ins[0])):
            if _is_const(ins[k], 0) and _same_type(other, n):
                return other
    if op in (Op.SUB,) and _is_const(ins[1], 0) and _same_type(ins[0], n):
        return ins[0]
    if op in (Op.DIV, Op.POW) and _is_const(ins[1], 1) and _same_type(ins[0], n):
        return ins[0]
    if op is Op.NEG and ins[0].op is Op.NEG and _same_type(ins[0].inputs[0], n):
        return ins[0].inputs[0]
    if op in (Op.BROADCAST_TO, Op.RESHAPE, Op.UNBROADCAST, Op.ASTYPE, Op.SQUEEZE) and \
            _same_type(ins[0], n):
        return ins[0]
    return None


def _elide_broadcasts(graph: Graph) -> Any:
    users = graph.users()
    outputs = set(graph.outputs)

    def rewrite(n: Node) -> Node | None:
        if n.op is not Op.BROADCAST_TO or n in outputs or n.type is None:
            return None
        shape = n.type.shape
        if shape is None:
            return None
        for u in users.get(n, ()):
            if u.op not in ELEMENTWISE or u.type is None or u.type.shape != shape:
                return None
            others = [i for i in u.inputs if i is not n]
            if not any(o.type is not None and o.type.shape == shape for o in others):
                return None
            src = n.inputs[0].type
            if src is None or src.dtype != n.type.dtype and src.kind == "array":
                return None
        return n.inputs[0]

    return rewrite


def _rebuild(graph: Graph, rewrite: Any) -> Graph:
    """Copy the graph, applying ``rewrite`` and sharing structurally equal nodes."""
    remap: dict[Node, Node] = {}
    seen: dict[Any, Node] = {}
    nodes: list[Node] = []
    for n in graph.nodes:
        ins = tuple(remap[i] for i in n.inputs)
        cur = n if ins == n.inputs else Node(n.id, n.op, ins, n.params, n.type, n.name,
                                              n.loc, n.role)
        replacement = rewrite(cur) if n.op is not Op.ARG else None
        if replacement is not None:
            remap[n] = replacement
            continue
        key = _cse_key(cur)
        if key is not None and key in seen:
            remap[n] = seen[key]
            continue
        if key is not None:
            seen[key] = cur
        remap[n] = cur
        nodes.append(cur)
    return _renumber(graph, nodes, [remap[o] for o in graph.outputs])


def _cse_key(n: Node) -> Any:
    if n.op is Op.ARG:
        return None
    if n.op is Op.CONST:
        v = n.param("value")
        try:
            hash(v)
        except TypeError:
            return ("const-id", id(v))
        return (n.op, type(v), v, n.name)
    try:
        key = (n.op, tuple(i.id for i in n.inputs), n.params)
        hash(key)
    except TypeError:
        return None
    return key


def _dce(graph: Graph) -> Graph:
    live = set(graph.outputs) | set(graph.args)
    for n in reversed(graph.nodes):
        if n in live:
            live.update(n.inputs)
    return _renumber(graph, [n for n in graph.nodes if n in live], list(graph.outputs))


def _renumber(graph: Graph, nodes: list[Node], outputs: list[Node]) -> Graph:
    """Dense ids again, inputs pointing at the renumbered nodes."""
    remap: dict[Node, Node] = {}
    out: list[Node] = []
    for k, n in enumerate(nodes):
        m = Node(k, n.op, tuple(remap[i] for i in n.inputs), n.params, n.type, n.name, n.loc,
                 n.role)
        remap[n] = m
        out.append(m)
    return Graph(graph.name, tuple(remap[a] for a in graph.args), tuple(out),
                 tuple(remap[o] for o in outputs), graph.output_names)
