"""Pass 4 (forward mode), forward: primal graph -> tangent graph.

Input: a ``Lowered`` graph, the positions of the arguments that carry tangents, and
their example tangents.  Output: a ``Lowered`` graph whose arguments are the primal
arguments followed by one tangent ``x_dot`` per differentiated argument, and whose
outputs are the primal outputs followed by the tangent of each output.

The pass walks the primal nodes in order and calls each node's rule from
``derivatives.JVP_RULES`` with the compiler's ``Emitter`` as ``ops``: the rule *writes*
the tangent code.  Missing tangents are symbolic zeros (``None``) and are never
materialised, except for an output whose tangent is zero.  The tangent of a named
value ``z`` is named ``z_dot``; the tangent sweep follows the primal sweep, each group of
lines under a comment quoting the user's line it differentiates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivatives import NONDIFFERENTIABLE, jvp_of
from ..ir.abstract import abstract_list, abstract_of, is_abstract, is_list_value
from ..ir.graph import Graph, GraphBuilder, Node, is_multi
from ..ir.ops import Op
from ..ir.regions import REGIONS
from ..ir.types import type_of
from .adjoint import Emitter, Var, call_rule, item_node
from .effects_graph import body_read, holds_opaque, merge_regions, useful_nodes
from .lower import Lowered, _evaluate
from .regions import carries_derivative, is_float_type
from .with_blocks import mirror


def forward(low: Lowered, wrt: tuple[int, ...], tangent_examples: list[Any] | None,
            every_output: bool = False, read: set[int] | None = None) -> Lowered:
    """Build the primal-and-tangent graph; see the module docstring.  ``every_output``
    (region bodies) gives every output a tangent, zeros where none flows; ``read``
    (region bodies) lists the outputs the enclosing graph reads (``None``: all)."""
    graph = low.graph
    b = GraphBuilder.extend(graph, low.values, _evaluate if low.values else None,
                            graph.name + "_jvp")
    b.soft = every_output  # a body's example values may be from a branch not taken
    em = _TangentEmitter(b)
    tan: dict[Node, Node] = {}
    for k, i in enumerate(wrt):
        a = graph.args[i]
        example = tangent_examples[k] if tangent_examples is not None else None
        tan[a] = b.arg((a.name or f"x{i}") + "_dot", a.type if example is None
                       else type_of(example), abstract_of(example), a.loc)  # never its data
    parts: dict[Node, tuple[Any, ...]] = {}
    once: dict[Node, Node] = {}  # primal region -> tangent region (regions with effects)
    # a passed-through call the outputs do not read needs no tangent (print(x))
    useful = useful_nodes(graph, read) if holds_opaque(graph) else set()
    opened: dict[Node, Node] = {}  # with blocks the tangent sweep keeps around its part
    for n in graph.nodes:
        if n.op is Op.OPAQUE_CALL and n.param("block"):
            mirror(b, n, opened, reverse=False)
            continue
        if n.op in (Op.ARG, Op.CONST) or n.op is Op.OPAQUE_CALL and n not in useful:
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
        if n.op in REGIONS:
            parts[n] = region_jvp(em, n, tan, low.values, graph, useful)
            # the tangent region computes the primal outputs too: it replaces the primal
            # region (effects must run once; and a loop is not run twice)
            once[n] = next(m for m in reversed(b.nodes) if m.op is n.op)
            continue
        tangents = tuple(Var(tan[i], em) if i in tan else None for i in n.inputs)
        multi = is_multi(n) or n.op is Op.CALL and any(  # an untyped call read as a tuple
            m.op is Op.ITEM and m.inputs[0] is n for m in graph.nodes)
        out_v: Any = tuple(Var(item_node(b, graph, n, k), em) for k in range(_count(graph, n))) \
            if multi else Var(n, em)
        result = call_rule(em, n, jvp_of, tangents, out_v)
        if result is None:
            continue
        if multi:
            parts[n] = tuple(result)
            continue
        t = _like_primal(em, n, em.node(result))
        if n.name is not None and t.id >= len(graph.nodes):
            t = b.rename(t, n.name + "_dot")
        tan[n] = t
    em.current = None
    if every_output:
        dots = [tan[o] if o in tan else _zero_tangent(em, o) for o in graph.outputs]
        return _once(Lowered(b.finish(list(graph.outputs) + dots), b.values), once)
    dots = []
    for out in graph.outputs:  # every output's tangent, zero where none flows
        out_dot = tan.get(out)
        if out_dot is None:
            kind = None if out.type is None else out.type.kind
            out_dot = b.const(0.0) if kind in ("float", "int", "bool", "none") else \
                _zero_tangent(em, out) if kind == "list" else em.zeros_like(out).node
        elif out_dot.name is None:
            out_dot = b.rename(out_dot, (out.name or "out") + "_dot")
        dots.append(out_dot)
    joint = b.finish(list(graph.outputs) + dots)
    return _once(Lowered(joint, b.values), once)


def _like_primal(em: Emitter, n: Node, t: Node) -> Node:
    """The tangent ``t`` of ``n`` in ``n``'s floating dtype, as JAX's tangents are: a rule
    writes the tangent from the inputs' tangents, whose dtype NumPy's promotion need not
    give the primal (``np.where(c, x32, y64)`` is float64, the tangent of ``x32`` float32;
    ``np.linspace`` of float32 ends is float32, its weights float64)."""
    nt, tt = n.type, t.type
    if nt is None or tt is None or nt.kind != "array" or tt.kind != "array" or \
            not nt.is_float or not tt.is_float or nt.dtype == tt.dtype:
        return t
    return em.astype(t, dtype=nt.dtype, copy=False).node


def _once(low: Lowered, once: dict[Node, Node]) -> Lowered:
    """``low`` with each region that has effects run once (``effects.merge_regions``)."""
    if not once:
        return low
    graph, values = merge_regions(low.graph, low.values, once)
    return Lowered(graph, values)


def _zero_tangent(em: Emitter, o: Node) -> Node:
    t = o.type
    if t is not None and t.kind == "list":
        return em.list_zeros(o).node
    if t is None or t.kind in ("float", "int", "bool", "none") or not t.is_float:
        return em.b.const(0.0)
    return em.zeros_like(o).node


def region_jvp(em: Emitter, n: Node, tan: dict[Node, Node], values: dict[Node, Any],
               graph: Any, useful: set[Node] | None = None) -> tuple[Any, ...]:
    """The region again, each body differentiated forward: it carries a tangent beside
    every float value and returns the tangents of its outputs (``None`` for the rest)."""
    b = em.b
    p = n.kwargs

    def tangent(i: Node) -> Node:
        return tan[i] if i in tan else _zero_tangent(em, i)

    def body_jvp(body: Any, lead: int, which: list[int]) -> Any:
        examples = [_zeros_like_value(values.get(body.args[k])) for k in which]
        known = all(e is not None for e in examples)
        joint = forward(Lowered(body, values), tuple(which), examples if known else None,
                        every_output=True, read=body_read(n, graph, useful)).graph
        n_args = len(body.args)
        dots = joint.args[n_args:]
        return joint, dots

    if n.op is Op.IF:
        ins = list(n.inputs[1:])
        which = [k for k, i in enumerate(ins) if is_float_type(i.type)]
        graphs = []
        for key in ("then", "orelse"):
            joint, dots = body_jvp(p[key], 0, which)
            graphs.append(Graph(joint.name, tuple(joint.args[:len(ins)]) + tuple(dots),
                                joint.nodes, joint.outputs))
        r = b.emit(Op.IF, [n.inputs[0], *ins, *[tangent(ins[k]) for k in which]],
                   {"then": graphs[0], "orelse": graphs[1]}, loc=n.loc)
        count = len(p["then"].outputs)
        return tuple(Var(item_node(b, graph, r, count + k), em)
                     if any(carries_derivative(o.type) for o in outs) else None
                     for k, outs in enumerate(zip(p["then"].outputs, p["orelse"].outputs)))
    body = p["body"]
    n_carry, n_ys = p["n_carry"], p["n_ys"]
    if n.op is Op.FOR:
        n_xs = p["n_xs"]
        lead_in, lead_arg = 3, 1
    else:
        n_xs, lead_in, lead_arg = 0, 0, 0
    ins = list(n.inputs[lead_in:])
    args = list(body.args[lead_arg:])
    which = [lead_arg + k for k, (a, i) in enumerate(zip(args, ins))
             if is_float_type(a.type) and (n_xs <= k < n_xs + n_carry or i in tan)]
    joint, dots = body_jvp(body, lead_arg, which)
    dot_of = dict(zip(which, dots))
    groups = [range(lead_arg, lead_arg + n_xs), range(lead_arg + n_xs, lead_arg + n_xs + n_carry),
              range(lead_arg + n_xs + n_carry, len(body.args))]
    new_args = list(joint.args[:lead_arg])
    new_ins = list(n.inputs[:lead_in])
    for grp in groups:
        new_args += [joint.args[k] for k in grp] + [dot_of[k] for k in grp if k in dot_of]
        new_ins += [n.inputs[lead_in + k - lead_arg] for k in grp] + \
            [tangent(n.inputs[lead_in + k - lead_arg]) for k in grp if k in dot_of]
    n_out = len(body.outputs)
    outs = list(joint.outputs[:n_out])
    out_dots = list(joint.outputs[n_out:])
    go_on = [outs[-1]] if p["has_break"] else []
    # a carried tangent for each carried value in ``which`` (its arguments line up)
    dotted = [k for k in range(n_carry) if lead_arg + n_xs + k in dot_of]
    new_outs = outs[:n_carry] + [out_dots[k] for k in dotted] + \
        outs[n_carry:n_carry + n_ys] + out_dots[n_carry:n_carry + n_ys] + go_on
    params = dict(p)
    params["body"] = Graph(joint.name, tuple(new_args), joint.nodes, tuple(new_outs))
    params["n_carry"] = n_carry + len(dotted)
    params["n_ys"] = 2 * n_ys
    if n.op is Op.FOR:
        params["n_xs"] = n_xs + sum(1 for k in groups[0] if k in dot_of)
    r = b.emit(n.op, new_ins, params, loc=n.loc)
    result: list[Any] = []
    for k in range(n_carry):
        result.append(Var(item_node(b, graph, r, n_carry + dotted.index(k)), em)
                      if k in dotted else None)
    n_carry_all = params["n_carry"]
    n_carry = p["n_carry"]
    for k in range(n_ys):
        result.append(Var(item_node(b, graph, r, n_carry_all + n_ys + k), em)
                      if is_float_type(body.outputs[n_carry + k].type) else None)
    result.append(None)  # the trip count
    return tuple(result)


def _zeros_like_value(v: Any) -> Any:
    if v is None:
        return None
    if is_abstract(v):  # a tangent is a runtime value of its primal's type
        return abstract_list(v) if is_list_value(v) else v
    if isinstance(v, list):
        return [_zeros_like_value(x) for x in v]
    return v * 0.0 if not hasattr(v, "shape") else np.zeros_like(v)


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
