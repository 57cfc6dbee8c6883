"""st_autodiff: source-transformation automatic differentiation for NumPy code.

``grad``/``value_and_grad``/``vjp`` read a function's source, lower it to an SSA graph,
and generate a readable Python adjoint that runs on NumPy or CuPy.
"""

from __future__ import annotations

from .api import GradFunction, grad, value_and_grad, vjp
from .errors import (
                     CompileError,
                     NonScalarOutputError,
                     NoRuleError,
                     SourceUnavailableError,
                     StAutodiffError,
                     UnsupportedRecursionError,
                     UnsupportedSyntaxError,
                     WrtError,
)

__version__ = "0.1.0"

__all__ = [
    "CompileError",
    "GradFunction",
    "NoRuleError",
    "NonScalarOutputError",
    "SourceUnavailableError",
    "StAutodiffError",
    "UnsupportedRecursionError",
    "UnsupportedSyntaxError",
    "WrtError",
    "__version__",
    "grad",
    "value_and_grad",
    "vjp",
]
