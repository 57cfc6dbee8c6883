"""Room on the Python stack for walks as deep as the user's expressions.

Python accepts a chained expression about 3,000 operations deep (``a + b + c + ...`` on
one line, or a sympy-generated formula), but libcst's visitors and position provider,
and the lowering of an expression, recurse once or more per level: at the default limit
of 1,000 frames they stop near 300 levels with a raw ``RecursionError``.  The compiler
therefore runs with a larger recursion limit (``deep_recursion``) and turns a
``RecursionError`` that still happens into a located ``CompileError``.

Statement count never needs this room: passes over a function's statements and over the
graph's nodes are loops, and a statement's expression in the generated code is bounded
(``codegen._MAX_INLINE``).

Recursion in the user's code is inlined while its static arguments (values, lengths,
shapes: ``recursion_key``) change from call to call, under ``lower.MAX_INLINE_DEPTH``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import CompileError
from ..ir.graph import Loc, Node

#: the recursion limit while compiling: about 8 frames for each of ~3,000 levels of an
#: expression Python itself accepts (frames of pure Python calls cost no C stack in 3.11+)
COMPILE_RECURSION_LIMIT = 25_000

_lock = threading.Lock()
_depth = 0  # compiles in progress (any thread); the last one out restores the limit
_saved = 0


@contextmanager
def deep_recursion(loc: Loc | None = None) -> Iterator[None]:
    """Run the block with ``COMPILE_RECURSION_LIMIT``; a ``RecursionError`` inside it
    becomes a ``CompileError`` at ``loc`` (the function being compiled)."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = sys.getrecursionlimit()
            if _saved < COMPILE_RECURSION_LIMIT:
                sys.setrecursionlimit(COMPILE_RECURSION_LIMIT)
        _depth += 1
    try:
        yield
    except Exception as exc:
        if not _from_recursion(exc):
            raise
        raise CompileError(
            "the function is nested too deeply to compile (an expression of thousands "
            "of chained operations?)", loc,
            hint="split the longest expression into several statements") from None
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and sys.getrecursionlimit() == max(_saved,
                                                              COMPILE_RECURSION_LIMIT):
                sys.setrecursionlimit(_saved)


def _from_recursion(exc: BaseException) -> bool:
    """``exc`` is a ``RecursionError``, or was raised while one was being handled (libcst's
    position provider turns one into a ``KeyError`` on its way out)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, RecursionError):
            return True
        if isinstance(e, CompileError):
            return False  # already a diagnostic
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def recursion_key(args: list[Any], kwargs: dict[str, Any]) -> Any:
    """What selects a recursive call's path when compiling: its static arguments, the
    lengths of its tuples and lists and the shapes of its arrays (None when nothing is
    known, so the recursion depends on runtime values only).  A call again with the same
    key would recurse forever."""

    def part(v: Any) -> Any:
        if isinstance(v, (bool, int, str, type(None))):
            return (type(v).__name__, v)
        if isinstance(v, (tuple, list)):
            return (type(v).__name__, len(v), tuple(part(x) for x in v))
        if isinstance(v, Node) and v.type is not None and v.type.shape is not None:
            return ("array", v.type.shape)
        return None

    parts = [part(v) for v in [*args, *kwargs.values()]]
    return (tuple(parts), tuple(kwargs)) if any(p is not None for p in parts) else None
