"""``a is b`` between runtime values: Python's answer, decided from where each object came from.

Lowering keeps one node per value, not per Python object, so identity is tracked beside the
graph.  Each node is followed back through the calls that return their argument object
itself (``np.asarray``/``np.asanyarray`` of an ndarray of that dtype, ``np.array(x,
copy=False)`` or ``copy=None``, ``x.astype(x.dtype, copy=False)``: what ``same_object``
records) to a root:

* the same root: the same object;
* two different arguments of the compiled function: whatever the caller passed.  The answer
  is this call's (``args[i] is args[j]``), recorded in ``lw.identity_checks`` and checked
  as a guard of the specialisation on each cached call (``api.py``);
* a root made by any other op (arithmetic, views, copies, creation): a new object, so
  different from every other root.

Where a root may be one of several objects (the output of a branch or loop, an item of a
runtime list, an opaque call's result, a value inside a loop body) the answer is a located
refusal.  So is ``x is x`` where lowering gave one node to two different Python objects
(``x.real``, ``float(x)`` of a real scalar: ``same_node_new_object`` marks them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from ..ir.graph import Node
from ..ir.ops import Op

if TYPE_CHECKING:
    from .lower import Lowerer

#: ops whose result may be an object the program already holds (an argument, an item of a
#: container, one of a branch's values): identity through them is not decided here
_MAY_PASS_THROUGH = frozenset({
    Op.ARG, Op.CONST, Op.ITEM, Op.TUPLE, Op.GETITEM, Op.SETITEM, Op.SCATTER_ADD,
    Op.INDEX_ADD, Op.STOP_GRADIENT, Op.CALL, Op.CALL_VJP, Op.OPAQUE_CALL, Op.IF, Op.FOR,
    Op.WHILE, Op.SHAPE,
    Op.WHERE, Op.MAXIMUM, Op.MINIMUM,  # ``a if c else b``, ``max(a, b)``: one of them
})

_HINT = "compare values with ==, or test `is None` on optional arguments"


def _roots(lw: Lowerer) -> dict[Node, Node]:
    roots: dict[Node, Node] | None = getattr(lw, "identity_roots", None)
    if roots is None:
        roots = lw.identity_roots = {}
    return roots


def same_object(lw: Lowerer, source: Any, result: Any) -> None:
    """Record that ``result`` is the very object ``source`` (an ndarray passed through)."""
    if isinstance(source, Node) and isinstance(result, Node) and result is not source:
        _roots(lw)[result] = root(lw, source)


def ndarray_of(node: Any, dtype: str | None) -> bool:
    """Whether ``node`` is certainly an ``numpy.ndarray`` (rank one or more: a rank-0 value
    may be a NumPy scalar, which ``np.asarray`` copies) of ``dtype`` (None: any)."""
    t = node.type if isinstance(node, Node) else None
    return (t is not None and t.kind == "array" and t.shape is not None and len(t.shape) > 0
            and (dtype is None or t.dtype == dtype))


def same_node_new_object(lw: Lowerer, node: Any) -> None:
    """Mark ``node`` as also standing for another object (``x.real`` lowered as ``x``)."""
    if isinstance(node, Node):
        marked = getattr(lw, "identity_shared", None)
        if marked is None:
            marked = lw.identity_shared = set()
        marked.add(node)


def root(lw: Lowerer, node: Node) -> Node:
    """The object ``node`` is, followed back through recorded pass-through calls."""
    current = getattr(lw.b, "_current", lambda n: n)
    roots = {current(k): v for k, v in getattr(lw, "identity_roots", {}).items()}
    node = current(node)
    seen = 0
    while node in roots and seen < 10_000:
        node, seen = current(roots[node]), seen + 1
    return node


def _new_each_time(node: Node) -> bool:
    """Whether a value made by an op is a new object: an ndarray, or a NumPy scalar but
    ``np.bool_`` (whose two values are shared); Python numbers may be shared (small ints)
    or be their operand itself (``+x``)."""
    t = node.type
    return t is not None and t.kind == "array" and t.shape is not None and (
        len(t.shape) > 0 or t.dtype is not None and t.dtype != "bool")


def identical(lw: Lowerer, a: Node, b: Node, e: cst.CSTNode) -> bool:
    """``a is b`` for two runtime values: Python's answer, or a located refusal."""
    ra, rb = root(lw, a), root(lw, b)
    shared: set[Node] = getattr(lw, "identity_shared", set())
    if ra is rb:
        if ra in shared or ra in lw.retyped:
            raise lw.fail("`is` on a value that stands for two different objects here "
                          "(an array and its .real, or a float() of it) cannot be decided "
                          "when compiling", e, _HINT)
        return True
    current = getattr(lw.b, "_current", lambda n: n)  # (arguments may have been renamed)
    slots = {current(n): i for n, i in getattr(lw, "arg_slots", {}).items()}
    if ra in slots and rb in slots:
        i, j = sorted((slots[ra], slots[rb]))
        examples = lw.example_args
        assert examples is not None  # (arguments have slots)
        same = examples[i] is examples[j]
        checks = lw.identity_checks
        if (i, j, same) not in checks:
            checks.append((i, j, same))
        return same
    for r in (ra, rb):
        if r in slots:
            continue  # an argument: one object, never the other (a new) one
        if lw.foreign_arrays and r.op in (Op.ASARRAY, Op.ASTYPE):
            raise lw.fail("`is` after np.asarray of an argument that may not be a "
                          "numpy.ndarray cannot be decided when compiling", e, _HINT)
        if r.op in _MAY_PASS_THROUGH or r.op.value.startswith("list") or not _new_each_time(r):
            raise lw.fail("`is` between two runtime values, one of which may be any of several "
                          f"objects here (made by {r.op.value}), cannot be decided when "
                          "compiling", e, _HINT)
    return False  # at least one is a new object, made by an op here
