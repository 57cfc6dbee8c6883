"""Rules of ``np.fmod`` and ``np.ldexp`` (VJP and JVP, see ``derivatives``).

``fmod(x, y) = x - y trunc(x / y)``: slope 1 in ``x`` and ``-trunc(x / y)`` in ``y``
between the jumps (where ``x / y`` crosses an integer), as ``mod``'s rule with ``floor``.
``ldexp(x, i) = x 2**i`` is linear in ``x``; the exponent ``i`` is an integer, with no
derivative (an integer value is never active).
"""

from __future__ import annotations

from typing import Any

from ..ir.ops import Op
from . import RULES
from .jvp import _binary_jvp, jvp_rule

RULES[Op.FMOD] = lambda ops, g, out, x, y: (g, -g * ops.trunc(x / y))
_binary_jvp(Op.FMOD, lambda ops, t, out, x, y: t,
            lambda ops, t, out, x, y: -t * ops.trunc(x / y))

RULES[Op.LDEXP] = lambda ops, g, out, x, i: (ops.ldexp(g, i), None)


@jvp_rule(Op.LDEXP)
def _ldexp_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, i: Any) -> Any:
    tx, _ = tangents
    return None if tx is None else ops.ldexp(tx, i)
