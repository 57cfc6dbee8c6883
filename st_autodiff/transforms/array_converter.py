"""NumPy 2's ``_array_converter`` and ``np.broadcast`` as Python the compiler reads
(design/staging.md §2).

NumPy functions written in Python (``np.apply_along_axis``, ``np.linalg``'s helpers,
``scipy.signal.detrend`` through them) build ``conv = _array_converter(a, b)`` and call
``conv.as_arrays()``, ``conv.wrap(result)``, ``conv.result_type()`` and read
``conv.scalar_input``.  The real class is C code the compiler cannot read, so calls to it
are aliased (``static_calls.ALIASES``) to :class:`ArrayConverter`, which does the same in
plain Python: the compiler builds it like any user object and inlines its methods, and
what they ask of runtime values (their Python type, dtype, rank) are static queries,
answered from the values' types or refused where the type is not known.

``np.broadcast(*arrays)`` (``np.broadcast_arrays``' helper, statsmodels' links) is modelled
by :class:`Broadcast`: its shape and sizes follow from the inputs' shapes, which are static.
Iterating one (pairs of elements) is not modelled and stays a located refusal.

Only ndarray inputs exist in differentiated code (no subclasses, no ``__array_wrap__``),
so ``subok`` changes nothing and ``wrap`` is ``np.asarray`` plus NumPy's ``to_scalar``
rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

try:  # NumPy 2
    from numpy._core._multiarray_umath import (  # type: ignore[import-not-found]  # no stubs
        _array_converter,
    )
    NUMPY_CONVERTER: Any = _array_converter
except ImportError:  # NumPy 1 has no such class (nothing to alias)
    NUMPY_CONVERTER = None

_PY_SCALARS = (int, float, complex)  # bool is an int


def _is_py_scalar(v: Any) -> bool:
    """A Python number NumPy types weakly and may keep as it is (a bool is converted)."""
    return type(v) in (int, float, complex)


class ArrayConverter:
    """``_array_converter(*arrays)``: the inputs, with NumPy's conversions on demand."""

    def __init__(self, *arrays: Any) -> None:
        self._inputs = arrays

    def __len__(self) -> int:
        return len(self._inputs)

    def __getitem__(self, i: int) -> Any:
        """``conv[i]``: the ``i``-th of the default ``as_arrays()``."""
        return self.as_arrays()[i]

    @property
    def scalar_input(self) -> tuple[bool, ...]:
        """Per input, whether it was a scalar (Python or NumPy), not an array."""
        return tuple(isinstance(a, (*_PY_SCALARS, np.generic)) for a in self._inputs)

    def as_arrays(self, subok: bool = True, pyscalars: str = "convert_if_no_array"
                  ) -> tuple[Any, ...]:
        """The inputs as arrays; Python scalars kept for ``"preserve"``, and for
        ``"convert_if_no_array"`` unless every input is one."""
        if pyscalars not in ("convert", "preserve", "convert_if_no_array"):
            raise ValueError("pyscalars must be one of 'convert', 'preserve', or "
                             f"'convert_if_no_array' (got '{pyscalars}')")
        if pyscalars == "convert_if_no_array":
            every = all(_is_py_scalar(a) for a in self._inputs)
            pyscalars = "convert" if every else "preserve"
        keep = pyscalars == "preserve"
        return tuple(a if keep and _is_py_scalar(a) else np.asarray(a) for a in self._inputs)

    def wrap(self, arr: Any, to_scalar: bool | None = None) -> Any:
        """``arr`` itself, or its element as a NumPy scalar where it has rank 0 and
        ``to_scalar`` says so (by default: where every input was a scalar).  NumPy returns a
        Python number itself; here it becomes the NumPy scalar of the same value (which
        compiled code does not tell apart from a 0-d array)."""
        if to_scalar is None:
            to_scalar = all(self.scalar_input)
        if not to_scalar or np.ndim(arr) != 0:
            return arr
        return np.asarray(arr)[()]

    def result_type(self, extra_dtype: Any = None, ensure_inexact: bool = False) -> np.dtype[Any]:
        """``np.result_type`` of the inputs (Python scalars weakly typed), with
        ``extra_dtype``; at least floating point with ``ensure_inexact``."""
        if extra_dtype is not None and ensure_inexact:
            raise TypeError("extra_dtype and ensure_inexact are mutually exclusive.")
        extra = () if extra_dtype is None else (extra_dtype,)
        dt = np.result_type(*self._inputs, *extra)
        if ensure_inexact:
            dt = np.result_type(dt, 0.0)
        return dt


class Broadcast:
    """``np.broadcast(*arrays)``: the broadcast shape of the inputs and its sizes."""

    def __init__(self, *arrays: Any) -> None:
        if len(arrays) > 64:
            raise ValueError(f"Need at most 64 array objects, got {len(arrays)}")
        self.numiter = len(arrays)
        self.shape = np.broadcast_shapes(*[np.shape(a) for a in arrays])
        self.nd = self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.index = 0
