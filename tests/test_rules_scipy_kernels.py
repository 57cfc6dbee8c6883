"""SciPy and scikit-learn functions whose compiled kernels have no derivative of their own
(``st_autodiff/decompositions/select_scipy.py``): pairwise distances, ``squareform``,
real convolutions, ``lfilter``/``sosfilt``, ``sqrtm``/``solve_sylvester`` and the chi2
kernels.

Each case is a call as real code writes it.  The compiled value equals SciPy's (to 1e-13:
the decompositions sum in their own order), the gradient matches float64 central
differences, the forward mode agrees with it, and the Hessian matches central differences
of the gradient (second order through the kernels' rules, which the compiler reads).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

distance = pytest.importorskip("scipy.spatial.distance")
signal = pytest.importorskip("scipy.signal")
linalg = pytest.importorskip("scipy.linalg")

_rng = np.random.default_rng(11)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def positive(*shape: int) -> np.ndarray:
    return _rng.random(shape) + 0.2


def spd(n: int) -> np.ndarray:
    a = normal(n, n)
    return a @ a.T + n * np.eye(n)


P53, Q43, P42 = normal(5, 3), normal(4, 3), normal(4, 2)
_METRICS = ["euclidean", "sqeuclidean", "cityblock", "chebyshev", "cosine", "correlation",
            "braycurtis"]
A3, B2, A2 = np.array([1.3, -0.4, 0.2]), np.array([0.5, 0.3]), np.array([0.9, 0.35])
SIG = normal(9)
ZI = normal(2)
SYL_A, SYL_B = spd(3), spd(3) + normal(3, 3) * 0.1

def _with_ones(s):
    return np.concatenate((s[:, :3], np.ones((2, 1)), s[:, 3:]), axis=1)


SOS = np.array([[0.2, 0.4, 0.2, 1.0, -0.3, 0.1], [1.0, -0.5, 0.0, 1.0, 0.2, 0.0]])

CASES = [
    *(Case(f"cdist_{m}", lambda x, y, m=m: distance.cdist(x, y, m), (P53, Q43),
           smooth=m not in ("cityblock", "chebyshev")) for m in _METRICS),
    *(Case(f"pdist_{m}", lambda x, m=m: distance.pdist(x, metric=m), (P53,),
           smooth=m not in ("cityblock", "chebyshev")) for m in _METRICS),
    Case("cdist_minkowski_p3", lambda x, y: distance.cdist(x, y, "minkowski", p=3),
         (P42, P42[::-1] + 0.1)),
    Case("cdist_self_euclidean", lambda x: distance.cdist(x, x), (P53,)),
    *(Case(f"vector_{m}", lambda u, v, m=m: getattr(distance, m)(u, v), (normal(4), normal(4)),
           smooth=m not in ("cityblock", "chebyshev")) for m in _METRICS),
    Case("vector_minkowski", lambda u, v: distance.minkowski(u, v, 3), (normal(4), normal(4))),
    Case("seuclidean", lambda u, v, s: distance.seuclidean(u, v, s),
         (normal(4), normal(4), positive(4))),
    Case("pdist_minkowski_p1.5", lambda x: distance.pdist(x, "minkowski", p=1.5), (P53,)),
    Case("cdist_alias_sqe", lambda x: distance.cdist(x, x, "sqe"), (P42,)),
    Case("squareform_vector", lambda x: distance.squareform(x), (normal(6),)),
    Case("squareform_of_pdist", lambda x: distance.squareform(distance.pdist(x)), (P53,)),
    Case("squareform_matrix",
         lambda x: distance.squareform((x + x.T) * (1 - np.eye(4)), checks=False),
         (normal(4, 4),)),
    *(Case(f"{fn.__name__}_{mode}_{i}", lambda x, k, fn=fn, mode=mode: fn(x, k, mode=mode), args)
      for fn in (signal.convolve, signal.correlate, signal.fftconvolve)
      for mode in ("full", "same", "valid")
      for i, args in enumerate([(normal(9), normal(3)), (normal(3), normal(7))])),
    Case("convolve_2d_same", lambda x, k: signal.convolve(x, k, mode="same"),
         (normal(5, 4), normal(2, 3))),
    Case("fftconvolve_2d_valid", lambda x, k: signal.fftconvolve(x, k, mode="valid"),
         (normal(5, 4), normal(2, 3))),
    Case("fftconvolve_long_same", lambda x, k: signal.fftconvolve(x, k, mode="same"),
         (normal(300), normal(200))),
    Case("correlate_2d_full", lambda x, k: signal.correlate(x, k), (normal(3, 4), normal(2, 2))),
    Case("lfilter_x_b_a", lambda x, b, a: signal.lfilter(b, a, x), (SIG, B2, A3)),
    Case("lfilter_long_b", lambda x, b, a: signal.lfilter(b, a, x), (SIG, A3 * 0.5, A2)),
    Case("lfilter_list_and_scalar", lambda x: signal.lfilter([1, 2], 1.5, x), (SIG,)),
    Case("lfilter_fir_list_a", lambda x, b: signal.lfilter(b, [1.0], x), (SIG, B2)),
    Case("lfilter_axis0", lambda x, b: signal.lfilter(b, A3, x, axis=0), (normal(6, 3), B2)),
    Case("lfilter_zi_y", lambda x, a, z: signal.lfilter(B2, a, x, zi=z)[0], (SIG, A3, ZI)),
    Case("lfilter_zi_zf", lambda x, a, z: signal.lfilter(B2, a, x, zi=z)[1], (SIG, A3, ZI)),
    Case("lfilter_zi_short", lambda x, b, z: signal.lfilter(b, A3, x, zi=z)[1],
         (normal(1), B2, ZI)),
    Case("lfilter_zi_axis1",
         lambda x, z: np.concatenate(signal.lfilter(B2, A3, x, axis=1, zi=z), axis=1),
         (normal(2, 7), normal(2, 2))),
    Case("sosfilt", lambda x: signal.sosfilt(
        np.array([[0.2, 0.4, 0.2, 1.0, -0.3, 0.1], [1.0, -0.5, 0.0, 1.0, 0.2, 0.0]]), x),
        (SIG,)),
    Case("filtfilt", lambda x: signal.filtfilt(B2, A3, x), (normal(12),)),
    Case("filtfilt_even_axis0", lambda x: signal.filtfilt(A2, A3, x, axis=0, padtype="even"),
         (normal(11, 2),)),
    Case("filtfilt_constant_padlen", lambda x: signal.filtfilt(B2, A3, x, padtype="constant",
                                                               padlen=4), (normal(8),)),
    Case("filtfilt_nopad", lambda x: signal.filtfilt(B2, A3, x, padtype=None), (normal(6),)),
    Case("filtfilt_coefficients", lambda b, a: signal.filtfilt(b, a, SIG), (A2 * 0.5, A2)),
    Case("sosfilt_global_sos", lambda x: signal.sosfilt(SOS, x, axis=0), (normal(7, 2),)),
    Case("sosfilt_runtime_sos", lambda s, x: signal.sosfilt(_with_ones(s), x),
         (np.delete(SOS, 3, axis=1), normal(7))),
    Case("sosfilt_zi_y", lambda x, z: signal.sosfilt(SOS, x, zi=z)[0], (SIG, normal(2, 2))),
    Case("sosfilt_zi_zf_axis0", lambda x, z: signal.sosfilt(SOS, x, axis=0, zi=z)[1],
         (normal(6, 3), normal(2, 2, 3))),
    Case("sosfilt_zi_short", lambda x, z: signal.sosfilt(SOS, x, zi=z)[1],
         (normal(1), normal(2, 2))),
    Case("sosfiltfilt", lambda x: signal.sosfiltfilt(SOS, x), (normal(20),)),
    Case("sosfiltfilt_axis0_even", lambda x: signal.sosfiltfilt(SOS, x, axis=0, padtype="even"),
         (normal(20, 2),)),
    Case("sqrtm", lambda a: linalg.sqrtm(a), (spd(4),), tol=1e-5),
    Case("sqrtm_nonsymmetric", lambda a: linalg.sqrtm(a), (spd(3) + normal(3, 3) * 0.3,),
         tol=1e-5),
    Case("solve_sylvester", lambda a, b, q: linalg.solve_sylvester(a, b, q),
         (SYL_A, SYL_B, normal(3, 3))),
]
IDS = [c.id for c in CASES]
SMOOTH = [c for c in CASES if c.smooth]


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_scipy(c: Case) -> None:
    check_value(Case(c.id, c.fn, c.args, exact=False))


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_gradient_matches_central_differences(c: Case) -> None:
    check_gradient(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_agrees_with_gradient(c: Case) -> None:
    check_jvp(c)


@pytest.mark.parametrize("c", SMOOTH, ids=[c.id for c in SMOOTH])
def test_hessian_vector_product(c: Case) -> None:
    check_hessian(c)


sklearn_pairwise = pytest.importorskip("sklearn.metrics.pairwise")
gpk = pytest.importorskip("sklearn.gaussian_process.kernels")

_RQ = gpk.RationalQuadratic(length_scale=1.1, alpha=0.7)

SKLEARN = [
    Case("additive_chi2_kernel", lambda x, y: sklearn_pairwise.additive_chi2_kernel(x, y),
         (positive(4, 3), positive(2, 3))),
    Case("chi2_kernel_gamma", lambda x, y: sklearn_pairwise.chi2_kernel(x, y, gamma=0.7),
         (positive(4, 3), positive(2, 3))),
    Case("chi2_kernel_self", lambda x: sklearn_pairwise.chi2_kernel(x), (positive(3, 2),)),
    Case("manhattan_distances", lambda x, y: sklearn_pairwise.manhattan_distances(x, y),
         (normal(4, 3), normal(2, 3)), smooth=False),
    Case("gp_rbf", lambda x: gpk.RBF(length_scale=1.3)(x), (normal(4, 3),)),
    Case("gp_matern", lambda x: gpk.Matern(length_scale=0.9, nu=2.5)(x), (normal(4, 3),)),
    Case("gp_rational_quadratic", lambda x: _RQ(x), (normal(4, 3),)),
    Case("gp_rbf_cross", lambda x, y: gpk.RBF(length_scale=[1.3, 0.5, 2.0])(x, y),
         (normal(4, 3), normal(2, 3))),
]


@pytest.mark.parametrize("c", SKLEARN, ids=[c.id for c in SKLEARN])
def test_sklearn_kernels(c: Case) -> None:
    check_value(Case(c.id, c.fn, c.args, exact=False))
    check_gradient(c)
    if c.smooth:
        check_jvp(c)
        check_hessian(c)


# --- what stays refused: located errors at the user's call ------------------------------


def _complex_convolve(x):
    return np.sum(np.abs(signal.fftconvolve(x * (1 + 1j), np.ones(3))))


def _hamming(x):
    return np.sum(distance.cdist(x, x, "hamming"))


def _weighted(x):
    return np.sum(distance.pdist(x, "euclidean", w=np.ones(3)))


def _partial_axes(x):
    return np.sum(signal.fftconvolve(x, np.ones((2, 2)), axes=0))


@pytest.mark.parametrize("fn, arg, message", [
    (_hamming, P53, "metric 'hamming' has no derivative rule"),
    (_weighted, P53, "weights w= are not supported"),
    (_partial_axes, normal(4, 3), "axes= over some of the axes"),
])
def test_uncovered_uses_are_located_errors(fn, arg, message) -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.grad(fn)(arg)
    assert message in str(info.value)
    assert "test_rules_scipy_kernels.py" in str(info.value)


def test_complex_convolution_is_refused_with_a_location() -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.grad(_complex_convolve)(normal(5))
    assert "test_rules_scipy_kernels.py" in str(info.value)


def test_complex_sqrtm_is_a_runtime_error_not_a_dropped_imaginary_part() -> None:
    def loss(a):
        return np.sum(linalg.sqrtm(a))

    with pytest.raises(Exception, match="square root is complex"):
        st.grad(loss)(np.diag([1.0, -2.0, 3.0]))


def test_chi2_kernel_checks_the_values_like_sklearn() -> None:
    def loss(x, y):
        return np.sum(sklearn_pairwise.chi2_kernel(x, y))

    g = st.grad(loss)
    g(positive(3, 2), positive(2, 2))
    with pytest.raises(ValueError, match="X contains negative values"):
        g(-positive(3, 2), positive(2, 2))


def test_distances_of_float32_and_constant_lists_are_float64_like_scipy() -> None:
    q = [[0.0, 1.0], [2.0, 0.5]]

    def loss32(x):
        return np.sum(distance.cdist(x.astype(np.float32), q) ** 2) + np.sum(
            distance.pdist(x.astype(np.float32)))

    def loss64(x):
        return np.sum(distance.cdist(x, q) ** 2) + np.sum(distance.pdist(x))

    value, grad = st.value_and_grad(loss32)(P42)
    assert abs(value - loss32(P42)) < 1e-12
    np.testing.assert_allclose(grad, st.grad(loss64)(P42), rtol=1e-5)
    check_gradient(Case("lists", loss64, (P42,)))


def braycurtis32(u, v):
    return distance.braycurtis(u, v)


def seuclidean32(u, v, var):
    return distance.seuclidean(u, v, var)


def test_braycurtis_and_seuclidean_of_float32_compute_in_float64_like_scipy() -> None:
    """SciPy converts braycurtis' ``v`` and seuclidean's ``V`` to float64 first: the
    distance of float32 vectors is a float64 value; the gradients keep float32."""
    u, v, var = (x.astype(np.float32) for x in (normal(4), normal(4), positive(4)))
    for fn, args in ((braycurtis32, (u, v)), (seuclidean32, (u, v, var)),
                     (seuclidean32, (u, v, var.astype(np.float64))),
                     (seuclidean32, (u.astype(np.float64), v.astype(np.float64), var))):
        value, pullback = st.vjp(fn, *args)
        expected = fn(*args)
        assert np.asarray(value).dtype == np.float64
        np.testing.assert_allclose(value, expected, rtol=1e-15)
        grads = pullback(np.float64(1.0))
        assert [np.asarray(g).dtype for g in grads] == [a.dtype for a in args]


def sosfilt_literal(x, zi):
    y, zf = signal.sosfilt([[0.2, 0.4, 0.2, 1.0, -0.3, 0.1], [1.0, -0.5, 0.0, 1.0, 0.2, 0.0]],
                           x, zi=zi)
    return np.sum(y * y) + np.sum(zf)


def test_sos_as_a_nested_list_literal_is_a_constant() -> None:
    """A nested list of numbers written in the call is a constant (it was refused as
    'a nested list of runtime values')."""
    check_gradient(Case("sos_literal", sosfilt_literal, (normal(8), normal(2, 2))))


def test_sosfilt_checks_the_sections_like_scipy() -> None:
    def loss(s, x):
        return np.sum(signal.sosfilt(s, x))

    g = st.grad(loss)
    g(SOS, SIG)
    with pytest.raises(ValueError, match="should be all ones"):
        g(SOS * 2, SIG)


def test_lfilter_is_one_call_in_the_generated_code() -> None:
    def loss(x):
        return np.sum(signal.lfilter(B2, A3, x) ** 2)

    g = st.grad(loss)
    g(SIG)
    source = g.source
    assert "lfilter_last" in source, source


# --- the eager runtime's torch.cdist ----------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, np.inf])
def test_eager_cdist_matches_scipy_and_the_compiler(p: float) -> None:
    a, b = normal(4, 3), normal(2, 3)
    w = normal(4, 2)
    x = st.tensor(a, requires_grad=True)
    out = st.cdist(x, st.tensor(b), p=p)
    np.testing.assert_allclose(out.detach().numpy(), distance.cdist(a, b, "minkowski", p=p),
                               rtol=1e-13)
    (out * st.tensor(w)).sum().backward()

    def loss(x):
        return np.sum(distance.cdist(x, b, "minkowski", p=p) * w)

    np.testing.assert_allclose(x.grad.numpy(), st.grad(loss)(a), rtol=1e-10)
    check_gradient(Case(f"eager_{p}", lambda x: distance.cdist(x, b, "minkowski", p=p), (a,)))


def test_eager_cdist_of_coincident_points_has_zero_gradient_there() -> None:
    a = normal(3, 2)
    x = st.tensor(a, requires_grad=True)
    st.cdist(x, st.tensor(a)).sum().backward()  # x2 a constant copy: only x1 moves
    expected = np.sum((a[:, None] - a[None]) / np.maximum(
        np.linalg.norm(a[:, None] - a[None], axis=-1, keepdims=True), 1e-300), axis=1)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("p", [1.0, 2.0, 1.5])
def test_eager_pdist_matches_scipy(p: float) -> None:
    a = normal(5, 3)
    w = normal(10)
    x = st.tensor(a, requires_grad=True)
    out = st.pdist(x, p=p)
    np.testing.assert_allclose(out.detach().numpy(), distance.pdist(a, "minkowski", p=p),
                               rtol=1e-13)
    (out * st.tensor(w)).sum().backward()

    def loss(x):
        return np.sum(distance.pdist(x, "minkowski", p=p) * w)

    np.testing.assert_allclose(x.grad.numpy(), st.grad(loss)(a), rtol=1e-10)
