"""Loops over a static range that carry an object built inside the function.

A loop region carries nodes; an object the function built (``p = poly1d(0.0)`` then
``p += pt`` in SciPy's ``lagrange``) is not a node, so the region cannot carry it.  A
loop whose trip count is known when compiling is unrolled instead (as loops over Python
lists are): every trip is then lowered in order, with the object's attributes updated
as Python updates them.  A loop with a runtime trip count that carries an object stays
the located refusal it was.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

#: a loop carrying an object is unrolled up to this many trips
UNROLL_OBJECTS = 64


def carries_objects(lw: Any, stmt: cst.For, scope: Any) -> bool:
    """Whether the ``for`` loop rebinds a name bound to an object built in this compile."""
    if not any(lw.built_of(v) is not None for v in scope.vars.values()):
        return False
    carried, _ = lw.carried_names(stmt, scope)
    return any(lw.built_of(scope.vars.get(k)) is not None for k in carried)
