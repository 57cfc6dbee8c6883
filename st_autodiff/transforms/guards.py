"""Guards: what a specialisation read from outside its arguments when it was compiled.

Lowering folds values it reads from globals, closure cells, function defaults and
attributes of objects it holds (``K`` in ``K * x``, a helper function, ``cfg.scale``,
``self.W``).  Each such read is recorded here, and ``Guards.compile`` turns them into one
generated function that ``GradFunction`` calls before it reuses the specialisation: if
any read would now give a different value, the specialisation is compiled again (like
torch.compile's guards).  Comparisons: immutable values (numbers, strings, tuples of them)
by value, bound methods by function and receiver, everything else (arrays, functions,
modules, objects) by identity.  Arrays are not copied: generated code reads the array
object itself at call time, so writing into a global array in place is seen; small
integer arrays (which may be used as shapes, whose values lowering folds into types) are
guarded on their values too.  Lists and
dicts read from outside are guarded on their items (identity), since a change inside them
keeps the container's identity.

Reads of library code (NumPy, the standard library, st_autodiff's generated code) are not
guarded: their module attributes are taken as constant.
"""

from __future__ import annotations

import logging
import operator
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

log = logging.getLogger("st_autodiff")

#: packages whose module attributes and function globals are taken as constant
_LIBRARIES = frozenset({"numpy", "scipy", "st_autodiff", "jax", "jaxlib", "torch", "cupy",
                        "autograd", "libcst"}) | frozenset(getattr(sys, "stdlib_module_names",
                                                                   ()))
_MISSING = object()
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic)
#: integer arrays up to this size are guarded on their values, not only their identity
_SMALL = 32


def is_library(module_name: Any) -> bool:
    """Whether a module (by ``__name__``) is library code whose globals are not guarded."""
    if not isinstance(module_name, str):  # exec() into a plain dict: user code
        return False
    return module_name.split(".")[0] in _LIBRARIES or module_name == "st_autodiff.generated"


def _value_like(v: Any) -> bool:
    """Immutable values compared by value (a rebinding to an equal value is no change)."""
    if isinstance(v, tuple):
        return all(_value_like(x) for x in v)
    return isinstance(v, _IMMUTABLE)


def _same_items(container: Any, items: tuple[Any, ...]) -> bool:
    """A list's items, or a dict's keys and values, are still ``items`` (identity)."""
    now = tuple(container.items()) if isinstance(container, dict) else tuple(container)
    if len(now) != len(items):
        return False
    if isinstance(container, dict):
        return all(a[0] == b[0] and a[1] is b[1] for a, b in zip(now, items))
    return all(map(operator.is_, now, items))


class Guards:
    """The compile-time reads of one specialisation (see the module docstring)."""

    def __init__(self) -> None:
        # key -> (kind, text, ...)
        self._checks: dict[tuple[Any, ...], tuple[str, str, Any, Any]] = {}
        self._external: dict[int, Any] = {}  # objects that came from outside, kept alive
        self._check: Callable[[], bool] | None = None

    def __len__(self) -> int:
        return len(self._checks)

    # --- recording ----------------------------------------------------------------------

    def note(self, v: Any) -> None:
        """``v`` came from outside the arguments: reads of its attributes and items are
        guarded too (lists and dicts on their items, at once)."""
        if isinstance(v, np.ndarray) and v.dtype.kind in "iub" and v.size <= _SMALL:
            self.array_contents(v)  # small integer arrays may be shapes: their values count
        if id(v) in self._external or isinstance(v, _IMMUTABLE) or isinstance(v, np.ndarray):
            return
        if isinstance(v, (types.ModuleType, type)):
            if not is_library(v.__name__ if isinstance(v, types.ModuleType) else
                              getattr(v, "__module__", None)):
                self._external[id(v)] = v
            return
        self._external[id(v)] = v
        if isinstance(v, (list, dict)):
            items = tuple(v.items()) if isinstance(v, dict) else tuple(v)
            self._add(("items", id(v)), "items", v, None, items)
            for item in (v.values() if isinstance(v, dict) else v):
                self.note(item)
        elif isinstance(v, tuple):
            for item in v:
                self.note(item)
        elif isinstance(v, types.MethodType):
            self.note(v.__self__)

    def global_read(self, glb: dict[str, Any], name: str, value: Any) -> None:
        """``name`` looked up in a module's globals."""
        self._add(("global", id(glb), name), "global", glb, name, value)
        self.note(value)

    def builtin_read(self, glb: dict[str, Any], name: str) -> None:
        """``name`` fell through to the builtins: it must stay unshadowed by a global."""
        self._add(("builtin", id(glb), name), "builtin", glb, name)

    def cell_read(self, cell: Any, value: Any) -> None:
        """A closure cell's contents (``nonlocal`` rebinding changes them)."""
        self._add(("cell", id(cell)), "cell", cell, None, value)
        self.note(value)

    def attribute_read(self, base: Any, attr: str, value: Any) -> None:
        """``base.attr`` where ``base`` came from outside (a library module's are not)."""
        if id(base) not in self._external:
            return
        self._add(("attr", id(base), attr), "attr", base, attr, value)
        self.note(value)

    def function_read(self, fn: types.FunctionType) -> None:
        """An inlined function: its code and defaults are read when compiling."""
        if is_library(fn.__globals__.get("__name__")):
            return
        self._add(("function", id(fn)), "function", fn, None,
                  (fn.__code__, fn.__defaults__, fn.__kwdefaults__))
        for d in (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()):
            self.note(d)
        if fn.__kwdefaults__:  # a dict: ``fn.__kwdefaults__["w"] = v`` keeps its identity
            self.note(fn.__kwdefaults__)

    def array_contents(self, a: Any) -> None:
        """An array whose values lowering used as compile-time constants (a shape or an
        axis held in an array): guarded on its shape, dtype and bytes."""
        self._add(("array", id(a)), "array", a, None, (a.shape, a.dtype, a.tobytes()))

    def merge(self, other: Guards | None) -> None:
        """Add the reads of another specialisation (a gradient differentiated again)."""
        if other is None:
            return
        for k, v in other._checks.items():
            self._checks.setdefault(k, v)
        self._external.update(other._external)
        self._check = None

    def _add(self, key: tuple[Any, ...], *check: Any) -> None:
        if key not in self._checks:
            self._checks[key] = check
            self._check = None

    # --- checking -----------------------------------------------------------------------

    def check(self) -> Callable[[], bool]:
        """One generated function: True while every read gives what it gave."""
        if self._check is None:
            self._check = _compile([self._text(i, c) for i, c in enumerate(
                self._checks.values())], self._namespace())
        return self._check

    def changed(self) -> str | None:
        """A description of the first read that changed (for the log), else None."""
        ns = self._namespace()
        for i, c in enumerate(self._checks.values()):
            if not _compile([self._text(i, c)], ns)():
                return _describe(c)
        return None

    def _namespace(self) -> dict[str, Any]:
        ns: dict[str, Any] = {"_M": _MISSING, "_same_items": _same_items}
        for i, (_, holder, _, *expected) in enumerate(self._checks.values()):
            ns[f"h{i}"] = holder
            if expected:
                e = expected[0]
                ns[f"e{i}"] = e
                ns[f"t{i}"] = type(e)
                if isinstance(e, types.MethodType):
                    ns[f"f{i}"], ns[f"s{i}"] = e.__func__, e.__self__
                elif _bound_builtin(e):
                    ns[f"f{i}"], ns[f"s{i}"] = e.__name__, e.__self__
        return ns

    @staticmethod
    def _text(i: int, c: tuple[Any, ...]) -> str:
        kind, _, key, *expected = c
        if kind == "builtin":
            return f"{key!r} not in h{i}"
        if kind == "items":
            return f"_same_items(h{i}, e{i})"
        if kind == "array":
            return (f"h{i}.shape == e{i}[0] and h{i}.dtype == e{i}[1] and "
                    f"h{i}.tobytes() == e{i}[2]")
        if kind == "function":
            return (f"h{i}.__code__ is e{i}[0] and h{i}.__defaults__ is e{i}[1] and "
                    f"h{i}.__kwdefaults__ is e{i}[2]")
        read = {"global": f"h{i}[{key!r}]", "cell": f"h{i}.cell_contents",
                "attr": f"getattr(h{i}, {key!r}, _M)"}[kind]
        e = expected[0]
        if _value_like(e):
            return f"((x := {read}) is e{i} or type(x) is t{i} and x == e{i})"
        if isinstance(e, types.MethodType):
            return f"(getattr(x := {read}, '__func__', _M) is f{i} and x.__self__ is s{i})"
        if _bound_builtin(e):  # ``d.get``: a new object on every read
            return (f"(type(x := {read}) is t{i} and x.__self__ is s{i} and "
                    f"x.__name__ == f{i})")
        return f"{read} is e{i}"


def _bound_builtin(v: Any) -> bool:
    """A C method bound to an object (``d.get``), not a module's function."""
    return isinstance(v, types.BuiltinMethodType) and not isinstance(
        getattr(v, "__self__", None), (types.ModuleType, type(None)))


def _compile(texts: list[str], ns: dict[str, Any]) -> Callable[[], bool]:
    body = " and ".join(f"({t})" for t in texts) or "True"
    source = f"def guard():\n    try:\n        return bool({body})\n" \
             "    except Exception:\n        return False\n"
    exec(compile(source, "<st_autodiff guard>", "exec"), ns)  # noqa: S102 (our own text)
    fn: Callable[[], bool] = ns["guard"]
    return fn


def _describe(c: tuple[Any, ...]) -> str:
    kind, holder, key = c[0], c[1], c[2]
    if kind in ("global", "builtin"):
        return f"global {key!r} of {holder.get('__name__', '?')}"
    if kind == "cell":
        return "a closure variable"
    if kind == "attr":
        return f"attribute {key!r} of a {type(holder).__name__}"
    if kind == "array":
        return "the values of an array used as a constant (a shape or an axis)"
    if kind == "function":
        return f"the code or defaults of {holder.__qualname__}()"
    return f"the items of a {type(holder).__name__}"
