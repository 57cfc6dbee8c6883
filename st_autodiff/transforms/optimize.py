"""Pass 5, optimize: algebraic simplification, CSE, broadcast elision and DCE.

Input and output: a ``Graph``.  Every rewrite keeps each node's type (dtype and shape),
so a rewrite is applied only when the types prove it changes nothing: ``x * 1`` becomes
``x`` only when the product has the type of ``x``; ``broadcast_to(g, s)`` disappears only
when every reader is elementwise and already has an operand of shape ``s``.  With
``enabled=False`` only dead code is removed (the corpus runs both ways).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.abstract import Abstract, NotKnown, evaluate
from ..ir.graph import Graph, Node
from ..ir.kernels import OPAQUE, compiling
from ..ir.ops import ELEMENTWISE, Op
from ..ir.types import Type, type_of
from .effects_graph import has_effect


def optimize(graph: Graph, enabled: bool = True, examples: list[Any] | None = None
             ) -> Graph:
    """Simplify, share common subexpressions, then drop dead nodes.

    ``examples`` holds one example value per argument; with them, types are derived
    again after the rewrites (an elided broadcast can change a dtype, e.g. a Python-float
    adjoint no longer widened to float64) and casts that became no-ops are removed.
    """
    if enabled:
        uses: dict[Any, int] = {n.id: len(u) for n, u in graph.users().items()}
        uses.update({("square", id(n.inputs[0])): 1 for n in graph.nodes  # x * x exists
                     if n.op is Op.MUL and n.inputs[0] is n.inputs[1]})
        graph = _rebuild(graph, lambda n: _simplify(n, uses))
        graph = _dce(graph)  # dead readers would keep broadcasts alive
        graph = _rebuild(graph, _elide_broadcasts(graph))
        if examples is not None:
            want = [o.type for o in graph.outputs]
            graph = _retype(graph, examples)
            uses = {n.id: len(u) for n, u in graph.users().items()}
            graph = _rebuild(graph, lambda n: _simplify(n, uses))
            graph = _keep_output_dtypes(graph, want)
    return _dce(graph)


def _keep_output_dtypes(graph: Graph, want: list[Any]) -> Graph:
    """Cast back an output whose floating dtype the rewrites changed.  The first
    simplification drops a cast that the types before elision call a no-op (``x_bar``
    of a float64 ``x`` through ``x.astype(float32)``, typed float64 by the float64
    broadcast of the seed); once that broadcast is elided the gradient is float32, and
    a gradient comes back in its argument's dtype."""
    outputs = list(graph.outputs)
    extra: list[Node] = []
    renames: dict[Node, str | None] = {}
    for k, (o, t) in enumerate(zip(outputs, want)):
        now = o.type
        if t is None or now is None or t.kind != "array" or now.kind != "array" or \
                t.dtype == now.dtype or t.dtype is None or now.dtype is None or \
                np.dtype(t.dtype).kind != "f" or np.dtype(now.dtype).kind != "f":
            continue
        cast = Node(-1, Op.ASTYPE, (o,), (("copy", True), ("dtype", t.dtype)),
                    Type("array", t.dtype, now.shape), o.name, o.loc, o.role)
        extra.append(cast)
        outputs[k] = cast
        if o.op not in (Op.ARG, Op.CONST):
            renames[o] = None  # the cast takes the name: x_bar = xp.astype(_t1, ...)
    if not extra:
        return graph
    return _renumber(graph, [*graph.nodes, *extra], outputs, renames)


def _retype(graph: Graph, examples: list[Any]) -> Graph:
    """Re-derive each node's type from the arguments' types (type rules, no data)."""
    values: dict[Node, Any] = dict(zip(graph.args, examples))
    remap: dict[Node, Node] = {}
    nodes: list[Node] = []
    for n in graph.nodes:
        ins = tuple(remap[i] for i in n.inputs)
        t = n.type
        if n.op is not Op.ARG and all(i in values for i in n.inputs):
            try:
                with compiling():  # a user's function is not called: typed by its rule
                    values[n] = evaluate(n.op, tuple(values[i] for i in n.inputs), n.kwargs)
            except NotKnown:  # keep the old type; readers of this node keep theirs
                pass
            except Exception:  # leave the old types; the value is unusable downstream
                return graph
            if n in values:
                v = values[n]
                fresh = v.type if isinstance(v, Abstract) else type_of(v)
                if t is not None and (t.shape is not None or fresh.kind != "array"):
                    t = fresh
        m = Node(n.id, n.op, ins, n.params, t, n.name, n.loc, n.role)
        remap[n] = m
        nodes.append(m)
    shell = Graph(graph.name, tuple(remap[a] for a in graph.args), (), (), graph.output_names)
    return _renumber(shell, nodes, [remap[o] for o in graph.outputs])


def _is_const(n: Node, *values: Any) -> bool:
    if n.op is not Op.CONST:
        return False
    v = n.param("value")
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v in values


def _same_type(a: Node, b: Node) -> bool:
    """Equal and fully known types (two unknown shapes may differ at run time)."""
    t = a.type
    return t is not None and t == b.type and not (t.kind == "array" and t.shape is None)


def _strip_neg(m: Node, uses: dict[int, int]) -> Node | None:
    """``m`` without the negation at the left end of its product chain, if it has one.

    Only single-use chain nodes are rebuilt, so nothing is computed twice.
    """
    if m.op is Op.NEG:
        return m.inputs[0]
    if m.op in (Op.MUL, Op.DIV) and uses.get(m.id, 0) <= 1:
        inner = _strip_neg(m.inputs[0], uses)
        if inner is not None:
            return Node(-1, m.op, (inner, m.inputs[1]), m.params, m.type, None, m.loc, m.role)
    return None


def _factor(a: Node, b: Node, uses: dict[int, int]) -> Callable[[Node], Node] | None:
    """``s*p + s*q -> s*(p + q)`` and ``(-s)*p + s*q -> s*(q - p)`` for one scalar ``s``:
    one multiplication of whole arrays instead of two (the adjoint of a sum of terms)."""
    if a.op is not Op.MUL or b.op is not Op.MUL or uses.get(a.id, 0) > 1 or \
            uses.get(b.id, 0) > 1:
        return None
    (sa, p), (sb, q) = a.inputs, b.inputs
    if sa.type is None or not sa.type.is_scalar or p.type is None or q.type is None:
        return None
    if p.type != q.type or p.type.dtype == "bool":  # (NumPy bools: p + q is p or q)
        return None
    if sa is sb:
        inner_op, left, right = Op.ADD, p, q
    elif sa.op is Op.NEG and sa.inputs[0] is sb:
        inner_op, left, right = Op.SUB, q, p
    elif sb.op is Op.NEG and sb.inputs[0] is sa:
        inner_op, left, right = Op.SUB, p, q
    else:
        return None
    s = sb if inner_op is Op.SUB and sa.op is Op.NEG else sa

    def build(n: Node) -> Node:
        inner = Node(-1, inner_op, (left, right), (), p.type, None, n.loc, n.role)
        return Node(n.id, Op.MUL, (s, inner), (), n.type, n.name, n.loc, n.role)

    return build


def _simplify(n: Node, uses: dict[Any, int]) -> Node | None:
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
    if op is Op.SUB and _is_const(ins[0], 0) and _same_type(ins[1], n):
        return _replace(n, (ins[1],), n, Op.NEG)  # 0 - x -> -x
    if op is Op.ADD:
        shared = _factor(ins[0], ins[1], uses)
        if shared is not None:
            return shared(n)
    if op in (Op.DIV, Op.POW) and _is_const(ins[1], 1) and _same_type(ins[0], n):
        return ins[0]
    if op is Op.POW and _is_const(ins[1], 2) and _same_type(ins[0], n) and \
            ("square", id(ins[0])) in uses:
        return _replace(n, (ins[0], ins[0]), n, Op.MUL)  # x**2 -> x*x: shared with x * x
    if op is Op.NEG and ins[0].op is Op.NEG and _same_type(ins[0].inputs[0], n):
        return ins[0].inputs[0]
    if op is Op.NEG and ins[0].op in (Op.MUL, Op.DIV) and uses.get(ins[0].id, 0) <= 1:
        stripped = _strip_neg(ins[0], uses)  # -((-a) * b / c) -> a * b / c
        if stripped is not None and _same_type(stripped, n):
            return _replace(stripped, stripped.inputs, n)
    if op is Op.ADD and ins[0] is ins[1] and (n.role is not None or (
            n.type is not None and n.type.dtype != "bool")):
        # x + x -> x * 2 (not for NumPy bools: their + is a logical or, True + True True;
        # an adjoint node adds cotangents, floats even where the code is generic)
        return _replace(n, (ins[0], _const_like(n, 2)), n, Op.MUL)
    if op in (Op.EXPAND_DIMS, Op.RESHAPE, Op.BROADCAST_TO, Op.SQUEEZE) and \
            ins[0].op is Op.BROADCAST_TO and n.type is not None and n.type.shape is not None:
        src = ins[0].inputs[0]
        if src.type is not None and src.type.shape == ():
            return _replace(n, (src, _const_like(n, n.type.shape)), n, Op.BROADCAST_TO, ())
    # (not ASARRAY: the type of a NumPy scalar and of a 0-d array is the same)
    # (nor a cast with copy=False: it is there because the input's type may be too narrow)
    if op in (Op.BROADCAST_TO, Op.RESHAPE, Op.UNBROADCAST, Op.ASTYPE, Op.SQUEEZE) and \
            _same_type(ins[0], n) and n.param("copy") is not False:
        return ins[0]
    return None


def _const_like(n: Node, value: Any) -> Node:
    """A constant node (negative id: renumbering gives it a real one)."""
    from ..ir.types import type_of  # noqa: PLC0415

    return Node(-1, Op.CONST, (), (("value", value),), type_of(value))


def _replace(n: Node, inputs: tuple[Node, ...], like: Node, op: Op | None = None,
             params: tuple[Any, ...] | None = None) -> Node:
    """A node computing ``op(inputs)`` with the type, name and location of ``like``."""
    return Node(like.id, op or n.op, inputs, n.params if params is None else params,
                like.type, like.name, like.loc, like.role)


def _elide_broadcasts(graph: Graph) -> Any:
    """Decide, in graph order, which broadcasts to drop; return the rewrite doing it.

    A broadcast is dropped only when each reader still gets full shape from an operand
    that no earlier decision has shrunk, so two broadcasts never each rely on the other
    (``broadcast_to(a, s) * c + broadcast_to(b, s) * d`` keeps one of them).
    """
    users = graph.users()
    outputs = set(graph.outputs)
    elided: set[int] = set()
    memo: dict[int, bool] = {}

    def known(o: Node) -> bool | None:
        if o.id in elided:
            return True
        if o.op not in ELEMENTWISE or o.type is None:
            return False
        return memo.get(o.id)

    def shrunk(o: Node) -> bool:
        """``o`` may be smaller at run time than its type says, given ``elided``.

        Iterative (inputs first, on an explicit stack): a chain of thousands of
        elementwise ops must not hit Python's recursion limit."""
        stack = [o]
        while stack:
            n = stack[-1]
            if known(n) is not None:
                stack.pop()
                continue
            todo = [i for i in n.inputs if known(i) is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            assert n.type is not None  # (unknown types return early)
            memo[n.id] = any(known(i) for i in n.inputs) and not any(
                full(i, n.type.shape) for i in n.inputs)
        return bool(known(o))

    def full(o: Node, shape: tuple[int | None, ...] | None) -> bool:
        return shape is not None and o.type is not None and o.type.shape == shape and \
            not shrunk(o)

    def absorbs(u: Node, via: Node, shape: tuple[int | None, ...], depth: int) -> bool:
        """Reading ``via`` un-broadcast still gives ``u`` (or its readers) full shape."""
        if u.op in (Op.SCATTER_ADD, Op.INDEX_ADD):
            return u.inputs[1] is via  # assignment broadcasts the values
        if u.op not in ELEMENTWISE or u.type is None or u.type.shape != shape:
            return False
        others = [i for i in u.inputs if i is not via]
        if any(full(o, shape) for o in others):
            return True
        readers = users.get(u, ())
        return depth < 8 and u not in outputs and bool(readers) and all(
            absorbs(r, u, shape, depth + 1) for r in readers)

    for n in graph.nodes:
        if n.op is not Op.BROADCAST_TO or n in outputs or n.type is None:
            continue
        shape = n.type.shape
        src = n.inputs[0].type
        if shape is None or src is None or src.dtype != n.type.dtype and src.kind == "array":
            continue
        elided.add(n.id)  # tentatively: its own readers may not rely on it (g + -g)
        memo.clear()
        if not all(absorbs(u, n, shape, 0) for u in users.get(n, ())):
            elided.discard(n.id)
            memo.clear()

    def rewrite(n: Node) -> Node | None:
        return n.inputs[0] if n.op is Op.BROADCAST_TO and n.id in elided else None

    return rewrite


def _rebuild(graph: Graph, rewrite: Any) -> Graph:
    """Copy the graph, applying ``rewrite`` and sharing structurally equal nodes.

    A rewrite returns an existing node, or a new node whose inputs are existing nodes or
    new constants (id -1); new nodes are placed where the node they replace stood.
    """
    remap: dict[Node, Node] = {}
    seen: dict[Any, Node] = {}
    nodes: list[Node] = []
    placed: set[Node] = set()
    renames: dict[Node, str | None] = {}

    def place(m: Node) -> Node:
        key = _cse_key(m)
        if key is not None and key in seen:
            return seen[key]
        if key is not None:
            seen[key] = m
        nodes.append(m)
        placed.add(m)
        return m

    def place_new(m: Node) -> Node:
        fresh = tuple(place_new(i) if i.id == -1 and i not in placed else i
                      for i in m.inputs)
        if fresh != m.inputs:
            m = Node(m.id, m.op, fresh, m.params, m.type, m.name, m.loc, m.role)
        return place(m)

    for n in graph.nodes:
        ins = tuple(remap[i] for i in n.inputs)
        cur = n if ins == n.inputs else Node(n.id, n.op, ins, n.params, n.type, n.name,
                                              n.loc, n.role)
        replacement = rewrite(cur) if n.op is not Op.ARG else None
        if replacement is None:
            remap[n] = place(cur)
            continue
        remap[n] = replacement if replacement in placed else place_new(replacement)
        if remap[n].name is None and n.name is not None:
            renames.setdefault(remap[n], n.name)  # x_bar = astype(_t0) -> x_bar = ...
    return _renumber(graph, nodes, [remap[o] for o in graph.outputs], renames)


def _cse_key(n: Node) -> Any:
    if n.op is Op.ARG or n.op in OPAQUE:  # two calls of a user's function are two calls
        return None
    if n.op is Op.CONST:
        v = n.param("value")
        try:
            hash(v)
        except TypeError:
            return ("const-id", id(v))
        return (n.op, type(v), v, n.name)
    try:
        key = (n.op, tuple(map(id, n.inputs)), n.params)  # identity: new nodes share id -1
        hash(key)
    except TypeError:
        return None
    return key


def _dce(graph: Graph) -> Graph:
    # a call of a user's function, or a passed-through call with an effect (and a region
    # holding one), runs as often as Python runs it, its value used or not
    live = set(graph.outputs) | set(graph.args) | {n for n in graph.nodes if has_effect(n)}
    for n in reversed(graph.nodes):
        if n in live:
            live.update(n.inputs)
    return _renumber(graph, [n for n in graph.nodes if n in live], list(graph.outputs))


def _renumber(graph: Graph, nodes: list[Node], outputs: list[Node],
              renames: dict[Node, str | None] | None = None) -> Graph:
    """Dense ids again, inputs pointing at the renumbered nodes (``renames`` applied)."""
    remap: dict[Node, Node] = {}
    out: list[Node] = []
    renames = renames or {}
    for k, n in enumerate(nodes):
        m = Node(k, n.op, tuple(remap[i] for i in n.inputs), n.params, n.type,
                 renames.get(n, n.name), n.loc, n.role)
        remap[n] = m
        out.append(m)
    return Graph(graph.name, tuple(remap[a] for a in graph.args), tuple(out),
                 tuple(remap[o] for o in outputs), graph.output_names)
