"""st_autodiff: source-transformation automatic differentiation for NumPy code.

``grad``/``value_and_grad``/``vjp`` read a function's source, lower it to an SSA graph,
and generate a readable Python adjoint that runs on NumPy or CuPy.

The eager runtime speaks PyTorch: ``import st_autodiff as torch`` gives ``tensor``,
``Tensor``, the dtypes, factories, math functions, grad modes and ``autograd``, so code
written for ``torch.autograd`` runs unchanged (see ``runtime/namespace.py`` for the names).

Importing the package loads nothing but this file: each name is imported on its first
use (PEP 562 ``__getattr__``).  The compiler (libcst, the passes, SciPy's decompositions)
loads when a compiler name such as ``grad`` is first read, the eager runtime when a
runtime name such as ``tensor`` is, so an eager user never imports libcst and
``import st_autodiff`` costs little more than NumPy's own import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from . import autograd as autograd
    from . import nn as nn
    from . import optim as optim
    from .api import (
        GradFunction as GradFunction,
    )
    from .api import (
        custom_jvp as custom_jvp,
    )
    from .api import (
        custom_vjp as custom_vjp,
    )
    from .api import (
        explain as explain,
    )
    from .api import (
        grad as grad,
    )
    from .api import (
        register_vjp as register_vjp,
    )
    from .api import (
        stop_gradient as stop_gradient,
    )
    from .api import (
        value_and_grad as value_and_grad,
    )
    from .bridge import function as function
    from .errors import (
        CompileError as CompileError,
    )
    from .errors import (
        DerivativeRuntimeError as DerivativeRuntimeError,
    )
    from .errors import (
        EvaluationError as EvaluationError,
    )
    from .errors import (
        LazyConditionError as LazyConditionError,
    )
    from .errors import (
        NonScalarOutputError as NonScalarOutputError,
    )
    from .errors import (
        NoRuleError as NoRuleError,
    )
    from .errors import (
        SourceUnavailableError as SourceUnavailableError,
    )
    from .errors import (
        StaticRaiseError as StaticRaiseError,
    )
    from .errors import (
        StAutodiffError as StAutodiffError,
    )
    from .errors import (
        UnsupportedRecursionError as UnsupportedRecursionError,
    )
    from .errors import (
        UnsupportedSyntaxError as UnsupportedSyntaxError,
    )
    from .errors import (
        WrtError as WrtError,
    )
    from .products import (
        hessian as hessian,
    )
    from .products import (
        hvp as hvp,
    )
    from .products import (
        jacfwd as jacfwd,
    )
    from .products import (
        jacobian as jacobian,
    )
    from .products import (
        jacrev as jacrev,
    )
    from .products import (
        jvp as jvp,
    )
    from .products import (
        vjp as vjp,
    )
    from .runtime import distributions as distributions
    from .runtime import fft as fft
    from .runtime import linalg_more as _linalg_more

    linalg = _linalg_more
    from .runtime import special as special
    from .runtime.namespace import *  # noqa: F403
    from .transforms.call_types import ShapeDtype as ShapeDtype
    from .transforms.effects_kinds import register_inactive as register_inactive

    __version__: str  # (read from the installed distribution's metadata: _version)

# ``config`` is bound now: a name that is also a submodule's would otherwise be replaced
# by the module object as soon as anything imports ``st_autodiff.config``
from .config import config as config  # noqa: E402

#: compiler names -> the module that defines them
_COMPILER = {
    **dict.fromkeys(
        ("GradFunction", "ShapeDtype", "custom_jvp", "custom_vjp", "explain", "grad",
         "register_vjp", "stop_gradient", "value_and_grad"), "api"),
    **dict.fromkeys(("hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp", "vjp"),
                    "products"),
    **dict.fromkeys(
        ("CompileError", "DerivativeRuntimeError", "EvaluationError", "LazyConditionError",
         "NonScalarOutputError",
         "NoRuleError", "SourceUnavailableError", "StaticRaiseError", "StAutodiffError",
         "UnsupportedRecursionError", "UnsupportedSyntaxError", "WrtError"), "errors"),
    "function": "bridge",  # compiled functions inside eager graphs
    "register_inactive": "transforms.effects",
}
#: public submodules under another name or place
_MODULES = {"fft": "runtime.fft", "special": "runtime.special",
            "linalg": "runtime.linalg_more", "distributions": "distributions",
            "autograd": "autograd", "nn": "nn", "optim": "optim"}


def __getattr__(name: str) -> Any:
    """Import a public name on its first use (see the module docstring)."""
    if name in _COMPILER:
        if _COMPILER[name] in ("api", "products"):
            importlib.import_module(".ir.infer", __name__)  # the type rules, loaded once
        value = getattr(importlib.import_module("." + _COMPILER[name], __name__), name)
    elif name in _MODULES:
        value = importlib.import_module("." + _MODULES[name], __name__)
    elif name == "__version__":
        value = _version()
    elif name == "__all__":
        value = sorted({*_COMPILER, *_MODULES, "__version__", "config", *_runtime().NAMES})
    elif name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    elif importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a subpackage
        value = importlib.import_module("." + name, __name__)
    else:
        runtime = _runtime()
        if name not in runtime.NAMES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(runtime, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})


def _runtime() -> Any:
    """The eager runtime's public names (``runtime/namespace.py``), loaded once; all of
    them become attributes of this module at that moment."""
    module_name = __name__ + ".runtime.namespace"
    loading = sys.modules.get(module_name)
    if loading is not None and not hasattr(loading, "NAMES"):  # asked while it loads
        raise AttributeError("the eager runtime is still being imported")
    ns = importlib.import_module(".runtime.namespace", __name__)
    g = globals()
    for key in ns.NAMES:
        if key not in g:
            g[key] = getattr(ns, key)
    return ns


def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("st-autodiff")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"
