"""Memory layout as part of the compile-time type: what ``x.flags`` says of a value.

NumPy code may ask how an array is stored (``x.flags.writeable``,
``x.flags['C_CONTIGUOUS']``, ``np.ravel(x, order='K')``), and what it then computes may
depend on the answer.  Compiled code answers these questions when compiling, as it does
for shapes:

* an **argument**'s layout facts are read from the example argument, and each fact the
  function asked for becomes a per-call check of the specialisation (beside the ``is``
  checks of ``transforms/identity.py``): an F-ordered, strided or read-only array of the
  same shape gets its own specialisation.  A function that never asks pays nothing;
* a value **computed inside** has the layout NumPy gives it, inferred from its op
  (``infer``): fresh results of C inputs are C and writeable, elementwise results of F
  inputs of the full shape are F, transposes swap C and F, views keep the writeable flag,
  an array with at most one axis longer than 1 is both C and F.  Where the op does not
  settle a fact (a basic slice, a branch's output, an opaque call, a view whose flag
  depends on which NumPy call made it) the fact is unknown and the query a located
  refusal.

A fact is one of ``c`` (C_CONTIGUOUS), ``f`` (F_CONTIGUOUS), ``w`` (WRITEABLE), ``a``
(ALIGNED) and ``k``: the order ``ravel(order='K')`` reads the elements in (``'C'``,
``'F'``, or None where neither is, e.g. a reversed or transposed-then-sliced array).
This module imports nothing of ours but the IR.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .graph import Node
from .ops import ELEMENTWISE, Op

#: ``Leaf(node, fact)``: a fact the caller knows (an argument, a constant, a recorded
#: layout), or ``NotImplemented`` to infer it from the node's op
Leaf = Callable[[Node, str], Any]

FACTS = ("c", "f", "w", "a", "k")

_FRESH_C = frozenset({Op.ZEROS, Op.ONES, Op.FULL, Op.EYE, Op.ARANGE, Op.LINSPACE})
_FRESH_LIKE = frozenset({Op.ZEROS_LIKE, Op.ONES_LIKE, Op.FULL_LIKE, Op.ASTYPE})
_REDUCTIONS = frozenset({Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY,
                         Op.ALL, Op.ARGMAX, Op.ARGMIN})
#: new arrays that are C-ordered when every array operand is (NumPy checked: some are C
#: whatever their operands, others follow an F operand; only the common case is claimed)
_FRESH_OF_C = frozenset({Op.TRIL, Op.TRIU, Op.MATMUL, Op.DOT, Op.OUTER, Op.INV, Op.SOLVE,
                         Op.CHOLESKY, Op.CONCATENATE, Op.STACK, Op.HSTACK, Op.VSTACK,
                         Op.TILE, Op.REPEAT, Op.ROLL, Op.PAD, Op.SORT, Op.CUMSUM,
                         Op.CUMPROD, Op.TAKE, Op.TAKE_ALONG_AXIS, Op.TENSORDOT,
                         Op.SOFTMAX, Op.LOG_SOFTMAX, Op.LOGSUMEXP})
# (not einsum, which may return a view of its operand, nor np.diag of a matrix: a read-only
# view of its diagonal)
#: ``a if c else b`` and ``max(a, b)`` lower to these too: the value may be an operand itself
_ONE_OF = frozenset({Op.WHERE, Op.MAXIMUM, Op.MINIMUM})
_VIEWS = frozenset({Op.SWAPAXES, Op.MOVEAXIS, Op.FLIP})  # views: `w` and `a` of their input
_KEEP_VIEW = frozenset({Op.EXPAND_DIMS, Op.SQUEEZE})
_ELEMENTWISE = ELEMENTWISE - {Op.COPY}
_MAX_DEPTH = 200


def k_order(a: Any) -> str | None:
    """The order ``a.ravel(order='K')`` reads ``a`` in: 'C' or 'F' where the strides of its
    axes longer than 1 are positive and strictly decreasing (increasing); None otherwise."""
    pairs = [(s, n) for s, n in zip(a.strides, a.shape) if n > 1]
    strides = [s for s, _ in pairs]
    if any(s <= 0 for s in strides):
        return None
    if all(x > y for x, y in zip(strides, strides[1:])):
        return "C"
    if all(x < y for x, y in zip(strides, strides[1:])):
        return "F"
    return None


def runtime_fact(a: Any, fact: str, flags: Any = None) -> Any:
    """One layout fact of a concrete array (the per-call check reads it)."""
    flags = a.flags if flags is None else flags
    if fact == "c":
        return flags.c_contiguous
    if fact == "f":
        return flags.f_contiguous
    if fact == "w":
        return flags.writeable
    if fact == "a":
        return flags.aligned
    return "C" if flags.c_contiguous else "F" if flags.f_contiguous else k_order(a)


def checks_hold(checks: Sequence[tuple[int, int, Any]], args: Sequence[Any]) -> bool:
    """Whether ``args`` give the answers a specialisation was compiled with: ``(i, j, same)``
    is ``args[i] is args[j]``; ``(i, -1, ((fact, value), ...))`` the layout facts of
    ``args[i]`` (one entry per argument: ``add_fact``)."""
    for i, j, want in checks:  # (the cached-call path: one flags object per argument)
        if j >= 0:
            if (args[i] is args[j]) is not want:
                return False
            continue
        try:
            flags = args[i].flags
        except AttributeError:
            return False
        for fact, value in want:
            if fact == "w":
                got = flags.writeable
            elif fact == "c":
                got = flags.c_contiguous
            elif fact == "f":
                got = flags.f_contiguous
            else:
                got = runtime_fact(args[i], fact, flags)
            if got != value:
                return False
    return True


def add_fact(checks: list[tuple[int, int, Any]], i: int, fact: str, value: Any) -> None:
    """Record that the specialisation read ``fact`` of argument ``i`` (it was ``value``)."""
    for k, (a, j, want) in enumerate(checks):
        if a == i and j == -1:
            if (fact, value) not in want:
                checks[k] = (i, -1, (*want, (fact, value)))
            return
    checks.append((i, -1, ((fact, value),)))


def _shape(node: Node) -> tuple[int, ...] | None:
    t = node.type
    return t.shape if t is not None and t.kind == "array" else None


def _simple(shape: tuple[int, ...]) -> bool:
    """At most one axis longer than 1 (or none at all): C- and F-contiguous alike."""
    return 0 in shape or sum(n > 1 for n in shape) <= 1


def infer(node: Node, fact: str, leaf: Leaf, depth: int = 0) -> Any:
    """The value of ``fact`` for ``node`` (None: not known when compiling)."""
    got = leaf(node, fact)
    if got is not NotImplemented:
        return got
    shape = _shape(node)
    if shape in (None, ()) and fact in ("w", "a") and (node.op in _FRESH_C or (
            node.op in _FRESH_LIKE and node.op is not Op.ASTYPE)):
        return True  # a new ndarray (0-d too, never a NumPy scalar), whatever its shape
    if shape is None or depth > _MAX_DEPTH:
        return None
    if shape == ():  # a NumPy scalar or a 0-d array: contiguous both ways; `w` differs
        return {"c": True, "f": True, "k": "C", "a": True}.get(fact)
    if fact in ("c", "f") and _simple(shape):
        c, f = (_by_op(node, g, shape, leaf, depth) for g in ("c", "f"))
        return True if True in (c, f) else False if False in (c, f) else None
    if fact == "k":
        if infer(node, "c", leaf, depth + 1):
            return "C"
        if infer(node, "f", leaf, depth + 1):
            return "F"
    return _by_op(node, fact, shape, leaf, depth)


def _arrays(node: Node) -> list[Node]:
    return [i for i in node.inputs if _shape(i) not in (None, ())]


def _fresh(fact: str, order: str | None, shape: tuple[int, ...]) -> Any:
    """A new array laid out in ``order`` ('C', 'F', None: not known)."""
    if fact in ("w", "a"):
        return True
    if order is None:
        return None
    if fact == "k":
        return order
    mine = fact.upper() == order
    return True if mine else (False if not _simple(shape) else True)


def _by_op(node: Node, fact: str, shape: tuple[int, ...], leaf: Leaf, depth: int) -> Any:
    op, d = node.op, depth + 1

    def of(x: Node, g: str) -> Any:
        return infer(x, g, leaf, d)

    if op in _FRESH_C and node.param("order") in (None, "C"):
        return _fresh(fact, "C", shape)
    if op in _ONE_OF:  # a new array or one of the operands: answered where both agree
        ins = _arrays(node)
        if not ins or any(_shape(x) != shape for x in ins):
            return None
        got = {of(x, fact) for x in ins}
        if fact == "k":
            return got.pop() if len(got) == 1 else None
        return True if got == {True} else None
    if (op in _ELEMENTWISE or op in _FRESH_LIKE or op in _REDUCTIONS or op in _FRESH_OF_C
            or op is Op.COPY):
        if op in _FRESH_LIKE and node.param("order") not in (None, "K"):
            return None
        ins = _arrays(node)[:1] if op in _FRESH_LIKE else _arrays(node)
        if ins and all(of(x, "c") is True for x in ins):
            return _fresh(fact, "C", shape)
        if (op in _ELEMENTWISE or op in _FRESH_LIKE) and len(ins) == 1 and _shape(
                ins[0]) == shape:  # order='K' of one operand: the order its strides give
            return _fresh(fact, of(ins[0], "k"), shape)
        # NumPy's order='K' keeps F for operands of the full shape (not COPY: x.copy() is C)
        if (op in _ELEMENTWISE or op in _FRESH_LIKE) and ins and all(
                _shape(x) == shape and of(x, "f") is True for x in ins):
            return _fresh(fact, "F", shape)
        return _fresh(fact, None, shape)
    if not node.inputs:
        return None
    x = node.inputs[0]
    if op is Op.ASARRAY:  # x itself or a copy in x's order ('K')
        if fact in ("w", "a"):
            return True if of(x, fact) is True else None
        order = "C" if of(x, "c") is True else "F" if of(x, "f") is True else None
        return _fresh(fact, order, shape)
    if op is Op.SETITEM or op is Op.INDEX_ADD:  # a write into x: x's layout, unchanged
        return of(x, fact)
    if op is Op.GETITEM and fact in ("w", "a"):  # a view of x or a new array
        return True if of(x, fact) is True else None
    if op is Op.TRANSPOSE and (node.param("axes") is None or tuple(node.param("axes")) == tuple(
            range(len(shape) - 1, -1, -1))):
        swap = {"c": "f", "f": "c"}.get(fact, fact)
        got = of(x, swap)
        return {"C": "F", "F": "C"}.get(got, got) if fact == "k" else got
    if op is Op.RAVEL and fact in ("c", "f", "k"):  # a view of a C array, else a new one
        return _fresh(fact, "C", shape)
    if op is Op.RESHAPE or op is Op.RAVEL:
        contiguous = of(x, "c")
        if fact in ("w", "a"):  # a view of a C-contiguous input, else a new array
            return of(x, fact) if contiguous else (True if contiguous is False and
                                                   op is Op.RAVEL else None)
        return _fresh(fact, "C", shape) if contiguous else None
    if op in _VIEWS or op is Op.DIAGONAL:
        # (np.diagonal's view is read-only, einsum('ii->i')'s is not: both may be DIAGONAL)
        return (None if op is Op.DIAGONAL else of(x, "w")) if fact == "w" else \
            of(x, "a") if fact == "a" else None
    if op in _KEEP_VIEW:  # axes of length 1 change no fact
        return of(x, fact)
    if op is Op.BROADCAST_TO:
        if fact == "w":  # np.broadcast_to's view is read-only, np.broadcast_arrays' (NumPy 2)
            return None  # writeable with a warning: both lower to this op

        size, before = math.prod(shape), math.prod(_shape(x) or (0,))
        if size > before > 0 and fact in ("c", "f"):  # an axis of stride 0: not contiguous
            return False
        return of(x, fact) if fact == "a" or _shape(x) == shape else None
    return None
