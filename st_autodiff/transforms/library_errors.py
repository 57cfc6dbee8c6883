"""Errors inside library code: say where the user's code called the library.

An error located in an installed package (SciPy, scikit-learn, NumPy's Python code)
reached by inlining is of little use alone: the user cannot change that line.
``library_call_site`` (called where ``Lowerer.inline_python`` inlines a function, so
once for every error) adds the user's call of the library to the error, which then
renders from the user's line (``CompileError.render``), and replaces the hint by one the
user can act on.
"""

from __future__ import annotations

import os
import sysconfig
from typing import Any

from ..errors import CompileError, NoRuleError, StaticRaiseError
from ..ir.graph import Loc

_LIBRARY_DIRS = tuple(sorted({os.path.normcase(os.path.abspath(p)) for k, p in
                              sysconfig.get_paths().items() if k in (
                                  "stdlib", "platstdlib", "purelib", "platlib")},
                             key=len, reverse=True))


_OWN = os.path.normcase(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def library_of(file: str) -> str | None:
    """The installed package (or standard library module) a source file belongs to; None
    for the user's own files."""
    path = os.path.normcase(os.path.abspath(file))
    parts = path.split(os.sep)
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            rest = parts[parts.index(marker) + 1:]
            return rest[0].removesuffix(".py") if rest else None
    if path.startswith(_OWN + os.sep):  # st_autodiff's own Python (st_autodiff.nn ...)
        return "st_autodiff"
    for d in _LIBRARY_DIRS:
        if path.startswith(d + os.sep):
            rest = path[len(d) + 1:].split(os.sep)
            return rest[0].removesuffix(".py")
    return None


def library_call_site(exc: CompileError, fn: Any, call_loc: Loc | None) -> None:
    """An error located in library code that the user's code at ``call_loc`` called
    (``fn``, inlined): the error also names that call, and its hint says what the user can
    do about code they do not own.  Applied once, at the call nearest the library code."""
    if exc.call_site is not None or exc.loc is None or call_loc is None:
        return
    lib = library_of(exc.loc.file)
    if lib is None or library_of(call_loc.file) is not None:
        return
    module = getattr(fn, "__module__", None) or lib
    callee = f"{module}.{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"
    short = getattr(fn, "__name__", callee)
    exc.call_site, exc.callee = call_loc, callee
    if isinstance(exc, StaticRaiseError):
        exc.hint = (f"{callee} raises this for the arguments passed here: check their "
                    "types, shapes and values against its documentation")
    elif isinstance(exc, NoRuleError):
        exc.hint = (f"{exc.hint}; or register a derivative for {short} itself with "
                    f"st.register_vjp({short}, rule)")
    else:  # the library function has no rule, and compiling its own code failed
        exc.message = (f"{short} has no derivative rule, and its Python code cannot be "
                       f"compiled: {exc.message}")
        exc.hint = (f"this is inside {lib}'s code, which you cannot change: register a "
                    f"derivative for {short} with st.register_vjp({short}, rule), where "
                    "rule(g, out, *args) returns one gradient per argument, or compute "
                    "the value with NumPy functions st_autodiff knows")
    exc.rerender()
