"""Reverse mode through regions: the adjoint of an ``if``, ``for`` or ``while`` node.

The adjoint of a region is built from the adjoint of its body (``adjoint`` run on the
body graph, seeded at every output that carries a gradient).  That joint body splits
in two: its primal nodes, and the adjoint nodes after them.  The primal values the
adjoint nodes read are the body's *residuals* (to-be-recorded analysis: nothing else is
kept).  Before the main adjoint walk, ``augment`` rewrites each active region so that
it also returns its residuals: a loop pushes them on one stack (a list) per residual,
a branch returns them for the branch taken.  When the walk reaches the region,
``region_vjp`` emits the reverse region: a loop over the same range backwards that pops
the stacks and runs the adjoint half of the body, carrying the adjoints of the carried
values and accumulating those of the values it reads from outside; or an ``if`` on the
recorded condition.  Loop indices, loop-invariant values and the items of lists the
loop iterates are not stacked: the reverse loop has them too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..ir.graph import Graph, GraphBuilder, Node
from ..ir.ops import ELEMENTWISE, Op
from ..ir.regions import REGIONS, for_layout, output_type
from ..ir.types import Type

if TYPE_CHECKING:
    from collections.abc import Callable

    from .adjoint import Emitter

#: role of the node that adds one iteration's gradient into a reverse loop's accumulator
#: (a fresh zeros array the loop owns): codegen writes it in place, ``W_bar += g``
ACCUMULATE = "accumulate"


@dataclass
class RegionAdjoint:
    """What ``augment`` decided for one region, used again by ``region_vjp``."""

    bwd: Graph | tuple[Graph, Graph]  # the reverse body (or both reverse branches)
    active_in: list[int]  # input positions of the region that receive gradients
    seeded: list[int]  # output positions whose adjoints seed the reverse region
    stacked: list[int]  # output positions of the residual stacks / branch residuals
    passed: list[int]  # input positions (loop items/free values) the reverse body reads
    n_x_needed: int = 0  # of ``passed``: the leading ones that are loop items (xs)
    # loops only: carried slots whose adjoints the reverse loop carries, input positions
    # of the loop-invariant values and of the lists whose adjoints it accumulates, and
    # stacked values the reverse loop carries instead (position -> carried slot)
    carry_slots: list[int] = field(default_factory=list)
    free_wrt: list[int] = field(default_factory=list)
    x_wrt: list[int] = field(default_factory=list)
    derived: dict[int, int] = field(default_factory=dict)


def is_float_type(t: Type | None) -> bool:
    """Whether a value of type ``t`` may carry a derivative (unknown types may)."""
    return t is None or t.is_float or t.kind == "list"


def carries_derivative(t: Type | None) -> bool:
    """``is_float_type``, but not the ``None`` a branch that skips a value outputs."""
    return is_float_type(t) and (t is None or t.kind != "none")


def augment(graph: Graph, values: dict[Node, Any], active: frozenset[Node],
            adjoint_body: Any
            ) -> tuple[Graph, dict[Node, Any], dict[Node, RegionAdjoint], frozenset[Node]]:
    """``graph`` with every active region returning its residuals too; ``adjoint_body``
    is ``adjoint.adjoint_graph`` (passed in: the two modules call each other)."""
    side: dict[Node, RegionAdjoint] = {}
    replace: dict[Node, Node] = {}
    b = GraphBuilder(graph.name, None)
    new_values: dict[Node, Any] = dict(values)
    mapping: dict[Node, Node] = {}
    for n in graph.nodes:
        ins = tuple(mapping[i] for i in n.inputs)
        if n.op in REGIONS and n in active:
            used = {u.param("index") for u in graph.nodes if u.op is Op.ITEM and
                    u.inputs[0] is n and u in active}
            params, info = _augment_region(n, active, values, adjoint_body, new_values, used)
            m = Node(len(b.nodes), n.op, ins, tuple(sorted(params.items())), n.type, n.name,
                     n.loc, n.role)
            side[m] = info
            replace[n] = m
        elif n.op is Op.ITEM and n.inputs[0] in replace and _is_trips(n):
            old = n.inputs[0]
            index = _trips_index(replace[old])
            m = Node(len(b.nodes), n.op, ins, (("index", index),), n.type, n.name, n.loc,
                     n.role)
        else:
            m = Node(len(b.nodes), n.op, ins, n.params, n.type, n.name, n.loc, n.role)
        b._add(m)
        mapping[n] = m
        if n in values:
            new_values[m] = values[n]
        if n in replace:
            _evaluate_region(n, m, values, new_values)
            # every output gets its item node here, in the primal part: the reverse
            # region reads residuals through them
            read = {u.param("index") for u in graph.nodes if u.op is Op.ITEM and
                    u.inputs[0] is n}
            for k in range(_n_outputs(m)):
                if k in read and not (n.op is not Op.IF and k == _trips_index(n)):
                    continue
                it = Node(len(b.nodes), Op.ITEM, (m,), (("index", k),), output_type(m, k),
                          None, n.loc)  # typed by the bodies, not by the example
                if isinstance(new_values.get(m), tuple):
                    new_values[it] = new_values[m][k]
                b._add(it)
    out = Graph(graph.name, tuple(mapping[a] for a in graph.args), tuple(b.nodes),
                tuple(mapping[o] for o in graph.outputs), graph.output_names)
    active_new = frozenset(mapping[n] for n in active)
    return out, new_values, side, active_new


def _evaluate_region(old: Node, m: Node, values: dict[Node, Any], new_values: dict[Node, Any]
                     ) -> None:
    """The augmented region's example value (it now returns its residuals too)."""
    if old not in values:
        return
    from ..ir.abstract import evaluate  # noqa: PLC0415
    from ..ir.kernels import compiling  # noqa: PLC0415

    args = [new_values.get(i) for i in m.inputs]
    try:
        with compiling():  # calls of user functions in the region: typed, never run
            new_values[m] = evaluate(m.op, tuple(args), m.kwargs)
    except Exception:  # a region in a branch the example does not take: no example
        new_values.pop(m, None)


def _n_outputs(m: Node) -> int:
    p = m.kwargs
    if m.op is Op.IF:
        return len(p["then"].outputs)
    return cast(int, p["n_carry"] + p["n_ys"] + 1)


def _is_trips(item: Node) -> bool:
    region = item.inputs[0]
    return cast(bool, item.param("index") == _trips_index(region))


def _trips_index(region: Node) -> int:
    p = region.kwargs
    if region.op is Op.IF:
        return -1
    return cast(int, p["n_carry"] + p["n_ys"])


def _augment_region(n: Node, active: frozenset[Node], values: dict[Node, Any],
                    adjoint_body: Any, new_values: dict[Node, Any], used: set[int]
                    ) -> tuple[dict[str, Any], RegionAdjoint]:
    if n.op is Op.IF:
        return _augment_if(n, active, values, adjoint_body, new_values, used)
    return _augment_loop(n, active, values, adjoint_body, new_values)


def _augment_loop(n: Node, active: frozenset[Node], values: dict[Node, Any],
                  adjoint_body: Any, new_values: dict[Node, Any]
                  ) -> tuple[dict[str, Any], RegionAdjoint]:
    p = n.kwargs
    body: Graph = p["body"]
    n_carry, n_ys, has_break = p["n_carry"], p["n_ys"], p["has_break"]
    if n.op is Op.FOR:
        n_xs, _, n_free = for_layout(p, len(n.inputs))
        lead = 3  # start, stop, step
        body_lead = 1  # i
    else:
        n_xs, n_free = 0, len(n.inputs) - n_carry
        lead = body_lead = 0
    # body arg k <-> region input: i has none; xs, carry, free line up after the lead
    arg_input = {body_lead + k: lead + k for k in range(n_xs + n_carry + n_free)}
    carry_args = range(body_lead + n_xs, body_lead + n_xs + n_carry)
    wrt = [k for k, a in enumerate(body.args) if k >= body_lead and is_float_type(a.type) and (
        k in carry_args or n.inputs[arg_input[k]] in active)]
    seeded = [k for k in range(n_carry + n_ys) if is_float_type(body.outputs[k].type)]
    joint = adjoint_body(body, values, wrt, seeded)
    jg: Graph = joint.graph
    n_primal = joint.n_primal
    body = Graph(body.name, jg.args[:len(body.args)], jg.nodes[:n_primal],
                 jg.outputs[:len(body.outputs)])  # nested regions now return residuals
    grads = list(jg.outputs[len(body.outputs):])
    bwd_nodes = _live(jg.nodes[n_primal:], grads)
    seeds = [a for a in jg.args[len(body.args):]]
    res = _residuals(bwd_nodes, grads, n_primal)
    arg_pos = {a: k for k, a in enumerate(body.args)}
    stacked = [r for r in res if r not in arg_pos or (body_lead + n_xs <= arg_pos[r] <
                                                      body_lead + n_xs + n_carry)]
    x_needed = [r for r in res if r in arg_pos and body_lead <= arg_pos[r] < body_lead + n_xs]
    free_needed = [r for r in res if r in arg_pos and arg_pos[r] >= body_lead + n_xs + n_carry]
    # values computed from loop-invariant inputs and the index alone (x[i], g / L) are
    # computed again by the reverse loop instead of being pushed
    first_free = body_lead + n_xs + n_carry
    recompute = _recomputable([r for r in stacked if r not in arg_pos], arg_pos, first_free,
                              body_lead)
    # so are scalar flags (an if's condition) computed from values stacked anyway: a
    # comparison in the reverse loop costs less than a list of flags
    for r in stacked:  # in id order: a flag's inputs come before it
        if r not in arg_pos and r.op in _FLAG_OPS and r.type is not None and \
                r.type.is_scalar and all(_available(i, stacked, recompute, arg_pos, first_free,
                                                    body_lead) for i in r.inputs):
            recompute.add(r)
    stacked = [r for r in stacked if r not in recompute]
    for r in sorted(recompute, key=lambda x: x.id):  # sets iterate in address order
        for i in r.inputs:
            if i in arg_pos and arg_pos[i] >= first_free and i not in free_needed:
                free_needed.append(i)
    # a carried value and the body's new value for it are the same sequence, one step
    # apart: push only the old values.  The reverse loop meets the iterations last first,
    # so it carries the new value instead: the loop's final value, then each iteration's
    # old value (no second list, nor a shifted copy of the first, is kept)
    derived: dict[int, int] = {}
    if not (n.op is Op.FOR and p["reverse"]):
        for k in range(n_carry):
            new = body.outputs[k]
            if body.args[body_lead + n_xs + k] in stacked and new in stacked and \
                    new not in arg_pos:
                derived.setdefault(stacked.index(new), k)
    pushed = [r for j, r in enumerate(stacked) if j not in derived]
    go_on = [body.outputs[-1]] if has_break else []
    fwd = Graph(body.name, body.args, body.nodes,
                tuple(list(body.outputs[:n_carry + n_ys]) + pushed + go_on), ())
    # the reverse body: (i, *stack items, *x items, *ys_bar items, *carry_bar, *acc, *free)
    rb = GraphBuilder(body.name + "_bwd", None)
    m: dict[Node, Node] = {}
    i_arg = rb.arg("i", Type("int"))
    if body_lead:
        m[body.args[0]] = i_arg
    for r in stacked:
        m[r] = rb.arg(r.name or "t", r.type)
        _copy_value(joint.values, r, m[r], new_values)
    for r in x_needed:
        m[r] = rb.arg(r.name or "x", r.type)
    ys_seeds = [s for k, s in zip(seeded, seeds) if k >= n_carry]
    carry_seeds = [s for k, s in zip(seeded, seeds) if k < n_carry]
    for s in ys_seeds:
        m[s] = rb.arg(s.name or "y_bar", s.type)
    for s in carry_seeds:
        m[s] = rb.arg(s.name or "c_bar", s.type)
    carry_seed_slot = [k for k in seeded if k < n_carry]
    free_wrt = [k for k in wrt if k >= body_lead + n_xs + n_carry]
    accs = [rb.arg((body.args[k].name or "f") + "_bar", body.args[k].type) for k in free_wrt]
    for r in free_needed:
        m[r] = rb.arg(r.name or "f", r.type)
    _copy(rb, sorted(recompute, key=lambda x: x.id), m, joint.values, new_values)
    _copy(rb, bwd_nodes, m, joint.values, new_values)
    grad_of = dict(zip(wrt, grads))
    outs: list[Node] = []
    carry_bar_slots = carry_seed_slot  # carried adjoints: the seeded carry slots
    for k in carry_bar_slots:
        g = grad_of.get(body_lead + n_xs + k)
        outs.append(_mapped(rb, g, m, body.args[body_lead + n_xs + k]))
    for k, acc in zip(free_wrt, accs):
        g = _mapped(rb, grad_of.get(k), m, body.args[k])
        is_list = acc.type is not None and acc.type.kind == "list"
        if g.op is Op.SCATTER_ADD and not is_list:  # x[i] read in the loop: add at i
            outs.append(rb.emit(Op.INDEX_ADD, [acc, *g.inputs[1:]],
                                {"index": g.param("index")}, type=acc.type,
                                role=ACCUMULATE))
        else:
            outs.append(rb.emit(Op.LIST_ADD if is_list else Op.ADD, [acc, g],
                                type=acc.type, role=None if is_list else ACCUMULATE))
    for k in derived.values():  # the next (earlier) iteration's new value: this old one
        outs.append(m[body.args[body_lead + n_xs + k]])
    x_wrt = [k for k in wrt if body_lead <= k < body_lead + n_xs]
    for k in x_wrt:
        outs.append(_mapped(rb, grad_of.get(k), m, body.args[k]))
    rb.args = [rb.args[0]] + [m[r] for r in pushed] + [m[r] for r in x_needed] + \
        [m[s] for s in ys_seeds] + [m[s] for s in carry_seeds] + accs + \
        [m[stacked[j]] for j in derived] + [m[r] for r in free_needed]
    bwd = _tidy(rb.finish(outs))
    new_params = dict(p)
    new_params["body"] = fwd
    new_params["n_ys"] = n_ys + len(pushed)
    out_of = iter(range(n_carry + n_ys, n_carry + n_ys + len(pushed)))
    stacked_out = [-1 if j in derived else next(out_of) for j in range(len(stacked))]
    passed = [lead + arg_pos[r] - body_lead for r in x_needed] + \
        [lead + arg_pos[r] - body_lead for r in free_needed]
    info = RegionAdjoint(bwd, [lead + k - body_lead for k in wrt], seeded, stacked_out, passed,
                         len(x_needed), carry_bar_slots,
                         [lead + k - body_lead for k in free_wrt],
                         [lead + k - body_lead for k in x_wrt], derived)
    return new_params, info


def _augment_if(n: Node, active: frozenset[Node], values: dict[Node, Any],
                adjoint_body: Any, new_values: dict[Node, Any], used: set[int]
                ) -> tuple[dict[str, Any], RegionAdjoint]:
    p = n.kwargs
    branches: list[Graph] = [p["then"], p["orelse"]]
    ins = n.inputs[1:]
    wrt = [k for k, a in enumerate(branches[0].args) if is_float_type(a.type)
           and ins[k] in active]
    n_out = len(branches[0].outputs)
    def listy(k: int) -> bool:
        return any((t := g.outputs[k].type) is not None and t.kind == "list"
                   for g in branches)

    # a list made in one branch is None on the other side: it is seeded only when a
    # gradient can reach it (its zeros cannot be made outside the branch)
    seeded = [k for k in range(n_out) if (k in used or not listy(k)) and any(
        carries_derivative(g.outputs[k].type) for g in branches)]
    joints = [adjoint_body(g, values, wrt, seeded) for g in branches]
    branches = [Graph(g.name, j.graph.args[:len(g.args)], j.graph.nodes[:j.n_primal],
                      j.graph.outputs[:len(g.outputs)]) for g, j in zip(branches, joints)]
    res_lists, needed_lists, recomputed = [], [], []
    for g, j in zip(branches, joints):
        grads = list(j.graph.outputs[len(g.outputs):])
        bwd_nodes = _live(j.graph.nodes[j.n_primal:], grads)
        res = _residuals(bwd_nodes, grads, j.n_primal)
        pos = {a: k for k, a in enumerate(g.args)}
        # scalar arithmetic on the branch's inputs (0.5 * a) is computed again by the
        # reverse branch rather than returned: in a loop, each residual is a stack
        again = _recomputable([r for r in res if r not in pos and r.op in _ARITH and
                               r.type is not None and r.type.is_scalar], pos, 0, 0, _ARITH)
        recomputed.append(again)
        res_lists.append([r for r in res if r not in pos and r not in again])
        needed_lists.append({pos[r] for r in res if r in pos} |
                            {pos[i] for r in again for i in r.inputs if i in pos})
    needed = sorted(needed_lists[0] | needed_lists[1])
    fwds = []
    for side, g in enumerate(branches):
        gb = GraphBuilder.extend(g, {}, None)
        outs = list(g.outputs)
        for other, rl in enumerate(res_lists):
            outs += rl if other == side else [gb.const(None) for _ in rl]
        fwds.append(gb.finish(outs))
    bwds = []
    for side, (g, j) in enumerate(zip(branches, joints)):
        rb = GraphBuilder(g.name + "_bwd", None)
        m: dict[Node, Node] = {}
        seeds = list(j.graph.args[len(g.args):])
        for s in seeds:
            m[s] = rb.arg(s.name or "g", s.type)
        for other, rl in enumerate(res_lists):
            for r in rl:
                a = rb.arg(r.name or "t", r.type)
                if other == side:
                    m[r] = a
        for k in needed:
            m[g.args[k]] = rb.arg(g.args[k].name or "x", g.args[k].type)
        grads = list(j.graph.outputs[len(g.outputs):])
        _copy(rb, sorted(recomputed[side], key=lambda x: x.id), m, j.values, new_values)
        _copy(rb, _live(j.graph.nodes[j.n_primal:], grads), m, j.values, new_values)
        outs = [_mapped(rb, gr, m, g.args[k]) for k, gr in zip(wrt, grads)]
        bwds.append(_tidy(rb.finish(outs)))
    new_params = dict(p)
    new_params["then"], new_params["orelse"] = fwds
    n_res = len(res_lists[0]) + len(res_lists[1])
    info = RegionAdjoint((bwds[0], bwds[1]), [1 + k for k in wrt], seeded,
                         list(range(n_out, n_out + n_res)), [1 + k for k in needed])
    return new_params, info


_CHEAP = ELEMENTWISE | {Op.GETITEM, Op.NEG}
_ARITH = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.NEG})
_FLAG_OPS = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.LOGICAL_NOT,
                       Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR})


def _available(i: Node, stacked: list[Node], recompute: set[Node], arg_pos: dict[Node, int],
               first_free: int, has_index: int) -> bool:
    """Whether the reverse loop has ``i`` without stacking anything more."""
    if i in arg_pos:
        return arg_pos[i] >= first_free or (has_index and arg_pos[i] == 0) or i in stacked
    return i.op is Op.CONST or (i in stacked and i not in recompute)


def _recomputable(candidates: list[Node], arg_pos: dict[Node, int], first_free: int,
                  has_index: int, cheap: frozenset[Op] = _CHEAP) -> set[Node]:
    """The candidates (and what they are made of) that only read constants, loop-invariant
    arguments and the loop index, through ``cheap`` ops."""
    memo: dict[Node, bool | int] = {}

    def ok(x: Node) -> bool | int:
        if x in memo:
            return memo[x]
        res: bool | int
        if x.op is Op.CONST:
            res = True
        elif x in arg_pos:
            res = arg_pos[x] >= first_free or (has_index and arg_pos[x] == 0)
        else:
            res = x.op in cheap and all(ok(i) for i in x.inputs)
        memo[x] = res
        return res

    out: set[Node] = set()

    def collect(x: Node) -> None:
        if x in arg_pos or x.op is Op.CONST or x in out:
            return
        out.add(x)
        for i in x.inputs:
            collect(i)

    for c in candidates:
        if ok(c):
            collect(c)
    return out


def _live(bwd_nodes: Any, grads: list[Node]) -> list[Node]:
    """The adjoint nodes some gradient depends on (rules write both inputs' adjoints,
    and only the differentiated ones are kept)."""
    live = set(grads)
    for m in reversed(bwd_nodes):
        if m in live:
            live.update(m.inputs)
    return [m for m in bwd_nodes if m in live or m.op is Op.ARG]


def _tidy(g: Graph) -> Graph:
    """A reverse body through the optimizer (it is built once and run every iteration)."""
    from .optimize import optimize  # noqa: PLC0415  (optimize imports nothing of ours)

    out = optimize(g, True, None)
    return Graph(out.name, out.args, out.nodes, out.outputs, out.output_names)


def _residuals(bwd_nodes: Any, grads: list[Node], n_primal: int) -> list[Node]:
    """Primal nodes (ids below ``n_primal``) that the adjoint half reads or returns."""
    found: dict[Node, None] = {}
    for m in bwd_nodes:
        for i in m.inputs:
            if i.id < n_primal and i.op is not Op.CONST:
                found.setdefault(i)
    for g in grads:
        if g.id < n_primal and g.op is not Op.CONST:
            found.setdefault(g)
    return sorted(found, key=lambda x: x.id)


def _copy_value(src: dict[Node, Any], old: Node, new: Node, dst: dict[Node, Any]) -> None:
    if old in src:
        dst[new] = src[old]


def _copy(rb: GraphBuilder, nodes: Any, m: dict[Node, Node], src: dict[Node, Any],
          dst: dict[Node, Any]) -> None:
    """Re-create ``nodes`` in ``rb`` with inputs mapped through ``m`` (in place)."""
    for node in nodes:
        if node in m:
            continue
        if node.op is Op.CONST:
            m[node] = rb.const(node.param("value"), node.loc, node.name)
            continue
        if node.op is Op.ARG:
            raise AssertionError(f"unexpected argument {node} in an adjoint body")
        ins = []
        for i in node.inputs:
            if i not in m:
                if i.op is Op.CONST:
                    m[i] = rb.const(i.param("value"), i.loc, i.name)
                else:
                    raise AssertionError(f"{node} reads {i}, which the reverse body lacks")
            ins.append(m[i])
        new = Node(len(rb.nodes), node.op, tuple(ins), node.params, node.type, node.name,
                   node.loc, node.role)
        rb._add(new)
        m[node] = new
        _copy_value(src, node, new, dst)


def _mapped(rb: GraphBuilder, g: Node | None, m: dict[Node, Node], like: Node) -> Node:
    if g is None:  # no gradient: a zero of any shape; for a list, None (rt.list_add's zero)
        return rb.const(None if like.type is not None and like.type.kind == "list" else 0.0)
    if g in m:
        return m[g]
    if g.op is Op.CONST:
        return rb.const(g.param("value"), g.loc, g.name)
    raise AssertionError(f"gradient {g} is not in the reverse body")


def region_vjp(em: Emitter, n: Node, info: RegionAdjoint, got: dict[int, Node], graph: Graph,
               item_node: Callable[[GraphBuilder, Any, Node, int], Node]
               ) -> list[tuple[Node, Node]]:
    """Emit the reverse region of ``n``; ``(input, gradient)`` pairs for its inputs."""
    b = em.b

    def item(node: Node, k: int) -> Node:
        return item_node(b, graph, node, k)

    def zeros(like: Node) -> Node:
        t = like.type
        if em.is_list(like):
            return b.emit(Op.LIST_ZEROS, [like], loc=n.loc)
        if t is not None and (t.kind in ("float", "int") or t.shape == ()):
            return b.const(0.0)  # also where the value may be a placeholder None
        return b.emit(Op.ZEROS_LIKE, [like], loc=n.loc)

    p = n.kwargs
    if n.op is Op.IF:
        seeds = [got[k] if k in got else zeros(item(n, k)) for k in info.seeded]
        res = [item(n, k) for k in info.stacked]
        needed = [n.inputs[k] for k in info.passed]
        assert isinstance(info.bwd, tuple)  # (an if's two reverse branches)
        then, orelse = info.bwd
        r = b.emit(Op.IF, [n.inputs[0], *seeds, *res, *needed],
                   {"then": then, "orelse": orelse}, loc=n.loc, role="IfBackward0")
        return [(n.inputs[k], item(r, j)) for j, k in enumerate(info.active_in)]
    n_carry = p["n_carry"]
    carry_slots, free_wrt, x_wrt = info.carry_slots, info.free_wrt, info.x_wrt
    carry_seeds = [got[k] if k in got else zeros(item(n, k)) for k in carry_slots]
    ys_seeds = [got[k] if k in got else zeros(item(n, k)) for k in info.seeded
                if k >= n_carry]
    accs = [zeros(n.inputs[k]) for k in free_wrt]
    stacks = [item(n, k) for k in info.stacked if k >= 0]
    finals = [item(n, k) for k in info.derived.values()]  # carried by the reverse loop
    trips = item(n, p["n_carry"] + p["n_ys"])
    x_lists = [n.inputs[k] for k in info.passed[:info.n_x_needed]]
    free = [n.inputs[k] for k in info.passed[info.n_x_needed:]]
    if n.op is Op.FOR:
        start, stop, step = n.inputs[:3]
        if p["has_break"]:
            ran = trips if _is_one(step) else b.emit(Op.MUL, [trips, step], loc=n.loc)
            stop = b.emit(Op.ADD, [start, ran], loc=n.loc)
        reverse = not p["reverse"]
        lead = 3 + p["n_xs"]
    else:
        start, stop, step = b.const(0), trips, b.const(1)
        reverse = True
        lead = 0
    if n.op is Op.FOR and p["reverse"]:
        # a loop that ran backwards pushed in execution order: the reverse loop runs
        # forwards over positions, so it reads those lists back to front
        stacks = [b.emit(Op.LIST_REVERSE, [st], loc=n.loc) for st in stacks]
        ys_seeds = [b.emit(Op.LIST_REVERSE, [y], loc=n.loc) for y in ys_seeds]
    xs = [*stacks, *x_lists, *ys_seeds]
    params = {"body": info.bwd, "n_xs": len(xs),
              "n_carry": len(carry_seeds) + len(accs) + len(finals),
              "n_ys": len(x_wrt), "reverse": reverse, "has_break": False}
    r = b.emit(Op.FOR, [start, stop, step, *xs, *carry_seeds, *accs, *finals, *free], params,
               loc=n.loc, role="ForBackward0" if n.op is Op.FOR else "WhileBackward0")
    pairs = [(n.inputs[lead + k], item(r, j)) for j, k in enumerate(carry_slots)]
    base = len(carry_slots)
    pairs += [(n.inputs[k], item(r, base + j)) for j, k in enumerate(free_wrt)]
    base += len(free_wrt) + len(finals)
    for j, k in enumerate(x_wrt):
        g = item(r, base + j)
        if reverse:  # the reverse loop appended the items' adjoints last position first
            g = b.emit(Op.LIST_REVERSE, [g], loc=n.loc)
        pairs.append((n.inputs[k], g))
    return pairs


def _is_one(v: Node) -> bool:
    return v.op is Op.CONST and v.param("value") == 1
