"""``st.grad(np.sin)``: differentiating a library function itself, from the rule table.

JAX users write ``jax.grad(jnp.tanh)``; NumPy's functions are ufuncs and C callables with
no Python source for the compiler to read.  A library function the compiler already knows
at a call site (an op of the rule table, a scipy.special function, a decomposition such
as ``np.linalg.svd``) is differentiated through a generated caller,
``def sin(x, /): return _st_fn(x)``, that the compiler reads like a user's function: its
call of ``_st_fn`` resolves to the op, so the derivative is the table's rule and the
generated adjoint reads as it would for ``lambda x: np.sin(x)``.  A C callable the
compiler does not know keeps the "cannot read the source" error, with the register hint.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .custom_source import define, identifier
from .errors import NoRuleError

#: names the generated caller uses itself
_TAKEN = frozenset({"np", "scipy", "args", "kwargs", "_st_fn"})
_CALLERS: dict[int, tuple[Any, Callable[..., Any]]] = {}


def known(fn: Any) -> bool:
    """Whether the compiler has a rule (an op, a scipy.special op or a decomposition)
    for calls of ``fn``."""
    from .decompositions import lookup  # noqa: PLC0415 (decompositions import transforms)
    from .derivatives import CUSTOM_VJPS  # noqa: PLC0415
    from .transforms.calls import FUNCTIONS, special_op  # noqa: PLC0415
    from .transforms.fft_calls import kind_of  # noqa: PLC0415

    try:
        return (id(fn) in FUNCTIONS or special_op(fn) is not None or lookup(fn) is not None
                or kind_of(fn) is not None or fn in CUSTOM_VJPS)
    except TypeError:  # an unhashable callable object
        return False


def _spelling(fn: Any, name: str) -> tuple[str, dict[str, Any]]:
    """How the generated caller names ``fn``: ``np.sin``, ``np.linalg.svd``,
    ``scipy.special.gammaln`` where that path is ``fn``, else the global ``_st_fn``."""
    roots: list[tuple[str, Any, dict[str, Any]]] = [
        ("np", np, {"np": np}), ("np.linalg", np.linalg, {"np": np}),
        ("np.fft", np.fft, {"np": np})]
    for module in ("scipy.special", "scipy.linalg", "scipy.stats"):
        if module in sys.modules:
            roots.append((module, sys.modules[module], {"scipy": sys.modules["scipy"]}))
    for path, module, namespace in roots:
        if getattr(module, name, None) is fn:
            return f"{path}.{name}", namespace
    return "_st_fn", {"_st_fn": fn}


def _name(fn: Any) -> str:
    from .transforms.calls import callable_name  # noqa: PLC0415

    return callable_name(fn)


def _op_signature(fn: Any) -> inspect.Signature | None:
    """The op's own inputs as positional parameters, for a callable of the op table that
    has no signature of its own."""
    from .ir.ops import OP_INFO  # noqa: PLC0415
    from .transforms.calls import FUNCTIONS  # noqa: PLC0415

    op = FUNCTIONS.get(id(fn))
    if op is None or OP_INFO[op].variadic:
        return None
    kind = inspect.Parameter.POSITIONAL_ONLY
    return inspect.Signature([inspect.Parameter(n, kind) for n in OP_INFO[op].inputs])


def _compiled_code(fn: Any) -> bool:
    """A NumPy ufunc, a built-in or a Cython function (or a method of one): code with no
    Python source."""
    fn = getattr(fn, "__func__", fn)
    return (isinstance(fn, np.ufunc) or inspect.isbuiltin(fn)
            or type(fn).__name__ in ("cython_function_or_method", "fused_cython_function"))


def library_caller(fn: Any) -> Callable[..., Any] | None:
    """A generated Python caller of library function ``fn`` when the compiler knows its
    calls (see the module docstring), else None (``fn`` is read as it is)."""
    if inspect.isfunction(fn) and fn.__module__ and not fn.__module__.startswith(
            ("numpy", "scipy")):
        return None  # the user's own function: always read from its source
    if not callable(fn):
        return None
    if not known(fn):
        if _compiled_code(fn) and getattr(fn, "st_caller", None) is None:
            what = _name(fn)
            raise NoRuleError(
                f"{what} has no derivative rule, and it is compiled code with no Python "
                "source to differentiate",
                hint=f"register one with st.register_vjp({what}, rule), where "
                     "rule(g, out, *args) returns one gradient per argument")
        return None
    hit = _CALLERS.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    name = identifier(getattr(fn, "__name__", "") or "library")
    call, namespace = _spelling(fn, name)
    if isinstance(fn, np.ufunc):  # positional inputs only: out=/where= are not values
        params = ", ".join("x" if fn.nin == 1 else f"x{i + 1}" for i in range(fn.nin))
        caller = define(f"def {name}({params}, /):\n    return {call}({params})\n", name,
                        namespace)
    else:
        sig: inspect.Signature | None
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):  # a C function without one (np.dot on NumPy 2.2)
            op_sig = _op_signature(fn)
            if op_sig is None:
                return None
            sig = op_sig
        # the required positional parameters by name (wrt= can name them), the rest passed
        # on only when the call gives them: NumPy's defaults (np._NoValue) stay unwritten
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        names: list[str] = []
        for p in sig.parameters.values():
            if p.kind not in kinds or p.default is not p.empty:
                break
            ok = p.name.isidentifier() and p.name not in _TAKEN
            names.append(p.name if ok else f"x{len(names)}")
        params = ", ".join([*names, "*args", "**kwargs"])
        caller = define(f"def {name}({params}):\n    return {call}({params})\n", name,
                        namespace)
    caller.__doc__ = f"Calls {_name(fn)} (generated for st.grad of it)."
    _CALLERS[id(fn)] = (fn, caller)
    return caller
