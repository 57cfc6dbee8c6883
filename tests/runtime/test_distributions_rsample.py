"""Reparameterised draws of ``st_autodiff.distributions``: pathwise gradients against
finite differences at a fixed seed, the implicit gamma gradient (series and quadrature)
against central differences of ``scipy.special.gammaincinv``, the gamma-based families
(Gamma, Dirichlet, Beta, StudentT) against their implicit derivatives, and Monte Carlo
unbiasedness.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import special

import st_autodiff as torch
from st_autodiff.runtime.distributions import gamma_sampling
from st_autodiff.runtime.distributions.gamma_sampling import standard_gamma_grad

from .dist_cases import BY_NAME
from .test_distributions import _fixed, numeric_grad, t64

D = torch.distributions
RNG = np.random.default_rng(1)

_PATHWISE = ["Normal", "LogNormal", "Laplace", "Cauchy", "Uniform", "Exponential",
             "MVNCovariance", "MVNScaleTril", "MVNPrecision"]


@pytest.mark.parametrize("name", _PATHWISE)
def test_rsample_gradient_matches_finite_differences_at_fixed_seed(name: str) -> None:
    case = BY_NAME[name]

    def draw(arrays: dict[str, Any]) -> Any:
        torch.manual_seed(7)
        params = {k: _fixed(k, v if isinstance(v, torch.Tensor) else t64(v))
                  for k, v in arrays.items()}
        return case.make(D, **params).rsample((3,))

    w = RNG.normal(size=tuple(draw(case.params).shape))
    tensors = {k: t64(v, grad=True) for k, v in case.params.items()}
    sample = draw(tensors)
    assert sample.requires_grad
    (sample * t64(w)).sum().backward()
    for name_ in case.params:
        def f(x: np.ndarray, k: str = name_) -> float:
            return float((draw(dict(case.params, **{k: x})).numpy() * w).sum())

        np.testing.assert_allclose(tensors[name_].grad.numpy(),
                                   numeric_grad(f, case.params[name_]), rtol=1e-6, atol=1e-8)


def test_sample_has_no_gradient_and_rsample_is_repeatable() -> None:
    loc = t64([0.0, 1.0], grad=True)
    d = D.Normal(loc, 2.0)
    assert not d.sample((4,)).requires_grad
    torch.manual_seed(3)
    a = d.rsample((4,)).detach().numpy()
    torch.manual_seed(3)
    np.testing.assert_array_equal(a, d.rsample((4,)).detach().numpy())
    torch.manual_seed(3)
    np.testing.assert_array_equal(a, (torch.randn(4, 2, dtype=torch.float64) * 2 + loc
                                      ).detach().numpy())


@pytest.mark.parametrize(("alpha", "x"), [(0.1, 1e-5), (0.1, 0.5), (1.0, 0.3), (0.5, 3.0),
                                          (5.0, 2.0), (5.0, 9.0), (50.0, 49.0), (40.0, 10.0),
                                          (200.0, 260.0), (503.5, 501.4), (3000.0, 2950.0),
                                          (1.0, 12.0), (5.0, 30.0)])
def test_standard_gamma_grad_matches_quantile_finite_differences(alpha: float, x: float
                                                                  ) -> None:
    """Both paths (the series and the quadrature fallback) against central differences of
    the quantile function at fixed ``u = P(alpha, x)``."""
    u = special.gammainc(alpha, x)
    h = 1e-6 * alpha
    fd = (special.gammaincinv(alpha + h, u) - special.gammaincinv(alpha - h, u)) / (2 * h)
    np.testing.assert_allclose(standard_gamma_grad(np.array(alpha), np.array(x)), fd,
                               rtol=1e-6)
    np.testing.assert_allclose(gamma_sampling._grad_one(alpha, x), fd, rtol=1e-6)


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_standard_gamma_grad_series_and_quadrature_agree() -> None:
    """(quad warns about its error estimate at a few large ``alpha``, which only this test
    sends it: the comparison at 1e-8 is the check that matters.)"""
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.uniform(0.01, 10, 300), rng.uniform(10, 3000, 100),
                        [1.0, 5.0, 0.01]])
    x = np.concatenate([rng.gamma(a[:-3]), [50.0, 200.0, 1e-300]])
    series, trusted = gamma_sampling._series(a, x)
    assert trusted[:-3].all() and not trusted[-3:-1].any()  # the deep tail falls back
    quad = np.array([gamma_sampling._grad_one(float(u), float(v)) for u, v in zip(a, x,
                                                                                 strict=True)])
    np.testing.assert_allclose(series[trusted], quad[trusted], rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(standard_gamma_grad(a, x), np.where(trusted, series, quad),
                               rtol=1e-15)


def _at_quantile(alpha: np.ndarray, g: np.ndarray, h: float) -> np.ndarray:
    """Unit-rate gamma draws at ``alpha + h`` with the quantiles of ``g`` at ``alpha``."""
    return special.gammaincinv(alpha + h, special.gammainc(alpha, g))


def test_gamma_rsample_implicit_gradient() -> None:
    conc, rate = np.array([0.8, 3.5]), np.array([0.7, 2.0])
    c, r = t64(conc, True), t64(rate, True)
    torch.manual_seed(4)
    x = D.Gamma(c, r).rsample((3,))
    w = RNG.normal(size=(3, 2))
    (x * t64(w)).sum().backward()
    g = x.detach().numpy() * rate
    h = 1e-6
    fd_c = (w * (_at_quantile(conc, g, h) - _at_quantile(conc, g, -h)) / (2 * h) / rate).sum(0)
    np.testing.assert_allclose(c.grad.numpy(), fd_c, rtol=1e-6)
    np.testing.assert_allclose(r.grad.numpy(), (w * -x.detach().numpy() / rate).sum(0),
                               rtol=1e-12)


def test_dirichlet_and_beta_rsample_gradient_is_that_of_normalised_gammas() -> None:
    conc = np.array([0.8, 3.5, 1.2])
    c = t64(conc, True)
    torch.manual_seed(5)
    x = D.Dirichlet(c).rsample()
    torch.manual_seed(5)
    from st_autodiff.runtime.distributions.gamma_sampling import standard_gamma

    g = standard_gamma(t64(conc)).numpy()
    np.testing.assert_allclose(x.detach().numpy(), g / g.sum(), rtol=1e-14)
    w = RNG.normal(size=3)
    (x * t64(w)).sum().backward()
    fd = np.zeros(3)
    h = 1e-6
    for i in range(3):
        def shifted(s: float, i: int = i) -> np.ndarray:
            a = conc.copy()
            gi = g.copy()
            gi[i] = _at_quantile(conc[i], g[i], s)
            return (w * gi / gi.sum()).sum() + 0 * a.sum()

        fd[i] = (shifted(h) - shifted(-h)) / (2 * h)
    np.testing.assert_allclose(c.grad.numpy(), fd, rtol=1e-6)
    b1 = t64(2.0, True)
    y = D.Beta(b1, 3.0).rsample((2,))
    y.sum().backward()
    assert y.shape == (2,) and np.isfinite(b1.grad.item())


def test_second_derivative_through_gamma_rsample_raises() -> None:
    c = t64(2.0, True)
    x = D.Gamma(c, 1.0).rsample()
    (gc,) = torch.autograd.grad(x, c, create_graph=True)
    with pytest.raises(RuntimeError, match="_standard_gamma_grad"):
        gc.backward()


def test_studentt_rsample_gradient_in_df_is_the_implicit_one() -> None:
    """``loc + scale * X / sqrt(Z / df)`` with ``Z = 2 G``, ``G ~ Gamma(df / 2)`` drawn after
    ``X``: the gradient in ``df`` keeps ``X`` and ``G``'s quantile fixed."""
    from st_autodiff.runtime.distributions.gamma_sampling import standard_gamma

    df0 = np.array([1.5, 4.0, 9.0])
    df = t64(df0, True)
    torch.manual_seed(11)
    y = D.StudentT(df).rsample()
    y.sum().backward()
    torch.manual_seed(11)
    x = torch.randn(3, dtype=torch.float64).numpy()
    g = standard_gamma(t64(df0 / 2)).numpy()
    np.testing.assert_allclose(y.detach().numpy(), x / np.sqrt(2 * g / df0), rtol=1e-13)
    h = 1e-6

    def y_at(d: np.ndarray) -> np.ndarray:
        return x / np.sqrt(2 * _at_quantile(df0 / 2, g, (d - df0) / 2) / d)

    np.testing.assert_allclose(df.grad.numpy(), (y_at(df0 + h) - y_at(df0 - h)) / (2 * h),
                               rtol=1e-6)


def test_reparameterised_gradients_are_unbiased() -> None:
    """Averaged over many draws, pathwise gradients of E[f(x)] match the analytic
    derivatives: d/dalpha E[x] for Gamma (1 / rate), d/dconcentration E[x] for Dirichlet
    and Beta."""
    n = 40000
    c, r = t64([0.6, 3.0], True), t64([2.0, 0.5], True)
    torch.manual_seed(12)
    D.Gamma(c, r).rsample((n,)).sum().backward()
    np.testing.assert_allclose(c.grad.numpy() / n, 1 / np.array([2.0, 0.5]), rtol=0.03)
    conc0 = np.array([0.8, 3.5, 1.2])
    conc = t64(conc0, True)
    torch.manual_seed(13)
    D.Dirichlet(conc).rsample((n,))[:, 0].sum().backward()
    total = conc0.sum()
    exact = np.array([1 / total - conc0[0] / total**2, -conc0[0] / total**2,
                      -conc0[0] / total**2])
    np.testing.assert_allclose(conc.grad.numpy() / n, exact, rtol=0.05)
    a, b = t64(2.0, True), t64(3.0, True)
    torch.manual_seed(14)
    D.Beta(a, b).rsample((n,)).sum().backward()
    np.testing.assert_allclose([a.grad.item() / n, b.grad.item() / n], [3 / 25, -2 / 25],
                               rtol=0.05)
