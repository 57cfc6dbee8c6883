"""Values known only by their type: what the compiler computes with instead of data.

While compiling, every runtime value (an argument, and everything computed from one) is an
``Abstract``: its ``Type`` (kind, dtype, shape when known) and whether NumPy would hand back
a scalar (``np.float64``) rather than a 0-d array.  Ops on abstract values are *typed* by the
rules of ``ir/infer`` instead of being run, so the first call of a gradient costs what the
program costs to compile, not what the data costs to compute, and nothing with an effect
(a user's function, a random draw, a print) runs while compiling.

Static values (Python ints, strings, tuples of them, shapes) stay concrete and are still
evaluated exactly; Python containers of abstract values (a tuple returned by a multi-output
op, a list built at run time) are Python containers holding ``Abstract`` items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .types import Type, type_of


@dataclass(frozen=True)
class Abstract:
    """A runtime value known only by its type.

    ``generic`` is True for NumPy scalars (``np.float64(1.0)``, what a full reduction or a
    ufunc of scalars returns) and False for arrays, 0-d ones included; a Python number has
    kind ``float``/``int``/``bool``.  ``item`` is the type every item of a runtime list has
    (``None``: unknown or mixed)."""

    type: Type
    generic: bool = False
    item: Abstract | None = None

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape when known (``()`` for Python numbers)."""
        if self.type.kind in ("float", "int", "bool"):
            return ()
        return self.type.shape

    @property
    def dtype(self) -> np.dtype | None:
        """The NumPy dtype when known (Python numbers: float64, int64, bool)."""
        t = self.type
        if t.dtype is not None:
            return np.dtype(t.dtype)
        return {"float": np.dtype("float64"), "int": np.dtype("int64"),
                "bool": np.dtype("bool")}.get(t.kind)

    @property
    def ndim(self) -> int | None:
        """The rank when known."""
        return self.type.ndim

    def __repr__(self) -> str:
        extra = " scalar" if self.generic else ""
        return f"<abstract {self.type}{extra}>"


def abstract_of(value: Any) -> Any:
    """The abstract version of a concrete runtime value: arrays, NumPy scalars and Python
    floats become ``Abstract``; tuples and lists are mapped item by item; statics (ints,
    bools, strings, None) and other objects stay as they are."""
    if isinstance(value, Abstract) or value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, tuple):
        return tuple(abstract_of(v) for v in value)
    if isinstance(value, list):
        items = [abstract_of(v) for v in value]
        return items
    if type(value) is float:
        return Abstract(Type("float", "float64", ()))
    if isinstance(value, np.generic):
        return Abstract(type_of(value), generic=True)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return Abstract(type_of(value))
    return value


def is_abstract(value: Any) -> bool:
    """Whether ``value`` is, or holds, an abstract value."""
    if isinstance(value, Abstract):
        return True
    if isinstance(value, (tuple, list)):
        return any(is_abstract(v) for v in value)
    return False


def is_numpy_scalar(value: Any) -> bool:
    """Whether a concrete or abstract value is a NumPy scalar (not a 0-d array)."""
    if isinstance(value, Abstract):
        return value.generic
    return isinstance(value, np.generic)


def dummy(value: Any) -> Any:
    """A concrete stand-in of an abstract value, for the few ops without a type rule: ones
    of its shape and dtype (zero-strided, so it costs O(1) memory whatever its size), a
    NumPy scalar, or a Python number.  ``None`` when the shape is unknown."""
    if isinstance(value, tuple):
        return tuple(dummy(v) for v in value)
    if isinstance(value, list):
        return [dummy(v) for v in value]
    if not isinstance(value, Abstract):
        return value
    t = value.type
    if t.kind == "float":
        return 1.0
    if t.kind == "int":
        return 1
    if t.kind == "bool":
        return True
    if t.kind != "array" or t.shape is None or t.dtype is None:
        return None
    dt = np.dtype(t.dtype)
    if value.generic:
        return dt.type(1)
    return np.broadcast_to(np.ones((), dt), t.shape)
