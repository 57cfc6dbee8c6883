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
from ..ir.scalar_kinds import ARRAY, exact_kind, kind_unknown, node_key

#: ops whose result is an ``ndarray`` whatever their inputs (NumPy's constructors)
_ALWAYS_ARRAY = frozenset({Op.ZEROS, Op.ONES, Op.FULL, Op.ZEROS_LIKE, Op.ONES_LIKE,
                           Op.FULL_LIKE, Op.ASARRAY})
#: ops whose result is their first input's array, written
_WRITES = frozenset({Op.SETITEM, Op.INDEX_ADD})


def is_zero_d_ndarray(lw: Any, value: Node) -> bool:
    """Whether the 0-d ``value`` is known to be an ``ndarray`` (not a NumPy scalar) at
    run time, so NumPy accepts element writes into it."""
    from .static_queries import _is_argument  # noqa: PLC0415  (static_queries imports lower)

    unknown = kind_unknown(lw) | {node_key(lw, n) for n in getattr(lw, "retyped", ())}
    n = value
    for _ in range(10_000):
        if node_key(lw, n) in unknown:
            return False
        if n.op in _ALWAYS_ARRAY:
            return True
        if n.op in _WRITES and n.inputs:
            n = n.inputs[0]
            continue
        break
    return exact_kind(lw, n, _is_argument) == ARRAY
