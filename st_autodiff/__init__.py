"""st_autodiff: source-transformation automatic differentiation for NumPy code.

``grad``/``value_and_grad``/``vjp`` read a function's source, lower it to an SSA graph,
and generate a readable Python adjoint that runs on NumPy or CuPy.

The eager runtime speaks PyTorch: ``import st_autodiff as torch`` gives ``tensor``,
``Tensor``, the dtypes, factories, math functions, grad modes and ``autograd``, so code
written for ``torch.autograd`` runs unchanged (see ``runtime/namespace.py`` for the names).
"""

from __future__ import annotations

from . import autograd
from .api import (
    GradFunction,
    ShapeDtype,
    custom_jvp,
    custom_vjp,
    explain,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    register_vjp,
    stop_gradient,
    value_and_grad,
    vjp,
)
from .config import config
from .errors import (
                     CompileError,
                     DerivativeRuntimeError,
                     EvaluationError,
                     NonScalarOutputError,
                     NoRuleError,
                     SourceUnavailableError,
                     StAutodiffError,
                     StaticRaiseError,
                     UnsupportedRecursionError,
                     UnsupportedSyntaxError,
                     WrtError,
)
from .runtime.namespace import *  # noqa: F403  (the PyTorch-style names, listed in NAMES)
from .runtime.namespace import NAMES as _RUNTIME_NAMES
from .transforms.effects import register_inactive


def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("st-autodiff")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"


__version__ = _version()

__all__ = [
    "CompileError",
    "DerivativeRuntimeError",
    "EvaluationError",
    "GradFunction",
    "NoRuleError",
    "NonScalarOutputError",
    "ShapeDtype",
    "SourceUnavailableError",
    "StAutodiffError",
    "StaticRaiseError",
    "UnsupportedRecursionError",
    "UnsupportedSyntaxError",
    "WrtError",
    "__version__",
    "custom_jvp",
    "custom_vjp",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "register_inactive",
    "register_vjp",
    "stop_gradient",
    "value_and_grad",
    "vjp",
    "autograd",
    "config",
    "explain",
]
__all__ += _RUNTIME_NAMES

from . import nn, optim  # noqa: E402  (after the runtime names: nn builds on them)
from .bridge import function  # noqa: E402  (compiled functions inside eager graphs)
from .ir import infer as _infer  # noqa: E402, F401  (type rules: loaded once, at import)
from .runtime import fft, special  # noqa: E402  (torch.fft: spectra as real pairs; torch.special)
from .runtime import linalg_more as linalg  # noqa: E402  (torch.linalg decompositions)

__all__ += ["fft", "function", "linalg", "nn", "optim", "special"]

# --- dists family: torch.distributions (also importable as ``st_autodiff.distributions``) ---
import sys as _sys  # noqa: E402

from .runtime import distributions  # noqa: E402

# one module object per file: ``import st_autodiff.distributions.constraints`` finds the
# runtime's module instead of loading the file a second time under another name
_sys.modules[__name__ + ".distributions"] = distributions
for _sub in distributions.SUBMODULES:
    _sys.modules[f"{__name__}.distributions.{_sub}"] = _sys.modules[
        f"{distributions.__name__}.{_sub}"]
del _sub
__all__ += ["distributions"]

