"""What the compiler knows of the callables it passes through (``effects``).

``kind_of`` says, for a static callable, whether a call of it has an effect, whether it
may write into a runtime array it is given, and how its result is typed (a rule: a random
draw's ``size`` gives its shape; ``print`` gives ``None``); ``st.register_inactive`` adds
the user's own functions.  Never by calling it: nothing here runs user code.
"""

from __future__ import annotations

import builtins
import inspect
import logging
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ir.graph import Node
from ..ir.types import Type
from ..ir.versioned import VersionedDict

if TYPE_CHECKING:
    from .lower import Lowerer


# --- the registry of inactive functions ------------------------------------------------


@dataclass(frozen=True)
class Inactive:
    """How ``st.register_inactive`` declared a function: which arguments it writes
    into (positions or keyword names), and its output type (``None``: unknown)."""

    mutates: tuple[int | str, ...] = ()
    out_type: Any = None


#: ``callable -> Inactive``: functions the compiler calls as they are, never reads,
#: never differentiates (``st.register_inactive``).
INACTIVE: dict[Any, Inactive] = VersionedDict()


def register_inactive(fn: Callable[..., Any], *, mutates: tuple[int | str, ...] = (),
                      out_type: Any = None) -> Callable[..., Any]:
    """Declare ``fn`` inactive: compiled code calls it as it is (once per call, in program
    order, never while compiling) and no derivative flows through it, like Enzyme's
    inactive functions or ChainRules' ``@non_differentiable``.  A call whose result the
    differentiated output depends on is still an error (never a silent zero).

    ``mutates`` names the arguments ``fn`` writes into (positions or keyword names):
    passing a runtime array there is refused, since the compiled code would not see the
    write.  ``out_type`` (an ``st.ShapeDtype``, ``float``, a tuple of them, or a function
    of the arguments' ``ShapeDtype``s) types the result; without it the result is of
    unknown type.  Returns ``fn`` (usable as a decorator)::

        >>> import numpy as np, st_autodiff as st
        >>> seen = []
        >>> def record(v):
        ...     seen.append(float(v))
        >>> _ = st.register_inactive(record)
        >>> def loss(x):
        ...     record(np.sum(x))
        ...     return np.sum(x * x)
        >>> st.grad(loss)(np.ones(2)), seen
        (array([2., 2.]), [2.0])
    """
    if not callable(fn):
        raise TypeError(f"register_inactive takes a callable, got {type(fn).__name__}")
    INACTIVE[_key(fn)] = Inactive(tuple(mutates), out_type)
    return fn


def _key(fn: Any) -> Any:
    """Bound methods register by their function (``Counter.bump`` for ``c.bump``)."""
    return getattr(fn, "__func__", fn)


def _registered(fn: Any) -> Inactive | None:
    try:
        return INACTIVE.get(_key(fn))
    except TypeError:  # unhashable: not registered
        return None


# --- what a call is -------------------------------------------------------------------


NONE = Type("none")
OBJECT = Type("object")


@dataclass(frozen=True)
class Kind:
    """What the compiler knows of one pass-through callable."""

    name: str
    effect: bool = True
    mutating: bool = True  # may write into a runtime array it is given
    out: Any = None  # a Type, a rule ``(lw, args, kwargs) -> Type | None``, or None
    mutates: tuple[int | str, ...] = ()  # registered: the arguments it writes into
    declared: bool = False  # registered: ``out`` is the user's ``out_type`` spec


_LOGGING_FUNCTIONS = frozenset({"debug", "info", "warning", "warn", "error", "critical",
                                "exception", "log"})
_WARNINGS_FUNCTIONS = frozenset({"simplefilter", "filterwarnings", "resetwarnings",
                                 "showwarning", "formatwarning"})


def kind_of(fn: Any) -> Kind | None:
    """How a static callable is passed through, or ``None`` if it is not one the compiler
    knows (then ``unknown_call`` decides)."""
    reg = _registered(fn)
    if reg is not None:
        return Kind(_name(fn), True, bool(reg.mutates), reg.out_type, reg.mutates, True)
    runtime = _RUNTIME.get(id(fn))
    if runtime is not None:  # our own helpers, in generated code lowered again
        return runtime
    if fn is builtins.print:
        return Kind("print", True, False, NONE)
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "")
    module = getattr(fn, "__module__", None)
    if fn in (warnings.warn, warnings.warn_explicit) or module == "warnings" and (
            name in _WARNINGS_FUNCTIONS):
        return Kind(f"warnings.{name}", True, False, NONE)
    if module == "logging" and name in _LOGGING_FUNCTIONS:
        return Kind(f"logging.{name}", True, False, NONE)
    if fn is logging.getLogger:
        return Kind("logging.getLogger", True, False, OBJECT)
    if isinstance(owner, (logging.Logger, logging.LoggerAdapter)) and (
            name in _LOGGING_FUNCTIONS):
        return Kind(f"logger.{name}", True, False, NONE)
    if isinstance(owner, str) and name == "format":
        return Kind("str.format", False, False, OBJECT)
    if fn in (builtins.str, builtins.repr, builtins.format, builtins.ascii):
        return Kind(name, False, False, OBJECT)  # str(x) of a runtime value: a string
    if _is_random(fn):
        return Kind(f"np.random.{name}" if owner is None or _is_global_state(owner) else
                    f"{type(owner).__name__}.{name}", True, name == "shuffle",
                    _draw_type(name))
    if isinstance(fn, np.ufunc):  # never writes into its inputs (without out=)
        return Kind(_name(fn), False, False, _ufunc_type(fn))
    if fn is np.unique:  # reads its argument; the result's length is known at run time only
        return Kind("np.unique", False, False, _unique_type)
    return None


def _unique_type(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``np.unique(x)``: a 1-d array of ``x``'s dtype whose length the data decide; with
    ``return_index`` and the like, a tuple of unknown type."""
    x = args[0] if args else kwargs.get("ar")
    t = x.type if isinstance(x, Node) else None
    if t is None or t.kind != "array" or any(
            kwargs.get(k) not in (None, False) for k in kwargs if k.startswith("return_")):
        return None
    return Type("array", t.dtype, None)


def _is_random(fn: Any) -> bool:
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (np.random.Generator, np.random.RandomState,
                          np.random.BitGenerator, np.random.SeedSequence)):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module.startswith("numpy.random")


def _is_global_state(owner: Any) -> bool:
    return owner is getattr(np.random.mtrand, "_rand", None)


def _name(fn: Any) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
        type(fn).__name__
    if owner is not None and not isinstance(owner, types.ModuleType) and "." not in name:
        return f"{type(owner).__name__}.{name}"
    return name


# --- result types -----------------------------------------------------------------------

_INT_DRAWS = frozenset({"integers", "randint", "random_integers", "poisson", "binomial",
                        "negative_binomial", "geometric", "hypergeometric", "zipf",
                        "logseries", "multinomial"})
_SHAPE_ARGS = frozenset({"rand", "randn"})  # rand(d0, d1, ...): the shape, positionally
_OBJECTS = frozenset({"default_rng", "RandomState", "Generator", "spawn", "bit_generator",
                      "get_state", "SeedSequence", "PCG64", "MT19937", "Philox", "SFC64"})
_NOTHING = frozenset({"seed", "set_state", "shuffle"})
_UNKNOWN = frozenset({"choice", "permutation", "permuted", "multivariate_normal",
                      "dirichlet", "bytes"})


def _draw_type(name: str) -> Any:
    """The rule typing a random draw: ``size`` (or ``rand``'s dimensions) gives the shape,
    float64 (int64 for counts) the dtype; no size and scalar parameters give a Python
    float; array parameters their broadcast shape."""
    if name in _OBJECTS:
        return OBJECT
    if name in _NOTHING:
        return NONE
    if name in _UNKNOWN:
        return None

    def rule(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        dtype = "int64" if name in _INT_DRAWS else "float64"
        if "dtype" in kwargs and not isinstance(kwargs["dtype"], Node):
            try:
                dtype = np.dtype(kwargs["dtype"]).name
            except TypeError:
                return None
        if name in _SHAPE_ARGS:
            if any(isinstance(a, Node) for a in args):
                return None
            if not args:
                return Type("float", "float64", ())
            return Type("array", dtype, tuple(int(a) for a in args))
        bound: dict[str, Any] | None
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            bound = {"size": kwargs["size"]} if "size" in kwargs else None
        if bound is None:
            return None
        size = bound.get("size")
        if isinstance(size, Node) or isinstance(size, (tuple, list)) and any(
                isinstance(s, Node) for s in size):
            return None
        if size is not None:
            shape = (int(size),) if isinstance(size, (int, np.integer)) else tuple(
                int(s) for s in size)
            return Type("array", dtype, shape)
        params = [v for k, v in bound.items() if k not in ("size", "dtype", "out")]
        shapes: list[Any] = []
        for p in params:
            if isinstance(p, Node):
                t = p.type
                if t is None or t.kind == "array" and t.shape is None:
                    return None
                shapes.append(() if t.kind != "array" else t.shape)
            elif isinstance(p, (list, tuple, np.ndarray)):
                shapes.append(np.shape(p))
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        if shape == ():
            return Type("int") if dtype == "int64" and not shapes else Type(
                "float", "float64", ()) if dtype == "float64" else Type("array", dtype, ())
        return Type("array", dtype, shape)

    return rule


def _ufunc_type(fn: np.ufunc) -> Any:
    """A ufunc's output: its inputs broadcast, the dtype NumPy's loop gives on empty
    inputs of theirs (no data is read; empty arrays run nothing)."""

    def rule(lw: Lowerer, _: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if kwargs or fn.nout != 1 or len(args) != fn.nin:
            return None
        shapes: list[Any] = []
        empties: list[Any] = []
        for a in args:
            t = a.type if isinstance(a, Node) else None
            if isinstance(a, Node):
                if t is None or t.kind == "array" and (t.shape is None or t.dtype is None):
                    return None
                dt = "float64" if t.kind == "float" else t.dtype or {
                    "int": "int64", "bool": "bool"}.get(t.kind)
                if dt is None:
                    return None
                shapes.append(t.shape if t.kind == "array" else ())
                empties.append(np.empty(0, dt))
            else:
                shapes.append(np.shape(a))
                empties.append(np.asarray(a).ravel()[:0] if np.ndim(a) else a)
        try:
            with np.errstate(all="ignore"):
                dtype = fn(*empties).dtype.name
            shape = np.broadcast_shapes(*shapes)
        except Exception:  # noqa: BLE001  (no loop for these dtypes: type unknown)
            return None
        if shape == () and all(isinstance(a, Node) and a.type is not None and
                               a.type.kind == "float" or
                               isinstance(a, float) for a in args):
            return Type("array", dtype, ())  # a NumPy scalar
        return Type("array", dtype, shape)

    return rule


# --- runtime formatting, raise and assert ------------------------------------------------


def format_parts(template: tuple[Any, ...], *values: Any) -> str:
    """An f-string at run time: ``template`` holds literal text and, for each value,
    ``(conversion, format_spec)``, as Python's f-string would apply them."""
    out, it = [], iter(values)
    for piece in template:
        if isinstance(piece, str):
            out.append(piece)
            continue
        conversion, spec = piece
        v = next(it)
        if conversion is not None:
            convert: dict[str, Callable[[Any], str]] = {"r": repr, "s": str, "a": ascii}
            v = convert[conversion](v)
        out.append(format(v, spec))
    return "".join(out)


def raise_error(cls: Any, *args: Any) -> None:
    """``raise cls(*args)`` at run time (a ``raise`` under a runtime condition)."""
    raise cls(*args)


def check_assert(cond: Any, *args: Any) -> None:
    """``assert cond, *args`` at run time: raises ``AssertionError`` when ``cond`` is
    false (Python's ``__debug__`` semantics: skipped under ``python -O``)."""
    if __debug__ and not cond:
        raise AssertionError(*args)


#: ``math`` functions whose infinite result from finite arguments is OverflowError
#: (``pow`` only for a non-zero base), and those where it is a domain error
_MATH_OVERFLOWS = frozenset({"exp", "expm1", "exp2", "sinh", "cosh", "pow", "ldexp"})
_MATH_POLES = frozenset({"log", "log2", "log10", "log1p", "atanh", "pow"})
_MATH_TO_INT = frozenset({"floor", "ceil", "trunc", "int", "round"})  # (builtins too)


def check_math(name: str, result: Any, *args: Any) -> None:
    """What ``math.<name>(*args)`` raises where the NumPy op it is lowered to returns
    ``result`` (NaN or an infinity) instead: ``ValueError`` for a domain error
    (``math.sqrt(-1)``, ``math.log(0)``), ``OverflowError`` for a range error
    (``math.exp(1000)``); ``math.floor`` of a NaN or an infinity cannot be an int."""
    values = [float(a) for a in args]
    if name in _MATH_TO_INT:
        if any(np.isnan(v) for v in values):
            raise ValueError("cannot convert float NaN to integer")
        if any(np.isinf(v) for v in values):
            raise OverflowError("cannot convert float infinity to integer")
        return
    r = float(result)
    if np.isnan(r) and not any(np.isnan(v) for v in values):
        raise ValueError("math domain error")
    if np.isinf(r) and all(np.isfinite(v) for v in values):
        if name == "pow" and values[0] == 0.0 or name in _MATH_POLES and name != "pow":
            raise ValueError("math domain error")
        if name in _MATH_OVERFLOWS:
            raise OverflowError("math range error")


def full_rank_only(rank: Any, n: int) -> float:
    """``1.0`` for a matrix of full column rank; else NumPy's ``lstsq`` returns no
    residuals (an empty array, whose shape only the data decide), which compiled code
    cannot match: raised instead of a silently different value.  Pure, so it runs only
    where the residuals are used."""
    if rank < n:
        raise np.linalg.LinAlgError(
            f"lstsq of a matrix of rank {int(rank)} < {n} columns: NumPy returns no "
            "residuals (an empty array) here, which st_autodiff cannot return; compute "
            "them as np.sum((b - a @ x) ** 2, axis=0)")
    return 1.0


def is_none(v: Any) -> bool:
    """``v is None`` when the compiled code runs: for a value that is ``None`` on some
    paths through branches or loops (``w = None; if c: w = x * 2``)."""
    return v is None


_RUNTIME = {id(format_parts): Kind("f-string", False, False, OBJECT),
            id(is_none): Kind("is None", False, False, Type("bool")),
            id(full_rank_only): Kind("lstsq rank check", False, False,
                                     Type("float", "float64", ())),
            id(raise_error): Kind("raise", True, False, NONE),
            id(check_assert): Kind("assert", True, False, NONE),
            id(check_math): Kind("math domain check", True, False, NONE)}
