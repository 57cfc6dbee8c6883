"""Errors users see.  Every compiler error carries the location in the user's code.

The message reads like a compiler diagnostic::

    loss.py:4:12: error: in-place assignment to an array element is not supported
        a[i] = v
        ^~~~~~~~
    hint: build the new array with np.where(...) or np.concatenate(...)
"""

from __future__ import annotations

from .ir.graph import Loc


class StAutodiffError(Exception):
    """Base class of every error st_autodiff raises on purpose."""


class CompileError(StAutodiffError):
    """An error in the user's function, found while compiling it."""

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None) -> None:
        self.message = message
        self.loc = loc
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """The diagnostic text: location, message, source line with a caret, hint."""
        if self.loc is None:
            head = f"error: {self.message}"
            return head + (f"\nhint: {self.hint}" if self.hint else "")
        lines = [f"{self.loc}: error: {self.message}"]
        if self.loc.text:
            text = self.loc.text.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            col = max(self.loc.col - 1 - indent, 0)
            width = 1
            if self.loc.end_col is not None and self.loc.end_col > self.loc.col:
                width = min(self.loc.end_col - self.loc.col, len(stripped) - col)
            lines.append("    " + stripped)
            lines.append("    " + " " * col + "^" + "~" * max(width - 1, 0))
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


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


class DerivativeRuntimeError(CompileError):
    """A derivative failed at run time at these inputs (``inv`` in the gradient of
    ``det`` of a singular matrix): located at the user's line it differentiates.  The
    original exception is its ``__cause__``; errors of the user's own code (the primal
    part of the generated function) propagate unchanged, as Python raises them."""
