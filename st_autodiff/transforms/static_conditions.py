"""Conditions computed from constants only: decided while compiling.

``if np.all(K >= 0):`` or ``if self.exog[:, i].mean() != 0:`` with ``K`` and ``exog``
arrays read from outside the function (globals, closure cells, attributes of objects) is
a node of constants: lowering computed its value already (the example value, by the
same NumPy kernels the generated code runs), so the branch Python takes is known.  Taking
it while compiling lets the branch set attributes, append to lists and change types as
Python does, which a runtime ``if`` cannot carry.

Soundness: generated code reads such an array at call time (a write into it in place is
seen), so a fold on its contents is guarded on them (``Guards.array_contents``: shape,
dtype, bytes): a call after the array changed compiles again.  Conditions that read more
than ``MAX_GUARDED`` elements of arrays stay runtime branches (the guard runs on every
call), as do conditions on arguments, on region values, or on calls the compiler does not
see into.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..ir.graph import GraphBuilder, Node
from ..ir.ops import Op

if TYPE_CHECKING:
    from .lower import Lowerer

#: arrays read by one folded condition, in elements (each is compared on every call)
MAX_GUARDED = 1 << 14
#: how many nodes a condition's inputs may span before it is left to run time
_MAX_NODES = 512
#: ops whose value is not a function of their inputs' values alone (or hold regions)
_OPAQUE = frozenset(op for op in Op if op.name in (
    "ARG", "CALL", "CALL_VJP", "OPAQUE_CALL", "IF", "FOR", "WHILE"))


def fold(lw: Lowerer, cond: Any, where: cst.CSTNode) -> Any:
    """``cond`` (a condition from ``Lowerer.condition``) as a Python bool when it is
    computed from constants only; else ``cond`` unchanged."""
    if not isinstance(cond, Node):
        return cond
    arrays = _constant_arrays(lw, cond)
    if arrays is None or sum(a.size for a in arrays) > MAX_GUARDED:
        return cond
    if lw.b.is_abstract(cond):
        return cond
    value = lw.example(cond)
    if not isinstance(value, (bool, np.bool_)) and not (
            isinstance(value, np.ndarray) and value.shape == () and value.dtype == bool):
        return cond
    for a in arrays:
        lw.guards.array_contents(a)
    return bool(value)


def constant_example(lw: Lowerer, node: Node) -> Any:
    """The value of ``node`` when it is computed from constants only (its shape then
    known while compiling: ``np.unique(K).size``), guarded as ``fold`` guards; else None."""
    arrays = _constant_arrays(lw, node)
    if arrays is None or sum(a.size for a in arrays) > MAX_GUARDED or lw.b.is_abstract(node):
        return None
    value = lw.example(node)
    if not isinstance(value, (np.ndarray, np.generic)):
        return None
    for a in arrays:
        lw.guards.array_contents(a)
    return value


def _constant_arrays(lw: Lowerer, node: Node) -> list[np.ndarray[Any, Any]] | None:
    """The ndarrays of the constants ``node`` is computed from, or None when it depends on
    anything else (an argument, a region's value, an opaque call)."""
    outer = _captured(lw)
    seen: set[int] = set()
    arrays: dict[int, np.ndarray[Any, Any]] = {}
    stack = [node]
    while stack:
        n = outer[stack.pop()]
        if id(n) in seen:
            continue
        seen.add(id(n))
        if len(seen) > _MAX_NODES or n.op in _OPAQUE:
            return None
        if n.op is Op.CONST:
            v = n.param("value")
            if isinstance(v, np.ndarray):
                if v.dtype.kind not in "biufc":
                    return None
                arrays[id(v)] = v
            elif not _immutable(v):
                return None
            continue
        stack.extend(i for i in n.inputs if isinstance(i, Node))
    return list(arrays.values())


class _Captured(dict[Node, Node]):
    """Region arguments back to the enclosing builders' nodes they capture."""

    def __missing__(self, key: Node) -> Node:
        return key


def _captured(lw: Lowerer) -> _Captured:
    out = _Captured()
    b: GraphBuilder | None = lw.b
    chain = []
    while b is not None:
        chain.append(b)
        b = getattr(b, "parent", None)
    for b in reversed(chain):  # outermost first: an inner capture of a capture resolves
        for outer_node, arg in (getattr(b, "captures", None) or {}).items():
            out[arg] = out[outer_node]
    return out


def _immutable(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(_immutable(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, complex, str, np.generic, slice)) \
        or v is Ellipsis
