"""``torch.distributions.constraints``: the sets a parameter or a value must lie in.

Each constraint has ``check(value) -> bool Tensor`` (one answer per batch element: event
dimensions are reduced by ``event_dim``) and prints as PyTorch prints it (``Real()``,
``GreaterThan(lower_bound=0.0)`` ...), because those strings are part of the ``ValueError``
messages that ``validate_args`` raises.  Checks run without recording gradients.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..device import is_device, to_device, xp_of
from ..grad_mode import no_grad
from ..tensor import Tensor, plain

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "nonnegative", "nonnegative_integer", "positive",
    "positive_definite", "positive_integer", "real", "real_vector", "simplex", "unit_interval",
]


def _data(value: Any) -> np.ndarray[Any, Any]:
    """A host (NumPy) array of ``value``'s values."""
    return value._host() if isinstance(value, Tensor) else np.asarray(value)


def _values(value: Any, like: Any) -> Any:
    """``value``'s values (a bound) ready to combine with the checked array ``like``: host
    data for host arrays; for device ones device data, or a scalar for a number."""
    if not is_device(like):
        return _data(value)
    v = value._data if isinstance(value, Tensor) else value
    if is_device(v):
        return v
    a = np.asarray(v)
    return a.item() if a.ndim == 0 else to_device(a)  # a Python number: a device scalar


class Constraint:
    """A region of valid values; ``event_dim`` dimensions on the right form one event."""

    is_discrete = False
    event_dim = 0
    _device_ok = True  # ``_ok`` runs on device arrays (else on a host copy)

    def check(self, value: Any) -> Tensor:
        """A bool tensor of the batch shape: True where ``value`` satisfies the constraint
        (on ``value``'s device)."""
        with no_grad():
            if isinstance(value, Tensor) and is_device(value._data):
                if self._device_ok:
                    return plain(self._ok(value._data))
                return plain(to_device(np.asarray(self._ok(value._host()))))
            return plain(np.asarray(self._ok(_data(value))))

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: never checked."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, *, is_discrete: bool = False, event_dim: int = 0) -> _Dependent:
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a ``dependent`` placeholder (skipped by validation)."""
    return isinstance(constraint, _Dependent)


class dependent_property(property):  # noqa: N801  (PyTorch's spelling)
    """A property whose value is a constraint built from the instance's parameters."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        super().__init__(fn)
        self.is_discrete = is_discrete
        self.event_dim = event_dim


class _Real(Constraint):
    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = v == v  # noqa: PLR0124  (False for NaN)
        return result


class _Boolean(Constraint):
    is_discrete = True

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = (v == 0) | (v == 1)
        return result


class _Bound(Constraint):
    """A one-sided bound, printed with its ``lower_bound``."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThan(_Bound):
    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = _values(self.lower_bound, v) < v
        return result


class _GreaterThanEq(_Bound):
    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = _values(self.lower_bound, v) <= v
        return result


class _LessThan(Constraint):
    """``value < upper_bound``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = v < _values(self.upper_bound, v)
        return result

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(_Bound):
    is_discrete = True

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = (v % 1 == 0) & (v >= _values(self.lower_bound, v))
        return result


class _Interval(Constraint):
    """``lower_bound <= value <= upper_bound``."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        lo, hi = _values(self.lower_bound, v), _values(self.upper_bound, v)
        result: np.ndarray[Any, Any] = (lo <= v) & (v <= hi)
        return result

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _HalfOpenInterval(_Interval):
    """``lower_bound <= value < upper_bound``."""

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        lo, hi = _values(self.lower_bound, v), _values(self.upper_bound, v)
        result: np.ndarray[Any, Any] = (lo <= v) & (v < hi)
        return result


class _IntegerInterval(_Interval):
    is_discrete = True

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = (v % 1 == 0) & super()._ok(v)
        return result


class _Simplex(Constraint):
    """Nonnegative entries along the last dimension that sum to one (within 1e-6)."""

    event_dim = 1

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        result: np.ndarray[Any, Any] = (v >= 0).all(axis=-1) & (abs(v.sum(-1) - 1) < 1e-6)
        return result


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        xp = xp_of(v)
        lower = (xp.tril(v) == v).all(axis=(-2, -1))
        result: np.ndarray[Any, Any] = lower & (xp.diagonal(v, axis1=-2, axis2=-1) > 0).all(
            axis=-1)
        return result


class _PositiveDefinite(Constraint):
    """Symmetric (within 1e-6) matrices whose Cholesky factorisation succeeds."""

    event_dim = 2
    _device_ok = False  # a Cholesky attempt per matrix, on the host

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        if v.ndim < 2 or v.shape[-1] != v.shape[-2]:
            return np.zeros(v.shape[:-2], bool)
        sym: np.ndarray[Any, Any] = np.all(np.isclose(v, np.swapaxes(v, -1, -2), atol=1e-6),
                                 axis=(-2, -1))
        if not np.all(sym):
            return sym
        flat = v.reshape((-1,) + v.shape[-2:])
        ok = np.empty(len(flat), bool)
        for i, m in enumerate(flat):
            try:
                np.linalg.cholesky(m)
                ok[i] = True
            except np.linalg.LinAlgError:
                ok[i] = False
        return ok.reshape(v.shape[:-2])


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its rightmost ``reinterpreted_batch_ndims`` dims as one event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims
        self._device_ok = base_constraint._device_ok

    def _ok(self, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        ok = self.base_constraint._ok(v)
        n = self.reinterpreted_batch_ndims
        return cast("np.ndarray[Any, Any]", ok.all(axis=tuple(range(-n, 0)))) if n else ok

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


dependent = _Dependent()
boolean = _Boolean()
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
interval = _Interval
less_than = _LessThan
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
