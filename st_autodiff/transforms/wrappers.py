"""Wrapped callables during lowering: what a call through a wrapper means.

* NumPy functions written in Python (``_ArrayFunctionDispatcher``): their
  ``_implementation`` is inlined, but only after the op table (``calls.FUNCTIONS``) was
  consulted, so an op-table entry (and its refusals) is never bypassed.
* ``functools.partial`` (built outside or inside the function): its function called with
  the stored arguments first.
* Callable objects whose class defines ``__call__`` in Python: inlined with ``self``.
* ``functools.lru_cache``: the cache is transparent, so ``__wrapped__`` is inlined; its
  arguments must be hashable as Python requires (no runtime arrays).
* A registry of known-transparent ``functools.wraps`` wrappers: scikit-learn's
  ``validate_params`` (the static arguments are validated when compiling, as the
  wrapper validates them; arrays are always valid ``array-like`` values).
* Functions built by ``exec`` that only repack their arguments (SciPy's generated
  ``_parse_args``): run on placeholders, after checking their bytecode does nothing but
  load arguments and constants and build tuples, lists and dicts.
"""

from __future__ import annotations

import dis
import functools
import inspect
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.types import type_module

if TYPE_CHECKING:
    from .lower import Lowerer


@dataclass(frozen=True)
class Partial:
    """``functools.partial(fn, *args, **kwargs)`` made while lowering (its arguments may be
    runtime values, which a real ``partial`` cannot hold for the compiler)."""

    fn: Any
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]  # (key, value) pairs


def unwrap(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
           e: cst.Call) -> Any:
    """Lower a call through a wrapper; NotImplemented when ``fn`` is none of those."""
    if isinstance(fn, Partial):
        return lw.call(fn.fn, [*fn.args, *args], {**dict(fn.kwargs), **kwargs}, e)
    if isinstance(fn, functools.partial):
        stored = [lw.const_of_global("partial argument", a) for a in fn.args]
        keywords = {k: lw.const_of_global(k, v) for k, v in fn.keywords.items()}
        lw.guards.note(fn.keywords)  # a dict: ``p.keywords[k] = v`` keeps its identity
        return lw.call(fn.func, [*stored, *args], {**keywords, **kwargs}, e)
    if type(fn).__name__ == "_ArrayFunctionDispatcher" and isinstance(
            getattr(fn, "_implementation", None), types.FunctionType):
        return lw.inline_python(fn._implementation, args, kwargs, e)
    if isinstance(fn, functools._lru_cache_wrapper):
        for v in [*args, *kwargs.values()]:
            t = v.type if isinstance(v, Node) else None
            if isinstance(v, Node) and (t is None or t.kind != "array" or t.shape != ()):
                raise lw.fail(f"{getattr(fn, '__name__', 'the function')} is cached with "
                              "functools.lru_cache, whose arguments must be hashable, but "
                              "an argument here is an array computed at run time", e,
                              kind=CompileError)
        if not _has_runtime(args) and not _has_runtime(kwargs):
            # all static: the cache's own answer, as every later call in Python gets it
            # (narwhals' @cache'd plugin discovery reads package metadata once)
            from .static_calls import evaluate, fresh  # noqa: PLC0415

            return fresh(lw, evaluate(lw, fn, list(args), dict(kwargs), e), e)
        return lw.call(fn.__wrapped__, args, kwargs, e)
    call = _python_call(fn)
    if call is not None:  # a callable object
        return lw.inline_python(call, [fn, *args], kwargs, e)
    return NotImplemented


def _has_runtime(v: Any) -> bool:
    if isinstance(v, Node) or type_module(v).startswith("st_autodiff"):
        return True
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(_has_runtime(x) for x in v)
    if isinstance(v, dict):
        return any(_has_runtime(x) for x in v.values())
    return False


def _python_call(fn: Any) -> types.FunctionType | None:
    """The Python ``__call__`` of a callable object's class, if it has one."""
    if isinstance(fn, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return None
    for klass in type(fn).__mro__:
        if "__call__" in klass.__dict__:
            found = klass.__dict__["__call__"]
            return found if isinstance(found, types.FunctionType) else None
    return None


def partial_call(lw: Lowerer, args: list[Any], kwargs: dict[str, Any],
                 e: cst.CSTNode) -> Partial:
    """``functools.partial(fn, ...)`` inside the differentiated code."""
    if not args:
        raise lw.fail("partial() needs a function", e, kind=CompileError)
    return Partial(args[0], tuple(args[1:]), tuple(kwargs.items()))


# --- transparent wrappers ---------------------------------------------------------------

def transparent(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """A call through a registered transparent wrapper, lowered as a call of the function
    it wraps; NotImplemented for other callables."""
    if not isinstance(fn, types.FunctionType):
        return NotImplemented
    # ``functools.wraps`` copies the wrapped function's names: the code and the globals
    # tell the wrapper itself
    code = fn.__code__
    check = _TRANSPARENT.get((fn.__globals__.get("__name__"),
                              getattr(code, "co_qualname", code.co_name)))
    if check is None or not hasattr(fn, "__wrapped__"):
        return NotImplemented
    check(lw, fn, args, kwargs, e)
    return lw.call(fn.__wrapped__, args, kwargs, e)


def _sklearn_validate(lw: Lowerer, fn: types.FunctionType, args: list[Any],
                      kwargs: dict[str, Any], e: cst.CSTNode) -> None:
    """What ``validate_params``'s wrapper checks, on the arguments known when compiling
    (runtime values are arrays or floats, valid wherever the wrapped function accepts
    them)."""
    from .objects import holds_runtime  # noqa: PLC0415

    cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
    func, constraints = cells.get("func"), cells.get("parameter_constraints")
    if func is None or constraints is None:
        return
    from sklearn import get_config  # noqa: PLC0415
    from sklearn.utils._param_validation import (  # noqa: PLC0415
        validate_parameter_constraints,
    )

    if get_config().get("skip_parameter_validation"):
        return
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        raise lw.fail(f"{func.__qualname__}() {exc}", e, kind=CompileError) from None
    bound.apply_defaults()
    static = {k: v for k, v in bound.arguments.items()
              if k not in ("self", "cls") and not holds_runtime(v)}
    try:
        validate_parameter_constraints(constraints, static, caller_name=func.__qualname__)
    except Exception as exc:  # InvalidParameterError (a ValueError and a TypeError)
        raise lw.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None


_TRANSPARENT: dict[tuple[Any, str], Any] = {
    ("sklearn.utils._param_validation",
     "validate_params.<locals>.decorator.<locals>.wrapper"): _sklearn_validate,
    ("sklearn.utils._param_validation", "wrapper"): _sklearn_validate,  # before 3.11
}


# --- functions built by exec that repack their arguments -------------------------------

_REPACK_OPS = frozenset({
    "RESUME", "NOP", "CACHE", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST",
    "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_CONST", "LOAD_SMALL_INT",
    "BUILD_TUPLE", "BUILD_LIST", "BUILD_MAP", "BUILD_CONST_KEY_MAP", "RETURN_VALUE",
    "RETURN_CONST", "LIST_EXTEND", "LIST_APPEND", "COPY_FREE_VARS", "MAKE_CELL",
})


class _Placeholder:
    """Stands for one argument while a repacking function runs."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def repacks(fn: types.FunctionType) -> bool:
    """Whether ``fn``'s bytecode only loads arguments and constants and builds tuples,
    lists and dicts of them (no call, no attribute, no global, no branch)."""
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    return all(ins.opname in _REPACK_OPS for ins in dis.get_instructions(code))


def run_repacker(lw: Lowerer, fn: types.FunctionType, args: list[Any],
                 kwargs: dict[str, Any], e: cst.CSTNode) -> Any:
    """Call a function that only repacks its arguments (``repacks``) on placeholders,
    then put each argument back where its placeholder landed.  Python binds the
    arguments (defaults, keywords, ``*args``), so binding errors are Python's."""
    values = [*args, *kwargs.values()]
    marks = [_Placeholder(i) for i in range(len(values))]
    try:
        out = fn(*marks[:len(args)], **dict(zip(kwargs, marks[len(args):])))
    except TypeError as exc:
        raise lw.fail(f"TypeError: {exc}", e, kind=CompileError) from None

    def back(v: Any) -> Any:
        if isinstance(v, _Placeholder):
            return values[v.index]
        if isinstance(v, (tuple, list)):
            return type(v)(back(x) for x in v)
        if isinstance(v, dict):
            return {k: back(x) for k, x in v.items()}
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        raise lw.fail(f"{fn.__name__} (built by exec, without source) returned a value that "
                      "is not one of its arguments", e, kind=CompileError)

    return back(out)
