"""Distribution cases shared by ``test_distributions*.py``: constructor, float64 parameters
inside each parameter's domain, values inside the support, and SciPy's log-density.

``value_grad`` says whether ``log_prob`` is differentiable in the value (continuous
distributions); ``params`` are all differentiable.  ``make(D, **params)`` builds the
distribution from a ``torch.distributions``-like namespace ``D`` (ours or PyTorch's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[..., Any]
    params: dict[str, np.ndarray]
    value: np.ndarray
    logpdf: Callable[..., np.ndarray]
    value_grad: bool = True
    cdf: bool = False
    icdf: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _a(*v: Any) -> np.ndarray:
    return np.array(v, dtype=np.float64)


def _nbinom(v: np.ndarray, total_count: np.ndarray, probs: np.ndarray) -> np.ndarray:
    return stats.nbinom.logpmf(v, total_count, 1 - probs)


def _mvn(v: np.ndarray, loc: np.ndarray, cov: np.ndarray) -> np.ndarray:
    return np.array([stats.multivariate_normal.logpdf(x, loc, cov) for x in v])


_SPD = _a([2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.1])
_TRIL = np.linalg.cholesky(_SPD)

CASES = [
    Case("Normal", lambda D, loc, scale: D.Normal(loc, scale),
         {"loc": _a(0.3, -1.2), "scale": _a(0.7, 2.0)}, _a(0.1, 0.5),
         lambda v, loc, scale: stats.norm.logpdf(v, loc, scale), cdf=True, icdf=True),
    Case("LogNormal", lambda D, loc, scale: D.LogNormal(loc, scale),
         {"loc": _a(0.3, -1.2), "scale": _a(0.7, 2.0)}, _a(0.4, 2.5),
         lambda v, loc, scale: stats.lognorm.logpdf(v, scale, scale=np.exp(loc)),
         cdf=True, icdf=True),
    Case("Laplace", lambda D, loc, scale: D.Laplace(loc, scale),
         {"loc": _a(0.3, -1.2), "scale": _a(0.7, 2.0)}, _a(0.1, 0.5),
         lambda v, loc, scale: stats.laplace.logpdf(v, loc, scale), cdf=True, icdf=True),
    Case("Cauchy", lambda D, loc, scale: D.Cauchy(loc, scale),
         {"loc": _a(0.3, -1.2), "scale": _a(0.7, 2.0)}, _a(0.1, 0.5),
         lambda v, loc, scale: stats.cauchy.logpdf(v, loc, scale), cdf=True, icdf=True),
    Case("Uniform", lambda D, low, high: D.Uniform(low, high),
         {"low": _a(0.3, -1.2), "high": _a(1.7, 2.0)}, _a(0.9, 0.5),
         lambda v, low, high: stats.uniform.logpdf(v, low, high - low), cdf=True, icdf=True),
    Case("Exponential", lambda D, rate: D.Exponential(rate), {"rate": _a(0.7, 2.0)},
         _a(0.4, 1.5), lambda v, rate: stats.expon.logpdf(v, scale=1 / rate),
         cdf=True, icdf=True),
    Case("Gamma", lambda D, concentration, rate: D.Gamma(concentration, rate),
         {"concentration": _a(0.8, 3.5), "rate": _a(0.7, 2.0)}, _a(0.4, 1.5),
         lambda v, concentration, rate: stats.gamma.logpdf(v, concentration, scale=1 / rate)),
    Case("Chi2", lambda D, df: D.Chi2(df), {"df": _a(1.5, 4.0)}, _a(0.4, 3.5),
         lambda v, df: stats.chi2.logpdf(v, df)),
    Case("StudentT", lambda D, df, loc, scale: D.StudentT(df, loc, scale),
         {"df": _a(1.5, 4.0), "loc": _a(0.3, -1.2), "scale": _a(0.7, 2.0)}, _a(0.1, 0.5),
         lambda v, df, loc, scale: stats.t.logpdf(v, df, loc, scale)),
    Case("Beta", lambda D, concentration1, concentration0: D.Beta(concentration1,
                                                                  concentration0),
         {"concentration1": _a(0.8, 3.5), "concentration0": _a(2.0, 1.3)}, _a(0.3, 0.85),
         lambda v, concentration1, concentration0: stats.beta.logpdf(v, concentration1,
                                                                      concentration0)),
    Case("Dirichlet", lambda D, concentration: D.Dirichlet(concentration),
         {"concentration": _a([0.8, 3.5, 1.2], [2.0, 1.3, 4.0])},
         _a([0.2, 0.5, 0.3], [0.1, 0.3, 0.6]),
         lambda v, concentration: np.array([stats.dirichlet.logpdf(x, c)
                                            for x, c in zip(v, concentration, strict=True)]),
         value_grad=False),
    Case("Poisson", lambda D, rate: D.Poisson(rate), {"rate": _a(0.7, 4.0)}, _a(0.0, 3.0),
         lambda v, rate: stats.poisson.logpmf(v, rate), value_grad=False),
    Case("Binomial", lambda D, probs: D.Binomial(7, probs), {"probs": _a(0.3, 0.8)},
         _a(2.0, 7.0), lambda v, probs: stats.binom.logpmf(v, 7, probs), value_grad=False),
    Case("BinomialLogits", lambda D, logits: D.Binomial(7, logits=logits),
         {"logits": _a(-0.4, 1.3)}, _a(2.0, 7.0),
         lambda v, logits: stats.binom.logpmf(v, 7, special.expit(logits)), value_grad=False),
    Case("NegativeBinomial", lambda D, total_count, probs: D.NegativeBinomial(total_count,
                                                                              probs),
         {"total_count": _a(2.5, 4.0), "probs": _a(0.3, 0.8)}, _a(0.0, 5.0), _nbinom,
         value_grad=False),
    Case("Bernoulli", lambda D, probs: D.Bernoulli(probs), {"probs": _a(0.3, 0.8)},
         _a(1.0, 0.0), lambda v, probs: stats.bernoulli.logpmf(v, probs), value_grad=False),
    Case("BernoulliLogits", lambda D, logits: D.Bernoulli(logits=logits),
         {"logits": _a(-0.4, 1.3)}, _a(1.0, 0.0),
         lambda v, logits: stats.bernoulli.logpmf(v, special.expit(logits)), value_grad=False),
    Case("Categorical", lambda D, probs: D.Categorical(probs),
         {"probs": _a([0.2, 0.5, 0.3], [0.1, 0.3, 0.6])}, _a(2.0, 0.0),
         lambda v, probs: np.log(probs[np.arange(2), v.astype(int)]), value_grad=False),
    Case("CategoricalLogits", lambda D, logits: D.Categorical(logits=logits),
         {"logits": _a([0.2, -1.5, 0.3], [1.1, 0.3, 0.6])}, _a(2.0, 0.0),
         lambda v, logits: special.log_softmax(logits, -1)[np.arange(2), v.astype(int)],
         value_grad=False),
    Case("MVNCovariance", lambda D, loc, covariance_matrix: D.MultivariateNormal(
        loc, covariance_matrix=covariance_matrix),
         {"loc": _a(0.3, -1.2, 0.5), "covariance_matrix": _SPD},
         _a([0.1, 0.5, -0.3], [1.0, -2.0, 0.2]),
         lambda v, loc, covariance_matrix: _mvn(v, loc, covariance_matrix)),
    Case("MVNScaleTril", lambda D, loc, scale_tril: D.MultivariateNormal(
        loc, scale_tril=scale_tril),
         {"loc": _a(0.3, -1.2, 0.5), "scale_tril": _TRIL},
         _a([0.1, 0.5, -0.3], [1.0, -2.0, 0.2]),
         lambda v, loc, scale_tril: _mvn(v, loc, scale_tril @ scale_tril.T)),
    Case("MVNPrecision", lambda D, loc, precision_matrix: D.MultivariateNormal(
        loc, precision_matrix=precision_matrix),
         {"loc": _a(0.3, -1.2, 0.5), "precision_matrix": np.linalg.inv(_SPD)},
         _a([0.1, 0.5, -0.3], [1.0, -2.0, 0.2]),
         lambda v, loc, precision_matrix: _mvn(v, loc, np.linalg.inv(precision_matrix))),
]

BY_NAME = {c.name: c for c in CASES}
