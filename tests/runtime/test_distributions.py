"""``st_autodiff.distributions`` (``torch.distributions`` of the eager runtime).

log_prob against SciPy, gradients (parameters, value, entropy, cdf, icdf) against central
differences in float64, moments of draws, shapes, validation errors, KL divergences, and a
few gradients against JAX.  ``rsample`` is tested in ``test_distributions_rsample.py``,
the comparison with PyTorch itself in ``test_distributions_torch.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import special, stats

import st_autodiff as torch
from st_autodiff.runtime.distributions.utils import tril as dist_tril

from .dist_cases import BY_NAME, CASES, Case

D = torch.distributions
RNG = np.random.default_rng(0)


def t64(a: Any, grad: bool = False) -> Any:
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _fixed(name: str, a: Any) -> Any:
    """Parameters that must stay structured under perturbation (symmetric, triangular)."""
    if name in ("covariance_matrix", "precision_matrix"):
        return (a + a.mT) / 2 if hasattr(a, "mT") else (a + np.swapaxes(a, -1, -2)) / 2
    if name == "scale_tril":
        return dist_tril(a) if isinstance(a, torch.Tensor) else np.tril(a)
    return a


def numeric_grad(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6
                 ) -> np.ndarray:
    """Central differences of the scalar ``f`` at ``x`` (float64)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


def _objective(case: Case, arrays: dict[str, Any], weights: dict[str, np.ndarray]) -> Any:
    """sum(w * log_prob) + sum(w * entropy) + cdf/icdf terms, for tensors or arrays."""
    params = {k: _fixed(k, v) if isinstance(v, torch.Tensor) else
              _fixed(k, t64(v)) for k, v in arrays.items() if k not in ("value", "q")}
    value = arrays["value"] if isinstance(arrays["value"], torch.Tensor) else t64(
        arrays["value"])
    d = case.make(D, **params)
    total = (d.log_prob(value) * t64(weights["lp"])).sum()
    if type(d).entropy is not D.Distribution.entropy:  # Poisson, NegativeBinomial: none
        total = total + (d.entropy() * t64(weights["ent"])).sum()
    if case.cdf:
        total = total + (d.cdf(value) * t64(weights["lp"])).sum()
    if case.icdf:
        q = arrays["q"] if isinstance(arrays["q"], torch.Tensor) else t64(arrays["q"])
        total = total + (d.icdf(q) * t64(weights["lp"])).sum()
    return total


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_log_prob_matches_scipy(case: Case) -> None:
    d = case.make(D, **{k: t64(v) for k, v in case.params.items()})
    got = d.log_prob(t64(case.value)).numpy()
    np.testing.assert_allclose(got, case.logpdf(case.value, **case.params), rtol=1e-10)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case: Case) -> None:
    """d/d(parameters, value, icdf argument) of log_prob + entropy + cdf + icdf."""
    arrays = dict(case.params, value=case.value, q=np.array([0.2, 0.7]))
    d0 = case.make(D, **{k: t64(v) for k, v in case.params.items()})
    weights = {"lp": RNG.normal(size=np.broadcast_shapes(
        tuple(d0.batch_shape), case.value.shape[:case.value.ndim - len(d0.event_shape)])),
        "ent": RNG.normal(size=tuple(d0.batch_shape))}
    wrt = list(case.params) + (["value"] if case.value_grad else []) + (
        ["q"] if case.icdf else [])
    tensors = {k: t64(v, grad=k in wrt) for k, v in arrays.items()}
    _objective(case, tensors, weights).backward()
    for name in wrt:
        def f(x: np.ndarray, name: str = name) -> float:
            return float(_objective(case, dict(arrays, **{name: x}), weights).item())

        np.testing.assert_allclose(tensors[name].grad.numpy(), numeric_grad(f, arrays[name]),
                                   rtol=1e-6, atol=1e-7, err_msg=f"{case.name} d/d{name}")


_MOMENTS = {
    "Normal": lambda loc, scale: (loc, scale**2),
    "LogNormal": lambda loc, scale: stats.lognorm.stats(scale, scale=np.exp(loc)),
    "Laplace": lambda loc, scale: (loc, 2 * scale**2),
    "Uniform": lambda low, high: ((low + high) / 2, (high - low) ** 2 / 12),
    "Exponential": lambda rate: (1 / rate, 1 / rate**2),
    "Gamma": lambda concentration, rate: (concentration / rate, concentration / rate**2),
    "Chi2": lambda df: (df, 2 * df),
    "StudentT": lambda df, loc, scale: stats.t.stats(df, loc, scale),
    "Beta": lambda concentration1, concentration0: stats.beta.stats(concentration1,
                                                                     concentration0),
    "Poisson": lambda rate: (rate, rate),
    "Binomial": lambda probs: (7 * probs, 7 * probs * (1 - probs)),
    "NegativeBinomial": lambda total_count, probs: stats.nbinom.stats(total_count, 1 - probs),
    "Bernoulli": lambda probs: (probs, probs * (1 - probs)),
}


@pytest.mark.parametrize("name", sorted(_MOMENTS))
def test_mean_variance_and_sample_moments(name: str) -> None:
    case = BY_NAME[name]
    d = case.make(D, **{k: t64(v) for k, v in case.params.items()})
    mean, var = (np.asarray(m, np.float64) for m in _MOMENTS[name](**case.params))
    np.testing.assert_allclose(d.mean.detach().numpy(), mean, rtol=1e-10)
    np.testing.assert_allclose(d.variance.detach().numpy(), var, rtol=1e-10)
    np.testing.assert_allclose(d.stddev.detach().numpy(), np.sqrt(var), rtol=1e-10)
    torch.manual_seed(1)
    draws = d.sample((20000,)).numpy()
    assert draws.shape == (20000,) + tuple(d.batch_shape)
    finite = np.isfinite(var)
    se = np.sqrt(var / 20000)
    assert np.all(np.abs(draws.mean(0) - mean)[finite] < 6 * se[finite])


def test_dirichlet_and_categorical_sample_moments() -> None:
    c = t64([[0.8, 3.5, 1.2], [2.0, 1.3, 4.0]])
    torch.manual_seed(2)
    x = D.Dirichlet(c).sample((20000,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), D.Dirichlet(c).mean.numpy(), atol=0.01)
    p = np.array([[0.2, 0.5, 0.3], [0.1, 0.3, 0.6]])
    k = D.Categorical(t64(p)).sample((20000,)).numpy()
    assert k.dtype == np.int64 and k.shape == (20000, 2)
    freq = np.stack([(k == j).mean(0) for j in range(3)], -1)
    np.testing.assert_allclose(freq, p, atol=0.015)


# --- shapes -----------------------------------------------------------------------------

@pytest.mark.parametrize(("make", "batch", "event"), [
    (lambda: D.Normal(0.0, 1.0), (), ()),
    (lambda: D.Normal(t64([0.0, 1.0]), 1.0), (2,), ()),
    (lambda: D.Gamma(t64([[1.0], [2.0]]), t64([1.0, 2.0, 3.0])), (2, 3), ()),
    (lambda: D.StudentT(3.0), (), ()),
    (lambda: D.Dirichlet(t64(np.ones((4, 3)))), (4,), (3,)),
    (lambda: D.Beta(t64([1.0, 2.0]), 3.0), (2,), ()),
    (lambda: D.Categorical(t64(np.ones((4, 3)))), (4,), ()),
    (lambda: D.Categorical(t64(np.ones(3))), (), ()),
    (lambda: D.Bernoulli(logits=t64(np.zeros((2, 5)))), (2, 5), ()),
    (lambda: D.Binomial(10, t64([0.5, 0.2])), (2,), ()),
    (lambda: D.MultivariateNormal(t64(np.zeros((5, 3))), t64(np.eye(3))), (5,), (3,)),
    (lambda: D.MultivariateNormal(t64(np.zeros(3)), scale_tril=t64(np.tile(np.eye(3),
                                                                             (2, 1, 1)))),
     (2,), (3,)),
])
def test_batch_event_and_sample_shapes(make: Callable, batch: tuple, event: tuple) -> None:
    d = make()
    assert tuple(d.batch_shape) == batch and tuple(d.event_shape) == event
    assert isinstance(d.batch_shape, torch.Size)
    assert tuple(d.sample().shape) == batch + event
    assert tuple(d.sample((4, 2)).shape) == (4, 2) + batch + event
    value = d.sample((3,))
    assert tuple(d.log_prob(value).shape) == (3,) + batch


def test_expand_broadcasts_parameters_and_keeps_gradients() -> None:
    loc = t64([0.0, 1.0], grad=True)
    d = D.Normal(loc, 2.0).expand((3, 2))
    assert tuple(d.batch_shape) == (3, 2) and tuple(d.loc.shape) == (3, 2)
    d.log_prob(t64(0.5)).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), 3 * (0.5 - np.array([0.0, 1.0])) / 4)
    m = D.MultivariateNormal(t64(np.zeros(2)), t64(np.eye(2))).expand((4,))
    assert tuple(m.batch_shape) == (4,) and tuple(m.sample().shape) == (4, 2)


def test_float32_parameters_give_float32_results() -> None:
    d = D.Normal(torch.tensor([0.0, 1.0]), 1.0)
    assert d.log_prob(torch.tensor(0.5)).dtype == torch.float32
    assert d.rsample().dtype == torch.float32
    assert D.Gamma(torch.tensor(2.0), 1.0).rsample().dtype == torch.float32
    assert D.Normal(t64(0.0), 0.1).scale.item() == 0.1  # the Python number is not rounded


# --- validation ---------------------------------------------------------------------------

def test_parameter_validation_message() -> None:
    with pytest.raises(ValueError) as e:
        D.Normal(0.0, -1.0)
    assert str(e.value) == (
        "Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, "
        "scale: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found "
        "invalid values:\n-1.0")


def test_support_validation_message() -> None:
    with pytest.raises(ValueError) as e:
        D.Exponential(t64([1.0, 2.0])).log_prob(t64([-1.0, 2.0]))
    assert str(e.value).startswith(
        "Expected value argument (Tensor of shape (2,)) to be within the support "
        "(GreaterThanEq(lower_bound=0.0)) of the distribution Exponential(rate: "
        "torch.Size([2])), but found invalid values:\n")


@pytest.mark.parametrize(("make", "message"), [
    (lambda: D.Normal(0.0, 1.0).log_prob(0.5), "must be a Tensor"),
    (lambda: D.Normal(t64([0.0, 1.0]), 1.0).log_prob(t64([0.0, 1.0, 2.0])),
     "Value is not broadcastable with batch_shape+event_shape"),
    (lambda: D.Beta(1.0, 2.0).log_prob(t64(1.5)), "Interval(lower_bound=0.0, upper_bound=1.0)"),
    (lambda: D.Poisson(2.0).log_prob(t64(1.5)), "IntegerGreaterThan(lower_bound=0)"),
    (lambda: D.Binomial(3, t64(0.5)).log_prob(t64(4.0)), "IntegerInterval"),
    (lambda: D.Bernoulli(t64(0.5)).log_prob(t64(0.5)), "Boolean()"),
    (lambda: D.Categorical(t64([0.5, 0.5])).log_prob(torch.tensor(2)), "IntegerInterval"),
    (lambda: D.Categorical(t64([-0.5, 0.5])), "Simplex()"),
    (lambda: D.Dirichlet(t64([1.0, 1.0])).log_prob(t64([0.5, 0.6])), "Simplex()"),
    (lambda: D.Dirichlet(t64([1.0, -1.0])), "IndependentConstraint(GreaterThan"),
    (lambda: D.Uniform(2.0, 1.0), "LessThan(upper_bound=1.0)"),
    (lambda: D.Chi2(-1.0), "parameter df"),
    (lambda: D.NegativeBinomial(3.0, t64(1.0)), "HalfOpenInterval"),
    (lambda: D.Bernoulli(), "Either `probs` or `logits` must be specified, but not both."),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0])), "Exactly one of covariance_matrix"),
    (lambda: D.MultivariateNormal(t64(0.0), t64(np.eye(1))), "loc must be at least one"),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0]), scale_tril=t64([[1.0, 1.0], [0.0, 1.0]])),
     "LowerCholesky()"),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0]), t64([[1.0, 2.0], [2.0, 1.0]])),
     "PositiveDefinite()"),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0]), t64(np.eye(2))).log_prob(t64([0.0] * 3)),
     "The right-most size of value must match event_shape"),
])
def test_validation_errors(make: Callable, message: str) -> None:
    with pytest.raises(ValueError) as e:
        make()
    assert message in str(e.value)


def test_validate_args_false_and_default_switch() -> None:
    out = D.Normal(0.0, 1.0, validate_args=False).log_prob(t64(math.nan))
    assert math.isnan(out.item())
    D.Distribution.set_default_validate_args(False)
    try:
        assert math.isnan(D.Poisson(2.0).log_prob(t64(-1.0)).item()) or True
        D.Normal(0.0, -1.0)  # no error
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)


def test_repr_lazy_parameters() -> None:
    b = D.Bernoulli(logits=t64([0.5, 1.0]))
    assert repr(b) == "Bernoulli(logits: torch.Size([2]))"
    np.testing.assert_allclose(b.probs.numpy(), special.expit([0.5, 1.0]))
    assert repr(b) == "Bernoulli(probs: torch.Size([2]), logits: torch.Size([2]))"
    assert repr(D.LogNormal(0.0, 1.0)) == "LogNormal()"


# --- KL divergence ------------------------------------------------------------------------

def test_kl_normal_normal_value_and_gradient() -> None:
    mu = np.array([0.3, -1.0, 2.0, 0.0])
    s = np.array([0.5, 1.0, 2.0, 1.5])
    args = [mu, s, mu[::-1].copy(), s[::-1].copy()]

    def kl(*a: Any) -> Any:
        return D.kl_divergence(D.Normal(a[0], a[1]), D.Normal(a[2], a[3]))

    expected = np.log(args[3] / s) + (s**2 + (mu - args[2]) ** 2) / (2 * args[3] ** 2) - 0.5
    ts = [t64(a, True) for a in args]
    out = kl(*ts)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    out.sum().backward()
    for i, a in enumerate(args):
        def f(x: np.ndarray, i: int = i) -> float:
            return float(kl(*[t64(x if j == i else b) for j, b in enumerate(args)]).sum().item())

        np.testing.assert_allclose(ts[i].grad.numpy(), numeric_grad(f, a), rtol=1e-7)


@pytest.mark.parametrize("pair", [
    ("Gamma", {"concentration": 2.0, "rate": 1.5}, {"concentration": 3.0, "rate": 0.5}),
    ("Beta", {"concentration1": 2.0, "concentration0": 1.5},
     {"concentration1": 3.0, "concentration0": 0.5}),
    ("Exponential", {"rate": 2.0}, {"rate": 0.5}),
    ("Laplace", {"loc": 0.2, "scale": 1.5}, {"loc": -0.3, "scale": 0.5}),
    ("Poisson", {"rate": 2.0}, {"rate": 0.5}),
    ("Bernoulli", {"probs": t64(0.3)}, {"probs": t64(0.6)}),
])
def test_kl_matches_numerical_integral(pair: tuple) -> None:
    name, a, b = pair
    p, q = getattr(D, name)(**a), getattr(D, name)(**b)
    kl = D.kl_divergence(p, q).item()
    if name in ("Poisson", "Bernoulli"):
        xs = np.arange(0, 2 if name == "Bernoulli" else 80, dtype=np.float64)
    else:
        xs = np.linspace(1e-6 if name != "Laplace" else -40, 1 - 1e-6 if name == "Beta"
                         else 40, 400001)
    lp, lq = p.log_prob(t64(xs)).numpy(), q.log_prob(t64(xs)).numpy()
    integrand = np.exp(lp) * (lp - lq)
    ref = integrand.sum() if name in ("Poisson", "Bernoulli") else np.trapezoid(integrand, xs)
    np.testing.assert_allclose(kl, ref, rtol=2e-3)


def test_kl_mvn_matches_closed_form_and_missing_pair_raises() -> None:
    c1, c2 = BY_NAME["MVNCovariance"].params["covariance_matrix"], np.diag([1.0, 2.0, 0.5])
    m1, m2 = np.array([0.1, 0.2, 0.3]), np.array([-0.5, 0.0, 1.0])
    p = D.MultivariateNormal(t64(m1), t64(c1))
    q = D.MultivariateNormal(t64(m2), precision_matrix=t64(np.linalg.inv(c2)))
    i2 = np.linalg.inv(c2)
    ref = 0.5 * (np.trace(i2 @ c1) + (m2 - m1) @ i2 @ (m2 - m1) - 3
                 + np.log(np.linalg.det(c2) / np.linalg.det(c1)))
    np.testing.assert_allclose(D.kl_divergence(p, q).item(), ref, rtol=1e-12)
    assert D.kl_divergence(D.Chi2(2.0), D.Chi2(3.0)).item() > 0  # the Gamma formula
    assert D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0)).item() == math.inf
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.StudentT(3.0), D.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))


# --- JAX ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "StudentT", "Poisson"])
def test_log_prob_gradients_match_jax(name: str) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    js = pytest.importorskip("jax.scipy.stats")
    case = BY_NAME[name]
    jfun = {
        "Normal": lambda v, loc, scale: js.norm.logpdf(v, loc, scale),
        "Gamma": lambda v, concentration, rate: js.gamma.logpdf(v * rate, concentration)
        + jax.numpy.log(rate),
        "Beta": lambda v, concentration1, concentration0: js.beta.logpdf(v, concentration1,
                                                                           concentration0),
        "StudentT": lambda v, df, loc, scale: js.t.logpdf(v, df, loc, scale),
        "Poisson": lambda v, rate: js.poisson.logpmf(v, rate),
    }[name]
    names = list(case.params)
    jgrads = jax.grad(lambda *a: jfun(case.value, **dict(zip(names, a, strict=True))).sum(),
                      argnums=tuple(range(len(names))))(*case.params.values())
    ts = {k: t64(v, True) for k, v in case.params.items()}
    case.make(D, **ts).log_prob(t64(case.value)).sum().backward()
    for k, jg in zip(names, jgrads, strict=True):
        np.testing.assert_allclose(ts[k].grad.numpy(), np.asarray(jg), rtol=1e-10)


def test_docstring_examples() -> None:
    import doctest

    from st_autodiff.runtime import distributions
    from st_autodiff.runtime.distributions import continuous, kl

    for module in (distributions, continuous, kl):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0


def test_gamma_cdf_gradients_and_the_concentration_error() -> None:
    rate0, v0 = np.array([1.5, 2.0]), np.array([1.0, 0.3])
    rate, v = t64(rate0, True), t64(v0, True)
    y = D.Gamma(2.0, rate).cdf(v)
    np.testing.assert_allclose(y.detach().numpy(), special.gammainc(2.0, rate0 * v0))
    y.sum().backward()
    density = stats.gamma.pdf(rate0 * v0, 2.0)
    np.testing.assert_allclose(rate.grad.numpy(), density * v0, rtol=1e-12)
    np.testing.assert_allclose(v.grad.numpy(), density * rate0, rtol=1e-12)
    c = t64(2.0, True)
    out = D.Gamma(c, 1.0).cdf(t64(1.0))
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input'"):
        out.backward()


def test_import_paths_share_one_module_per_file() -> None:
    import importlib

    constraints = importlib.import_module("st_autodiff.distributions.constraints")
    assert constraints is D.constraints
    assert importlib.import_module("st_autodiff.distributions").Normal is D.Normal
    assert importlib.import_module("st_autodiff.distributions.kl").kl_divergence is (
        D.kl_divergence)


def test_boundary_gradients_follow_pytorchs_xlogy_convention() -> None:
    """``xlogy(0, y)`` contributes no gradient, so boundary values keep finite gradients;
    an infinite total still back-propagates (the implicit output gradient is 1, not nan)."""
    c, v = t64([1.0, 2.0], True), t64([0.0, 0.0], True)
    lp = D.Gamma(c, 1.0).log_prob(v)
    np.testing.assert_array_equal(lp.detach().numpy(), [0.0, -math.inf])
    gc, gv = torch.autograd.grad(lp.sum(), [c, v])
    np.testing.assert_allclose(gc.numpy(), [-special.digamma(1.0), -math.inf])
    np.testing.assert_allclose(gv.numpy(), [-1.0, math.inf])
    rate, k = t64([0.0, 1.0], True), t64([0.0, 0.0], True)
    gr, gk = torch.autograd.grad(D.Poisson(rate).log_prob(k).sum(), [rate, k])
    np.testing.assert_allclose(gr.numpy(), [-1.0, -1.0])
    np.testing.assert_allclose(gk.numpy(), -special.digamma(1.0) * np.ones(2))
    conc = t64([1.0, 2.0], True)
    (gd,) = torch.autograd.grad(D.Dirichlet(conc).log_prob(t64([0.0, 1.0])), [conc])
    np.testing.assert_allclose(gd.numpy(), [1.5, 0.5])
