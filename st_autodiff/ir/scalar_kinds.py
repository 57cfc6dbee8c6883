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
* it is made by an op in ``CHECKED_OPS`` (whose type rule tests/test_scalar_kinds.py checks
  against the installed NumPy, case by case) from values whose kind is exact, and the
  lowering did not give the node a meaning other than the op's (``retyped``: ``float(x)``
  and ``x.item()`` are lowered as ``x``; ``math.exp(x)`` as ``np.exp``; a decomposition of
  a NumPy function need not return the same kind).

Anything else is unknown, and a query that depends on it stays a located refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

#: ops whose kind is checked for inputs other than Python numbers only: ``True | False`` is
#: a Python bool where ``np.logical_or`` gives a NumPy one (Python's ``and``/``or``/``not``,
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
    return lw.__dict__.setdefault("kind_unknown", set())


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
    return value_kind(lw.example(v))


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
        if n.op is Op.CONST:
            memo[n] = True
        elif node_key(lw, n) in unknown:
            memo[n] = False
        elif n.type is not None and n.type.kind == "array" and n.type.shape:
            memo[n] = True  # rank >= 1: an ndarray whatever made it (as the stand-ins say)
        elif n.op is Op.ARG:
            memo[n] = is_argument(lw, n)
        elif n.op not in CHECKED_OPS and n.op not in NUMPY_INPUT_OPS:
            memo[n] = False
        else:
            pending = [i for i in n.inputs if i not in memo]
            if pending:
                stack.extend(pending)
                continue
            memo[n] = all(memo[i] for i in n.inputs) and (
                n.op in CHECKED_OPS or all(value_kind(lw.example(i)) not in (PYTHON, None)
                                           for i in n.inputs))
        stack.pop()
    return memo[v]
