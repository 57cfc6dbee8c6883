"""Dtypes, sizes and devices of the eager runtime, and PyTorch's type promotion.

A ``dtype`` wraps a NumPy dtype and prints like PyTorch's (``torch.float32``), so user
code written for ``torch`` reads the same.  ``Size`` is a tuple that prints as
``torch.Size([2, 3])``; ``device`` names ``cpu`` or ``cuda:N``.

Type promotion follows PyTorch, not NumPy, where the two differ: an integer tensor
combined with a Python float becomes the default float dtype (float32), an ``int64``
tensor times a ``float32`` tensor is ``float32``, and a 0-d tensor does not widen a
tensor with dimensions of the same category (``result_type``).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

__all__ = [
    "Size", "device", "dtype", "get_default_dtype", "promote_types", "result_type",
    "set_default_dtype", "to_dtype",
]


class dtype:  # noqa: N801  (spelled like torch.dtype)
    """A tensor element type: ``torch.float32`` and friends."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "_tensor_type")

    def __init__(self, name: str, np_dtype: Any, tensor_type: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._tensor_type = tensor_type

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def to_real(self) -> dtype:
        """The real counterpart (the dtype itself for real types)."""
        return self


float16 = dtype("float16", np.float16, "HalfTensor")
float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int64 = dtype("int64", np.int64, "LongTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")
#: complex types name what ``torch.fft`` returns (a ``SpectrumTensor``); complex tensors
#: themselves are refused, so these are not in ``ALL_DTYPES``
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor")
half, float_, double = float16, float32, float64
cfloat, cdouble = complex64, complex128
short, int_, long = int16, int32, int64

ALL_DTYPES: tuple[dtype, ...] = (float16, float32, float64, uint8, int8, int16, int32, int64,
                                 bool_)
_BY_NP: dict[np.dtype[Any], dtype] = {d.np: d for d in ALL_DTYPES}
_FLOAT_RANK = {float16: 0, float32: 1, float64: 2}


class _Defaults:
    """Process-wide defaults (PyTorch's default dtype is global, not per thread)."""

    float_dtype: dtype = float32


def get_default_dtype() -> dtype:
    """The dtype of tensors built from Python floats (float32 unless changed)."""
    return _Defaults.float_dtype


def set_default_dtype(d: dtype) -> None:
    """Change the default floating dtype (float16, float32 or float64)."""
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _Defaults.float_dtype = d


#: complex tensors are refused everywhere (docs/architecture.md, "Complex numbers")
COMPLEX_UNSUPPORTED = ("complex tensors are not supported yet: st_autodiff's autograd is "
                       "real-valued (keep the real and imaginary parts as two real tensors)")


def refuse_complex(kind: str, what: str) -> None:
    """A TypeError naming ``what`` when ``kind`` (a NumPy dtype kind) is complex."""
    if kind == "c":
        raise TypeError(f"{what}: {COMPLEX_UNSUPPORTED}")


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The runtime dtype of a NumPy dtype; a TypeError for unsupported ones."""
    found = _BY_NP.get(np_dtype)  # the hot path (Tensor.dtype): no message formatting
    if found is not None:
        return found
    refuse_complex(np.dtype(np_dtype).kind, f"can't convert np.ndarray of type "
                   f"{np.dtype(np_dtype)}")
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only "
                        "supported types are: float64, float32, float16, int64, int32, "
                        "int16, int8, uint8, and bool.") from None


def to_dtype(d: Any) -> dtype:
    """Accept a runtime dtype, a NumPy dtype, a Python type or a dtype name."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    return from_numpy_dtype(d)


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's promotion of two dtypes (floats win over integers whatever their size)."""
    if a is b:
        return a
    af, bf = a.is_floating_point, b.is_floating_point
    if af and bf:
        return a if _FLOAT_RANK[a] >= _FLOAT_RANK[b] else b
    if af:
        return a
    if bf:
        return b
    if a is bool_:
        return b
    if b is bool_:
        return a
    return _BY_NP[np.promote_types(a.np, b.np)]


def _scalar_dtype(value: Any) -> dtype:
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, builtins.int):
        return int64
    return get_default_dtype()


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge a more-dimensioned participant with a less-dimensioned one (by category)."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> dtype:
    """The dtype PyTorch gives an op on ``operands`` (tensors and Python scalars).

    Tensors with dimensions decide first; 0-d tensors and then Python scalars only matter
    when they belong to a higher category (bool < integer < floating point).
    """
    dims: dtype | None = None
    zeros: dtype | None = None
    scalars: dtype | None = None
    for v in operands:
        d = getattr(v, "dtype", None)
        if isinstance(d, dtype):
            if v.ndim:
                dims = d if dims is None else promote_types(dims, d)
            else:
                zeros = d if zeros is None else promote_types(zeros, d)
        elif v is not None:
            s = _scalar_dtype(v)
            scalars = s if scalars is None else promote_types(scalars, s)
    out = _combine(dims, _combine(zeros, scalars))
    assert out is not None, "result_type needs at least one operand"
    return out


class Size(tuple[int, ...]):
    """The shape of a tensor: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item: Any) -> Any:
        got = tuple.__getitem__(self, item)
        return Size(got) if isinstance(item, slice) else got


class device:  # noqa: N801  (spelled like torch.device)
    """Where a tensor lives: ``cpu`` (NumPy) or ``cuda:N`` (CuPy)."""

    __slots__ = ("type", "index")
    type: str
    index: Any  # int | None (None: cpu, or cuda without an index)

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, builtins.int):
            type, index = "cuda", type
        kind, _, num = str(type).partition(":")
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device "
                               f"string: {type}")
        self.type = kind
        self.index = builtins.int(num) if num else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> builtins.bool:
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and self.type == other.type
                and self.index == other.index)

    def __hash__(self) -> builtins.int:
        return hash((self.type, self.index))


CPU = device("cpu")
