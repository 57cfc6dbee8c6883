"""NamedTuple and dataclass instances as pytree nodes ("records").

A record's spec (``Record``) names its class and fields; each field's spec is a tree spec
as in ``trees`` (a leaf index, a nested container, a record) or a ``Static`` value: inside
a record, ints, strings, bools, ``None``-free tuples of those and callables (functions,
classes, ufuncs, modules) are fields fixed at compile time, like JAX's metadata fields of a
registered dataclass.  Static fields are part of the structure, so a call whose static
fields differ (by value; callables by identity) compiles again, and the gradient, tangent
and output records carry them unchanged.

A record is rebuilt without running the class's ``__init__``/``__post_init__`` (the
fields are set as they are, frozen dataclasses included): gradients are values of the
same class, not validated parameters, and a ``__post_init__`` that computes or checks
fields would change them.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: class -> field names, or None for a class that is not a record
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def record_fields(x: Any) -> tuple[str, ...] | None:
    """The field names of a NamedTuple or dataclass instance, else ``None``.  A dataclass
    instance's own attributes set outside its fields (in ``__post_init__``) follow them."""
    t = type(x)
    try:
        names = _FIELDS[t]
    except KeyError:
        names = _FIELDS[t] = _class_fields(t)
    except TypeError:  # an unhashable class object: not a record
        return None
    if names is None or isinstance(x, tuple):
        return names
    extra = getattr(x, "__dict__", None)
    if extra and any(k not in names for k in extra):
        names = names + tuple(k for k in extra if k not in names)
    return tuple(n for n in names if hasattr(x, n))


def _class_fields(t: type) -> tuple[str, ...] | None:
    module = getattr(t, "__module__", None)  # a descriptor on some C types (Cython's)
    if not isinstance(module, str) or module.partition(".")[0] == "st_autodiff":
        return None  # the compiler's own (IR nodes, shape-dtype stand-ins ...) are leaves
    if issubclass(t, tuple):
        fields = getattr(t, "_fields", None)
        if isinstance(fields, tuple) and all(isinstance(f, str) for f in fields):
            return fields
        return None
    if dataclasses.is_dataclass(t):
        return tuple(f.name for f in dataclasses.fields(t))
    return None


def is_record(x: Any) -> bool:
    """Whether ``x`` is a NamedTuple or dataclass instance (a pytree node)."""
    t = type(x)
    names = _FIELDS.get(t, False)
    if names is False:
        if isinstance(x, type):
            return False
        names = record_fields(x)
    return names is not None


class Static:
    """A record field fixed at compile time (see the module docstring)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        v = self.value
        if _is_callable_static(v):  # by identity (the spec keeps it alive, so ids differ)
            return f"<static {getattr(v, '__qualname__', type(v).__name__)}@{id(v):x}>"
        return f"<static {type(v).__name__} {v!r}>"


def static_field(v: Any) -> bool:
    """Whether a record field's value is a static one (see ``Static``)."""
    if v is None or isinstance(v, Static):
        return False
    return _is_value_static(v) or _is_callable_static(v)


def _is_value_static(v: Any) -> bool:
    if type(v) in (int, bool, str, bytes) or isinstance(v, np.dtype):
        return True
    return type(v) in (tuple, frozenset) and all(
        x is None or _is_value_static(x) for x in v)


def _is_callable_static(v: Any) -> bool:
    return isinstance(v, (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc,
                          types.ModuleType, functools.partial, types.MethodType))


class Record:
    """The spec of a NamedTuple or dataclass instance: its class, field names and one spec
    per field."""

    __slots__ = ("cls", "names", "children")

    def __init__(self, cls: type, names: Sequence[str], children: Sequence[Any]) -> None:
        self.cls = cls
        self.names = tuple(names)
        self.children = tuple(children)

    def __repr__(self) -> str:  # the cache key: class by identity, fields, statics by value
        inner = ", ".join(f"{n}={c!r}" for n, c in zip(self.names, self.children))
        return f"{self.cls.__qualname__}@{id(self.cls):x}({inner})"

    def describe(self, child: Callable[[Any], str]) -> str:
        """``P(w=*, b=*)`` for error messages."""
        inner = ", ".join(f"{n}={c.value!r}" if isinstance(c, Static) else f"{n}={child(c)}"
                          for n, c in zip(self.names, self.children))
        return f"{self.cls.__name__}({inner})"

    def values(self, x: Any) -> list[Any]:
        """The field values of an instance, in field order."""
        return [getattr(x, n) for n in self.names]

    def make(self, values: Sequence[Any]) -> Any:
        """An instance with these field values (statics filled in where ``values`` has a
        placeholder), built without ``__init__``."""
        vals = [c.value if isinstance(c, Static) else v for c, v in zip(self.children, values)]
        return make(self.cls, self.names, vals)


def make(cls: type, names: Sequence[str], values: Sequence[Any]) -> Any:
    """An instance of the record class ``cls`` with fields ``names`` set to ``values``
    (generated code of structured arguments and of record outputs calls this)."""
    if issubclass(cls, tuple):
        return tuple.__new__(cls, tuple(values))
    obj = object.__new__(cls)
    for n, v in zip(names, values):
        object.__setattr__(obj, n, v)
    return obj


def source_call(spec: Record, parts: list[str], globals_: dict[str, Any], name: str) -> str:
    """Python source building a record of spec ``spec`` from the source of each non-static
    field (``parts``), the helper it calls registered in ``globals_`` as ``name``."""
    globals_[name] = _Builder(spec)
    return f"{name}({', '.join(parts)})"


class _Builder:
    """``spec.make`` from its non-static fields only (generated code calls it)."""

    __slots__ = ("spec", "slots")

    def __init__(self, spec: Record) -> None:
        self.spec = spec
        self.slots = [k for k, c in enumerate(spec.children) if not isinstance(c, Static)]

    def __call__(self, *parts: Any) -> Any:
        vals: list[Any] = [None] * len(self.spec.children)
        for k, v in zip(self.slots, parts):
            vals[k] = v
        return self.spec.make(vals)
