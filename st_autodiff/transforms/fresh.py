"""Freshness of region outputs for the in-place write checks (``writes``).

A loop's carried output is the value before the loop only when the loop may run zero
times; a ``for`` over a static ``range`` with at least one trip, or over the rows of an
array whose leading dimension is known and positive, always runs its body, so its
carried outputs are what the body makes (which reach the value before the loop through
the body's arguments where the body can pass it through).  ``while`` loops and loops
that can ``break`` are taken to possibly run zero times.
"""

from __future__ import annotations

from ..ir.graph import Node
from ..ir.ops import Op


def runs_at_least_once(r: Node) -> bool:
    """Whether the loop region ``r`` certainly runs its body at least once."""
    if r.op is not Op.FOR or r.param("has_break"):
        return False
    n_xs = r.param("n_xs") or 0
    if n_xs:  # over the rows of arrays: zip stops at the shortest
        lengths = []
        for x in r.inputs[3:3 + n_xs]:
            t = x.type
            if t is None or t.shape is None or not t.shape or t.shape[0] is None:
                return False
            lengths.append(t.shape[0])
        return min(lengths) > 0
    bounds = []
    for b in r.inputs[:3]:
        if b.op is not Op.CONST or type(b.param("value")) is not int:
            return False
        bounds.append(b.param("value"))
    start, stop, step = bounds
    return step != 0 and len(range(start, stop, step)) > 0
