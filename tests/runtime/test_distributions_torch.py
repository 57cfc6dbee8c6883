"""``st_autodiff.distributions`` against PyTorch itself, where PyTorch is installed.

For every case of ``dist_cases``: log_prob, entropy, mean, variance, stddev, cdf, icdf, the
gradients of their weighted sum in every parameter and the value, ``repr``, batch and
event shapes; then a table of constructor/validation calls whose error messages (or result
shapes and dtypes) must be PyTorch's word for word.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as ours

from .dist_cases import CASES, Case

real = pytest.importorskip("torch")


def _run_case(lib: Any, case: Case) -> tuple:
    def mk(a: np.ndarray, grad: bool = True) -> Any:
        return lib.tensor(a, dtype=lib.float64, requires_grad=grad)

    ps = {k: mk(v) for k, v in case.params.items()}
    val = mk(case.value, case.value_grad)
    d = case.make(lib.distributions, **ps)
    out: dict[str, Any] = {"log_prob": d.log_prob(val)}
    for attr in ("mean", "variance", "stddev", "entropy"):
        try:
            out[attr] = d.entropy() if attr == "entropy" else getattr(d, attr)
        except NotImplementedError:
            out[attr] = None
    if case.cdf:
        out["cdf"] = d.cdf(val)
    if case.icdf:
        out["icdf"] = d.icdf(mk(np.array([0.2, 0.7])))
    rng = np.random.default_rng(0)
    total = 0
    for k in ("log_prob", "entropy", "cdf", "icdf"):
        if out.get(k) is not None:
            w = lib.tensor(rng.normal(size=tuple(out[k].shape)), dtype=lib.float64)
            total = total + (out[k] * w).sum()
    total.backward()
    grads = {k: None if p.grad is None else p.grad.numpy() for k, p in ps.items()}
    if case.value_grad:
        grads["value"] = val.grad.numpy()
    values = {k: None if v is None else v.detach().numpy() for k, v in out.items()}
    return values, grads, repr(d), tuple(d.batch_shape), tuple(d.event_shape)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_pytorch(case: Case) -> None:
    mine, theirs = _run_case(ours, case), _run_case(real, case)
    for k, v in theirs[0].items():
        if v is None:
            assert mine[0][k] is None, k
        else:
            np.testing.assert_allclose(mine[0][k], v, rtol=1e-10, atol=1e-12, err_msg=k)
    for k, g in theirs[1].items():
        np.testing.assert_allclose(mine[1][k], g, rtol=1e-8, atol=1e-10, err_msg=f"d/d{k}")
    assert mine[2:] == theirs[2:]


def _t(lib: Any, *v: float) -> Any:
    return lib.tensor(np.array(v if len(v) > 1 else v[0], dtype=np.float32))


CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "normal bad scale": lambda L, D: D.Normal(0.0, -1.0),
    "normal bad scale vector": lambda L, D: D.Normal(_t(L, 0.0, 1.0), _t(L, 1.0, -1.0)),
    "normal nan value": lambda L, D: D.Normal(0.0, 1.0).log_prob(_t(L, float("nan"))),
    "normal float value": lambda L, D: D.Normal(0.0, 1.0).log_prob(0.5),
    "normal shape": lambda L, D: D.Normal(_t(L, 0.0, 1.0), 1.0).log_prob(_t(L, 0.0, 1.0, 2.0)),
    "exponential negative": lambda L, D: D.Exponential(_t(L, 1.0, 2.0)).log_prob(
        _t(L, -1.0, 2.0)),
    "gamma negative": lambda L, D: D.Gamma(1.0, 2.0).log_prob(_t(L, -1.0)),
    "beta outside": lambda L, D: D.Beta(1.0, 2.0).log_prob(_t(L, 1.5)),
    "beta bad": lambda L, D: D.Beta(-1.0, 2.0),
    "chi2 bad": lambda L, D: D.Chi2(-1.0),
    "studentt bad": lambda L, D: D.StudentT(-1.0),
    "uniform bad": lambda L, D: D.Uniform(2.0, 1.0),
    "uniform outside": lambda L, D: D.Uniform(0.0, 1.0).log_prob(_t(L, 1.5)),
    "poisson non-integer": lambda L, D: D.Poisson(2.0).log_prob(_t(L, 1.5)),
    "binomial outside": lambda L, D: D.Binomial(3, _t(L, 0.5)).log_prob(_t(L, 4.0)),
    "binomial bad probs": lambda L, D: D.Binomial(3, _t(L, 1.5)),
    "binomial both": lambda L, D: D.Binomial(3, _t(L, 0.5), _t(L, 0.5)),
    "negative binomial bad probs": lambda L, D: D.NegativeBinomial(3.0, _t(L, 1.0)),
    "bernoulli outside": lambda L, D: D.Bernoulli(_t(L, 0.5)).log_prob(_t(L, 0.5)),
    "bernoulli none": lambda L, D: D.Bernoulli(),
    "categorical outside": lambda L, D: D.Categorical(_t(L, 0.5, 0.5)).log_prob(L.tensor(2)),
    "categorical 0-d": lambda L, D: D.Categorical(_t(L, 0.5)),
    "dirichlet bad": lambda L, D: D.Dirichlet(_t(L, 1.0, -1.0)),
    "dirichlet outside": lambda L, D: D.Dirichlet(_t(L, 1.0, 1.0)).log_prob(_t(L, 0.5, 0.6)),
    "mvn none": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0)),
    "mvn bad tril": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), scale_tril=L.tensor(
        np.array([[1.0, 1.0], [0.0, 1.0]], np.float32))),
    "mvn bad cov": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), L.tensor(
        np.array([[1.0, 2.0], [2.0, 1.0]], np.float32))),
    "mvn event": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), L.eye(2)).log_prob(
        _t(L, 0.0, 0.0, 1.0)),
    "mvn 0-d loc": lambda L, D: D.MultivariateNormal(_t(L, 0.0), L.eye(1)),
    "mvn nan": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), L.eye(2)).log_prob(
        _t(L, 0.0, float("nan"))),
    "kl chi2": lambda L, D: D.kl_divergence(D.Chi2(2.0), D.Chi2(3.0)),
    "sample normal": lambda L, D: D.Normal(_t(L, 0.0, 1.0), 1.0).sample((3, 4)),
    "sample gamma": lambda L, D: D.Gamma(_t(L, 1.0, 2.0), 1.0).sample((3,)),
    "rsample beta": lambda L, D: D.Beta(_t(L, 1.0, 2.0), 1.0).rsample((3,)),
    "sample dirichlet": lambda L, D: D.Dirichlet(_t(L, 1.0, 2.0)).sample((3,)),
    "sample categorical": lambda L, D: D.Categorical(_t(L, 0.5, 0.5)).sample((3,)),
    "sample poisson": lambda L, D: D.Poisson(_t(L, 1.0, 2.0)).sample((3,)),
    "sample binomial": lambda L, D: D.Binomial(3, _t(L, 0.5, 0.2)).sample((3,)),
    "sample negative binomial": lambda L, D: D.NegativeBinomial(3, _t(L, 0.5, 0.2)).sample(
        (3,)),
    "sample bernoulli": lambda L, D: D.Bernoulli(_t(L, 0.5, 0.2)).sample((3,)),
    "sample mvn": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), L.eye(2)).sample((3,)),
    "rsample studentt": lambda L, D: D.StudentT(_t(L, 1.0, 2.0)).rsample((3,)),
    "sample scalar": lambda L, D: D.Normal(0.0, 1.0).sample(),
    "cauchy mean": lambda L, D: D.Cauchy(_t(L, 0.0, 1.0), 1.0).mean,
    "binomial entropy": lambda L, D: D.Binomial(_t(L, 3.0, 3.0), _t(L, 0.5, 0.2)).entropy(),
    "binomial inhomogeneous entropy": lambda L, D: D.Binomial(_t(L, 3.0, 2.0),
                                                              _t(L, 0.5, 0.2)).entropy(),
    "poisson entropy": lambda L, D: D.Poisson(2.0).entropy(),
    "studentt cdf": lambda L, D: D.StudentT(2.0).cdf(_t(L, 1.0)),
    "gamma cdf": lambda L, D: D.Gamma(2.0, 1.0).cdf(_t(L, 1.0)),
    "gamma icdf": lambda L, D: D.Gamma(2.0, 1.0).icdf(_t(L, 0.5)),
    "lognormal cdf negative": lambda L, D: D.LogNormal(0.0, 1.0).cdf(_t(L, -1.0)),
    "repr lognormal": lambda L, D: D.LogNormal(0.0, 1.0),
    "repr chi2": lambda L, D: D.Chi2(3.0),
    "repr uniform": lambda L, D: D.Uniform(0.0, 1.0),
    "repr bernoulli logits": lambda L, D: D.Bernoulli(logits=_t(L, 0.5)),
    "enumerate bernoulli": lambda L, D: D.Bernoulli(_t(L, 0.5, 0.2)).enumerate_support(),
    "enumerate categorical": lambda L, D: D.Categorical(_t(L, 0.5, 0.5)).enumerate_support(),
    "float32 log_prob": lambda L, D: D.Normal(_t(L, 0.0), 1.0).log_prob(_t(L, 1.0)),
    "integer value": lambda L, D: D.Poisson(_t(L, 2.0)).log_prob(L.tensor(1)),
    "bernoulli mode": lambda L, D: D.Bernoulli(_t(L, 0.5, 0.7)).mode,
    "gamma stddev": lambda L, D: D.Gamma(_t(L, 2.0), 1.0).stddev,
    "mvn variance": lambda L, D: D.MultivariateNormal(_t(L, 0.0, 0.0), L.eye(2)).variance,
    "validation off": lambda L, D: D.Normal(0.0, -1.0, validate_args=False).log_prob(
        _t(L, 1.0)),
}


def _outcome(lib: Any, call: Callable[[Any, Any], Any]) -> str:
    try:
        r = call(lib, lib.distributions)
    except Exception as e:  # noqa: BLE001  (the outcome compared is the exception itself)
        return f"{type(e).__name__}: {e}"
    if hasattr(r, "shape"):
        return f"{tuple(r.shape)} {r.dtype}"
    return repr(r)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_outcome_as_pytorch(name: str) -> None:
    assert _outcome(ours, CALLS[name]) == _outcome(real, CALLS[name])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_second_order_matches_pytorch(case: Case, dtype: str) -> None:
    """Gradients of log_prob + entropy with ``create_graph``, then the gradient of their
    squared norm: the same values (and dtype) as PyTorch in float64 and float32."""
    results = []
    for lib in (ours, real):
        ps = {k: lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True)
              for k, v in case.params.items()}
        val = lib.tensor(case.value, dtype=getattr(lib, dtype))
        d = case.make(lib.distributions, **ps)
        total = d.log_prob(val).sum()
        try:
            total = total + d.entropy().sum()
        except NotImplementedError:
            pass
        grads = lib.autograd.grad(total, list(ps.values()), create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), list(ps.values()))
        results.append(([g.detach().numpy() for g in grads], [h.numpy() for h in second],
                        str(total.dtype)))
    tol = 1e-7 if dtype == "float64" else 2e-4
    (g1, h1, t1), (g2, h2, t2) = results
    assert t1 == t2
    for a, b in zip(g1 + h1, g2 + h2, strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


DRAWS: dict[str, Callable[[Any, Any], Any]] = {
    "Normal": lambda L, D: D.Normal(L.zeros(5, dtype=L.float64), 1.0).rsample((4,)),
    "LogNormal": lambda L, D: D.LogNormal(L.zeros(5, dtype=L.float64), 1.0).rsample((4,)),
    "Uniform": lambda L, D: D.Uniform(L.zeros(5, dtype=L.float64), 2.0).rsample((4,)),
    "Exponential": lambda L, D: D.Exponential(L.ones(5, dtype=L.float64)).rsample((4,)),
    "Cauchy": lambda L, D: D.Cauchy(L.zeros(5, dtype=L.float64), 1.0).rsample((4,)),
    "Bernoulli": lambda L, D: D.Bernoulli(L.full((5,), 0.3, dtype=L.float64)).sample((4,)),
    "MultivariateNormal": lambda L, D: D.MultivariateNormal(
        L.zeros(3, dtype=L.float64), L.eye(3, dtype=L.float64) * 2).rsample((4,)),
    "Categorical": lambda L, D: D.Categorical(L.tensor([0.2, 0.3, 0.5], dtype=L.float64)
                                              ).sample((6,)),
    "Laplace": lambda L, D: D.Laplace(L.zeros(5, dtype=L.float64), 1.0).rsample((4,)),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_draws_follow_pytorch_stream(name: str) -> None:
    """After ``manual_seed`` these samplers return PyTorch's values (Laplace to rounding:
    PyTorch scales its uniform draw in another order)."""
    ours.manual_seed(0)
    real.manual_seed(0)
    a = DRAWS[name](ours, ours.distributions).numpy()
    b = DRAWS[name](real, real.distributions).numpy()
    if name == "Laplace":
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_expand_matches_pytorch(case: Case) -> None:
    results = []
    for lib in (ours, real):
        ps = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True)
              for k, v in case.params.items()}
        d = case.make(lib.distributions, **ps).expand((3, 2))
        lp = d.log_prob(lib.tensor(case.value, dtype=lib.float64))
        lp.sum().backward()
        results.append((lp.detach().numpy(), [p.grad.numpy() for p in ps.values()],
                        repr(d), tuple(d.batch_shape), tuple(d.event_shape),
                        tuple(d.sample((2,)).shape), tuple(d.mean.shape)))
    (lp1, g1, *meta1), (lp2, g2, *meta2) = results
    np.testing.assert_allclose(lp1, lp2, rtol=1e-12)
    for a, b in zip(g1, g2, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert meta1 == meta2


def _kl_family(lib: Any, leaves: list | None = None) -> dict[str, Callable[[], Any]]:
    """Two-element batches of each family; the parameter leaves made are added to
    ``leaves``."""
    D = lib.distributions  # noqa: N806

    def t(*v: Any) -> Any:
        leaf = lib.tensor(np.array(v), dtype=lib.float64, requires_grad=True)
        if leaves is not None:
            leaves.append(leaf)
        return leaf

    return {
        "Normal": lambda: D.Normal(t(0.3, -1.0), t(0.7, 2.0)),
        "Laplace": lambda: D.Laplace(t(0.2, 0.5), t(1.2, 0.4)),
        "Cauchy": lambda: D.Cauchy(t(0.2, 0.5), t(1.2, 0.4)),
        "Uniform": lambda: D.Uniform(t(0.1, -1.0), t(0.8, 3.0)),
        "WideUniform": lambda: D.Uniform(t(-2.0, -1.5), t(2.0, 3.5)),
        "Exponential": lambda: D.Exponential(t(0.7, 2.0)),
        "Gamma": lambda: D.Gamma(t(0.8, 3.5), t(0.7, 2.0)),
        "Chi2": lambda: D.Chi2(t(1.5, 4.0)),
        "Beta": lambda: D.Beta(t(0.8, 3.5), t(2.0, 1.3)),
        "Poisson": lambda: D.Poisson(t(0.7, 4.0)),
        "Bernoulli": lambda: D.Bernoulli(t(0.3, 0.8)),
        "Binomial": lambda: D.Binomial(lib.tensor([5.0, 5.0], dtype=lib.float64), t(0.3, 0.8)),
        "MixedBinomial": lambda: D.Binomial(lib.tensor([3.0, 5.0], dtype=lib.float64),
                                            t(0.6, 0.2)),
        "LogNormal": lambda: D.LogNormal(t(0.3, -1.0), t(0.7, 2.0)),
        "Categorical": lambda: D.Categorical(t([0.2, 0.5, 0.3], [0.1, 0.3, 0.6])),
        "Dirichlet": lambda: D.Dirichlet(t([0.8, 3.5, 1.2], [2.0, 1.3, 4.0])),
        "StudentT": lambda: D.StudentT(t(3.0, 4.0)),
        "NegativeBinomial": lambda: D.NegativeBinomial(t(3.0, 4.0), t(0.3, 0.5)),
    }


_KL_NAMES = sorted(_kl_family(ours))


def _kl_outcome(lib: Any, a: str, b: str) -> tuple:
    leaves: list = []
    family = _kl_family(lib, leaves)
    p, q = family[a](), family[b]()
    try:
        r = lib.distributions.kl_divergence(p, q)
    except Exception as e:  # noqa: BLE001  (the outcome compared is the exception itself)
        return f"{type(e).__name__}: {e}", None, None
    value = r.detach().numpy()
    if not (r.requires_grad and np.all(np.isfinite(value))):
        return "value", value, None
    grads = lib.autograd.grad(r.sum(), leaves, allow_unused=True)
    return "value", value, [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize("b", _KL_NAMES)
@pytest.mark.parametrize("a", _KL_NAMES)
def test_kl_divergence_matches_pytorch(a: str, b: str) -> None:
    """Every pair of the families: the same value and gradients, or the same error."""
    (k1, v1, g1), (k2, v2, g2) = _kl_outcome(ours, a, b), _kl_outcome(real, a, b)
    assert k1 == k2
    if v2 is not None:
        np.testing.assert_allclose(v1, v2, rtol=1e-10, equal_nan=True)
    if g2 is not None:
        assert g1 is not None
        for x, y in zip(g1, g2, strict=True):
            if y is None:
                assert x is None or not np.any(x)
            else:
                np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-12)


def test_gamma_implicit_gradient_within_pytorchs_approximation() -> None:
    """PyTorch's ``_standard_gamma_grad`` is a fitted approximation (about 1e-3 relative);
    ours is the exact derivative (checked against ``gammaincinv`` in test_distributions)."""
    from st_autodiff.runtime.distributions.gamma_sampling import standard_gamma_grad

    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0.05, 10, 500), rng.uniform(10, 500, 100)])
    x = rng.gamma(a)
    theirs = real._standard_gamma_grad(real.tensor(a), real.tensor(x)).numpy()
    np.testing.assert_allclose(standard_gamma_grad(a, x), theirs, rtol=2e-3)
