"""Comparisons and logic: elementwise, bool results, never recorded (as in PyTorch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import device as D
from .function import TensorBase
from .functional import _broadcast_error, _scalar
from .tensor import Tensor, plain

__all__ = [
    "all", "allclose", "any",
    "eq", "equal", "ge", "greater", "greater_equal", "gt", "isclose", "isfinite",
    "isinf", "isnan", "le", "less", "less_equal", "logical_and", "logical_not", "logical_or",
    "logical_xor", "lt", "ne", "not_equal",
]


def _compare(ufunc: Callable[..., Any], name: str) -> Callable[..., Tensor]:
    def fn(input: Any, other: Any) -> Tensor:
        a = input._data if isinstance(input, TensorBase) else _scalar(input)
        if isinstance(other, TensorBase):
            b = other._data
        else:
            b = _scalar(other)
            if not isinstance(b, (int, float, bool)):
                return NotImplemented  # type: ignore[no-any-return]  # operator protocol
        try:
            return plain(ufunc(a, b))
        except ValueError:
            raise _broadcast_error(a, b) from None
        except TypeError:  # a host and a device operand (checked only then: no cost)
            if D.is_device(a) == D.is_device(b):
                raise
            return plain(ufunc(*D.same_device(a, b)))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``: a bool tensor (no gradient)."
    return fn


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def logical_not(input: Tensor) -> Tensor:
    return plain(np.logical_not(input._data))


def isnan(input: Tensor) -> Tensor:
    return plain(np.isnan(input._data))


def isinf(input: Tensor) -> Tensor:
    return plain(np.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:
    return plain(np.isfinite(input._data))


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and elements."""
    return input.shape == other.shape and bool(np.all(input._data == other._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    return plain(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _reduce_bool(ufunc: Callable[..., Any], name: str) -> Callable[..., Tensor]:
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
        return plain(D.asarray(ufunc(input._data != 0, axis=axis, keepdims=keepdim)))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` over ``dim`` (all dims by default): a bool tensor (no gradient)."
    return fn


any = _reduce_bool(np.any, "any")  # noqa: A001  (PyTorch's name)
all = _reduce_bool(np.all, "all")  # noqa: A001  (PyTorch's name)
