"""The gamma family: ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet`` and ``StudentT``.

Densities use ``lgamma``/``digamma``/``xlogy`` of ``torch.special`` (``runtime/special``),
so they are differentiable in the value and in every parameter.  ``rsample`` builds on
``gamma_sampling.standard_gamma`` (implicit reparameterisation, as PyTorch):
``Gamma`` divides it by ``rate``, ``Dirichlet`` normalises independent gamma draws,
``Beta`` is the first coordinate of a two-component Dirichlet, and ``StudentT`` is
``loc + scale * X / sqrt(Z / df)`` with ``X`` normal and ``Z ~ Chi2(df)``.

PyTorch differentiates a Dirichlet draw with its own implicit rule for the marginal
(``_dirichlet_grad``); the normalised-gamma path used here is another valid pathwise
gradient of the same draw distribution (same expected gradient, different per-draw value).
"""

from __future__ import annotations

import math
from typing import Any

from .. import factory
from .. import functional as F
from ..shape_ops import stack
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .gamma_sampling import standard_gamma
from .utils import (
    _is_number,
    as_float_tensor,
    broadcast_all,
    digamma,
    gammainc,
    lgamma,
    standard_normal,
    xlogy,
)

__all__ = ["Beta", "Chi2", "Dirichlet", "Gamma", "StudentT"]


class Gamma(ExponentialFamily):
    """The gamma distribution with ``concentration`` (shape) and ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        numbers = _is_number(concentration) and _is_number(rate)
        super().__init__(() if numbers else self.concentration.size(),
                         validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.to(self.rate.dtype)
        c = self.concentration
        return xlogy(c, self.rate) + xlogy(c - 1, value) - self.rate * value - lgamma(c)

    def cdf(self, value: Tensor) -> Tensor:
        """``gammainc(concentration, rate * value)``; not differentiable in concentration
        (PyTorch does not differentiate ``igamma`` in its first argument either)."""
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - F.log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)


class Chi2(Gamma):
    """The chi-squared distribution, ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * as_float_tensor(df), 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of the last dimension."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        cm1 = (self.concentration - 1).clamp(min=0.0)
        return cm1 / cm1.sum(-1, True)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        con0 = c.sum(-1, True)
        return c * (con0 - c) / (con0.pow(2) * (con0 + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        g = standard_gamma(self.concentration.expand(tuple(self._extended_shape(sample_shape))))
        return g / g.sum(-1, True)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        result: Tensor = (lgamma(c).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                          - ((c - 1.0) * digamma(c)).sum(-1))
        return result


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1] (a two-component ``Dirichlet`` underneath)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        if _is_number(concentration1) and _is_number(concentration0):
            both = factory.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            both = stack([c1, c0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, ``loc`` and ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        result: Tensor = F.where(self.df <= 1, math.nan, self.loc)
        return result

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        safe = F.where(df > 2, df, 3.0)
        finite = self.scale.pow(2) * safe / (safe - 2)
        inf_or_nan = F.where(df > 1, math.inf, math.nan)
        result: Tensor = F.where(df > 2, finite, inf_or_nan)
        return result

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = standard_normal(tuple(self._extended_shape(sample_shape)), self.df)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * F.rsqrt(z / self.df))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * F.log1p(y**2.0 / self.df) - z

    def entropy(self) -> Tensor:
        half = 0.5 * (self.df + 1)
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(half)
        return (self.scale.log() + half * (digamma(half) - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
