"""The SSA graph: immutable nodes that read like PyTorch's grad_fn records.

A ``Node`` is one operation: a dense id, an ``Op``, its input nodes (``next_functions``
in the seed vocabulary), sorted params, a ``Type`` when known, the source name it was
assigned to and its source location.  A ``Graph`` is a function: argument nodes, every
node in evaluation order, and output nodes.  Graphs never change; passes build new ones
with a ``GraphBuilder``, which also folds constants and, when it is given an evaluator,
types each node as it is added (``ir/abstract.evaluate``: type rules on ``Abstract``
values, never the user's data).

Calls of a user's function (``call``, ``call_vjp``) are never run while compiling: their
example value is a *stand-in* of their type (``kernels.compiling``), and every value
computed from a stand-in is *abstract* (``GraphBuilder.abstract``): good for its type,
not for its data, so failures on it leave the value unknown instead of raising, and
branches on it are not known to be taken.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from .abstract import Abstract, NotKnown
from .kernels import OPAQUE, compiling
from .ops import INTEGER_VALUED, OP_INFO, Op
from .regions import REGIONS as _REGIONS
from .regions import output_type
from .types import Type, type_of


@dataclass(frozen=True)
class Loc:
    """A position in the user's source: file, 1-based line and column, and the line."""

    file: str
    line: int
    col: int
    text: str = ""
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def short(self) -> str:
        """``f.py:3`` (base name and line), as printed beside IR lines."""
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"


@dataclass(frozen=True, eq=False)
class Node:
    """One SSA value and the operation that made it (compared by identity)."""

    id: int
    op: Op
    inputs: tuple[Node, ...]
    params: tuple[tuple[str, Any], ...] = ()
    type: Type | None = None
    name: str | None = None
    loc: Loc | None = None
    role: str | None = None  # for adjoint nodes: the record they belong to, e.g. MulBackward0

    def param(self, key: str) -> Any:
        """The value of one param (``None`` when absent)."""
        for k, v in self.params:
            if k == key:
                return v
        return None

    @property
    def kwargs(self) -> dict[str, Any]:
        """Params as a dict, for calling rules and kernels."""
        return dict(self.params)

    @property
    def next_functions(self) -> tuple[Node, ...]:
        """The nodes this one reads, as in ``grad_fn.next_functions``."""
        return self.inputs

    def name_of_backward(self) -> str:
        """``MulBackward0`` for a ``mul`` node: the name of its adjoint record."""
        return OP_INFO[self.op].backward_name

    def __repr__(self) -> str:
        return f"<Node %{self.name or 't'}#{self.id} {self.op.value}>"


@dataclass(frozen=True)
class Graph:
    """A function in SSA form."""

    name: str
    args: tuple[Node, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[Node, ...]
    output_names: tuple[str, ...] = ()

    def users(self) -> dict[Node, list[Node]]:
        """Map each node to the nodes that read it, in order (a side table, not stored)."""
        out: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            for i in n.inputs:
                out[i].append(n)
        return out


class CompileTimeError(Exception):
    """An error in the user's code found while evaluating example values."""

    def __init__(self, message: str, loc: Loc | None) -> None:
        super().__init__(message)
        self.loc = loc


Evaluator = Callable[[Op, tuple[Any, ...], dict[str, Any]], Any]


def holds_node(v: Any) -> bool:
    """Whether ``v`` is a node or holds one at any depth (tuples, lists, sets, dict
    values): a value known only when the compiled code runs."""
    if isinstance(v, Node):
        return True
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(holds_node(x) for x in v)
    if isinstance(v, dict):
        return any(holds_node(x) for x in v.values())
    return False


@dataclass
class GraphBuilder:
    """Builds a ``Graph`` node by node, folding constants and tracking example values."""

    name: str
    evaluate: Evaluator | None = None
    nodes: list[Node] = field(default_factory=list)
    args: list[Node] = field(default_factory=list)
    values: dict[Node, Any] = field(default_factory=dict)
    _consts: dict[Any, Node] = field(default_factory=dict)
    _read: set[int] = field(default_factory=set)
    _names: dict[str, int] = field(default_factory=dict)
    #: a region body's builder: values of enclosing builders that its nodes read become
    #: arguments of the body (``captures``: outer node -> body argument, in order)
    captures: dict[Node, Node] | None = None
    #: evaluation failures leave a value unknown instead of raising (a branch the example
    #: arguments do not take, a loop body they never run)
    soft: bool = False
    lenient: bool = False  # set by ``extend``: nodes of later passes that fail to type
    _outer_values: Any = field(default_factory=dict)  # example values of enclosing builders
    _own: set[int] = field(default_factory=set)
    _keep: list[Node] = field(default_factory=list)
    parent: GraphBuilder | None = None  # the builder a region body's builder is nested in
    #: nodes whose example value is (computed from) a stand-in for a user function's
    #: output: typed, but not data (shared by a builder and its region bodies)
    abstract: set[Node] = field(default_factory=set)
    #: loop counters whose values are known while compiling: the smallest and largest value
    #: ``for i in range(a, b, c)`` with constant bounds gives ``i`` (shared with region
    #: bodies; a body's capture of a counter gets its range).  A slice ``x[i - k:i]`` then
    #: has one length on every iteration, so its shape is static (``fixed_slices``).
    ranges: dict[Node, tuple[int, int]] = field(default_factory=dict)

    def arg(self, name: str, type: Type | None = None, value: Any = None,
            loc: Loc | None = None, role: str | None = None) -> Node:
        """Add an argument node; ``value`` is its example value, if any; ``role="seed"``
        marks the adjoint seed the adjoint pass adds."""
        self.unique_name(name)
        node = Node(len(self.nodes), Op.ARG, (), (("name", name),), type, name, loc, role)
        self._add(node)
        self.args.append(node)
        if self.evaluate is not None and type is not None:
            self.values[node] = value
        return node

    def const(self, value: Any, loc: Loc | None = None, name: str | None = None) -> Node:
        """A constant node; hashable constants are shared."""
        key = _const_key(value)
        if key is not None and name is None and key in self._consts:
            return self._consts[key]
        t = type_of(value)
        node = Node(len(self.nodes), Op.CONST, (), (("value", value),), t, name, loc)
        self._add(node)
        self.values[node] = value
        if key is not None and name is None:
            self._consts[key] = node
        return node

    def emit(self, op: Op, inputs: Iterable[Node], params: dict[str, Any] | None = None,
             name: str | None = None, loc: Loc | None = None, type: Type | None = None,
             role: str | None = None) -> Node:
        """Add a node (or return a folded constant) and evaluate it when possible."""
        inputs = tuple(self._current(self.capture(i)) for i in inputs)
        info = OP_INFO[op]
        full = info.param_defaults
        full.update(params or {})
        sorted_params = tuple(sorted(full.items()))
        calls = op in OPAQUE or _calls_inside(full)  # never folded: run once per call
        abstract = calls or any(i in self.abstract for i in inputs)
        folded = None if calls else self._fold(op, inputs, full, loc)  # (shapes still fold)
        if folded is not None:
            return folded
        value, known = None, False
        if self.evaluate is not None and all(i in self.values for i in inputs) and not (
                op not in _TAKES_PLACEHOLDERS and any(
                    self.values[i] is None and (i.type is None or i.type.kind != "none")
                    for i in inputs)):
            # (a None where the type says a value: a placeholder of a branch the example
            # skipped, so this node has no example value either)
            try:
                with compiling():
                    value = self.evaluate(op, tuple(self.values[i] for i in inputs), full)
                # an object array is made from a None placeholder (zeros_like of a value a
                # branch the example skipped): no example at all, not a non-float array
                known = getattr(getattr(value, "dtype", None), "kind", "") != "O"
                if not known:
                    value = None
            except NotKnown:  # not told by the inputs' types: the node stays untyped
                pass
            except Exception as exc:  # a type error (or one of a constant's) is the user's
                # (unless on a path the program may never take, or in a pass after
                # lowering, whose nodes are ours: there an untyped node is generic code)
                if not (self.soft or self.lenient):
                    raise CompileTimeError(f"{type_name(exc)}: {exc}", loc) from exc
        declared = type
        region_item = op is Op.ITEM and inputs[0].op in _REGIONS
        if region_item and type is None:
            declared = output_type(inputs[0], full["index"])
        placeholder = region_item and inputs[0].op is Op.IF and (not known or value is None)
        if placeholder:
            # a value the example's branch does not make: typed by the branches (from
            # the other one), never ``none`` because this example skipped it
            type = declared
        elif known and value is None and type is not None:
            pass  # a placeholder (a branch not taken); the caller knows the real type
        elif known:
            type = value.type if isinstance(value, Abstract) else type_of(value)
            if not self._shape_trusted(op, inputs, full) and not _reduces_to_scalar(op, full):
                type = type.without_shape()
        elif type is None:  # not evaluated: typed from the inputs' types
            type = _inferred_type(op, inputs, full) or (
                _soft_type(op, inputs) if self.soft or abstract else None)
        if known and op in _FROM_LIST_ITEMS and type is not None:
            # how many items a runtime list holds may depend on the data (appends in
            # branches, while loops): the stacked shape is only this example's
            type = type.without_shape()
        if known and op is Op.LIST_SUM and not self.values[inputs[0]]:
            # sum([]) is the int 0 only for this example: the items it adds on other calls
            # are floats, maybe arrays (their kind unknown), and gradients flow through it
            type = Type("array", "float64", None)
        if op in _LIST_VALUED or isinstance(value, list) and (
                declared is not None and declared.kind == "list"):
            # a list built at run time (NumPy's own lists are tuples): a loop's stacks,
            # one a branch returns (typed by the branch, not as this Python value)
            type = Type("list")
        node = Node(len(self.nodes), op, inputs, sorted_params, type, name, loc, role)
        self._add(node)
        self._read.update(i.id for i in inputs)
        if known:
            self.values[node] = value
        if abstract:
            self.abstract.add(node)
        return node

    def is_abstract(self, node: Node) -> bool:
        """Whether ``node``'s example value is (computed from) a stand-in: typed, but its
        data says nothing (a branch on it may go either way)."""
        return node in self.abstract

    def body(self, name: str, soft: bool = False) -> GraphBuilder:
        """A builder for a region body nested in this one (it captures what it reads)."""
        from collections import ChainMap  # noqa: PLC0415

        b = GraphBuilder(name, self.evaluate, captures={}, soft=soft or self.soft)
        b._outer_values = ChainMap(self.values, self._outer_values)
        b.parent = self
        b.abstract = self.abstract
        b.ranges = self.ranges
        return b

    def _add(self, node: Node) -> None:
        self.nodes.append(node)
        self._own.add(id(node))

    def owns(self, node: Node) -> bool:
        """Whether ``node`` was made by this builder (renamed copies included)."""
        return id(node) in self._own

    def capture(self, node: Node) -> Node:
        """``node`` as a value of this builder: an enclosing builder's node becomes (once)
        an argument of the body being built."""
        if self.captures is None or self.owns(node):
            return node
        if node not in self.captures:
            value = node.param("value") if node.op is Op.CONST else None
            if node.op is Op.CONST and _const_key(value) is not None:
                self.captures[node] = self.const(value, node.loc, node.name)
                return self.captures[node]
            arg = self.arg(node.name or "t", node.type, None, node.loc)
            if node in self.abstract:
                self.abstract.add(arg)
            if node in self.ranges:
                self.ranges[arg] = self.ranges[node]
            if node in self._outer_values:
                self.values[arg] = self._outer_values[node]
            self.captures[node] = arg
        return self.captures[node]

    def _shape_trusted(self, op: Op, inputs: tuple[Node, ...],
                       params: dict[str, Any] | None = None) -> bool:
        """A shape is static when it follows from input shapes alone."""
        if op in (Op.SETITEM, Op.INDEX_ADD):  # x with values written in: x's shape
            t = inputs[0].type
            return t is not None and t.kind == "array" and t.shape is not None
        if any(i.type is not None and i.type.kind == "array" and i.type.shape is None
               for i in inputs):
            return False
        if op is Op.GETITEM:
            index = (params or {}).get("index")
            if _dynamic_slice(index, inputs[1:]) and not fixed_slices(
                    index, inputs, self.ranges):
                return False  # x[k:] with a runtime k: the length varies (in a loop)
            return not any(i.type is not None and i.type.kind == "array" and i.type.dtype
                           == "bool" for i in inputs[1:])
        if op in _SIZED_BY_INPUTS:  # np.arange(a, b) with float a, b: the length varies
            return all(inputs[k].op is Op.CONST for k in _SIZED_BY_INPUTS[op]
                       if k < len(inputs))
        return not OP_INFO[op].data_shape

    def _fold(self, op: Op, inputs: tuple[Node, ...], params: dict[str, Any],
              loc: Loc | None) -> Node | None:
        """Fold integer/shape arithmetic on constants and shapes of typed values."""
        if op is Op.SHAPE:
            t = inputs[0].type
            if t is not None and t.shape is not None:
                return self.const(t.shape, loc)
            return None
        if not inputs or any(i.op is not Op.CONST for i in inputs):
            return None
        vals = [i.param("value") for i in inputs]
        if not all(_is_static(v) for v in vals):
            return None
        if op in (Op.ITEM, Op.GETITEM) or op in INTEGER_VALUED or all(
                isinstance(v, (int, bool)) for v in vals):
            import numpy  # noqa: PLC0415

            from .kernels import run  # noqa: PLC0415  (kernels import this module's types)

            try:
                result = run(op, numpy, tuple(vals), params)
            except Exception:  # leave it to run time, where the user will see it
                return None
            if _is_static(result):
                return self.const(result, loc)
        return None

    @classmethod
    def extend(cls, graph: Graph, values: dict[Node, Any], evaluate: Evaluator | None,
               name: str | None = None) -> GraphBuilder:
        """A builder that continues ``graph`` (same nodes, same example values)."""
        b = cls(name or graph.name, evaluate)
        b.lenient = True
        b.nodes = list(graph.nodes)
        b._own = {id(n) for n in graph.nodes}
        b.args = list(graph.args)
        b.values = dict(values)
        b._read = {i.id for n in graph.nodes for i in n.inputs} | {o.id for o in graph.outputs}
        for n in graph.nodes:
            if n.name is not None:
                b._names.setdefault(n.name, 0)
            if n.op in OPAQUE or any(i in b.abstract for i in n.inputs) or \
                    _calls_inside(n.kwargs):
                b.abstract.add(n)
        for n in graph.nodes:
            if n.op is Op.CONST:
                key = _const_key(n.param("value"))
                if key is not None and n.name is None:
                    b._consts.setdefault(key, n)
        return b

    def unique_name(self, name: str) -> str:
        """``name``, or ``name_1``, ``name_2`` … if an earlier value already has it: SSA
        names are unique in the IR, so adjoints read ``z_1_bar`` for a reassigned ``z``."""
        if name not in self._names:
            self._names[name] = 0
            return name
        k = self._names[name]
        while True:
            k += 1
            candidate = f"{name}_{k}"
            if candidate not in self._names:
                self._names[name] = k
                self._names[candidate] = 0
                return candidate

    def rename(self, node: Node, name: str) -> Node:
        """Give an unnamed node the source name it was assigned to, if nothing reads it yet."""
        node = self._current(node)
        if node.name is not None or node.op in (Op.ARG, Op.CONST) or not self.owns(node):
            return node  # an enclosing builder's node: a region body captures it when used
        if node.id in self._read:
            return node
        renamed = Node(node.id, node.op, node.inputs, node.params, node.type,
                       self.unique_name(name), node.loc, node.role)
        self.nodes[node.id] = renamed
        self._own.add(id(renamed))
        self._keep.append(node)  # keeps id(node) from being reused while we own it
        if node in self.values:
            self.values[renamed] = self.values.pop(node)
        if node in self.abstract:
            self.abstract.add(renamed)
        return renamed

    def finish(self, outputs: Iterable[Node], output_names: Iterable[str] = ()) -> Graph:
        """The finished, immutable graph."""
        outputs = [self._current(self.capture(o)) for o in outputs]
        return Graph(self.name, tuple(self.args), tuple(self.nodes), tuple(outputs),
                     tuple(output_names))

    def _current(self, node: Node) -> Node:
        """``node`` as the builder holds it now: ``rename`` replaces a node by a renamed
        copy, and callers may still hold the old object (``a = b = x * 2``, or a tuple
        whose items were unpacked into names)."""
        if 0 <= node.id < len(self.nodes) and self.owns(node):
            cur = self.nodes[node.id]
            if cur is not node and cur.op is node.op and cur.inputs is node.inputs:
                return cur
        return node


_LIST_VALUED = frozenset({Op.LIST, Op.LIST_CONCAT, Op.LIST_ZEROS, Op.LIST_ADD,
                          Op.LIST_UNSTACK, Op.LIST_INDEX_ADD, Op.LIST_SLICE,
                          Op.LIST_REVERSE, Op.LIST_GATHER, Op.LIST_UNGATHER,
                          Op.LIST_SPLIT_LIKE})


def index_may_repeat(index: tuple[Any, ...], dyn: tuple[Node, ...] | list[Node]) -> bool:
    """Whether an index may name one element twice (an integer array or a list): then
    ``a[index] += v`` does not accumulate, ``index_add`` must."""
    if any(isinstance(e, tuple) and e and e[0] == "list" for e in index):
        return True
    return any(d.type is None or d.type.kind == "array" and d.type.dtype != "bool"
               for d in dyn)


def _dynamic_slice(index: Any, dyn: tuple[Node, ...]) -> bool:
    """Whether a getitem index has a slice with a bound known only at run time."""
    for e in index or ():
        if isinstance(e, tuple) and e and e[0] == "slice":
            if any(isinstance(b, tuple) and b and b[0] == "in" and dyn[b[1]].op is not Op.CONST
                   for b in e[1:]):
                return True
    return False


def fixed_slices(index: Any, inputs: tuple[Node, ...],
                 ranges: dict[Node, tuple[int, int]]) -> bool:
    """Whether every slice of ``inputs[0][index]`` with runtime bounds keeps the same
    number of elements on every run: its bounds are ``c * i + a`` and ``c * i + b`` for
    one loop counter ``i`` whose range is known (``ranges``), inside ``0 .. n`` of their
    axis for every value of ``i`` (no negative start wraps, no stop is clipped), with a
    constant positive step.  ``x[t - p:t]`` in ``for t in range(p, n)`` is one."""
    t = inputs[0].type
    shape = t.shape if t is not None else None
    if shape is None:
        return False
    dyn = inputs[1:]
    axis = 0
    for e in index or ():
        if e is None or isinstance(e, bool):
            continue  # np.newaxis adds an axis of its own
        if e is Ellipsis or isinstance(e, tuple) and e and e[0] in ("list", "mask"):
            return False  # (positions after an ellipsis or a gather: not followed here)
        if isinstance(e, tuple) and e and e[0] == "in":
            d = dyn[e[1]].type
            if d is None or d.kind == "array" and (d.shape != () or d.dtype == "bool"):
                return False  # an array index (or a 0-d mask, which adds an axis)
        if isinstance(e, tuple) and e and e[0] == "slice" and axis < len(shape) and any(
                isinstance(b, tuple) and b and b[0] == "in" and dyn[b[1]].op is not Op.CONST
                for b in e[1:]):
            start, stop, step = (None if b is None else _affine(dyn[b[1]], ranges)
                                 if isinstance(b, tuple) else _affine(b, ranges) for b in e[1:])
            if start is None or stop is None or start[0] is None or start[0] is not stop[0] \
                    or start[1] != stop[1] or stop[2] < start[2]:
                return False  # (not one counter, or lengths that differ by iteration)
            if e[3] is not None and (step is None or step[0] is not None or step[2] <= 0):
                return False
            lo, hi = ranges[start[0]]
            for _, c, a in (start, stop):  # no negative start wraps, no stop is clipped
                if min(c * lo + a, c * hi + a) < 0 or max(c * lo + a, c * hi + a) > shape[axis]:
                    return False
        axis += 1
    return True


def int_constant(v: Any) -> int | None:
    """``v`` as an int where it is one known while compiling (an int, or a constant node
    holding one; bools are not), else None."""
    if isinstance(v, Node):
        if v.op is not Op.CONST:
            return None
        v = v.param("value")
    return int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else None


def _affine(node: Any, ranges: dict[Node, tuple[int, int]], depth: int = 0
            ) -> tuple[Node | None, int, int] | None:
    """``node`` (a node or an int) as ``(i, c, a)`` meaning ``c * i + a`` for a loop
    counter ``i`` of known range (``i`` None: the constant ``a``), through integer ``+``,
    ``-``, ``*`` and unary minus; None for anything else."""
    k = int_constant(node)
    if k is not None:
        return None, 0, k
    if not isinstance(node, Node) or node.op is Op.CONST:
        return None
    if node in ranges:
        return node, 1, 0
    if depth > 16 or node.type is None or node.type.kind != "int":
        return None
    parts = [_affine(i, ranges, depth + 1) for i in node.inputs]
    if any(p is None for p in parts) or not parts:
        return None
    if node.op is Op.NEG and len(parts) == 1:
        i, c, a = parts[0]  # type: ignore[misc]
        return i, -c, -a
    if len(parts) != 2:
        return None
    (i, c, a), (j, d, b) = parts  # type: ignore[misc]
    if node.op in (Op.ADD, Op.SUB) and (i is None or j is None or i is j):
        sign = 1 if node.op is Op.ADD else -1
        return (i if i is not None else j), c + sign * d, a + sign * b
    if node.op is Op.MUL and (i is None or j is None):
        return (j, d * a, b * a) if i is None else (i, c * b, a * b)
    return None


def _calls_inside(params: dict[str, Any]) -> bool:
    """Whether a region's bodies (graphs among ``params``) call a user's function."""
    return any(isinstance(v, Graph) and any(n.op in OPAQUE or _calls_inside(n.kwargs)
                                            for n in v.nodes) for v in params.values())


def is_multi(node: Node) -> bool:
    """Whether ``node``'s value is a tuple read through ``item`` nodes: a multi-output op,
    or a call of a user's function that returns a tuple or list."""
    return OP_INFO[node.op].multi or node.op is Op.CALL and isinstance(
        node.param("out_type"), (tuple, list))


def n_items(node: Node) -> int | None:
    """How many items a ``call`` returning a tuple has (``None`` for other nodes)."""
    out = node.param("out_type") if node.op is Op.CALL else None
    return len(out) if isinstance(out, (tuple, list)) else None


def _soft_type(op: Op, inputs: tuple[Node, ...]) -> Type | None:
    """A guess at an unevaluated node's type: an elementwise op takes its widest input's
    (a float array beside an int constant: ``1 - t * t`` is a float array, never an int,
    which would make it inactive and drop its gradient); unknown if any input is.  A write
    (``setitem``, ``index_add``) and ``asarray`` of an array keep the array's type."""
    if op in (Op.SETITEM, Op.INDEX_ADD, Op.ASARRAY) and inputs and inputs[0].type is not None and \
            inputs[0].type.kind == "array":
        return inputs[0].type
    if not OP_INFO[op].elementwise or not inputs or op in INTEGER_VALUED:
        return None
    types = [i.type for i in inputs]
    if any(t is None or t.kind == "none" for t in types):
        return None
    ranked = sorted(cast(list[Type], types), key=lambda t: (not t.is_float, t.kind != "array"))
    return ranked[0].without_shape()


def _inferred_type(op: Op, inputs: tuple[Node, ...], params: dict[str, Any]) -> Type | None:
    """The type the op's type rule gives from its inputs' types (an unevaluated node in a
    branch the example skipped: ``asarray``, ``reshape``, ``ravel`` of typed values), or
    None where there is no rule or an input is untyped."""
    if op in _REGIONS or op in OPAQUE:
        return None
    args: list[Any] = []
    for i in inputs:
        if i.op is Op.CONST:
            args.append(i.param("value"))
            continue
        t = i.type
        if t is None or t.kind not in ("array", "float", "int", "bool"):
            return None
        args.append(Abstract(t))
    from .infer import infer  # noqa: PLC0415  (infer imports this module's neighbours)

    try:
        out = infer(op, tuple(args), params)
    except Exception:  # no rule, or shapes the op would refuse: left untyped, as before
        return None
    return out.type if isinstance(out, Abstract) else None


def type_name(exc: BaseException) -> str:
    """``LinAlgError`` rather than ``numpy.linalg.LinAlgError``."""
    return type(exc).__name__


#: ops that take the ``None`` placeholders of branches not taken as they are (regions,
#: tuple parts, the list algebra, in which None is an empty adjoint)
_TAKES_PLACEHOLDERS = frozenset({Op.IF, Op.FOR, Op.WHILE, Op.ITEM, Op.LIST_ADD, Op.LIST_ZEROS,
                                 Op.LIST_GATHER, Op.LIST_UNGATHER})

#: ops whose output shape comes from the values of these inputs: the shape is static only
#: when they are constants (else it is the example's, valid for no other call)
_SIZED_BY_INPUTS = {Op.ARANGE: (0, 1, 2), Op.ZEROS: (0,), Op.ONES: (0,), Op.FULL: (0,),
                    Op.EYE: (0,), Op.RESHAPE: (1,), Op.BROADCAST_TO: (1,)}

#: ops whose result's shape counts a runtime list's items
_FROM_LIST_ITEMS = frozenset({Op.LIST_STACK, Op.LIST_CATENATE})

#: reductions whose result is 0-d whatever their input's shape (with axis=None and no
#: keepdims), so a data-dependent input shape does not make the result's shape unknown
_FULL_REDUCTIONS = frozenset({Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD,
                              Op.ANY, Op.ALL})


def _reduces_to_scalar(op: Op, params: dict[str, Any]) -> bool:
    return op in _FULL_REDUCTIONS and params.get("axis") is None and not params.get(
        "keepdims")


def _is_static(v: Any) -> bool:
    """Python ints, bools, None and tuples of them: values that can be folded."""
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, tuple):
        return all(_is_static(x) for x in v)
    return False


def _const_key(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str, tuple, type(None), type(Ellipsis))):
        try:
            hash(value)
        except TypeError:
            return None
        return (type(value), value)
    return None
