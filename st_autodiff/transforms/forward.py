"""Pass 4 (forward mode), forward: primal graph -> tangent graph.

Input: a ``Lowered`` graph, the positions of the arguments that carry tangents, and
their example tangents.  Output: a ``Lowered`` graph whose arguments are the primal
arguments followed by one tangent ``x_dot`` per differentiated argument, and whose
outputs are the primal outputs followed by the tangent of the first output.

The pass walks the primal nodes in order and calls each node's rule from
``derivatives.JVP_RULES`` with the compiler's ``Emitter`` as ``ops``: the rule *writes*
the tangent code.  Missing tangents are symbolic zeros (``None``) and are never
materialised, except for an output whose tangent is zero.  The tangent of a named
value ``z`` is named ``z_dot``; the tangent sweep follows the primal sweep, each group of
lines under a comment quoting the user's line it differentiates.
"""

from __future__ import annotations

from typing import Any

from ..derivatives import NONDIFFERENTIABLE, jvp_of
from ..ir.graph import GraphBuilder, Node
from ..ir.ops import OP_INFO, Op
from ..ir.types import type_of
from .adjoint import Emitter, Var, call_rule, item_node
from .lower import Lowered, _evaluate


def forward(low: Lowered, wrt: tuple[int, ...], tangent_examples: list[Any] | None) -> Lowered:
    """Build the primal-and-tangent graph; see the module docstring."""
    graph = low.graph
    b = GraphBuilder.extend(graph, low.values, _evaluate if low.values else None,
                            graph.name + "_jvp")
    em = _TangentEmitter(b)
    tan: dict[Node, Node] = {}
    for k, i in enumerate(wrt):
        a = graph.args[i]
        example = tangent_examples[k] if tangent_examples is not None else None
        tan[a] = b.arg((a.name or f"x{i}") + "_dot", a.type if example is None
                       else type_of(example), example, a.loc)
    parts: dict[Node, tuple] = {}
    for n in graph.nodes:
        if n.op in (Op.ARG, Op.CONST):
            continue
        if n.op is Op.ITEM:
            whole = parts.get(n.inputs[0])
            t = None if whole is None else whole[n.param("index")]
            if t is not None:
                tan[n] = em.node(t)
            continue
        if not any(i in tan for i in n.inputs) or _constant_output(n) or \
                n.op in NONDIFFERENTIABLE:  # a zero tangent: nothing to write
            continue
        em.current = n
        tangents = tuple(Var(tan[i], em) if i in tan else None for i in n.inputs)
        multi = OP_INFO[n.op].multi
        out_v: Any = tuple(Var(item_node(b, graph, n, k), em) for k in range(_count(graph, n))) \
            if multi else Var(n, em)
        result = call_rule(em, n, jvp_of, tangents, out_v)
        if result is None:
            continue
        if multi:
            parts[n] = tuple(result)
            continue
        t = em.node(result)
        if n.name is not None and t.id >= len(graph.nodes):
            t = b.rename(t, n.name + "_dot")
        tan[n] = t
    em.current = None
    out = graph.outputs[0]
    out_dot = tan.get(out)
    if out_dot is None:  # the output does not depend on the differentiated arguments
        out_dot = b.const(0.0) if out.type is not None and out.type.kind == "float" else \
            em.zeros_like(out).node
    elif out_dot.name is None:
        out_dot = b.rename(out_dot, (out.name or "out") + "_dot")
    joint = b.finish(list(graph.outputs) + [out_dot])
    return Lowered(joint, b.values)


class _TangentEmitter(Emitter):
    """Tangent nodes name no grad_fn record: they belong with the primal line they follow."""

    records = False


def _constant_output(n: Node) -> bool:
    """Integer and boolean results (masks, indices) carry no tangent."""
    t = n.type
    return t is not None and (t.kind in ("int", "bool") or t.kind == "array" and
                              not t.is_float)


def _count(graph: Any, n: Node) -> int:
    """How many parts of the tuple-valued ``n`` the graph reads."""
    return 1 + max((m.param("index") for m in graph.nodes
                    if m.op is Op.ITEM and m.inputs[0] is n), default=0)
