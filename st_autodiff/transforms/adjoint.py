"""Pass 4, adjoint: primal graph -> joint graph (primal sweep, then adjoint sweep).

Input: a ``Lowered`` graph, its active nodes, the differentiated argument positions and
the seed kind.  Output: a ``Lowered`` joint graph whose arguments are the primal
arguments plus the seed ``out_bar``, and whose outputs are the primal outputs followed
by one gradient per differentiated argument.

The pass walks the primal nodes backwards and calls each active node's rule from
``derivatives.RULES`` with an ``Emitter`` as ``ops``: the rule's arithmetic *emits* the
adjoint nodes.  This pass alone unbroadcasts (only where shapes can differ) and sums
contributions to shared inputs; adjoints that are never created are symbolic zeros and
are materialised only for a gradient that is returned.  The adjoint of a named value
``z`` is named ``z_bar``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..derivatives import RuleError, logsumexp_from_parts, vjp_of
from ..derivatives.special import NotDifferentiable
from ..errors import CompileError, EvaluationError
from ..ir.abstract import Abstract, abstract_list, is_abstract, is_list_value, is_numpy_scalar
from ..ir.graph import CompileTimeError, Graph, GraphBuilder, Node, is_multi, n_items
from ..ir.ops import ELEMENTWISE, OP_INFO, Op
from ..ir.regions import REGIONS
from ..ir.types import Type
from .lower import Lowered, _evaluate
from .regions import augment, region_vjp
from .with_blocks import mirror


class Var:
    """A graph value inside a rule: Python operators emit nodes."""

    __slots__ = ("node", "em")

    def __init__(self, node: Node, em: Emitter) -> None:
        self.node = node
        self.em = em

    def _bin(self, op: Op, a: Any, b: Any) -> Var:
        return self.em.emit(op, a, b)

    def __add__(self, o: Any) -> Var: return self._bin(Op.ADD, self, o)
    def __radd__(self, o: Any) -> Var: return self._bin(Op.ADD, o, self)
    def __sub__(self, o: Any) -> Var: return self._bin(Op.SUB, self, o)
    def __rsub__(self, o: Any) -> Var: return self._bin(Op.SUB, o, self)
    def __mul__(self, o: Any) -> Var: return self._bin(Op.MUL, self, o)
    def __rmul__(self, o: Any) -> Var: return self._bin(Op.MUL, o, self)
    def __truediv__(self, o: Any) -> Var: return self._bin(Op.DIV, self, o)
    def __rtruediv__(self, o: Any) -> Var: return self._bin(Op.DIV, o, self)
    def __pow__(self, o: Any) -> Var: return self._bin(Op.POW, self, o)
    def __rpow__(self, o: Any) -> Var: return self._bin(Op.POW, o, self)
    def __matmul__(self, o: Any) -> Var: return self._bin(Op.MATMUL, self, o)
    def __rmatmul__(self, o: Any) -> Var: return self._bin(Op.MATMUL, o, self)
    def __lt__(self, o: Any) -> Var: return self._bin(Op.LT, self, o)
    def __le__(self, o: Any) -> Var: return self._bin(Op.LE, self, o)
    def __gt__(self, o: Any) -> Var: return self._bin(Op.GT, self, o)
    def __ge__(self, o: Any) -> Var: return self._bin(Op.GE, self, o)
    def __neg__(self) -> Var: return self.em.emit(Op.NEG, self)
    def __pos__(self) -> Var: return self

    def __getitem__(self, i: int) -> Var:
        if not isinstance(i, int):
            raise TypeError("rules index arrays with ops.getitem; [] reads tuple parts")
        return self.em.emit_params(Op.ITEM, [self], {"index": i})

    @property
    def T(self) -> Var:
        return self.em.emit(Op.TRANSPOSE, self)


class UnknownShapeError(CompileError):
    """A rule needs a shape the compiler does not know (no example arguments)."""


class Emitter:
    """The ``ops`` protocol of ``derivatives`` that writes nodes instead of computing."""

    records = True  # adjoint nodes name the grad_fn record they belong to (MulBackward0)

    def __init__(self, b: GraphBuilder) -> None:
        self.b = b
        self.current: Node | None = None

    def node(self, v: Any) -> Node:
        if isinstance(v, Var):
            return v.node
        if isinstance(v, Node):
            return v
        return self.b.const(v)

    def emit_params(self, op: Op, inputs: list[Any], params: dict[str, Any]) -> Var:
        cur = self.current
        loc = cur.loc if cur is not None else None
        role = OP_INFO[cur.op].backward_name if cur is not None and self.records else None
        try:
            node = self.b.emit(op, [self.node(i) for i in inputs], params, loc=loc, role=role)
        except CompileTimeError as exc:
            raise EvaluationError(f"the adjoint of {cur.op.value if cur else op.value} "
                                  f"failed on the example arguments: {exc}", exc.loc) from None
        return Var(node, self)

    def emit(self, op: Op, *inputs: Any) -> Var:
        return self.emit_params(op, list(inputs), {})

    def __getattr__(self, name: str) -> Callable[..., Var]:
        try:
            op = Op(name)
        except ValueError:
            raise AttributeError(name) from None
        return lambda *inputs, **params: self.emit_params(op, list(inputs), params)

    def shape(self, x: Any) -> Var:
        return self.emit(Op.SHAPE, x)

    def static_shape(self, x: Any) -> tuple[int, ...]:
        """``x``'s shape as Python ints; a located error where it is not known (rules read
        it only where no run-time form exists: see ``known_shape`` and ``rank``)."""
        shape = self.known_shape(x)
        if shape is None:
            raise self._unknown("its input's shape")
        return shape

    def rank(self, x: Any) -> int | None:
        """``x``'s number of dimensions when the compiler knows it, else ``None``: from the
        type, or from the example value (``x[:k]`` in a loop: the length varies, the rank
        does not).  Python numbers have rank 0."""
        node = self.node(x)
        t = node.type
        if t is not None:
            if t.kind in ("float", "int", "bool"):
                return 0
            if t.shape is not None:
                return len(t.shape)
        nd = getattr(self.b.values.get(node), "ndim", None)  # (an abstract value: maybe None)
        return nd if isinstance(nd, int) else None

    def ndim(self, x: Any) -> int:
        """``x``'s rank; a located error where it is not known (see ``rank``)."""
        r = self.rank(x)
        if r is None:
            raise self._unknown("the number of dimensions of its input")
        return r

    def _unknown(self, what: str) -> UnknownShapeError:
        loc = self.current.loc if self.current is not None else None
        op = self.current.op.value if self.current is not None else "this op"
        return UnknownShapeError(f"the derivative of {op} here needs {what}, which is not "
                                 "known without example arguments", loc,
                                 "call the function with arguments first (or give the CLI "
                                 "their types: --arg NAME=f64[3,4])")

    def known_shape(self, x: Any) -> tuple[int, ...] | None:
        """``x``'s shape when every size in it is known, else ``None`` (then rules read
        it at run time, ``shape``; ``rank`` may still be known)."""
        t = self.node(x).type
        if t is not None and t.kind in ("float", "int", "bool"):
            return ()  # a Python number (a loop index)
        if t is None or t.shape is None or None in t.shape:
            return None
        return t.shape

    def branch(self, cond: Any, then: Any, orelse: Any) -> tuple[Var, ...]:
        """``then()`` if ``cond`` holds at run time, else ``orelse()``: an ``if`` in the
        generated code (a rule whose form depends on a rank the compiler does not know).
        Both return tuples of the same length."""
        outer, made = self.b, []
        for fn in (then, orelse):
            sub = outer.body(outer.name + "_branch", soft=True)
            self.b = sub
            try:
                outs = [sub.capture(self.node(v)) for v in fn()]
            finally:
                self.b = outer
            made.append((sub, outs))
        union: dict[Node, None] = {}
        for sub, _ in made:
            union.update(dict.fromkeys(sub.captures or {}))
        graphs = []
        for sub, outs in made:
            for n in union:
                sub.capture(n)
            assert sub.captures is not None  # (a body's builder)
            own = [a for a in sub.args if a not in set(sub.captures.values())]
            sub.args = own + [sub.captures[n] for n in union]
            graphs.append(sub.finish(outs))
        for sub, _ in made:
            outer.values.update(sub.values)
        node = self.emit_params(Op.IF, [cond, *union], {"then": graphs[0],
                                                         "orelse": graphs[1]}).node
        loc = node.loc
        return tuple(Var(outer.emit(Op.ITEM, [node], {"index": k}, loc=loc), self)
                     for k in range(len(made[0][1])))

    def at_most_1d(self, x: Any) -> Var:
        """``x.ndim <= 1`` at run time (the condition of a ``branch``)."""
        return self.emit(Op.LIST_LEN, self.shape(x)) <= 1

    def zeros_like(self, x: Any, **params: Any) -> Var:
        """Zeros shaped like ``x``; for a list built at run time, a list of them (NumPy
        would stack the items into one array)."""
        if self.is_list(x):
            return self.emit(Op.LIST_ZEROS, x)
        return self.emit_params(Op.ZEROS_LIKE, [x], params)

    def is_list(self, x: Any) -> bool:
        """A list built at run time: by type, or by example where the type is unknown (a
        stack that a branch the example skipped leaves open)."""
        node = self.node(x)
        t = node.type
        if t is None:
            return is_list_value(self.b.values.get(node))
        return t.kind == "list"

    def dtype(self, x: Any) -> str | None:
        t = self.node(x).type
        return None if t is None else t.dtype

    def const(self, v: Any) -> Var:
        return Var(self.b.const(v), self)

    def number(self, x: Any) -> int | float | None:
        """``x`` as a Python int or float where it is a constant one (an exponent written
        in the code), else ``None``."""
        node = self.node(x)
        v = node.param("value") if node.op is Op.CONST else None
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def adjoint(low: Lowered, active: frozenset[Node], wrt: tuple[int, ...],
            seed_like_output: bool = False, seeded: list[int] | None = None) -> Lowered:
    """Build the joint graph; see the module docstring.  ``seed_like_output`` (vjp) gives
    every output a seed argument shaped like it, in output order; ``seeded`` (for region
    bodies) lists the outputs that get one."""
    graph = low.graph
    values = low.values
    side: dict[Node, Any] = {}
    if any(n.op in REGIONS for n in active):
        graph, values, side, active = augment(graph, values, active, adjoint_graph)
    b = GraphBuilder.extend(graph, values, _evaluate if values else None,
                            graph.name + "_grad")
    b.soft = seeded is not None  # a body's example values may be from a branch not taken
    n_primal = len(graph.nodes)
    em = Emitter(b)
    adj: dict[Node, Node] = {}
    parts: dict[Node, dict[int, Node]] = {}
    if seeded is None and not seed_like_output:  # grad: d(first output) / d(wrt)
        out = graph.outputs[0]
        adj[out] = _strong_seed(em, graph, out, _seed(b, out, values.get(out), False))
    else:  # vjp (every output, in order) and region bodies: one seed per seeded output
        for k in range(len(graph.outputs)) if seeded is None else seeded:
            out = graph.outputs[k]
            name = (out.name or "out") + "_bar" if seeded is not None or k else "out_bar"
            seed = _seed(b, out, values.get(out), True, name, wide=seeded is not None)
            adj[out] = seed if out not in adj else _accumulate(em, adj[out], seed)
    opened: dict[Node, Node] = {}  # with blocks the adjoint keeps around its part
    for n in reversed(graph.nodes):
        if n.op is Op.OPAQUE_CALL and n.param("block"):
            mirror(b, n, opened, reverse=True)
            continue
        if n not in active or n.op in (Op.ARG, Op.CONST):
            continue
        if n.op is Op.ITEM:
            if n in adj:
                parts.setdefault(n.inputs[0], {})[n.param("index")] = adj[n]
            continue
        if n.op in REGIONS:
            if n not in parts:
                continue
        elif is_multi(n) or n in parts:  # a multi-output op, a function returning a tuple
            if n not in parts:
                continue
            g: Any = _tuple_adjoint(em, n, parts[n], graph)
            out_v: Any = tuple(Var(item_node(b, graph, n, i), em) for i in range(len(g)))
        else:
            if n not in adj:
                continue
            if n.name and adj[n].id >= len(graph.nodes):
                adj[n] = b.rename(adj[n], n.name + "_bar")
            g, out_v = Var(adj[n], em), Var(n, em)
        idiom = _logsumexp_idiom(n)
        if n.op in REGIONS:
            pairs = region_vjp(em, n, side[n], parts[n], graph, item_node)
        elif idiom is not None:  # log(sum(exp(a - max(a)))) + max(a): softmax = e / s
            a, e, s = idiom
            em.current = n
            pairs = [(a, logsumexp_from_parts(em, g, Var(e, em), Var(s, em)))]
        else:
            pairs = list(zip(n.inputs, call_rule(em, n, vjp_of, g, out_v)))
            if n.op is Op.MUL:
                pairs = _infinite_factor(em, n, g, pairs)
        for inp, gi in pairs:
            if gi is None or inp not in active:
                continue
            if isinstance(gi, NotDifferentiable):  # gammainc's a, active: no rule for it
                raise CompileError(gi.message, n.loc, "only the other arguments have one")
            gnode = em.node(gi)
            if gnode.type is not None and gnode.type.kind == "none":
                continue  # a registered rule said None: no gradient for this argument
            if _may_broadcast(n, gnode, inp):
                em.current = n
                gnode = _unbroadcast(em, gnode, inp)
            adj[inp] = gnode if inp not in adj else _accumulate(em, adj[inp], gnode)
    em.current = None
    if seeded is None:
        grads_out = [_final_gradient(em, graph.args[i], adj.get(graph.args[i]), b.values)
                     for i in wrt]
    else:  # a region body: its gradients stay inside the generated code, as computed
        grads_out = [adj.get(graph.args[i]) or _final_gradient(em, graph.args[i], None,
                                                               b.values) for i in wrt]
    joint = b.finish(list(graph.outputs) + grads_out)
    return Lowered(joint, b.values, n_primal)


def adjoint_graph(body: Graph, values: dict[Node, Any], wrt: list[int], seeded: list[int]
                  ) -> Lowered:
    """The joint graph of a region body: arguments ``(*body args, *seeds)``, outputs
    ``(*body outputs, *gradients of the wrt arguments)``."""
    from .activity import active_nodes  # noqa: PLC0415

    active = active_nodes(body, wrt, seeded)
    return adjoint(Lowered(body, values), active, tuple(wrt), seeded=seeded)


def _accumulate(em: Emitter, prev: Node, g: Node) -> Node:
    """``prev + g``; when both scatter into zeros (reads ``c[i]``, ``c[j]`` of one array),
    add the new part into the same buffer instead (``index_add``, written in place), so
    n reads cost n small additions rather than n full-size zeros and sums."""
    if em.is_list(prev) or em.is_list(g):
        return em.emit(Op.LIST_ADD, prev, g).node  # one side may be of unknown type
    if g.op is Op.SCATTER_ADD and prev.op in (Op.SCATTER_ADD, Op.INDEX_ADD) and \
            prev.type is not None and prev.type == g.type:
        return em.emit_params(Op.INDEX_ADD, [prev, *g.inputs[1:]],
                              {"index": g.param("index")}).node
    return em.emit(Op.ADD, prev, g).node


def _logsumexp_idiom(n: Node) -> tuple[Node, Node, Node] | None:
    """``(a, e, s)`` when ``n`` is ``log(s) + m`` with ``s = sum(e)``, ``e = exp(a - m)``
    and ``m = max(a)`` over the same axes: the stable log-sum-exp.  Its derivative does
    not depend on ``m`` (the shift cancels), so differentiating it as one op skips a
    gradient that is exactly zero — the code a person writes: ``a_bar = g * e / s``."""
    if n.op is not Op.ADD:
        return None
    for log, m in ((n.inputs[0], n.inputs[1]), (n.inputs[1], n.inputs[0])):
        if log.op is not Op.LOG or m.op not in (Op.MAX,):
            continue
        s = log.inputs[0]
        if s.op is not Op.SUM or s.kwargs != m.kwargs:
            continue
        keep, axis = m.param("keepdims"), m.param("axis")
        if not keep and axis is not None:
            continue  # a - m would not line up with a
        e = s.inputs[0]
        if e.op is Op.EXP and e.inputs[0].op is Op.SUB:
            a, shift = e.inputs[0].inputs
            if shift is m and m.inputs[0] is a:
                return a, e, s
    return None


def _seed(b: GraphBuilder, out: Node, value: Any, like_output: bool,
          name: str = "out_bar", wide: bool = False) -> Node:
    """The seed argument of an output.  ``wide`` (region bodies): the cotangent that
    arrives may be wider than the output (NumPy promotes a float64 seed times float32
    values to float64), so a float array's seed is typed float64: types inside the body
    must never be narrower than the values, or the final cast to the argument's dtype
    would be dropped as a no-op."""
    if not like_output:
        return b.arg(name, Type("float", "float64", ()), Abstract(Type("float", "float64", ())),
                     role="seed")
    t = out.type
    if wide and t is not None and t.kind == "array" and t.dtype in ("float32", "float16"):
        t = Type("array", "float64", t.shape)
        value = Abstract(t, generic=is_numpy_scalar(value))
    return b.arg(name, t, None if value is None else _ones_like(value), role="seed")


def _strong_seed(em: Emitter, graph: Graph, out: Node, seed: Node) -> Node:
    """grad's seed ``out_bar=1.0`` is a Python float, weak in NumPy's promotion: it takes
    the dtype of the arrays it meets (NEP 50).  Where the function has floating values
    narrower than its output (float16 weights in a float64 loss), ``out_bar * w`` would
    compute the adjoint in their dtype (and overflow where the output's does not); there
    the seed is made a 0-d array of the output's dtype first."""
    t = out.type
    if t is None or t.kind != "array" or t.dtype not in ("float32", "float64"):
        return seed
    width = np.dtype(t.dtype).itemsize
    if not any(n.type is not None and n.type.dtype is not None and n.type.kind == "array"
               and np.dtype(n.type.dtype).kind == "f"
               and np.dtype(n.type.dtype).itemsize < width for n in graph.nodes):
        return seed
    em.current = None
    return em.astype(em.asarray(seed), dtype=t.dtype, copy=False).node


def _ones_like(value: Any) -> Any:
    """An example seed for an output: ones of its shape (item by item for a list)."""
    if is_abstract(value):  # a seed is a runtime value like the output it seeds
        return abstract_list(value) if is_list_value(value) else value
    if isinstance(value, list):
        return [_ones_like(v) for v in value]
    return np.ones_like(value) if hasattr(value, "shape") else 1.0


def item_node(b: GraphBuilder, graph: Graph, n: Node, i: int) -> Node:
    """The node reading part ``i`` of the tuple-valued ``n`` (made if the graph has none)."""
    for m in graph.nodes:
        if m.op is Op.ITEM and m.inputs[0] is n and m.param("index") == i:
            return m
    out_type = n_items(n) and n.param("out_type")  # a user function's tuple: item types
    return b.emit(Op.ITEM, [n], {"index": i}, loc=n.loc, type=out_type[i] if out_type else None)


def _tuple_adjoint(em: Emitter, n: Node, got: dict[int, Node], graph: Any) -> tuple[Any, ...]:
    count = max(max(got) + 1, n_items(n) or 0)  # a user's rule gets every item's adjoint
    for m in graph.nodes:
        if m.op is Op.ITEM and m.inputs[0] is n:
            count = max(count, m.param("index") + 1)
    em.current = n
    return tuple(Var(got[i], em) if i in got else em.zeros_like(item_node(em.b, graph, n, i))
                 for i in range(count))


def _non_finite_const(x: Node, values: dict[Node, Any]) -> bool:
    """Whether ``x`` is a constant holding an infinity or a NaN."""
    if x.op is not Op.CONST:
        return False
    v = values.get(x, x.kwargs.get("value"))
    if isinstance(v, bool) or not isinstance(v, (float, np.floating, np.ndarray)):
        return False
    try:
        return not bool(np.all(np.isfinite(v)))
    except TypeError:
        return False


def _infinite_factor(em: Emitter, n: Node, g: Var, pairs: list[Any]) -> list[Any]:
    """``c * s`` with a constant ``c`` holding an infinity (scipy.stats' support bound
    ``_a * scale + loc`` with ``_a = -inf``): where the cotangent is zero (the product is
    not selected, as ``np.place`` under an all-False condition leaves it), the gradient
    of ``s`` is zero, not ``0 * inf = nan``."""
    x, y = n.inputs
    const = [_non_finite_const(v, em.b.values) for v in (x, y)]
    if not any(const):
        return pairs
    em.current = n
    out = []
    for (inp, gi), other in zip(pairs, (y, x)):
        if gi is not None and _non_finite_const(other, em.b.values):  # (the rule: g * other)
            gi = g * em.emit(Op.WHERE, em.emit(Op.EQ, g, 0.0), 0.0, Var(other, em))
        out.append((inp, gi))
    return out


def call_rule(em: Emitter, n: Node, lookup: Any, seed: Any, out_v: Any) -> Any:
    """Run ``n``'s rule from ``lookup`` (``vjp_of``/``jvp_of``) with ``em`` as ``ops``:
    the rule writes its nodes.  Rule errors become located compile errors."""
    em.current = n
    try:
        rule = lookup(n.op)
        return rule(em, seed, out_v, *[Var(i, em) for i in n.inputs], **n.kwargs)
    except RuleError as exc:
        raise CompileError(str(exc), n.loc) from None
    except CompileError:
        raise
    except Exception as exc:
        raise CompileError(f"internal error in the derivative rule of {n.op.value}: "
                           f"{type(exc).__name__}: {exc}", n.loc,
                           "this is a bug in st_autodiff; please report it") from exc


#: Ops whose rules may return a gradient of the broadcast shape of their inputs.
_BROADCASTING = ELEMENTWISE | {Op.MATMUL, Op.DOT, Op.INNER, Op.SOLVE, Op.EINSUM}


def _may_broadcast(n: Node, g: Node, x: Node) -> bool:
    """Whether ``g`` may need summing down to ``x``'s shape (always checked when known)."""
    known = g.type is not None and x.type is not None and None not in (g.type.shape,
                                                                       x.type.shape)
    return g.type.shape != x.type.shape if known else n.op in _BROADCASTING  # type: ignore[union-attr]  # known: both set


def _unbroadcast(em: Emitter, g: Node, x: Node) -> Node:
    """Sum ``g`` down to the shape of ``x``; nothing when the shapes are known equal."""
    gt, xt = g.type, x.type
    if gt is None or xt is None or gt.shape is None or xt.shape is None:
        return em.emit(Op.UNBROADCAST, g, em.shape(x)).node
    gs, xs = gt.shape, xt.shape
    if gs == xs:
        return g
    lead = len(gs) - len(xs)
    ones = tuple(lead + i for i, d in enumerate(xs) if d == 1 and gs[lead + i] != 1)
    axes = tuple(range(lead)) + ones
    if not xs:
        return em.sum(g).node
    if not ones:
        return em.sum(g, axis=axes[0] if len(axes) == 1 else axes).node
    summed = em.sum(g, axis=axes[0] if len(axes) == 1 else axes, keepdims=True)
    return (em.reshape(summed, xs) if lead else summed).node


def _through_region(g: Node) -> bool:
    """Whether ``g`` is computed from an output of a region node."""
    seen, stack = set(), [g]
    while stack:
        n = stack.pop()
        if n.op in REGIONS:
            return True
        for i in n.inputs:
            if id(i) not in seen:
                seen.add(id(i))
                stack.append(i)
    return False


def _final_gradient(em: Emitter, x: Node, g: Node | None, values: dict[Node, Any]) -> Node:
    """The returned gradient: zeros when none arrived, the argument's dtype and kind."""
    b = em.b
    t = x.type
    if g is None:
        if t is not None and t.kind == "float":
            return b.const(0.0)
        return em.zeros_like(x).node
    # a region body's cotangents are typed like its outputs, but NumPy may widen them
    # (a float64 seed times float32 values): their dtype may be too narrow, or unknown
    unsure = t is not None and t.kind == "array" and t.dtype not in (None, "float64") and (
        g.type is None or _through_region(g))
    if t is not None and t.kind == "array" and (g.type is not None or unsure):
        if t.shape == ():
            # NumPy turns 0-d results into scalars: give back the kind that came in
            want_scalar = is_numpy_scalar(values.get(x))
            have = values.get(g)
            python_float = isinstance(have, float) and not isinstance(have, np.generic) or \
                isinstance(have, Abstract) and have.type.kind == "float"
            if python_float or (is_numpy_scalar(have) and not want_scalar):
                g = em.asarray(g).node  # first: a Python float has no .astype
            if unsure:
                g = em.astype(em.asarray(g), dtype=t.dtype, copy=False).node
            elif g.type is not None and g.type.dtype != t.dtype and t.dtype is not None:
                g = em.astype(g, dtype=t.dtype).node
            if want_scalar and not is_numpy_scalar(values.get(g)):
                g = em.getitem(g, index=()).node
        elif unsure:
            g = em.astype(em.asarray(g), dtype=t.dtype, copy=False).node
        elif cast(Type, g.type).dtype != t.dtype and t.dtype is not None:  # (g.type known)
            g = em.astype(g, dtype=t.dtype).node
    if g.name is None:
        g = b.rename(g, (x.name or "x") + "_bar")
    return g
