"""Attribute reads on NamedTuple and dataclass values during lowering.

A record argument reaches lowering as an instance of its class whose fields hold nodes
(``trees_classes``).  Field reads are plain ``getattr``; a ``property`` is inlined as the
Python function it is (its getter reads the same fields), so ``m.scale`` with ``scale``
computed from ``m.log_scale`` is differentiated.  Other descriptors
(``functools.cached_property``, custom ``__get__``) would run on nodes at compile time:
refused at the user's line instead.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Node
from ..trees_classes import is_record, record_fields

if TYPE_CHECKING:
    from .lower import Lowerer

#: no descriptor to look at (the read is an ordinary static attribute read)
NOT_HANDLED = object()


def record_attribute(lw: Lowerer, base: Any, attr: str, e: cst.CSTNode) -> Any:
    """``base.attr`` for a record holding runtime values, or ``NOT_HANDLED``."""
    if not is_record(base):
        return NOT_HANDLED
    names = record_fields(base) or ()
    if attr in names:
        return NOT_HANDLED
    descriptor = next((vars(k)[attr] for k in type(base).__mro__ if attr in vars(k)), None)
    if descriptor is None or not hasattr(descriptor, "__get__"):
        return NOT_HANDLED
    if isinstance(descriptor, (types.FunctionType, staticmethod, classmethod)):
        return NOT_HANDLED  # a method: bound as Python binds it, inlined when called
    if not any(isinstance(getattr(base, n, None), Node) for n in names):
        return NOT_HANDLED  # a static record (a global): Python reads it
    if isinstance(descriptor, property) and isinstance(descriptor.fget, types.FunctionType):
        return lw.inline_python(descriptor.fget, [base], {}, e)
    raise UnsupportedSyntaxError(
        f"{type(base).__name__}.{attr} is computed by a {type(descriptor).__name__}, which "
        "the compiler cannot read on runtime values", lw.loc(e),
        f"use a plain @property, or compute it in the function from the fields "
        f"({', '.join(names)})")
