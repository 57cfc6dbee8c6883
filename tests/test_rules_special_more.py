"""The special family's scipy.special functions in compiled code and in the eager runtime:
values bit-equal to SciPy's (the kernels call SciPy), gradients against central
differences, forward mode against the gradient, second order, float32 kept, and a located
error (file:line:col of the user's call) for an active argument without a derivative rule
(``betainc``'s a and b, Bessel orders, ``expn``'s n, ``zeta``'s x)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

sp = pytest.importorskip("scipy.special")

_rng = np.random.default_rng(17)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def positive(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 3.0, shape)


def unit(*shape: int) -> np.ndarray:
    return _rng.uniform(0.1, 0.9, shape)


def nonzero(*shape: int) -> np.ndarray:
    return _rng.choice([-1.0, 1.0], shape) * _rng.uniform(0.3, 2.0, shape)


CASES = [
    Case("gamma", lambda x: sp.gamma(x), (positive(5),)),
    Case("rgamma", lambda x: sp.rgamma(x), (positive(5),)),
    Case("gammasgn", lambda x: sp.gammasgn(x) * x, (nonzero(5),)),
    Case("loggamma", lambda x: sp.loggamma(x), (positive(5),)),
    Case("multigammaln", lambda x: sp.multigammaln(x + 2.0, 3), (positive(1)[0],)),
    Case("beta", lambda a, b: sp.beta(a, b), (positive(5), positive(5))),
    Case("betainc-x", lambda x: sp.betainc(2.5, 1.5, x), (unit(5),)),
    Case("betainc-a1-b1-edges", lambda x: sp.betainc(1.0, 1.0, x), (unit(3),)),
    Case("erfcinv", lambda x: sp.erfcinv(x * 1.5), (unit(5),)),
    Case("erfcx", lambda x: sp.erfcx(x), (normal(5),)),
    Case("erfi", lambda x: sp.erfi(x), (normal(5),)),
    Case("dawsn", lambda x: sp.dawsn(x), (normal(5),)),
    Case("i0", lambda x: sp.i0(x), (normal(5),)),
    Case("i0e", lambda x: sp.i0e(x), (nonzero(5),)),
    Case("i1", lambda x: sp.i1(x), (normal(5),)),
    Case("i1e", lambda x: sp.i1e(x), (nonzero(5),)),
    Case("iv", lambda x: sp.iv(1.5, x), (positive(5),)),
    Case("iv-int-order", lambda x: sp.iv(3, x), (normal(5),)),
    Case("ive", lambda x: sp.ive(2.0, x), (nonzero(5),)),
    Case("ive-half-order", lambda x: sp.ive(0.5, x), (positive(5),)),
    Case("jv", lambda x: sp.jv(2.5, x), (positive(5),)),
    Case("j0", lambda x: sp.j0(x), (normal(5),)),
    Case("j1", lambda x: sp.j1(x), (normal(5),)),
    Case("y0", lambda x: sp.y0(x), (positive(5),)),
    Case("y1", lambda x: sp.y1(x), (positive(5),)),
    Case("yn", lambda x: sp.yn(3, x), (positive(5),)),
    Case("yv", lambda x: sp.yv(1.25, x), (positive(5),)),
    Case("kv", lambda x: sp.kv(0.75, x), (positive(5),)),
    Case("kve", lambda x: sp.kve(2.0, x), (positive(5),)),
    Case("k0", lambda x: sp.k0(x), (positive(5),)),
    Case("k0e", lambda x: sp.k0e(x), (positive(5),)),
    Case("k1", lambda x: sp.k1(x), (positive(5),)),
    Case("k1e", lambda x: sp.k1e(x), (positive(5),)),
    Case("zeta-q", lambda q: sp.zeta(2.5, q), (positive(5),)),
    Case("zeta-q-keyword", lambda q: sp.zeta(4.0, q=q), (positive(5),)),
    Case("expn", lambda x: sp.expn(3, x), (positive(5),)),
    Case("expn-0", lambda x: sp.expn(0, x), (positive(5),)),
    Case("exp1", lambda x: sp.exp1(x), (positive(5),)),
    Case("expi", lambda x: sp.expi(x), (nonzero(5),)),
    Case("spence", lambda x: sp.spence(x), (positive(5),)),
    Case("spence-at-1", lambda x: sp.spence(x * 0.0 + 1.0) * x, (positive(3),)),
    Case("boxcox1p", lambda x, lm: sp.boxcox1p(x, lm), (positive(5), normal(5))),
    Case("boxcox1p-lmbda-zero", lambda x, lm: sp.boxcox1p(x, lm * 0.0),
         (positive(3), normal(3)), smooth=False),
    Case("inv_boxcox", lambda y, lm: sp.inv_boxcox(y, lm), (unit(5), unit(5) - 0.5)),
    Case("inv_boxcox-lmbda-zero", lambda y, lm: sp.inv_boxcox(y, lm * 0.0),
         (unit(3), normal(3)), smooth=False),
    Case("owens_t", lambda h, a: sp.owens_t(h, a), (normal(5), normal(5))),
    Case("log1p", lambda x: sp.log1p(x), (positive(5),)),
    Case("expm1", lambda x: sp.expm1(x), (normal(5),)),
    Case("cosm1", lambda x: sp.cosm1(x), (normal(5),)),
    Case("exprel", lambda x: sp.exprel(x), (normal(5),)),
    Case("exprel-near-0", lambda x: sp.exprel(x * 1e-5), (normal(5),)),
    Case("cbrt", lambda x: sp.cbrt(x), (positive(5),)),
    Case("exp2", lambda x: sp.exp2(x), (normal(5),)),
    Case("exp10", lambda x: sp.exp10(x), (normal(5),)),
    Case("sindg", lambda x: sp.sindg(x * 90.0), (normal(5),)),
    Case("cosdg", lambda x: sp.cosdg(x * 90.0), (normal(5),)),
    Case("binom", lambda n, k: sp.binom(n + 4.0, k), (positive(5), positive(5))),
    Case("poch", lambda z, m: sp.poch(z, m), (positive(5), positive(5))),
    Case("logsumexp", lambda x: sp.logsumexp(x), (normal(2, 3),), exact=False),
    Case("logsumexp-axis", lambda x: sp.logsumexp(x, axis=1), (normal(2, 3),), exact=False),
    Case("logsumexp-keepdims", lambda x: sp.logsumexp(x, axis=0, keepdims=True),
         (normal(2, 3),), exact=False),
    Case("logsumexp-b", lambda x, b: sp.logsumexp(x, axis=-1, b=b), (normal(2, 3), positive(3)),
         exact=False),
    Case("logsumexp-sign", lambda x, b: sp.logsumexp(x, b=b * np.array([1.0, -4.0, 1.0]),
                                                     axis=1, return_sign=True)[0],
         (normal(2, 3), positive(3)), exact=False),
    Case("softmax-axis", lambda x: sp.softmax(x, axis=1) * x, (normal(2, 3),), exact=False),
    Case("log_softmax-axis", lambda x: sp.log_softmax(x, axis=0), (normal(2, 3),), exact=False),
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


_NEW_UFUNCS = ["gamma", "rgamma", "loggamma", "erfcx", "erfi", "dawsn", "i0", "i0e", "i1",
               "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "exp1", "expi",
               "spence", "log1p", "expm1", "cosm1", "exprel", "cbrt", "exp2", "exp10",
               "sindg", "cosdg"]


@pytest.mark.parametrize("name", _NEW_UFUNCS)
def test_array_values_are_scipys_bit_for_bit(name: str) -> None:
    """The compiled function returns exactly what SciPy returns, float32 as float32."""
    fn = getattr(sp, name)

    def f(x):
        return fn(x)

    for x in (positive(7), positive(7).astype(np.float32)):
        value, pull = st.vjp(f, x)
        assert value.dtype == fn(x).dtype == x.dtype
        np.testing.assert_array_equal(value, fn(x))
        grads = pull(np.ones_like(value))
        assert (grads if isinstance(grads, tuple) else (grads,))[0].dtype == x.dtype


def test_float32_in_float32_out() -> None:
    x = positive(4).astype(np.float32)

    def f(x):
        return np.sum(sp.gamma(x) + sp.iv(1.5, x) + sp.betainc(2.0, 3.0, x / 4)
                      + sp.zeta(3.0, x) + sp.kve(0.5, x))

    g = st.grad(f)(x)
    assert g.dtype == np.float32
    h = 1e-6
    x64 = x.astype(np.float64)
    fd = np.array([(f(x64 + h * e) - f(x64 - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(g, fd, rtol=1e-4)


# --- located errors: arguments without a derivative rule -----------------------------------


def _betainc_in_a(a, b, x):
    return np.sum(sp.betainc(a, b, x))  # error: here


def _iv_in_order(v, x):
    return np.sum(sp.iv(v, x))  # error: here


def _yn_in_order(n, x):
    return np.sum(sp.yn(n, x))  # error: here


def _expn_in_order(n, x):
    return np.sum(sp.expn(n, x))  # error: here


def _zeta_in_x(x, q):
    return np.sum(sp.zeta(x, q))  # error: here


def _riemann_zeta(x):
    return np.sum(sp.zeta(x))  # error: here


LOCATED = [
    ("betainc-a", _betainc_in_a, (positive(3), positive(3), unit(3)), (0,), "in a"),
    ("betainc-b", _betainc_in_a, (positive(3), positive(3), unit(3)), (1,), "in b"),
    ("iv-v", _iv_in_order, (positive(3), positive(3)), (0,), "order v"),
    ("yn-n", _yn_in_order, (np.array([1.0, 2.0]), positive(2)), (0,), "order n"),
    ("expn-n", _expn_in_order, (np.array([1.0, 2.0]), positive(2)), (0,), "order n"),
    ("zeta-x", _zeta_in_x, (positive(3) + 1.5, positive(3)), (0,), "in x"),
    ("riemann-zeta", _riemann_zeta, (positive(3) + 1.5,), (0,), "Riemann zeta"),
]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("case", LOCATED, ids=[c[0] for c in LOCATED])
def test_active_nondifferentiable_argument_is_a_located_error(case, mode: str) -> None:
    _, fn, args, active, words = case
    if mode == "jvp":  # (zero tangents of the other arguments count as tangents too)
        words = "no derivative rule"
    with pytest.raises(st.CompileError, match=words) as info:
        if mode == "grad":
            st.grad(fn, wrt=active)(*args)
        else:
            tangents = tuple(np.ones_like(a) if k in active else np.zeros_like(a)
                             for k, a in enumerate(args))
            st.jvp(fn, args, tangents)
    text = str(info.value)
    line = fn.__code__.co_firstlineno + 1
    assert f"test_rules_special_more.py:{line}:" in text, text
    assert "# error: here" in text


def test_other_arguments_differentiate_when_the_order_is_constant() -> None:
    a, b, x = positive(3), positive(3), unit(3)
    g = st.grad(_betainc_in_a, wrt=2)(a, b, x)
    np.testing.assert_allclose(g, x ** (a - 1) * (1 - x) ** (b - 1) / sp.beta(a, b),
                               rtol=1e-12)
    v, q = positive(3), positive(3)
    np.testing.assert_allclose(st.grad(_iv_in_order, wrt=1)(v, q),
                               (sp.iv(v - 1, q) + sp.iv(v + 1, q)) / 2, rtol=1e-12)
    s = positive(3) + 1.5
    np.testing.assert_allclose(st.grad(_zeta_in_x, wrt=1)(s, q), -s * sp.zeta(s + 1, q),
                               rtol=1e-12)


def test_riemann_zeta_of_a_constant_is_a_value() -> None:
    def f(x):
        return np.sum(x * sp.zeta(np.full(3, 3.5)))

    x = positive(3)
    np.testing.assert_array_equal(st.grad(f)(x), sp.zeta(np.full(3, 3.5)))


def _lambertw(x):
    return np.sum(np.real(sp.lambertw(x)))  # complex: here


def test_lambertw_is_a_located_complex_error() -> None:
    """scipy.special.lambertw returns complex values: refused, at the user's line."""
    with pytest.raises(st.CompileError, match="complex") as info:
        st.grad(_lambertw)(positive(3))
    assert f"test_rules_special_more.py:{_lambertw.__code__.co_firstlineno + 1}:" in str(
        info.value)


# --- the eager runtime: st.special under torch.special's names -----------------------------

EAGER = [
    ("gammaln", "gammaln", positive, "LgammaBackward0"),
    ("i0", "i0", normal, "I0Backward0"),
    ("i0e", "i0e", nonzero, "SpecialI0EBackward0"),
    ("i1", "i1", normal, "SpecialI1Backward0"),
    ("i1e", "i1e", nonzero, "SpecialI1EBackward0"),
    ("erfcx", "erfcx", normal, "SpecialErfcxBackward0"),
    ("bessel_j0", "j0", normal, "SpecialBesselJ0Backward0"),
    ("bessel_j1", "j1", normal, "SpecialBesselJ1Backward0"),
    ("bessel_y0", "y0", positive, "SpecialBesselY0Backward0"),
    ("bessel_y1", "y1", positive, "SpecialBesselY1Backward0"),
    ("modified_bessel_i0", "i0", normal, "SpecialModifiedBesselI0Backward0"),
    ("modified_bessel_i1", "i1", normal, "SpecialModifiedBesselI1Backward0"),
    ("modified_bessel_k0", "k0", positive, "SpecialModifiedBesselK0Backward0"),
    ("modified_bessel_k1", "k1", positive, "SpecialModifiedBesselK1Backward0"),
    ("scaled_modified_bessel_k0", "k0e", positive, "SpecialScaledModifiedBesselK0Backward0"),
    ("scaled_modified_bessel_k1", "k1e", positive, "SpecialScaledModifiedBesselK1Backward0"),
]


@pytest.mark.parametrize("name, ref, domain, node", EAGER, ids=[e[0] for e in EAGER])
def test_eager_special_value_gradient_and_node(name: str, ref: str, domain, node: str) -> None:
    xv = domain(4)
    x = st.tensor(xv, requires_grad=True)
    y = getattr(st.special, name)(x)
    fn = getattr(sp, ref)
    np.testing.assert_array_equal(y.detach().numpy(), fn(xv))
    assert type(y.grad_fn).__name__ == node
    y.sum().backward()
    eps = 1e-6
    np.testing.assert_allclose(x.grad.numpy(), (fn(xv + eps) - fn(xv - eps)) / (2 * eps),
                               rtol=1e-6, atol=1e-7)
    x32 = st.tensor(xv.astype(np.float32), requires_grad=True)
    y32 = getattr(st.special, name)(x32)
    assert y32.dtype == st.float32
    np.testing.assert_array_equal(y32.detach().numpy(), fn(xv.astype(np.float32)))


def test_eager_top_level_aliases_and_methods() -> None:
    xv = positive(3)
    x = st.tensor(xv, requires_grad=True)
    assert type(st.lgamma(x).grad_fn).__name__ == "LgammaBackward0"
    assert type(x.digamma().grad_fn).__name__ == "DigammaBackward0"
    assert type(st.erf(x).grad_fn).__name__ == "ErfBackward0"
    assert type(x.polygamma(1).grad_fn).__name__ == "PolygammaBackward0"
    np.testing.assert_array_equal(x.polygamma(2).detach().numpy(), sp.polygamma(2, xv))
    np.testing.assert_array_equal(st.igamma(x, 2.0).detach().numpy(), sp.gammainc(xv, 2.0))
    np.testing.assert_allclose(st.mvlgamma(x + 1.0, 2).detach().numpy(),
                               sp.multigammaln(xv + 1.0, 2), rtol=1e-14)
    np.testing.assert_allclose(st.special.spherical_bessel_j0(x).detach().numpy(),
                               np.sin(xv) / xv, rtol=1e-14)
    for name in ("expm1", "exp2", "log1p", "logsumexp", "softmax", "log_softmax", "round",
                 "sinc", "ndtr", "ndtri", "log_ndtr", "entr", "xlog1py", "psi"):
        assert callable(getattr(st.special, name)), name


def test_eager_zeta_and_gammainc_in_their_differentiable_argument() -> None:
    qv = positive(3)
    q = st.tensor(qv, requires_grad=True)
    y = st.special.zeta(3.0, q)
    assert type(y.grad_fn).__name__ == "SpecialZetaBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), sp.zeta(3.0, qv))
    y.sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), -3.0 * sp.zeta(4.0, qv), rtol=1e-14)
    x = st.tensor(qv, requires_grad=True)
    st.special.gammaincc(2.5, x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(),
                               -np.exp(1.5 * np.log(qv) - qv - sp.gammaln(2.5)), rtol=1e-12)


@pytest.mark.parametrize("name", ["zeta", "gammainc", "gammaincc"])
def test_eager_nondifferentiable_argument_raises_at_backward(name: str) -> None:
    a = st.tensor(positive(3) + 1.5, requires_grad=True)
    b = st.tensor(positive(3), requires_grad=True)
    y = getattr(st.special, name)(a, b)
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


def test_eager_second_order_through_a_bessel_recurrence() -> None:
    xv = positive(3)
    x = st.tensor(xv, requires_grad=True)
    (g,) = st.autograd.grad(st.special.i1(x).sum(), x, create_graph=True)
    (h,) = st.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), (sp.i0(xv) + sp.iv(2, xv)) / 2, rtol=1e-13)
    eps = 1e-5
    fd = ((sp.i0(xv + eps) + sp.iv(2, xv + eps)) - (sp.i0(xv - eps) + sp.iv(2, xv - eps))) / (
        4 * eps)
    np.testing.assert_allclose(h.numpy(), fd, rtol=1e-7)


def test_eager_mvlgamma_node_and_second_order() -> None:
    xv = positive(3) + 1.0
    x = st.tensor(xv, requires_grad=True)
    y = st.special.multigammaln(x, 3)
    assert type(y.grad_fn).__name__ == "MvlgammaBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [sp.multigammaln(v, 3) for v in xv],
                               rtol=1e-14)
    (g,) = st.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = st.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), sum(sp.digamma(xv - j / 2) for j in range(3)),
                               rtol=1e-13)
    np.testing.assert_allclose(h.numpy(), sum(sp.polygamma(1, xv - j / 2) for j in range(3)),
                               rtol=1e-12)
    with pytest.raises(RuntimeError, match="greater than 1.0"):
        st.special.multigammaln(st.tensor([0.9]), 3)


def test_eager_binary_special_keeps_float32() -> None:
    x = st.tensor(positive(3).astype(np.float32), requires_grad=True)
    for y in (st.special.xlogy(x, 2.0), st.special.xlog1py(2.0, x), st.special.zeta(3.0, x),
              st.special.gammaincc(2.0, x)):
        assert y.dtype == st.float32
        y.sum().backward()
        assert x.grad.dtype == st.float32
        x.grad = None
