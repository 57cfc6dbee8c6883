"""Writes through a view: ``a[i][j] = v`` and ``a[i][j] op= v`` (``writes`` calls these).

``a[1:-1][mask] = v`` (SciPy's ``pchip``) writes into the view ``a[1:-1]``, so into ``a``.
Functionally: ``t = a[1:-1]`` (the view's values), ``t1 = setitem(t, v, mask)`` and
``a_1 = setitem(a, t1, 1:-1)``: NumPy's meaning whenever each outer subscript is basic (a
view), and ``setitem``'s gradient rule sends the gradient of each region to what wrote it.
Deeper chains (``a[i][j][k] = v``) nest the same way.

An outer subscript that copies (an integer-array, list or boolean index, or an element of
a 1-d array, a NumPy scalar) would make NumPy write into a temporary copy that is then
dropped, leaving ``a`` unchanged; that is refused with a location, as it is almost always
a mistake (NumPy raises for the scalar case itself).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..ir.graph import Node
from ..ir.ops import Op
from . import aliases
from .scope import Scope

#: one level of a write chain: the array written at this level, its static index and the
#: index's runtime parts, and the subscript node (for locations)
Level = tuple[Node, tuple[Any, ...], list[Node], cst.Subscript]


def levels(lw: Any, target: cst.Subscript, scope: Scope) -> tuple[str, list[Level]]:
    """The written name and the chain of (array, index) levels of ``target``, outermost
    first; each inner array is a view of the one before (refused otherwise)."""
    if isinstance(target.value, cst.Subscript):
        name, chain = levels(lw, target.value, scope)
        base, index, dyn, where = chain[-1]
        view = lw.emit(Op.GETITEM, [base, *dyn], {"index": index}, where)
        if lw._copies(view) or not isinstance(view, Node) or view.type is None or \
                view.type.kind != "array" or view.type.shape == ():
            raise lw.fail(
                f"writing into {cst.Module([]).code_for_node(where)} writes into a copy "
                "(this subscript selects with an index array, a list or a mask, or a single "
                f"element), so {name!r} would not change", where,
                "index once with a combined index (a[i, j] = v), or compute the selection "
                "and write it back: t = a[idx]; t[j] = v; a[idx] = t")
        index2, dyn2 = lw.write_index(target, scope)
        return name, [*chain, (view, index2, dyn2, target)]
    name, base = lw.write_target(target, scope)
    index, dyn = lw.write_index(target, scope)
    return name, [(base, index, dyn, target)]


def write(lw: Any, target: cst.Subscript, value: Any, scope: Scope,
          op: Op | None = None, where: cst.CSTNode | None = None) -> None:
    """Lower ``a[i]...[k] = value`` (or ``op=`` with ``op``): a ``setitem`` at each level,
    innermost first, and ``a`` rebound to the outermost one."""
    where = where if where is not None else target
    name, chain = levels(lw, target, scope)
    base, index, dyn, sub = chain[-1]
    if op is not None:
        old = lw.emit(Op.GETITEM, [base, *dyn], {"index": index}, sub)
        value = lw.binary(op, old, value, where)
    new = lw.emit(Op.SETITEM, [base, value, *dyn], {"index": index}, where)
    for base, index, dyn, sub in reversed(chain[:-1]):
        new = lw.emit(Op.SETITEM, [base, new, *dyn], {"index": index}, sub)
    outer = chain[0][0]
    scope.vars[name] = lw.b.rename(new, name)
    aliases.rebind(lw, name, outer, scope, where)
