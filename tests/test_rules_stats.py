"""scipy.stats distribution methods in compiled code (``decompositions/select_stats.py``):
values equal to SciPy's (points outside the support, invalid parameters, ``nan`` and
infinite points, float32 inputs, 0-d results, broadcasting), frozen distributions and
keyword arguments, gradients that stay finite (zero) where SciPy's value is a fill value,
and located errors for active arguments that have no derivative.  The derivatives
themselves are checked against central differences and JAX by the differential specs
(``tests/differential/specs_stats.py``)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError

ss = pytest.importorskip("scipy.stats")

XS = np.array([-np.inf, -3.0, -0.5, 0.0, 0.3, 0.5, 1.0, 1.7, 40.0, np.inf, np.nan])
QS = np.array([0.0, 1e-3, 0.2, 0.5, 0.7, 1.0, 1.2, -0.1, np.nan])
KS = np.array([-np.inf, -1.0, 0.0, 1.0, 2.0, 2.5, 6.0, 7.0, 9.0, np.inf, np.nan])

#: shape parameters to try (valid, boundary and invalid values), per distribution
CONTINUOUS = {"norm": [], "t": [[3.5, np.inf, -1.0]], "gamma": [[2.5, 0.5, -1.0]],
              "beta": [[2.5, 0.6], [1.7, -0.4]], "chi2": [[3.5, 1.0]], "expon": [],
              "laplace": [], "logistic": [], "cauchy": [], "lognorm": [[0.7, -0.2]],
              "uniform": []}
DISCRETE = {"poisson": [[2.3, 0.0, -1.0]], "binom": [[7.0, 6.5, -1.0], [0.35, 0.0, 1.2]],
            "nbinom": [[3.5, -1.0], [0.35, 1.0]]}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
DISCRETE_METHODS = ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf")


def _continuous(dist, method, frozen):
    """``ss.<dist>.<method>(x, *shapes, loc, scale)`` (or frozen) as a function of arrays."""

    def f(x, loc, scale, *shapes):
        if frozen:
            return getattr(getattr(ss, dist)(*shapes, loc=loc, scale=scale), method)(x)
        return getattr(getattr(ss, dist), method)(x, *shapes, loc, scale)

    return f


def _discrete(dist, method):
    def f(k, loc, *shapes):
        return getattr(getattr(ss, dist), method)(k, *shapes, loc)

    return f


def _compiled_value(fn, args, k):
    """The value of the compiled ``fn`` (forward mode, a tangent on argument ``k``)."""
    tangents = [None] * len(args)
    tangents[k] = np.ones_like(args[k]) if isinstance(args[k], np.ndarray) else 1.0
    value, _ = st.jvp(fn, tuple(args), tuple(tangents))
    return value


def _same(value, ref):
    assert type(value) is type(ref), (type(value), type(ref))
    assert np.asarray(value).dtype == np.asarray(ref).dtype
    assert np.shape(value) == np.shape(ref)
    np.testing.assert_allclose(value, ref, rtol=1e-12, atol=0, equal_nan=True)


def _combos(params):
    """Parameter tuples that try each listed value of each parameter."""
    width = max((len(p) for p in params), default=1)
    return [list(c) for c in zip(*[p + p[:1] * (width - len(p)) for p in params])] or [[]]


def _cases():
    for dist, params in CONTINUOUS.items():
        methods = METHODS + ("ppf", "isf")
        for method in methods:
            yield dist, method, params


@pytest.mark.parametrize("dist, method, params", list(_cases()),
                         ids=[f"{d}.{m}" for d, m, _ in _cases()])
@pytest.mark.parametrize("frozen", [False, True], ids=["method", "frozen"])
def test_continuous_values(dist, method, params, frozen):
    fn = _continuous(dist, method, frozen)
    x = QS if method in ("ppf", "isf") else XS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for shapes in _combos(params):
            for loc, scale in ((0.0, 1.0), (0.3, 1.7), (0.0, -1.0)):
                args = [x, loc, scale, *shapes]
                _same(_compiled_value(fn, args, 0), fn(*args))


@pytest.mark.parametrize("dist", sorted(CONTINUOUS))
def test_continuous_float32_scalar_and_broadcast(dist):
    params = [p[0] for p in CONTINUOUS[dist]]
    cases = [[XS.astype(np.float32), np.float32(0.3), np.float32(1.5),
              *[np.float32(p) for p in params]],
             [0.7, 0.3, 1.5, *params],  # a NumPy scalar result
             [XS[:4], 0.1, np.array([1.0, 2.0])[:, None], *params]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in METHODS:
            fn = _continuous(dist, method, False)
            for args in cases:
                _same(_compiled_value(fn, args, 0), fn(*args))


def _discrete_cases():
    for dist, params in DISCRETE.items():
        for method in DISCRETE_METHODS:
            yield dist, method, params


@pytest.mark.parametrize("dist, method, params", list(_discrete_cases()),
                         ids=[f"{d}.{m}" for d, m, _ in _discrete_cases()])
def test_discrete_values(dist, method, params):
    fn = _discrete(dist, method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for shapes in _combos(params):
            for loc in (0, 1):
                args = [KS, loc, *shapes]
                _same(_compiled_value(fn, args, len(args) - 1), fn(*args))
        args = [2, 0, *[p[0] for p in params]]  # a NumPy scalar result
        _same(_compiled_value(fn, args, len(args) - 1), fn(*args))
        args = [np.array([0, 1, 3]), 0, *[p[0] for p in params]]  # integer points
        _same(_compiled_value(fn, args, len(args) - 1), fn(*args))


# --- gradients where SciPy's value is a fill value ----------------------------------------


def gamma_logpdf(x, a, scale):
    return ss.gamma.logpdf(x, a, scale=scale)


def binom_pmf(p):
    return ss.binom.pmf(np.array([-1, 0, 3, 7, 8]), 7, p)


def test_gradients_outside_the_support_are_zero():
    x = np.array([-1.0, 0.5, 2.0, -np.inf])
    value, pull = st.vjp(gamma_logpdf, x, 2.5, 1.5)
    np.testing.assert_array_equal(value, ss.gamma.logpdf(x, 2.5, scale=1.5))
    gx, ga, gs = pull(np.ones(4))
    assert np.all(np.isfinite(gx)) and gx[0] == 0.0 and gx[3] == 0.0
    inside = x[1:3]
    _, pull_inside = st.vjp(gamma_logpdf, inside, 2.5, 1.5)
    gx2, ga2, gs2 = pull_inside(np.ones(2))
    np.testing.assert_allclose(gx[1:3], gx2)
    np.testing.assert_allclose(ga, ga2)  # points outside add nothing to the parameters
    np.testing.assert_allclose(gs, gs2)
    value, pull = st.vjp(binom_pmf, 0.3)
    np.testing.assert_allclose(value, ss.binom.pmf([-1, 0, 3, 7, 8], 7, 0.3), rtol=1e-12)
    (gp,) = pull(np.ones(5))
    k = np.array([0.0, 3.0, 7.0])
    pmf = ss.binom.pmf(k, 7, 0.3)
    np.testing.assert_allclose(gp, np.sum(pmf * (k / 0.3 - (7 - k) / 0.7)), rtol=1e-10)


def invalid_scale(x, scale):
    return ss.norm.logpdf(x, 0.0, scale)


def test_invalid_parameters_give_nan_and_no_gradient():
    x = np.array([0.1, 0.2])
    value, pull = st.vjp(invalid_scale, x, -1.0)
    assert np.all(np.isnan(value))
    gx, gs = pull(np.ones(2))
    np.testing.assert_array_equal(gx, 0.0)
    assert gs == 0.0


# --- derivatives in closed form, second order ----------------------------------------------


def norm_logpdf_sum(x, loc, scale):
    return np.sum(ss.norm.logpdf(x, loc, scale))


def test_second_order_in_the_parameters():
    x = np.array([0.3, -1.2, 2.0])
    h = st.hessian(norm_logpdf_sum, wrt=(1, 2))(x, 0.4, 1.3)
    r = x - 0.4
    s = 1.3
    expected = np.array([[-3 / s ** 2, -2 * np.sum(r) / s ** 3],
                         [-2 * np.sum(r) / s ** 3, 3 / s ** 2 - 3 * np.sum(r ** 2) / s ** 4]])
    np.testing.assert_allclose(np.array(h, dtype=float).reshape(2, 2), expected, rtol=1e-10)


def gamma_ppf_q(q):
    return np.sum(ss.gamma.ppf(q, 2.5, scale=1.5))


def test_quantile_derivative_is_the_reciprocal_density():
    q = np.array([0.1, 0.5, 0.9])
    g = st.grad(gamma_ppf_q)(q)
    np.testing.assert_allclose(g, 1 / ss.gamma.pdf(ss.gamma.ppf(q, 2.5, scale=1.5), 2.5,
                                                     scale=1.5), rtol=1e-10)


def t_cdf_x(x):
    return np.sum(ss.t.cdf(x, 3.5))


def test_t_cdf_derivative_is_the_density():
    x = np.array([-2.0, 0.1, 1.5])
    g = st.grad(t_cdf_x)(x)
    np.testing.assert_allclose(g, ss.t.pdf(x, 3.5), rtol=1e-12)


def float32_grad(x, loc):
    return np.sum(ss.logistic.logpdf(x, loc, 2.0))


def test_float32_inputs_get_float32_gradients():
    x = np.array([0.1, 0.7], dtype=np.float32)
    value, pull = st.vjp(float32_grad, x, np.float32(0.2))
    assert np.asarray(value).dtype == np.float64  # as SciPy: promote_types(x, float64)
    gx, gl = pull(1.0)
    assert gx.dtype == np.float32 and np.asarray(gl).dtype == np.float32


# --- keywords ------------------------------------------------------------------------------


def keywords(x, df, s):
    return ss.t.logpdf(df=df, scale=s, x=x)


def frozen_keywords(x, a, b):
    return ss.beta(a, b=b, loc=0.0).pdf(x)


def test_keywords_and_frozen_keywords():
    x = np.array([0.2, 0.6])
    np.testing.assert_allclose(st.vjp(keywords, x, 3.0, 1.5)[0],
                               ss.t.logpdf(x, 3.0, scale=1.5), rtol=1e-12)
    np.testing.assert_allclose(st.vjp(frozen_keywords, x, 2.0, 3.0)[0],
                               ss.beta(2.0, b=3.0).pdf(x), rtol=1e-12)


def missing_shape(x):
    return np.sum(ss.gamma.logpdf(x))


def test_missing_shape_parameter_is_a_located_error():
    with pytest.raises(CompileError, match="missing 1 required positional argument: 'a'"):
        st.grad(missing_shape)(np.array([0.5]))


# --- located errors for arguments without a derivative -----------------------------------


def binom_n(p, n):
    return np.sum(ss.binom.logpmf(np.array([1, 2]), n, p))


def t_cdf_df(x, df):
    return np.sum(ss.t(df).cdf(x))


def beta_cdf_b(x, b):
    return np.sum(ss.beta.cdf(x, 2.0, b))


def gamma_sf_a(x, a):
    return np.sum(ss.gamma.sf(x, a))


def nbinom_cdf_n(p, n):
    return np.sum(ss.nbinom.cdf(np.array([1, 4]), n, p))


def poisson_k(mu, k):
    return np.sum(ss.poisson.pmf(k, mu))


def chi2_ppf_df(q, df):
    return np.sum(ss.chi2.ppf(q, df))


ERRORS = [
    (chi2_ppf_df, (np.array([0.1, 0.2]), 3.0), "chi2.ppf has no derivative in df"),
    (binom_n, (0.3, 5.0), "binom.logpmf has no derivative in n"),
    (t_cdf_df, (np.array([0.1, 0.2]), 3.0), "t.cdf has no derivative in df"),
    (beta_cdf_b, (np.array([0.1, 0.2]), 3.0), "beta.cdf has no derivative in b"),
    (gamma_sf_a, (np.array([0.1, 0.2]), 3.0), "in a"),
    (nbinom_cdf_n, (0.3, 3.5), "nbinom.cdf has no derivative in n"),
    (poisson_k, (2.0, np.array([1.0, 2.0])), "poisson.pmf has no derivative in k"),
]


@pytest.mark.parametrize("fn, args, message", ERRORS, ids=[e[0].__name__ for e in ERRORS])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_active_argument_without_derivative_is_located(fn, args, message, mode):
    line = inspect.getsourcelines(fn)[1] + 1
    with pytest.raises(CompileError, match=message) as info:
        if mode == "grad":
            st.grad(fn, wrt=1)(*args)
        else:
            st.jvp(fn, args, (None, np.ones_like(args[1]) if isinstance(args[1], np.ndarray)
                              else 1.0))
    loc = info.value.call_site or info.value.loc
    assert loc.file == __file__ and loc.line == line, str(info.value)
    # the other argument alone is differentiable
    st.grad(fn, wrt=0)(*args)


# --- multivariate normal (select_stats: Cholesky instead of SciPy's eigh) -----------------


def _mvn(method):
    def f(x, mean, cov):
        return getattr(ss.multivariate_normal, method)(x, mean, cov)

    return f


def mvn_no_mean(x, cov):
    return ss.multivariate_normal.logpdf(x, cov=cov)


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_multivariate_normal_values(method):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + np.eye(3)
    fn = _mvn(method)
    for x, mean, c in ((rng.normal(size=3), rng.normal(size=3), cov),
                       (rng.normal(size=(2, 4, 3)), rng.normal(size=3), cov),
                       (rng.normal(size=3), np.zeros(3), np.array([1.0, 2.0, 0.5])),
                       (rng.normal(size=5), 0.3, 2.0),
                       (0.4, 0.3, 2.0)):
        _same(_compiled_value(fn, [x, mean, c], 0), fn(x, mean, c))
    x = rng.normal(size=(4, 3))
    _same(_compiled_value(mvn_no_mean, [x, cov], 0), mvn_no_mean(x, cov))


def mvn_sum(x, mean, factor):
    return np.sum(ss.multivariate_normal.logpdf(x, mean, factor @ factor.T + np.eye(2)))


def test_multivariate_normal_gradient_in_the_covariance():
    rng = np.random.default_rng(1)
    x, mean, factor = rng.normal(size=(5, 2)), rng.normal(size=2), rng.normal(size=(2, 2))
    gm, gf = st.grad(mvn_sum, wrt=(1, 2))(x, mean, factor)
    cov = factor @ factor.T + np.eye(2)
    inv = np.linalg.inv(cov)
    dev = x - mean
    np.testing.assert_allclose(gm, inv @ dev.sum(axis=0), rtol=1e-10)
    # d/dC = -n/2 C^-1 + 1/2 C^-1 (sum dev dev^T) C^-1; dC/dF: G -> (G + G^T) F
    gc = -0.5 * len(x) * inv + 0.5 * inv @ dev.T @ dev @ inv
    np.testing.assert_allclose(gf, (gc + gc.T) @ factor, rtol=1e-10)


def mvn_frozen(x, mean, factor):
    frozen = ss.multivariate_normal(mean, factor @ factor.T + np.eye(2))
    return frozen.logpdf(x) + frozen.pdf(x)


def test_frozen_multivariate_normal():
    rng = np.random.default_rng(2)
    args = (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(2, 2)))
    value, pull = st.vjp(mvn_frozen, *args)
    _same(value, mvn_frozen(*args))
    gx, gm, gf = pull(np.ones(3))
    h = 1e-6
    for k, g in enumerate((gx, gm, gf)):
        d = rng.normal(size=np.shape(args[k]))
        plus = [a + h * d if i == k else a for i, a in enumerate(args)]
        minus = [a - h * d if i == k else a for i, a in enumerate(args)]
        fd = (np.sum(mvn_frozen(*plus)) - np.sum(mvn_frozen(*minus))) / (2 * h)
        np.testing.assert_allclose(np.sum(g * d), fd, rtol=1e-6)
