"""``torch.distributions`` for the eager runtime (``import st_autodiff as torch``).

Each distribution follows PyTorch 2's class of the same name: parameters, ``batch_shape``/
``event_shape``, ``log_prob``, ``cdf``/``icdf`` where PyTorch defines them, ``entropy``,
``mean``/``variance``/``stddev``, ``sample`` (no gradient) and ``rsample``
(reparameterised) where PyTorch has it, and ``validate_args`` (on by default) with
PyTorch's ``ValueError`` messages.  Densities are compositions of the runtime's
differentiable functions, so gradients flow to the value and to every float parameter.

>>> import st_autodiff as torch
>>> loc = torch.tensor(0.5, requires_grad=True)
>>> torch.distributions.Normal(loc, 2.0).log_prob(torch.tensor(1.0)).backward()
>>> loc.grad
tensor(0.1250)
"""

from __future__ import annotations

from . import constraints, kl_pairs  # noqa: F401  (kl_pairs registers the KL pairs)
from .continuous import Cauchy, Exponential, Laplace, LogNormal, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, NegativeBinomial, Poisson
from .distribution import Distribution, ExponentialFamily
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal

SUBMODULES = ("constraints", "continuous", "discrete", "distribution", "gamma",
              "gamma_sampling", "kl", "kl_pairs", "multivariate_normal", "utils")
"""The modules of the package (``st_autodiff.distributions.<name>`` aliases them)."""

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
    "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Laplace", "LogNormal",
    "MultivariateNormal",
    "NegativeBinomial", "Normal", "Poisson", "StudentT", "Uniform", "constraints",
    "kl_divergence", "register_kl",
]
