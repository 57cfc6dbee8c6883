"""Star-unpacking in literals and assignment targets: ``[1, *xs]``, ``(*a, b)``,
``c, *rest = seq``.

A starred value expands to its items when their number is known when compiling (a Python
tuple or list, a tuple argument, whose length is keyed, or the rows of an array of known
shape: ``BindingLowering.star_items``); a list built at run time has no such length and
is refused, located.  In a target, the starred name gets a Python list of the items
between the leading and trailing names, as Python binds it.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..errors import CompileError


def literal_items(lw: Any, elements: Any, scope: Any) -> list[Any]:
    """The values of a list or tuple literal's elements, starred ones expanded."""
    out: list[Any] = []
    for el in elements:
        v = lw.expr(el.value, scope)
        if isinstance(el, cst.StarredElement):
            out.extend(lw.star_items(v, el))
        else:
            out.append(v)
    return out


def starred_index(target: cst.Tuple | cst.List) -> int | None:
    """The position of the starred name in a target, if it has one."""
    found = [i for i, el in enumerate(target.elements) if isinstance(el, cst.StarredElement)]
    return found[0] if found else None


def assign_starred(lw: Any, target: cst.Tuple | cst.List, value: Any, scope: Any,
                   star: int) -> None:
    """``a, *rest, z = value``: leading and trailing names get one item each, the
    starred one a list of the items between."""
    if sum(isinstance(el, cst.StarredElement) for el in target.elements) > 1:
        raise lw.fail("multiple starred expressions in assignment", target,
                      kind=CompileError)
    items = lw.star_items(value, target)
    n_after = len(target.elements) - star - 1
    if len(items) < star + n_after:
        raise lw.fail(f"not enough values to unpack (expected at least {star + n_after}, "
                      f"got {len(items)})", target, kind=CompileError)
    middle = items[star:len(items) - n_after]
    for el, part in zip(target.elements[:star], items[:star]):
        lw.assign(el.value, part, scope)
    lw.assign(target.elements[star].value, list(middle), scope)
    for el, part in zip(target.elements[star + 1:], items[len(items) - n_after:]):
        lw.assign(el.value, part, scope)
