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


# --- loops over static values only -------------------------------------------------------

#: a loop computing static values only is unrolled up to this many trips
UNROLL_STATIC = 64


def static_only(lw: Any, stmt: cst.For, scope: Any) -> bool:
    """Whether the ``for`` loop carries a static array (``static_numpy``: rebinds it,
    ``p = np.delete(p, i)``, or writes into it, ``sos[i] = ...``) and its body reads no
    local name holding a runtime value: Python would compute the same values on every
    call, so the loop runs while compiling (unrolled), as a static ``while`` does; a loop
    region would make the static arrays constants (complex ones are refused) and refuse
    writes into them."""
    from ..ir.graph import holds_node  # noqa: PLC0415
    from .static_numpy import has_static  # noqa: PLC0415

    if not any(has_static(v) for v in scope.vars.values()):
        return False
    carried, _ = lw.carried_names(stmt, scope)
    if not any(has_static(scope.vars.get(k)) for k in carried):
        return False
    read: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            read.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # ``a.real``: ``real`` is no name
            return False

    stmt.body.visit(_Reads())
    return not any(_runtime(scope.vars[n], holds_node) for n in read if n in scope.vars)


def _runtime(v: Any, holds_node: Any) -> bool:
    """A value holding a node (a runtime value), or a compiler object that may hold one."""
    from .scope import Closure  # noqa: PLC0415
    from .static_numpy import StaticArray, _static  # noqa: PLC0415

    if isinstance(v, (StaticArray, Closure)):  # (unrolling a call is what Python runs)
        return False
    return holds_node(v) or not _static(v) and not callable(v)
