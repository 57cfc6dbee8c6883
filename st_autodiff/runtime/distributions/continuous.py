"""Location-scale and simple continuous distributions: ``Normal``, ``LogNormal``,
``Laplace``, ``Cauchy``, ``Uniform``, ``Exponential``.

Formulas are PyTorch's (``torch/distributions/<name>.py``), written with the runtime's
differentiable functions, so ``log_prob``, ``cdf``, ``icdf``, ``entropy`` and ``rsample``
are differentiable in the value and in every parameter.  ``rsample`` is
``loc + scale * eps`` with ``eps`` drawn from the PyTorch-compatible generator (a standard
normal for ``Normal``/``LogNormal``, uniform for ``Uniform``/``Laplace``/``Cauchy``/
``Exponential``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import factory, special
from .. import functional as F
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import _is_number, broadcast_all, finfo, standard_normal, standard_uniform

__all__ = ["Cauchy", "Exponential", "Laplace", "LogNormal", "Normal", "Uniform"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class _LocScale(Distribution):
    """A distribution with a real ``loc`` and a positive ``scale`` broadcast together."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = _is_number(loc) and _is_number(scale)
        super().__init__(() if numbers else self.loc.size(), validate_args=validate_args)

    def _check(self, value: Any) -> None:
        if self._validate_args:
            self._validate_sample(value)

    def _shaped(self, sample_shape: Any) -> tuple[int, ...]:
        return tuple(self._extended_shape(sample_shape))


class Normal(_LocScale, ExponentialFamily):
    """The normal distribution ``N(loc, scale**2)``.

    >>> import st_autodiff as torch
    >>> torch.distributions.Normal(0.0, 1.0).log_prob(torch.tensor(0.0))
    tensor(-0.9189)
    """

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = standard_normal(self._shaped(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        self._check(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        self._check(value)
        return 0.5 * (1 + special.erf((value - self.loc) * self.scale.reciprocal()
                                      / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * special.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + F.log(self.scale)


class LogNormal(Distribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)`` (PyTorch's ``TransformedDistribution``
    of a ``Normal`` by ``ExpTransform``; ``base_dist`` is that normal)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        x = value.log()
        return self.base_dist.log_prob(x) - x

    def cdf(self, value: Tensor) -> Tensor:
        x = value.log()
        if self._validate_args:
            self.base_dist._validate_sample(x)
        return self.base_dist.cdf(x)

    def icdf(self, value: Tensor) -> Tensor:
        return self.base_dist.icdf(value).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


class Laplace(_LocScale):
    """The Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``."""

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = float(finfo(self.loc).eps)
        u = standard_uniform(self._shaped(sample_shape), self.loc, eps - 1, 1)
        return self.loc - self.scale * u.sign() * F.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        self._check(value)
        return -F.log(2 * self.scale) - F.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        self._check(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * F.expm1(-d.abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * F.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + F.log(2 * self.scale)


class Cauchy(_LocScale):
    """The Cauchy distribution (no mean, infinite variance)."""

    @property
    def mean(self) -> Tensor:
        return factory.full(self._extended_shape(), math.nan, dtype=self.loc.dtype,
                            device=self.loc.device)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return factory.full(self._extended_shape(), math.inf, dtype=self.loc.dtype,
                            device=self.loc.device)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = standard_uniform(self._shaped(sample_shape), self.loc)
        eps = F.tan(math.pi * (u - 0.5))  # ``cauchy_()``: the inverse CDF of a uniform
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        self._check(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value: Tensor) -> Tensor:
        self._check(value)
        return F.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return F.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        numbers = _is_number(low) and _is_number(high)
        super().__init__(() if numbers else self.low.size(), validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        rand = standard_uniform(tuple(self._extended_shape(sample_shape)), self.low)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return F.log(lb * ub) - F.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return F.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """The exponential distribution with ``rate`` (mean ``1 / rate``)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if _is_number(rate) else self.rate.size(),
                         validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return factory.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = standard_uniform(tuple(self._extended_shape(sample_shape)), self.rate)
        return -F.log1p(-u) / self.rate  # ``exponential_()`` by inversion

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - F.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        return -F.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - F.log(self.rate)
