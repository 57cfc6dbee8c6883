"""Errors users see.  Every compiler error carries the location in the user's code.

The message reads like a compiler diagnostic::

    loss.py:4:12: error: in-place assignment to an array element is not supported
        a[i] = v
        ^~~~~~~~
    hint: build the new array with np.where(...) or np.concatenate(...)
"""

from __future__ import annotations

from .ir.graph import GraphBuilder, Loc


class StAutodiffError(Exception):
    """Base class of every error st_autodiff raises on purpose."""


class CompileError(StAutodiffError):
    """An error in the user's function, found while compiling it."""

    #: where the user's code called the library code the error is in (``loc`` is then
    #: the library's line), and what it called: set by ``library_errors.library_call_site``
    call_site: Loc | None = None
    callee: str | None = None

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None) -> None:
        self.message = message
        self.loc = loc
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """The diagnostic text: location, message, source line with a caret, hint.  An
        error inside library code starts at the user's call of the library."""
        if self.loc is None:
            head = f"error: {self.message}"
            return head + (f"\nhint: {self.hint}" if self.hint else "")
        if self.call_site is not None:
            lines = [f"{self.call_site}: error: in {self.callee}: {self.message}",
                     *_quoted(self.call_site), f"  {self.loc}: inside {self.callee}, here:",
                     *_quoted(self.loc)]
        else:
            lines = [f"{self.loc}: error: {self.message}", *_quoted(self.loc)]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def rerender(self) -> None:
        """Render again after ``message``, ``hint`` or ``call_site`` changed."""
        self.args = (self.render(),)


def _quoted(loc: Loc) -> list[str]:
    """The source line of ``loc`` with a caret under its columns (nothing without text)."""
    if not loc.text:
        return []
    text = loc.text.rstrip("\n")
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    col = max(loc.col - 1 - indent, 0)
    width = 1
    if loc.end_col is not None and loc.end_col > loc.col:
        width = min(loc.end_col - loc.col, len(stripped) - col)
    return ["    " + stripped, "    " + " " * col + "^" + "~" * max(width - 1, 0)]


class StaticRaiseError(CompileError):
    """The function raises a Python exception on a path known when compiling: a ``raise``
    or a failed ``assert`` reached for these argument types, shapes and static values, or
    static evaluation failing as Python would (``TABLE[name]`` without the key).
    ``exception`` is the exception Python raises there."""

    builder: GraphBuilder  # set by transforms.static_stmts: the graph it was raised in

    def __init__(self, exception: BaseException, loc: Loc | None = None,
                 hint: str | None = None, message: str | None = None) -> None:
        self.exception = exception
        text = str(exception)
        super().__init__(message or (f"{type(exception).__name__}: {text}" if text else
                                     type(exception).__name__), loc, hint)


class UnsupportedSyntaxError(CompileError):
    """The function uses Python that the compiler does not accept."""


class NoRuleError(CompileError):
    """A call to a function that has no derivative rule."""


class NonScalarOutputError(CompileError):
    """``grad`` of a function whose output is not a scalar."""


class WrtError(CompileError):
    """``wrt`` names an argument that cannot be differentiated or does not exist."""


class SourceUnavailableError(CompileError):
    """The function's source cannot be read (built-ins, REPL definitions)."""


class UnsupportedRecursionError(CompileError):
    """A function calls itself; recursion is not supported."""


class EvaluationError(CompileError):
    """The user's function failed on the example arguments while compiling."""


class StaticEvaluationError(StaticRaiseError, EvaluationError):
    """An op failing on the types and shapes of its inputs while compiling (an index out
    of bounds, shapes that do not broadcast): Python raises ``exception`` there on every
    call with these argument types, so a ``try`` around it may catch it."""


class LazyConditionError(CompileError):
    """A Python ``if``/``while``/``break``/``assert`` on a value computed from lazy (Dask)
    arguments, or a lazy argument of unknown shape: what cannot stay lazy."""


class DerivativeRuntimeError(CompileError):
    """A derivative failed at run time at these inputs (``inv`` in the gradient of
    ``det`` of a singular matrix): located at the user's line it differentiates.  The
    original exception is its ``__cause__``; errors of the user's own code (the primal
    part of the generated function) propagate unchanged, as Python raises them."""
