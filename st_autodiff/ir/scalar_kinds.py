"""Which kind of 0-d value a runtime value is: a Python number, a NumPy scalar or an array.

``isinstance(v, float)``, ``type(v)`` and ``np.isscalar(v)`` tell these apart, so the compiler
answers them only where it knows the kind exactly.  A value's example (``Abstract``, or a
concrete value computed from constants) says which kind NumPy's rules give
(``Abstract.generic``: ufuncs and full reductions of scalars give NumPy scalars, Python
arithmetic on Python numbers stays Python); that answer is *exact* only when

* the value is a constant, or an argument of the differentiated function (its kind is part
  of the cache key), or
* it is an array of rank one or more (an ``ndarray``: type queries take every such value
  for one, arguments of other array types are refused), or
* it is made by an op whose result is always an ``ndarray`` of rank one or more, even when
  its shape depends on the data (``always_ndarray``: ``x[mask]``, ``x[[0, 1]]``,
  ``np.arange``), or
* it is made by an op in ``CHECKED_OPS`` (whose type rule tests/test_scalar_kinds.py checks
  against the installed NumPy, case by case) from values whose kind is exact, and the
  lowering did not give the node a meaning other than the op's (``retyped``: ``float(x)``
  and ``x.item()`` are lowered as ``x``; ``math.exp(x)`` as ``np.exp``; a decomposition of
  a NumPy function need not return the same kind).

Anything else is unknown, and a query that depends on it stays a located refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from .abstract import Abstract
from .graph import Node
from .ops import OP_INFO, Op, Spelling

PYTHON, NUMPY, ARRAY = "python", "numpy", "array"

#: Ops whose type rule gives NumPy's kind of result (Python number, NumPy scalar or array)
#: for every kind of input: each is exercised by the table of tests/test_scalar_kinds.py.
#: (The logical ops are in ``NUMPY_INPUT_OPS``.)
CHECKED_OPS: frozenset[Op] = frozenset({
    Op.NEG, Op.POSITIVE, Op.ABS, Op.SIGN, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2,
    Op.LOG10, Op.LOG1P, Op.SQRT, Op.CBRT, Op.SQUARE, Op.RECIPROCAL, Op.SIN, Op.COS, Op.TAN,
    Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH, Op.ARCSINH, Op.ARCCOSH,
    Op.ARCTANH, Op.DEG2RAD, Op.RAD2DEG,
    Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.POW, Op.MOD, Op.FLOORDIV, Op.ARCTAN2, Op.HYPOT,
    Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.LOGADDEXP, Op.LOGADDEXP2,
    Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.FLOOR, Op.CEIL,
    Op.RINT, Op.TRUNC,
    Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY, Op.ALL,
    Op.GETITEM, Op.ASARRAY, Op.COPY, Op.DOT, Op.INNER, Op.VDOT, Op.OUTER, Op.MATMUL,
    Op.CUMSUM, Op.CUMPROD, Op.CLIP, Op.WHERE, Op.ROUND, Op.TRACE, Op.NORM, Op.TAKE,
    Op.RESHAPE, Op.ASTYPE, Op.MOVEAXIS, Op.EXPAND_DIMS, Op.SWAPAXES, Op.BROADCAST_TO,
    Op.RAVEL, Op.SQUEEZE, Op.TRANSPOSE, Op.ARGMAX, Op.ARGMIN, Op.ZEROS_LIKE, Op.ONES_LIKE,
})

#: ops whose kind is checked where some input is a NumPy value: ``True | False`` is a
#: Python bool where ``np.logical_or`` gives a NumPy one (Python's ``and``/``or``/``not``,
#: also lowered to them, mark their results ``kind_unknown``)
NUMPY_INPUT_OPS: frozenset[Op] = frozenset({
    Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR, Op.LOGICAL_NOT})

#: array methods lowered to the op of the same name whose kind the table checks too
#: (``x.copy()`` of a NumPy scalar is a NumPy scalar, ``np.copy`` a 0-d array: not here)
CHECKED_METHODS: frozenset[str] = frozenset({
    "sum", "mean", "prod", "max", "min", "var", "std", "any", "all", "dot", "take",
    "reshape", "astype", "swapaxes", "cumsum", "cumprod", "clip", "round", "trace",
    "ravel", "flatten", "squeeze", "transpose", "argmax", "argmin",
})


#: ops whose result is an ndarray of rank one or more for every input (its shape may
#: depend on the data): ``np.arange``, ``np.linspace``, ``np.repeat``
ALWAYS_NDARRAY_OPS: frozenset[Op] = frozenset({Op.ARANGE, Op.LINSPACE, Op.REPEAT})


#: ops that broadcast their inputs (elementwise): an ndarray of rank one or more among
#: them makes the result one (``x[mask] * 2.0``, ``np.abs(x[mask])``)
ELEMENTWISE_OPS: frozenset[Op] = frozenset({
    Op.NEG, Op.POSITIVE, Op.ABS, Op.SIGN, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2,
    Op.LOG10, Op.LOG1P, Op.SQRT, Op.CBRT, Op.SQUARE, Op.RECIPROCAL, Op.SIN, Op.COS, Op.TAN,
    Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH, Op.ARCSINH, Op.ARCCOSH,
    Op.ARCTANH, Op.DEG2RAD, Op.RAD2DEG,
    Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.POW, Op.MOD, Op.FLOORDIV, Op.ARCTAN2, Op.HYPOT,
    Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.LOGADDEXP, Op.LOGADDEXP2,
    Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.FLOOR,
    Op.CEIL, Op.RINT, Op.TRUNC, Op.CLIP, Op.WHERE, Op.ZEROS_LIKE, Op.ONES_LIKE, Op.FULL_LIKE,
    Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR, Op.LOGICAL_NOT})


def always_ndarray(n: Node) -> bool:
    """Whether ``n``'s op makes an ``ndarray`` whatever the values: ``ALWAYS_NDARRAY_OPS``,
    the arrays of ``np.nonzero``,
    and indexing with a boolean array (any rank, ``x[mask]``), a list, or an integer array
    of rank one or more (NumPy's advanced indexing always copies into a new ndarray; a
    0-d integer array index acts as an integer, so it is not here).  The caller checks
    that the lowering did not give the node another meaning (``retyped``, ``unknown``)."""
    if n.op in ALWAYS_NDARRAY_OPS:
        return True
    if n.op is Op.ITEM:
        return bool(n.inputs) and n.inputs[0].op is Op.NONZERO
    if n.op is not Op.GETITEM:
        return False
    for entry in n.param("index") or ():
        if isinstance(entry, tuple) and entry and entry[0] == "list":
            return True
        if isinstance(entry, tuple) and entry and entry[0] == "in":
            t = n.inputs[1 + entry[1]].type
            if t is not None and t.kind == "array" and (
                    t.dtype == "bool" or (t.shape is not None and t.shape != ())):
                return True
    return False


def rank_one_or_more(lw: Any, n: Node) -> bool:
    """Whether ``n`` is certainly an ``ndarray`` of rank one or more although its type may
    not say so: its type has such a shape, ``always_ndarray`` makes it, or it is an output
    of a runtime ``if`` whose branches both give such a value (``argsreduce``: the whole
    array or ``np.extract`` of it), or an elementwise op of such a value.  Nodes the
    lowering gave another meaning (``retyped``, ``kind_unknown``: ``float(x)``,
    ``math.exp(x)``, ``x or 0.0`` may be Python numbers whatever their type says) are not;
    inside finished branches, ``note_finished`` kept them."""
    keys = kind_unknown(lw) | {node_key(lw, r) for r in lw.retyped}
    finished = lw.__dict__.get("finished_unknown", {})
    memo: dict[int, bool] = {}

    def ok(m: Node, depth: int) -> bool:
        if id(m) in memo:
            return memo[id(m)]
        memo[id(m)] = False  # (a cycle cannot happen; this also bounds the work)
        key = node_key(lw, m)
        if depth > 200 or key in keys or id(m) in finished:
            return False  # float(x), math.exp(x), x or 0.0: may stand for a Python number
        t = m.type
        if t is not None and t.kind == "array" and t.shape or always_ndarray(m):
            found = True
        elif m.op in ELEMENTWISE_OPS:  # broadcasting keeps the largest rank
            found = any(isinstance(i, Node) and ok(i, depth + 1) for i in m.inputs)
        elif m.op is Op.TAKE and len(m.inputs) > 1:  # the indices' shape is in the result
            found = ok(m.inputs[0], depth + 1) and ok(m.inputs[1], depth + 1)
        elif m.op is Op.ITEM and m.inputs and m.inputs[0].op is Op.IF:
            found = all(ok(out, depth + 1) for out in _branch_outputs(m))
        else:
            found = False
        memo[id(m)] = found
        return found

    return ok(n, 0)


def note_finished(lw: Any, builder: Any, graph: Any) -> None:
    """Keep the marks of unknown kind (``kind_unknown``, ``retyped``) of the nodes of a
    region body ``builder`` just finished into ``graph``: ``node_key`` finds no builder
    for them any more, and ``rank_one_or_more`` reads the bodies of ``if`` nodes."""
    ids = {k[1] for k in kind_unknown(lw) if k[0] == id(builder)} | {
        r.id for r in lw.retyped if builder.owns(r)}
    if not ids:
        return
    finished = lw.__dict__.setdefault("finished_unknown", {})
    for n in (*graph.args, *graph.nodes, *graph.outputs):
        if n.id in ids:
            finished[id(n)] = n  # (held, so that the id stays this node's)


def _branch_outputs(item: Node) -> list[Node]:
    """The values a runtime ``if``'s output ``item`` has in each branch (a branch's
    argument passed through stands for the ``if``'s input); empty when not known."""
    node, k = item.inputs[0], item.param("index")
    outs = []
    for branch in (node.param("then"), node.param("orelse")):
        if branch is None or not isinstance(k, int) or k >= len(branch.outputs):
            return [item]  # not known: ``ok`` of the item itself is False
        out = branch.outputs[k]
        at = [j for j, a in enumerate(branch.args) if a is out]
        outs.append(node.inputs[1 + at[0]] if at else out)
    return outs


def value_kind(v: Any) -> str | None:
    """``PYTHON``, ``NUMPY`` or ``ARRAY`` for a concrete or abstract value; None for
    anything else (tuples, objects, an ``ndarray`` subclass)."""
    if isinstance(v, Abstract):
        kind = v.type.kind
        if kind in ("float", "int", "bool"):
            return PYTHON
        if kind == "array":
            return NUMPY if v.generic else ARRAY
        return None
    if isinstance(v, np.generic):
        return NUMPY
    if isinstance(v, (bool, int, float, complex)):
        return PYTHON
    if type(v) is np.ndarray:
        return ARRAY
    return None


def numpy_objects(op: Op) -> list[Any]:
    """The NumPy callables whose result has the kind of ``op``'s (its path and aliases in
    the op table).  None for ops written with Python's operators: ``np.add(1.0, 2.0)`` is a
    NumPy scalar, ``1.0 + 2.0`` (what the op runs) a Python float."""
    info = OP_INFO[op]
    if info.spelling in (Spelling.INFIX, Spelling.PREFIX):
        return []
    paths = ([info.numpy] if info.numpy and not info.numpy.startswith("rt.") else []) + list(
        info.aliases)
    out = []
    for path in paths:
        obj: Any = np
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        out.append(obj)
    return out


def unknown(lw: Any, node: Any) -> Any:
    """``node``, marked as of unknown kind (a lowering that gives it another meaning)."""
    if isinstance(node, Node):
        kind_unknown(lw).add(node_key(lw, node))
    return node


def kind_unknown(lw: Any) -> set[tuple[int, int]]:
    """Keys (``node_key``) of the nodes whose kind is not their op's
    (``transforms/kind_calls``)."""
    return cast(set[tuple[int, int]], lw.__dict__.setdefault("kind_unknown", set()))


def node_key(lw: Any, node: Node) -> tuple[int, int]:
    """A key that a node keeps when an assignment renames it (a renamed copy keeps the id
    its builder gave it)."""
    b = lw.b
    while b is not None:
        if b.owns(node):
            return (id(b), node.id)
        b = b.parent
    return (0, id(node))


def exact_kind(lw: Any, v: Any, is_argument: Callable[[Any, Node], bool]) -> str | None:
    """The kind of ``v`` at run time when it is known exactly (see the module docstring),
    else None.  ``lw`` is the lowerer (its examples and ``retyped`` nodes)."""
    if not isinstance(v, Node):
        return value_kind(v)
    if not _exact(lw, v, is_argument):
        return None
    if rank_one_or_more(lw, v):
        return ARRAY
    return value_kind(_example(lw, v, 0))


def _example(lw: Any, n: Node, depth: int) -> Any:
    """``n``'s example value; where the builder has none (a value computed inside a region
    body from a value the example run did not reach), the checked op evaluated on its
    inputs' examples, which is what the builder computes when it has them."""
    got = lw.example(n)
    if got is not None or depth > 100:
        return got
    t = n.type
    if t is not None and t.kind == "array" and t.shape:
        return Abstract(t)  # an ndarray of rank one or more
    evaluate = getattr(getattr(lw, "b", None), "evaluate", None)
    if n.op not in CHECKED_OPS and n.op not in NUMPY_INPUT_OPS or evaluate is None:
        return None
    inputs = [_example(lw, i, depth + 1) for i in n.inputs]
    if any(i is None for i in inputs):
        return None
    from .kernels import compiling  # noqa: PLC0415  (kernels is heavy; needed here rarely)

    full = OP_INFO[n.op].param_defaults
    full.update(n.params)
    try:
        with compiling():
            return evaluate(n.op, tuple(inputs), full)
    except Exception:  # (not told by the types: the kind stays unknown)
        return None


def _exact(lw: Any, v: Node, is_argument: Callable[[Any, Node], bool]) -> bool:
    memo: dict[Node, bool] = lw.__dict__.setdefault("_scalar_kind_memo", {})
    marks = (len(lw.retyped), len(kind_unknown(lw)))
    if lw.__dict__.get("_scalar_kind_marks") != marks:
        memo.clear()  # a node retyped since: answers built on it are stale
        lw.__dict__["_scalar_kind_marks"] = marks
        lw.__dict__["_scalar_kind_unknown"] = kind_unknown(lw) | {
            node_key(lw, n) for n in lw.retyped}
    unknown = lw.__dict__["_scalar_kind_unknown"]
    stack = [v]
    while stack:
        n = stack[-1]
        if n in memo:
            stack.pop()
            continue
        if n.op in (Op.CONST, Op.PY_FLOAT, Op.PY_INT, Op.PY_BOOL):  # float(x), int(x)...
            memo[n] = True
        elif node_key(lw, n) in unknown:
            memo[n] = False
        elif n.type is not None and n.type.kind == "array" and n.type.shape:
            memo[n] = True  # rank >= 1: an ndarray whatever made it (as the stand-ins say)
        elif rank_one_or_more(lw, n):
            memo[n] = True  # an ndarray of rank >= 1 whose shape depends on the data
        elif n.op is Op.ARG:
            memo[n] = is_argument(lw, n)
        elif n.op not in CHECKED_OPS and n.op not in NUMPY_INPUT_OPS:
            memo[n] = False
        else:
            pending = [i for i in n.inputs if i not in memo]
            if pending:
                stack.extend(pending)
                continue
            # a logical op of Python bools is Python's (``True & False``), with a NumPy
            # operand NumPy's (``np.bool_(x) & True`` is a NumPy bool)
            memo[n] = all(memo[i] for i in n.inputs) and (
                n.op in CHECKED_OPS or any(value_kind(_example(lw, i, 0)) in (NUMPY, ARRAY)
                                           for i in n.inputs))
        stack.pop()
    return memo[v]
