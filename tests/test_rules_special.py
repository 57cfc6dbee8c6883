"""scipy.special functions (and ``np.sinc``) in compiled code: values equal SciPy's, the
gradient matches central differences, forward mode agrees, second order where smooth,
and an argument without a derivative rule (``gammainc``'s ``a``) gives a located error."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

sp = pytest.importorskip("scipy.special")

_rng = np.random.default_rng(11)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def positive(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 3.0, shape)


def unit(*shape: int) -> np.ndarray:
    return _rng.uniform(0.1, 0.9, shape)


CASES = [
    Case("expit", lambda x: sp.expit(x), (normal(5),)),
    Case("logit", lambda p: sp.logit(p), (unit(5),)),
    Case("log_expit", lambda x: sp.log_expit(x * 10.0), (normal(5),)),
    Case("gammaln", lambda x: sp.gammaln(x), (positive(5),)),
    Case("digamma", lambda x: sp.digamma(x), (positive(5),)),
    Case("psi", lambda x: sp.psi(x), (positive(5),)),
    Case("polygamma", lambda x: sp.polygamma(2, x), (positive(5),)),
    Case("erf", lambda x: sp.erf(x), (normal(5),)),
    Case("erfc", lambda x: sp.erfc(x), (normal(5),)),
    Case("erfinv", lambda p: sp.erfinv(p - 0.5), (unit(5),)),
    Case("ndtr", lambda x: sp.ndtr(x), (normal(5),)),
    Case("log_ndtr", lambda x: sp.log_ndtr(x * 5.0), (normal(5),)),
    Case("ndtri", lambda p: sp.ndtri(p), (unit(5),)),
    Case("entr", lambda p: sp.entr(p), (unit(5),)),
    Case("xlogy", lambda x, y: sp.xlogy(x, y), (normal(5), positive(5))),
    Case("xlogy-zero-x", lambda y: sp.xlogy(np.array([0.0, 1.0, 2.0]), y), (positive(3),)),
    Case("xlog1py", lambda x, y: sp.xlog1py(x, y), (normal(5), positive(5))),
    Case("rel_entr", lambda x, y: sp.rel_entr(x, y), (unit(5), unit(5))),
    Case("kl_div", lambda x, y: sp.kl_div(x, y), (unit(5), unit(5))),
    Case("huber", lambda r: sp.huber(1.0, r), (normal(6) * 2,), smooth=False),
    Case("huber-delta", lambda d, r: sp.huber(d, r), (positive(6), normal(6) * 2),
         smooth=False),
    Case("pseudo_huber", lambda d, r: sp.pseudo_huber(d, r), (positive(5), normal(5))),
    Case("boxcox", lambda x, lm: sp.boxcox(x, lm), (positive(5), normal(5))),
    Case("boxcox-lmbda-zero", lambda lm, x: sp.boxcox(x, lm * 0.0), (normal(3), positive(3)),
         smooth=False),
    Case("betaln", lambda a, b: sp.betaln(a, b), (positive(5), positive(5))),
    Case("gammainc", lambda x: sp.gammainc(2.5, x), (positive(5),)),
    Case("gammaincc", lambda x: sp.gammaincc(1.5, x), (positive(5),)),
    Case("sinc", lambda x: np.sinc(x), (np.array([0.0, 1e-4, 0.4, -1.3]),)),
    Case("composed", lambda x: sp.gammaln(sp.expit(x) + 1.0) * sp.erf(x), (normal(5),)),
]
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_scipy(c: Case) -> None:
    check_value(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_gradient_matches_central_differences(c: Case) -> None:
    check_gradient(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_agrees_with_gradient(c: Case) -> None:
    check_jvp(c)


SMOOTH = [c for c in CASES if c.smooth]


@pytest.mark.parametrize("c", SMOOTH, ids=[c.id for c in SMOOTH])
def test_hessian_vector_product(c: Case) -> None:
    check_hessian(c)


def _gammainc_in_a(a, x):
    return np.sum(sp.gammainc(a, x))  # the error points here


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_gammainc_in_a_is_a_located_error(mode: str) -> None:
    a, x = positive(3), positive(3)
    with pytest.raises(st.CompileError, match="no derivative rule in a") as info:
        if mode == "grad":
            st.grad(_gammainc_in_a, wrt=(0, 1))(a, x)
        else:
            st.jvp(_gammainc_in_a, (a, x), (np.ones(3), np.ones(3)))
    assert "test_rules_special.py" in str(info.value)
    assert "sp.gammainc(a, x)" in str(info.value)


def test_gammainc_with_constant_a_differentiates_x() -> None:
    a, x = positive(3), positive(3)
    g = st.grad(_gammainc_in_a, wrt=1)(a, x)
    expected = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def test_float32_stays_float32() -> None:
    x = positive(4).astype(np.float32)

    def f(x):
        return np.sum(sp.gammaln(x) + sp.digamma(x) + sp.expit(x))

    g = st.grad(f)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, sp.digamma(x) + sp.polygamma(1, x).astype(np.float32)
                               + sp.expit(x) * (1 - sp.expit(x)), rtol=1e-5)


# --- the eager runtime: st.special (torch.special's names) ---------------------------------

EAGER = [("expit", normal), ("logit", unit), ("erf", normal), ("erfc", normal),
         ("erfinv", lambda n: unit(n) - 0.5), ("digamma", positive), ("psi", positive),
         ("gammaln", positive), ("ndtr", normal), ("ndtri", unit), ("log_ndtr", normal),
         ("entr", unit), ("sinc", normal)]


@pytest.mark.parametrize("name, domain", EAGER, ids=[n for n, _ in EAGER])
def test_eager_special_value_and_gradient(name: str, domain) -> None:
    xv = domain(4)
    x = st.tensor(xv, requires_grad=True)
    y = getattr(st.special, name)(x)
    ref = np.sinc if name == "sinc" else getattr(sp, name)
    np.testing.assert_array_equal(y.detach().numpy(), ref(xv))
    y.sum().backward()
    eps = 1e-6
    np.testing.assert_allclose(x.grad.numpy(), (ref(xv + eps) - ref(xv - eps)) / (2 * eps),
                               rtol=1e-6, atol=1e-7)


def test_eager_xlogy_and_second_order() -> None:
    a = st.tensor(np.array([0.0, 1.5]), requires_grad=True)
    b = st.tensor(np.array([2.0, 0.5]), requires_grad=True)
    st.special.xlogy(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.log([2.0, 0.5]))
    np.testing.assert_allclose(b.grad.numpy(), [0.0, 3.0])
    x = st.tensor(np.array([1.3, 2.2]), requires_grad=True)
    (g,) = st.autograd.grad(st.special.gammaln(x).sum(), x, create_graph=True)
    (h,) = st.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), sp.digamma([1.3, 2.2]), rtol=1e-14)
    np.testing.assert_allclose(h.numpy(), sp.polygamma(1, [1.3, 2.2]), rtol=1e-12)


def test_a_registered_vjp_wins_over_the_built_in_rule() -> None:
    """st.register_vjp on a function the compiler has an op for: the user's rule is used."""
    from st_autodiff.derivatives import CUSTOM_VJPS

    def f(x):
        return np.sum(sp.erf(x))

    x = normal(3)
    st.register_vjp(sp.erf, lambda g, out, x: (g * 7.0,))
    try:
        np.testing.assert_allclose(st.grad(f)(x), np.full(3, 7.0))
    finally:
        del CUSTOM_VJPS[sp.erf]
    np.testing.assert_allclose(st.grad(f)(x), 2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-14)
