"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences by type pair.

The lookup takes the registered pair whose types are nearest in the two MROs (so a
``Chi2`` pair uses the ``Gamma`` formula).  Formulas are PyTorch's (``torch/distributions/
kl.py``), with masked assignments written as ``where``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from .. import functional as F
from ..tensor import Tensor
from .continuous import Exponential, Laplace, Normal
from .discrete import Bernoulli, Categorical, Poisson
from .distribution import Distribution, ExponentialFamily
from .gamma import Beta, Dirichlet, Gamma
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .utils import diagonal, digamma, lgamma, softplus, solve_lower

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}
_KLFunction = TypeVar("_KLFunction", bound=Callable[..., Tensor])


def register_kl(type_p: type, type_q: type) -> Callable[[_KLFunction], _KLFunction]:
    """Decorator registering ``fun(p, q)`` as KL(p || q) for the pair of types."""
    for t, name in ((type_p, "type_p"), (type_q, "type_q")):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fun: _KLFunction) -> _KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        return fun

    return decorator


def _dispatch(tp: type, tq: type) -> Callable[[Any, Any], Tensor] | None:
    best: tuple[int, Callable[[Any, Any], Tensor]] | None = None
    for i, a in enumerate(tp.__mro__):
        for j, b in enumerate(tq.__mro__):
            fun = _KL_REGISTRY.get((a, b))
            if fun is not None and (best is None or i + j < best[0]):
                best = (i + j, fun)
    return None if best is None else best[1]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, one value per batch element.

    >>> import st_autodiff as torch
    >>> D = torch.distributions
    >>> D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0))
    tensor(0.5000)
    """
    fun = _dispatch(type(p), type(q))
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    return fun(p, q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: Distribution, q: Distribution) -> Tensor:
    """Two different exponential families without a registered formula.  (PyTorch computes
    a same-family pair by a Bregman divergence; every same-family pair here has its own
    formula, so that case does not arise.)"""
    raise NotImplementedError("The cross KL-divergence between different exponential "
                              "families cannot                             be computed "
                              "using Bregman divergences")


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = F.where(p.probs == 0, 0.0, F.where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = F.where(p.probs == 1, 0.0, F.where(q.probs == 1, math.inf, t2))
    result: Tensor = t1 + t2
    return result


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = F.where((q.probs == 0).expand_as(t), math.inf, t)
    t = F.where((p.probs == 0).expand_as(t), 0.0, t)
    result: Tensor = t.sum(-1)
    return result


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return (-scale_ratio.log() + loc_abs_diff / q.scale
            + scale_ratio * F.exp(-loc_abs_diff / p.scale) - 1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = lgamma(sum_p) - lgamma(sum_q)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = digamma(p.concentration) - digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different "
                         "event shapes cannot be computed")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = diagonal(lq).log().sum(-1) - diagonal(lp).log().sum(-1)
    n = p.event_shape[0]
    # trace(X X^T) for X = lq^{-1} lp: solve column by column (columns of lp as vectors)
    term2 = solve_lower(lq.unsqueeze(-3), lp.mT).pow(2).sum((-2, -1))
    term3 = batch_mahalanobis(lq, q.loc - p.loc)
    result: Tensor = half_term1 + 0.5 * (term2 + term3 - n)
    return result
