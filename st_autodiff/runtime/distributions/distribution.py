"""``Distribution``: the base class of ``torch.distributions``, with PyTorch's shapes and
argument validation.

``batch_shape`` indexes independent distributions, ``event_shape`` the dimensions of one
draw; ``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``.
Validation is on by default (``Distribution.set_default_validate_args``): the constructor
checks every parameter named in ``arg_constraints`` (skipping ``dependent`` ones and lazily
derived ones not yet computed) and ``log_prob``/``cdf`` check the value against ``support``,
raising ``ValueError`` with PyTorch's wording.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import constraints

__all__ = ["Distribution", "ExponentialFamily"]


def _size(shape: Any) -> dtypes.Size:
    return dtypes.Size(tuple(int(s) for s in shape))


class Distribution:
    """The interface every distribution implements (see the module docstring)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for distributions made without ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        for param, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and _is_lazy(type(self), param):
                continue
            value = getattr(self, param)
            if not bool(constraint.check(value)._data.all()):  # (a device: one read)
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}")

    # --- shapes ---------------------------------------------------------------------------

    @property
    def batch_shape(self) -> dtypes.Size:
        return self._batch_shape

    @property
    def event_shape(self) -> dtypes.Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> dtypes.Size:
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same distribution with its batch dimensions broadcast to ``batch_shape``
        (parameters are expanded views; no validation is repeated).

        Every tensor attribute whose leading dimensions are the batch shape is expanded,
        keeping its trailing (event) dimensions; inner distributions are expanded too."""
        new = type(self).__new__(type(self)) if _instance is None else _instance
        old = tuple(self._batch_shape)
        shape = tuple(int(s) for s in batch_shape)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor) and tuple(value.shape)[:len(old)] == old:
                value = value.expand(shape + tuple(value.shape)[len(old):])
            elif isinstance(value, Distribution):
                value = value.expand(shape)
            new.__dict__[name] = value
        new._batch_shape = _size(shape)
        return new

    # --- the interface --------------------------------------------------------------------

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    # --- validation -----------------------------------------------------------------------

    def _validate_sample(self, value: Any) -> None:
        """Raise PyTorch's ``ValueError`` when ``value`` is not a tensor of a compatible
        shape inside ``support``."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if tuple(value.shape)[event_start:] != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = _size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        support = self.support
        if not bool(support.check(value)._data.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _is_lazy(cls: type, name: str) -> bool:
    from .utils import lazy_property

    return isinstance(getattr(cls, name, None), lazy_property)


class ExponentialFamily(Distribution):
    """The classes PyTorch derives from ``ExponentialFamily`` (Normal, Exponential, Gamma,
    Chi2, Beta, Dirichlet, Poisson, Bernoulli): ``kl_divergence`` between two different
    ones that has no closed form raises PyTorch's ``NotImplementedError``."""
