"""Whether a generator expression reads only immutable static values.

``inds = (ind + (Ellipsis,) for ind in np.ndindex(shape))`` (NumPy's ``apply_along_axis``)
is stored and consumed after arrays were written in place.  Python computes the items
only then, but when the first iterable and every name the lazy part reads are immutable
static values (numbers, strings, slices, tuples of them, ``...``, a static iterator or
range of them), no write can change what the generator yields, so its eager items are
Python's.
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from .comprehensions import _clauses, _names
from .scope import Scope, StaticIterator

_ATOMS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), slice, range)


def immutable(v: Any) -> bool:
    """A static value no in-place write can change."""
    if isinstance(v, _ATOMS):
        return True
    if isinstance(v, tuple):
        return all(immutable(x) for x in v)
    if isinstance(v, StaticIterator):
        return all(immutable(x) for x in v.items)
    return False


def _value(name: str, scope: Scope) -> tuple[bool, Any]:
    """The static value ``name`` is bound to in ``scope`` (or Python's builtins)."""
    sc: Any = scope
    while sc is not None:
        if name in sc.vars:
            return True, sc.vars[name]
        if sc.outer is not None:  # module globals: another function may write them
            break
        sc = sc.parent
    if name in ("Ellipsis", "None", "True", "False"):
        return True, getattr(builtins, name, None)
    return False, None


def reads_immutable(e: cst.GeneratorExp, scope: Scope) -> bool:
    """Whether the generator ``e`` reads only immutable static values (see the module
    docstring); False whenever that is not known."""
    clauses = _clauses(e.for_in)
    first = clauses[0].iter
    if not isinstance(first, cst.Name):
        return False
    local: set[str] = set()
    for f in clauses:
        local |= _names(f.target)
    reads = set(_names(e.elt)) | {first.value}
    for k, f in enumerate(clauses):
        if k:
            reads |= _names(f.iter)
        for cif in f.ifs:
            reads |= _names(cif.test)
    for name in reads - local:
        found, v = _value(name, scope)
        if not found or not immutable(v):
            return False
    return True
