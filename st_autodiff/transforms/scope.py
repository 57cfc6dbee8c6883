"""Values of the lowering's abstract interpretation that are not graph nodes.

``Scope`` maps names to values (graph nodes, or compile-time Python values); ``Closure``
is a lambda or inner ``def`` with the scope it was defined in; ``BoundMethod`` is
``x.sum`` before the call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ir.graph import Node
from .parse import ParsedFunction


@dataclass(eq=False)
class Closure:
    """A lambda or inner ``def`` together with the scope it was defined in."""

    fn: ParsedFunction
    scope: Scope


class Scope:
    """Variables of one function activation; misses go to ``parent`` then ``outer``."""

    def __init__(self, parent: Scope | None, outer: Callable[[str], Any] | None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.outer = outer

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            if scope.outer is not None:
                return scope.outer(name)
            scope = scope.parent
        raise KeyError(name)


def scope_chain(scope: Scope) -> list[Scope]:
    """``scope`` and its enclosing scopes, innermost first."""
    out = []
    cur: Scope | None = scope
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out


@dataclass(frozen=True)
class BoundMethod:
    """``x.sum`` before it is called."""

    receiver: Node
    name: str
