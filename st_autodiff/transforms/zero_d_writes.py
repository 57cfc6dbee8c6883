"""Element writes into 0-d arrays: ``out[()] = v``, ``out[...] = v``, ``out[mask] = v``.

NumPy allows these on a 0-d ``ndarray`` (SciPy's ``clip`` fills ``out = empty(())`` so),
but not on a NumPy scalar (``np.float64(1.0)[()] = 2.0`` is a TypeError), and both kinds
of value have the IR type "array of shape ()".  A write is therefore allowed only where
the value is known to be an ``ndarray`` at run time: made by an array constructor
(``np.empty(())``, ``np.zeros``, ``np.asarray`` …, which always return one), a write
result of such an array, or a value whose kind ``ir/scalar_kinds`` knows exactly.
Anything else stays a located refusal.  The write itself is the usual functional
``SETITEM`` (its gradient rule handles a 0-d base like any other).
"""

from __future__ import annotations

from typing import Any

from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.scalar_kinds import ARRAY, NUMPY, exact_kind, kind_unknown, node_key

#: ops whose result is an ``ndarray`` whatever their inputs (NumPy's constructors)
_ALWAYS_ARRAY = frozenset({Op.ZEROS, Op.ONES, Op.FULL, Op.ZEROS_LIKE, Op.ONES_LIKE,
                           Op.FULL_LIKE, Op.ASARRAY})
#: ops whose result is their first input's array, written
_WRITES = frozenset({Op.SETITEM, Op.INDEX_ADD})


def _unknown(lw: Any) -> set[tuple[int, int]]:
    return kind_unknown(lw) | {node_key(lw, n) for n in getattr(lw, "retyped", ())}


def _integer(n: Node) -> bool:
    t = n.type
    return t is not None and (t.kind == "int" or t.kind == "array" and t.shape == () and
                              t.dtype is not None and t.dtype.startswith(("int", "uint")))


def zero_d_kind(lw: Any, value: Node) -> str | None:
    """``ARRAY`` or ``NUMPY`` where this module knows the kind of the 0-d ``value``
    (beyond ``ir/scalar_kinds``), else None: an array constructor's result is an
    ``ndarray``; ``a[i, j]`` indexing every axis of an array with integers (``a[()]`` of a
    0-d one) is a NumPy scalar, whatever ``a`` was."""
    if value.op is Op.GETITEM and node_key(lw, value) not in _unknown(lw):
        base, dyn = value.inputs[0], value.inputs[1:]
        index = value.param("index") or ()
        t, bt = value.type, base.type
        ints = all(type(i) is int or isinstance(i, tuple) and len(i) == 2 and i[0] == "in"
                   and _integer(dyn[i[1]]) for i in index)
        if ints and t is not None and t.kind == "array" and t.shape == () and \
                bt is not None and bt.kind == "array":
            return NUMPY
    return ARRAY if is_zero_d_ndarray(lw, value) else None


def mark_ndarray(lw: Any, node: Node) -> Node:
    """Record that ``node`` is the result of ``np.array``/``np.asarray`` (an ``ndarray``
    whatever op computes it: ``np.asarray(s, copy=True)`` is ``Op.COPY``, which is also
    ``s.copy()``, a NumPy scalar for a NumPy scalar ``s``)."""
    lw.__dict__.setdefault("_known_ndarrays", set()).add(node_key(lw, node))
    return node


def marked_ndarray(lw: Any, node: Node) -> bool:
    """Whether ``node`` was made by ``np.array``/``np.asarray`` (``mark_ndarray``): its
    kind is ``ndarray`` whatever its op's kind rule says (``np.asarray(s, dtype=d)`` is
    ``Op.ASTYPE``, which for a NumPy scalar ``s.astype(d)`` would be a NumPy scalar)."""
    key = node_key(lw, node)  # (a node also standing for float(x) is retyped: unknown)
    return key in lw.__dict__.get("_known_ndarrays", ()) and key not in {
        node_key(lw, n) for n in getattr(lw, "retyped", ())}


def is_zero_d_ndarray(lw: Any, value: Node) -> bool:
    """Whether the 0-d ``value`` is known to be an ``ndarray`` (not a NumPy scalar) at
    run time, so NumPy accepts element writes into it."""
    from .static_queries import _is_argument  # noqa: PLC0415  (static_queries imports lower)

    unknown = _unknown(lw)
    n = value
    for _ in range(10_000):
        if marked_ndarray(lw, n):
            return True
        if node_key(lw, n) in unknown:
            return False
        if n.op in _ALWAYS_ARRAY:
            return True
        if n.op in _WRITES and n.inputs:
            n = n.inputs[0]
            continue
        break
    return exact_kind(lw, n, _is_argument) == ARRAY
