"""Containers that live outside the compiled function, and the writes into them we refuse.

Lowering evaluates statements on static Python values: ``xs.append(1)`` or ``d[k] = v`` on
a list or dict runs while compiling.  For a container the function made itself that is
exactly Python (the container is rebuilt on every compile, and the generated code only
sees its contents).  For one that outlives the call, reached through a global, a closure
cell, a default value or an attribute of an object, the write would happen once, while
compiling, and never again on later calls: a silent difference from Python.  Those
writes are refused at the user's line.

``ExternalObjects`` remembers every mutable container (``list``, ``dict``, ``set``,
``bytearray``) reached from outside, with the containers nested in it, and
``check_write`` raises the located error.
"""

from __future__ import annotations

from typing import Any

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Loc
from ..trees_classes import is_record, record_fields
from . import generator_contexts

_MUTABLE = (list, dict, set, bytearray)
_MAX_DEPTH = 4
_MAX_ITEMS = 10_000


class ExternalObjects:
    """Ids of mutable containers that exist outside the function being compiled."""

    # set while a generator context is lowered (``generator_contexts``): per level, the
    # outside dicts written into, by id: (the dict, its contents before)
    restoring: list[dict[int, tuple[dict[Any, Any], dict[Any, Any]]]]

    def __init__(self) -> None:
        # id -> (object, how it was reached); the object is kept so its id is not reused
        self._seen: dict[int, tuple[Any, str]] = {}
        self.writes = 0  # writes into static containers seen (generators check it)

    def mark(self, value: Any, how: str) -> None:
        """Remember ``value`` and the containers inside it (a few levels deep)."""
        stack = [(value, 0)]
        budget = _MAX_ITEMS
        while stack and budget > 0:
            v, depth = stack.pop()
            budget -= 1
            if isinstance(v, _MUTABLE):
                if id(v) in self._seen:
                    continue
                self._seen[id(v)] = (v, how if depth == 0 else f"held by {how}")
            if depth >= _MAX_DEPTH:
                continue
            if isinstance(v, dict):
                stack.extend((x, depth + 1) for x in v.values())
            elif isinstance(v, (list, tuple, set)):
                stack.extend((x, depth + 1) for x in v)
            elif is_record(v):  # a dataclass argument's fields
                stack.extend((getattr(v, n), depth + 1) for n in record_fields(v) or ())

    def holds(self, value: Any) -> bool:
        """Whether ``value`` was marked as living outside the function."""
        hit = self._seen.get(id(value))
        return hit is not None and hit[0] is value

    def check_write(self, target: Any, action: str, loc: Loc | None) -> None:
        """Refuse ``action`` (``"append to"``, ``"write into"`` …) on an outside container."""
        if not getattr(target, "hidden", False):  # a comprehension's own list is not
            self.writes += 1
        hit = self._seen.get(id(target))
        if hit is None or hit[0] is not target:
            return
        if generator_contexts.write_allowed(self, target):
            return  # restored by the context manager around it (generator_contexts)
        kind = type(target).__name__
        raise UnsupportedSyntaxError(
            f"cannot {action} the {kind} {hit[1]}: it lives outside the function, and Python "
            "changes it on every call; compiled code would change it once, while compiling, "
            "or not at all",
            loc, f"build a new {kind} inside the function (copy it first: "
            f"{kind}(...)), and return it or pass it out with has_aux=True")


def argument(value: Any, name: str) -> Any:
    """``value``, the caller's container passed as argument ``name`` (generated code of
    structured arguments calls this): lowering marks it as living outside the function."""
    del name
    return value
