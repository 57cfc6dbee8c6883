"""Value types of the IR: what kind of value a node holds, its dtype and (when known) shape.

Types come from example values (the arguments of the first call): a shape is recorded
only when it follows from the argument shapes alone, so specialised code stays valid for
every call with the same argument kinds.  ``None`` anywhere means "unknown"; passes must
treat unknown as "could be anything" and stay correct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

_SHORT = {
    "float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64", "int32": "i32",
    "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool", "complex128": "c128",
    "complex64": "c64",
}


@dataclass(frozen=True)
class Type:
    """``kind`` is one of array, float, int, bool, tuple, list, none, object."""

    kind: str
    dtype: str | None = None
    shape: tuple[int, ...] | None = None

    @property
    def is_float(self) -> bool:
        """True for values a gradient can flow through (real floating point)."""
        if self.kind == "float":
            return True
        return self.kind == "array" and self.dtype is not None and self.dtype.startswith(
            ("float", "complex"))

    @property
    def is_scalar(self) -> bool:
        """True for Python numbers and 0-d arrays."""
        return self.kind in ("float", "int", "bool") or self.shape == ()

    @property
    def ndim(self) -> int | None:
        """Rank when known."""
        if self.kind in ("float", "int", "bool"):
            return 0
        return None if self.shape is None else len(self.shape)

    def without_shape(self) -> Type:
        """The same type with the shape forgotten (for data-dependent shapes)."""
        return Type(self.kind, self.dtype, None) if self.kind == "array" else self

    def __str__(self) -> str:
        if self.kind != "array":
            return self.kind
        dt = _SHORT.get(self.dtype or "", self.dtype or "?")
        if self.shape is None:
            return f"{dt}[?]"
        return f"{dt}[{','.join(str(d) for d in self.shape)}]"


def type_of(value: Any) -> Type:
    """The type of a concrete value (NumPy or CuPy array, Python scalar, tuple …)."""
    if isinstance(value, bool):
        return Type("bool")
    if isinstance(value, int):
        return Type("int")
    if type(value) is float:  # NumPy scalars (np.float64 too) are typed like 0-d arrays
        return Type("float", "float64", ())
    if value is None:
        return Type("none")
    if isinstance(value, (tuple, list)):
        return Type("tuple")
    if isinstance(value, type):  # a class (np.ndarray has shape and dtype descriptors)
        return Type("object")
    if isinstance(getattr(value, "type", None), Type):  # an ``Abstract``: its own type
        return cast(Type, value.type)
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dtype is not None and isinstance(shape, tuple) and not callable(value):
        # (backends, issue 15: an array-API dtype object's name; a Dask dimension of
        # unknown length (NaN) or None is an unknown shape)
        name = str(dtype)
        if "." in name:
            name = name.rsplit(".", 1)[-1]
        if any(d is None or d != d for d in shape):
            return Type("array", name, None)
        return Type("array", name, tuple(int(d) for d in shape))
    return Type("object")


def type_module(value: Any) -> str:
    """The module name of ``value``'s type: ``""`` where the type does not say (Cython's
    function types hold a descriptor in ``__module__``, not a string)."""
    module = getattr(type(value), "__module__", None)
    return module if isinstance(module, str) else ""
