"""Discrete distributions: ``Bernoulli``, ``Categorical``, ``Poisson``, ``Binomial`` and
``NegativeBinomial``.

Those with ``probs=``/``logits=`` store the one given and derive the other lazily
(``lazy_property``), as PyTorch does: ``repr`` and validation see only what was given.
``log_prob`` is differentiable in every float parameter (and in the value where the formula
is smooth in it, as in PyTorch: Poisson's ``xlogy(value, rate) - lgamma(value + 1)``).
Draws have no gradient (there is no ``rsample``); Bernoulli uses ``torch.bernoulli``'s
generator, the others NumPy's samplers seeded from the default generator.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import factory
from .. import functional as F
from ..device import xp_of
from ..grad_mode import no_grad
from ..tensor import Tensor, plain
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import (
    _is_number,
    broadcast_all,
    lazy_property,
    lgamma,
    logits_to_probs,
    logsigmoid,
    probs_to_logits,
    rng_for,
    softplus,
    standard_uniform,
    take_last,
    xlogy,
)

__all__ = ["Bernoulli", "Binomial", "Categorical", "NegativeBinomial", "Poisson"]

_ONE_OF = "Either `probs` or `logits` must be specified, but not both."


def _bce_with_logits(logits: Tensor, target: Tensor) -> Tensor:
    """``binary_cross_entropy_with_logits(logits, target, reduction='none')``."""
    return (1 - target) * logits + softplus(-logits)


class Bernoulli(ExponentialFamily):
    """A draw of 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(() if _is_number(given) else param.size(),
                         validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        p = self.probs
        result: Tensor = F.where(p == 0.5, math.nan, (p >= 0.5).to(p.dtype))
        return result

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return factory.bernoulli(self.probs.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self) -> Tensor:
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = factory.arange(2, dtype=self._param.dtype, device=self._param.device).view(
            (-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Categorical(Distribution):
    """One of ``K`` categories, with ``probs`` (normalised) or ``logits`` over the last dim."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            assert logits is not None
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch = tuple(self._param.shape)[:-1] if self._param.dim() > 1 else ()
        super().__init__(batch, validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Any:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return factory.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                            device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return factory.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                            device=self.probs.device)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draws by inverting each row's cumulative probabilities at uniform values."""
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            p = self.probs._data.astype(np.float64)
            xp = xp_of(p)
            cdf = xp.cumsum(p / p.sum(-1, keepdims=True), -1)
            u = standard_uniform(shape, self.probs)._data.astype(np.float64)
            cdf = xp.broadcast_to(cdf, shape + (self._num_events,))
            idx = (u[..., None] >= cdf[..., :-1]).sum(-1)
            return plain(idx.astype(np.int64))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(tuple(index.shape), tuple(self.logits.shape))
        log_pmf = self.logits.expand(shape)
        index = index.expand(shape)[..., :1]
        return take_last(log_pmf, index).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(np.finfo(self.logits.dtype.np).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = factory.arange(self._num_events, device=self._param.device).view(
            (-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Poisson(ExponentialFamily):
    """Counts with mean ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if _is_number(rate) else self.rate.size(),
                         validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            lam: npt.NDArray[Any] = xp_of(self.rate._data).broadcast_to(self.rate._data, shape)
            return plain(rng_for(lam).poisson(lam).astype(self.rate.dtype.np))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)


class _CountWithProbs(Distribution):
    """``total_count`` with ``probs`` or ``logits`` (Binomial, NegativeBinomial)."""

    def __init__(self, total_count: Any, probs: Any, logits: Any,
                 validate_args: bool | None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return self._param.size()


class Binomial(_CountWithProbs):
    """The number of successes in ``total_count`` trials of probability ``probs``."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(total_count, probs, logits, validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            xp = xp_of(self.probs._data)
            n = xp.broadcast_to(self.total_count._data, shape).astype(np.int64)
            p: npt.NDArray[Any] = xp.broadcast_to(self.probs._data, shape)
            return plain(rng_for(p).binomial(n, p).astype(self._param.dtype.np))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = lgamma(n + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(n - value + 1)
        # n * softplus(logits): PyTorch's clamp/abs spelling of it, with the same gradient
        normalize_term = n * softplus(self.logits) - log_factorial_n
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self) -> Tensor:
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(F.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`.")
        values = factory.arange(1 + total, dtype=self._param.dtype,
                                device=self._param.device).view(
            (-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class NegativeBinomial(_CountWithProbs):
    """The number of successes before ``total_count`` failures, success probability
    ``probs`` (SciPy's ``nbinom(total_count, 1 - probs)``)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(total_count, probs, logits, validate_args)

    @property
    def mean(self) -> Tensor:
        return self.total_count * F.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / F.sigmoid(-self.logits)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A Poisson draw at a Gamma(total_count, exp(-logits)) rate, as PyTorch samples."""
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            xp = xp_of(self.logits._data)
            rng = rng_for(self.logits._data)
            r = xp.broadcast_to(self.total_count._data, shape).astype(np.float64)
            scale = xp.broadcast_to(xp.exp(self.logits._data), shape).astype(np.float64)
            rate = rng.standard_gamma(r) * scale
            return plain(rng.poisson(rate).astype(self._param.dtype.np))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_unnormalized = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -lgamma(n + value) + lgamma(1.0 + value) + lgamma(n)
        # total_count == value == 0 has probability one, where lgamma(0) is infinite
        log_normalization = F.where(n + value == 0.0, 0.0, log_normalization)
        result: Tensor = log_unnormalized - log_normalization
        return result
