"""NumPy functions the compiler reads as compositions of ops (``st_autodiff/decompositions``).

Each case is a NumPy call with the keyword arguments real code uses.  For every case the
compiled value equals NumPy's, the gradient matches float64 central differences, the
forward mode (``st.jvp``) agrees with the gradient, and where the function is smooth at
the point the Hessian matches central differences of the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st
from st_autodiff.decompositions import CROSS_OF_2_VECTORS

# np.cross of 2-vectors is deprecated in NumPy 2.0-2.4 (an error from 2.5); the cases that
# check we follow the installed NumPy call it on purpose
pytestmark = pytest.mark.filterwarnings(
    "ignore:Arrays of 2-dimensional vectors are deprecated:DeprecationWarning")

_rng = np.random.default_rng(7)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def distinct(n: int) -> np.ndarray:
    return _rng.permutation(np.linspace(-1.3, 1.7, n) + 0.013)


CASES = [
    Case("diff", lambda x: np.diff(x), (normal(6),)),
    Case("diff-n2-axis0", lambda x: np.diff(x, n=2, axis=0), (normal(5, 3),)),
    Case("diff-prepend", lambda x: np.diff(x, prepend=0.0), (normal(5),)),
    Case("diff-append-axis1", lambda x: np.diff(x, axis=1, append=x[:, :1]), (normal(3, 4),)),
    Case("ptp", lambda x: np.ptp(x), (distinct(7),), smooth=False),
    Case("ptp-axis", lambda x: np.ptp(x.reshape(3, 4), axis=1, keepdims=True),
         (distinct(12),), smooth=False),
    Case("average", lambda x: np.average(x), (normal(3, 4),)),
    Case("average-weights", lambda x, w: np.average(x ** 2, weights=w),
         (normal(3, 4), 1.0 + np.abs(normal(3, 4)))),
    Case("average-axis-1d-weights", lambda x: np.average(x, axis=1,
                                                         weights=np.array([1.0, 2.0, 3.0, 4.0])),
         (normal(3, 4),)),
    Case("average-returned", lambda x, w: np.average(x, axis=0, weights=w, returned=True)[0],
         (normal(3, 2), 1.0 + np.abs(normal(3, 2)))),
    Case("median-odd", lambda x: np.median(x), (distinct(7),), smooth=False),
    Case("median-even-axis", lambda x: np.median(x.reshape(2, 4), axis=1),
         (distinct(8),), smooth=False),
    Case("percentile", lambda x: np.percentile(x, 30.0), (distinct(9),), smooth=False),
    Case("quantile", lambda x: np.quantile(x, 0.75), (distinct(6),), smooth=False),
    Case("quantile-list-axis", lambda x: np.quantile(x.reshape(3, 5), [0.1, 0.5, 0.9], axis=1),
         (distinct(15),), smooth=False),
    Case("interp", lambda x, fp: np.interp(x, np.arange(5.0), fp),
         (np.array([-0.5, 0.3, 1.7, 2.2, 3.9, 5.5]), normal(5)), smooth=False),
    Case("interp-at-knots", lambda fp: np.interp(np.array([0.0, 2.0, 4.0]), np.arange(5.0), fp),
         (normal(5),)),
    Case("interp-left-right", lambda x, fp: np.interp(x, np.arange(4.0), fp, left=-1.0,
                                                       right=fp[0]),
         (np.array([-0.5, 0.3, 2.5, 3.5]), normal(4)), smooth=False),
    Case("trapezoid-dx", lambda y: np.trapezoid(y ** 2, dx=0.1), (normal(6),)),
    Case("trapezoid-x", lambda y, x: np.trapezoid(np.sin(y), x),
         (normal(6), np.cumsum(1.0 + np.abs(normal(6))))),
    Case("trapezoid-axis0", lambda y: np.trapezoid(y, axis=0), (normal(4, 3),)),
    Case("cov", lambda a: np.cov(a), (normal(3, 6),)),
    Case("cov-rowvar-bias", lambda a: np.cov(a, rowvar=False, bias=True), (normal(6, 3),)),
    Case("cov-1d-y", lambda a, b: np.cov(a, b), (normal(5), normal(5))),
    Case("corrcoef", lambda a: np.corrcoef(a), (normal(3, 6),), exact=False),
    Case("corrcoef-xy", lambda a, b: np.corrcoef(a, b), (normal(5), normal(5)), exact=False),
    Case("convolve-full", lambda x, k: np.convolve(x, k), (normal(6), normal(3)), exact=False),
    Case("convolve-valid", lambda x, k: np.convolve(x, k, mode="valid"),
         (normal(6), normal(3)), exact=False),
    Case("convolve-same", lambda x, k: np.convolve(x, k, mode="same"),
         (normal(6), normal(4)), exact=False),
    Case("convolve-same-short-a", lambda x, k: np.convolve(x, k, mode="same"),
         (normal(3), normal(6)), exact=False),
    Case("correlate-full", lambda x, k: np.correlate(x, k, mode="full"),
         (normal(6), normal(3)), exact=False),
    Case("correlate-valid", lambda x, k: np.correlate(x, k), (normal(6), normal(3)),
         exact=False),
    Case("correlate-same", lambda x, k: np.correlate(x, k, mode="same"),
         (normal(5), normal(4)), exact=False),
    Case("correlate-valid-long-v", lambda x, k: np.correlate(x, k), (normal(3), normal(5)),
         exact=False),
    Case("correlate-same-long-v", lambda x, k: np.correlate(x, k, "same"),
         (normal(4), normal(7)), exact=False),
    Case("cross", lambda a, b: np.cross(a, b), (normal(3), normal(3))),
    Case("cross-batch-axis0", lambda a, b: np.cross(a, b, axis=0), (normal(3, 4), normal(3, 4))),
    *([Case("cross-2d", lambda a, b: np.cross(a, b), (normal(4, 2), normal(4, 2)))]
      if CROSS_OF_2_VECTORS else []),  # an error in NumPy >= 2.5: see the test below
    Case("kron", lambda a, b: np.kron(a, b), (normal(3), normal(2))),
    Case("kron-2d", lambda a, b: np.kron(a, b), (normal(2, 3), normal(2, 2))),
    Case("kron-mixed", lambda a, b: np.kron(a, b), (normal(3), normal(2, 2))),
    Case("sinc", lambda x: np.sinc(x), (np.array([0.0, 0.3, -1.2, 2.5, 1e-4]),)),
    Case("nan_to_num", lambda x: np.nan_to_num(np.log(x)), (np.array([0.5, 2.0, 3.0]),)),
    Case("float_power", lambda x: np.float_power(np.abs(x), 1.5), (normal(5),), smooth=False),
    Case("polyval", lambda c, t: np.polyval(c, t), (normal(4), normal(5))),
    Case("nansum", lambda x: np.nansum(x ** 2, axis=0), (normal(3, 4),)),
    Case("nanmean", lambda x: np.nanmean(x, axis=1, keepdims=True), (normal(3, 4),)),
    Case("gradient", lambda x: np.gradient(x, 0.5), (normal(6),)),
    Case("gradient-2d", lambda x: np.gradient(x)[1], (normal(3, 4),)),
    Case("gradient-axis", lambda x: np.gradient(x, 0.2, axis=0), (normal(3, 4),)),
    Case("logaddexp-reduce", lambda x: np.logaddexp.reduce(x), (normal(5),), exact=False),
    Case("logaddexp-reduce-axis", lambda x: np.logaddexp.reduce(x, axis=1), (normal(3, 4),),
         exact=False),
    Case("vector_norm", lambda a: np.linalg.vector_norm(a, axis=0), (normal(3, 4),)),
    Case("vector_norm-all", lambda a: np.linalg.vector_norm(a), (normal(3, 4),)),
    Case("vector_norm-ord1", lambda a: np.linalg.vector_norm(a, ord=1, axis=1),
         (normal(3, 4),), smooth=False),
    Case("searchsorted-constant", lambda fp: fp[np.searchsorted(np.arange(5.0),
                                                                np.array([0.1, 1.7, 3.3]))],
         (normal(5),)),
    Case("searchsorted-runtime", lambda x, v: np.searchsorted(x, v, side="right") * v,
         (np.array([0.0, 1.0, 2.0]), np.array([0.5, 1.5, 3.0, -1.0])), smooth=False),
    Case("histogram-weights", lambda w: np.histogram(np.array([0.1, 0.4, 0.5, 0.9, 0.2]),
                                                     bins=3, weights=w)[0],
         (normal(5),), exact=False),
    Case("asanyarray", lambda x: np.asanyarray(x) ** 2, (normal(3),)),
    Case("matrix_norm", lambda a: np.linalg.matrix_norm(a), (normal(3, 4),)),
    Case("matrix_norm-ord1", lambda a: np.linalg.matrix_norm(a, ord=1), (normal(3, 4),),
         smooth=False),
]
IDS = [c.id for c in CASES]


def _quantiles(x):
    return np.quantile(x, [0.2, 0.7], axis=1)


def _percentile(x):
    return np.percentile(x, 40.0, axis=1)


@pytest.mark.parametrize("fn", [np.median, _quantiles, _percentile],
                         ids=["median", "quantile", "percentile"])
def test_nan_slices_give_nan_like_numpy(fn) -> None:
    x = np.array([[0.3, np.nan, -1.0], [0.5, 0.1, 2.0]])

    def f(x):
        return fn(x)

    def loss(x):
        return np.sum(f(x))

    value = st.value_and_grad(loss)(x)[0]
    expected = np.sum(fn(x))
    assert np.isnan(value) and np.isnan(expected)
    one = np.array([[0.3, 0.4, -1.0], [0.5, np.nan, 2.0]])[1:]
    np.testing.assert_equal(np.asarray(st.jvp(f, (one,), (np.ones_like(one),))[0]),
                            np.asarray(fn(one)))


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_numpy(c: Case) -> None:
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


def _cross_2d(a, b):
    return np.sum(np.cross(a, b))


def test_cross_of_2_vectors_follows_the_installed_numpy():
    a, b = normal(4, 2), normal(4, 2)
    if CROSS_OF_2_VECTORS:
        assert st.value_and_grad(_cross_2d)(a, b)[0] == pytest.approx(_cross_2d(a, b))
    else:
        with pytest.raises(ValueError):
            _cross_2d(a, b)
        with pytest.raises(st.errors.CompileError, match="refuses 2-vectors"):
            st.grad(_cross_2d)(a, b)


# --- the rest of NumPy's surface (select_numpy_more) ------------------------------------

def _pieces(x):
    return np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)])


MORE = [
    Case("cumulative_sum", lambda x: np.cumulative_sum(x, axis=0, include_initial=True),
         (normal(3, 4),)),
    Case("cumulative_prod", lambda x: np.cumulative_prod(x), (normal(5),)),
    Case("add-reduce", lambda x: np.add.reduce(x, axis=1, keepdims=True), (normal(3, 4),)),
    Case("multiply-reduce", lambda x: np.multiply.reduce(x), (normal(3, 4),)),
    Case("maximum-reduce", lambda x: np.maximum.reduce(x, axis=None), (distinct(7),),
         smooth=False),
    Case("minimum-accumulate-free", lambda x: np.add.accumulate(x ** 2, axis=1),
         (normal(2, 3),)),
    Case("fmin-reduce", lambda x: np.fmin.reduce(x.reshape(2, 3), axis=1), (distinct(6),),
         smooth=False),
    *(Case(f"quantile-{m}", lambda x, m=m: np.quantile(x.reshape(2, 6), [0.1, 0.55, 0.9],
                                                      axis=1, method=m),
           (distinct(12),), smooth=False)
      for m in ("lower", "higher", "nearest", "midpoint", "weibull", "hazen",
                "median_unbiased", "normal_unbiased", "inverted_cdf",
                "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf")),
    Case("percentile-nearest-scalar", lambda x: np.percentile(x, 35.0, method="nearest",
                                                              keepdims=True),
         (distinct(7),), smooth=False),
    Case("nanmax", lambda x: np.nanmax(x, axis=0), (distinct(12).reshape(3, 4),),
         smooth=False),
    Case("nanmin-keepdims", lambda x: np.nanmin(x, axis=1, keepdims=True),
         (distinct(12).reshape(3, 4),), smooth=False),
    Case("nanprod", lambda x: np.nanprod(x, axis=1), (normal(3, 4),)),
    Case("nanvar", lambda x: np.nanvar(x, axis=0, ddof=1), (normal(4, 3),)),
    Case("nanstd", lambda x: np.nanstd(x), (normal(4, 3),)),
    Case("nanmedian", lambda x: np.nanmedian(x, axis=1), (distinct(12).reshape(3, 4),),
         smooth=False),
    Case("nanpercentile", lambda x: np.nanpercentile(x, [10.0, 60.0], axis=0),
         (distinct(12).reshape(3, 4),), smooth=False),
    Case("nanquantile", lambda x: np.nanquantile(x, 0.35), (distinct(9),), smooth=False),
    Case("ediff1d", lambda x: np.ediff1d(x, to_begin=[1.0, 2.0], to_end=x[0]),
         (normal(2, 3),)),
    Case("copysign", lambda x, y: np.copysign(x, y), (normal(5), normal(5)), smooth=False),
    Case("heaviside", lambda x, y: np.heaviside(x, y) * x + np.heaviside(0.0 * x, y),
         (normal(5), normal(5))),
    Case("divmod", lambda x, y: np.divmod(x, y)[1] * np.divmod(x, y)[0],
         (2.2 + np.abs(normal(4)), 1.0 + 0.3 * np.abs(normal(4)))),
    Case("frexp", lambda x: np.frexp(x)[0] * np.frexp(x)[1], (normal(6) * 10.0,)),
    Case("modf", lambda x: np.modf(x)[0] * 2.0 + np.modf(x)[1],
         (np.array([-2.7, -0.4, 0.3, 1.6, 5.2]),)),
    Case("conj-real", lambda x: np.conj(x) * np.conjugate(x), (normal(4),)),
    Case("imag-real", lambda x: np.imag(x) + x, (normal(4),)),
    Case("i0", lambda x: np.i0(x), (np.array([-9.5, -3.0, 0.2, 4.0, 8.5, 12.0]),)),
    Case("insert", lambda x, v: np.insert(x, [1, 1, 3], v), (normal(4), normal(3))),
    Case("insert-axis", lambda x, v: np.insert(x, 2, v, axis=1), (normal(2, 3), normal(2))),
    Case("insert-scalar", lambda x: np.insert(x, 0, x[2] * 2.0), (normal(4),)),
    Case("partition", lambda x: np.partition(x, 3), (distinct(7),), smooth=False),
    Case("partition-axis0", lambda x: np.partition(x.reshape(4, 2), [0, 2], axis=0),
         (distinct(8),), smooth=False),
    Case("choose", lambda x, y: np.choose(np.array([[0, 1, 1], [1, 0, 1]]), [x, y]),
         (normal(2, 3), normal(3))),
    Case("compress", lambda x: np.compress([False, True, True], x, axis=0), (normal(3, 2),)),
    Case("compress-runtime", lambda x: np.compress(x > 0, x), (normal(5),)),
    Case("diagflat", lambda x: np.diagflat(x, -1), (normal(2, 2),)),
    Case("vander", lambda x: np.vander(x, 4, increasing=True), (normal(3),)),
    Case("bincount", lambda w: np.bincount(np.array([3, 0, 3, 1]), weights=w, minlength=5),
         (normal(4),), exact=False),
    Case("trim_zeros", lambda x: np.trim_zeros(np.concatenate([np.zeros(2), x, np.zeros(1)]),
                                               "b"), (normal(3),)),
    Case("meshgrid", lambda x, y: np.stack(np.meshgrid(x, y)) ** 2, (normal(3), normal(2))),
    Case("meshgrid-ij-sparse", lambda x, y: sum(np.meshgrid(x, y, indexing="ij",
                                                            sparse=True)),
         (normal(3), normal(2))),
    Case("block", lambda x, y: np.block([[x, y], [y, x]]), (normal(2, 2), normal(2, 2))),
    Case("block-1d", lambda x, y: np.block([x, y, x]), (normal(2), normal(3))),
    Case("piecewise", _pieces, (np.array([-1.2, -0.3, 0.4, 1.5]),)),
    Case("piecewise-otherwise", lambda x: np.piecewise(x, [x < -0.5], [lambda v: -v, 0.25]),
         (np.array([-1.2, -0.3, 0.4, 1.5]),)),
    Case("polyint", lambda p: np.polyint(p, 2, k=[0.5, 1.5]), (normal(4),)),
    Case("polymul", lambda a, b: np.polymul(a, b), (normal(3), normal(2))),
    Case("polyfit", lambda y: np.polyfit(np.arange(6.0), y, 2), (normal(6),), exact=False),
    Case("polyfit-2d", lambda y: np.polyfit(np.linspace(0, 1, 5), y, 1), (normal(5, 2),),
         exact=False),
]
MORE_IDS = [c.id for c in MORE]


@pytest.mark.parametrize("c", MORE, ids=MORE_IDS)
def test_more_value_matches_numpy(c: Case) -> None:
    check_value(c)


@pytest.mark.parametrize("c", MORE, ids=MORE_IDS)
def test_more_gradient_matches_central_differences(c: Case) -> None:
    check_gradient(c)


@pytest.mark.parametrize("c", MORE, ids=MORE_IDS)
def test_more_jvp_agrees_with_gradient(c: Case) -> None:
    check_jvp(c)


MORE_SMOOTH = [c for c in MORE if c.smooth]


@pytest.mark.parametrize("c", MORE_SMOOTH, ids=[c.id for c in MORE_SMOOTH])
def test_more_hessian_vector_product(c: Case) -> None:
    check_hessian(c)


# --- NaN-skipping functions with real NaNs ---------------------------------------------

_NAN = np.array([[0.3, np.nan, -1.1, 0.8], [np.nan, np.nan, 0.5, -0.2],
                 [1.4, -0.6, np.nan, 0.05]])
_ALL_NAN_ROW = np.vstack([_NAN, np.full((1, 4), np.nan)])

NAN_FUNCTIONS = dict([
    ("nansum", lambda x: np.nansum(x, axis=1)),
    ("nanmean", lambda x: np.nanmean(x, axis=0)),
    ("nanmax", lambda x: np.nanmax(x, axis=1)),
    ("nanmin", lambda x: np.nanmin(x, axis=0, keepdims=True)),
    ("nanprod", lambda x: np.nanprod(x, axis=1)),
    ("nanvar", lambda x: np.nanvar(x, axis=1, ddof=1)),
    ("nanstd", lambda x: np.nanstd(x, axis=1)),  # >= 2 numbers per slice: sqrt(0)
    ("nanmedian", lambda x: np.nanmedian(x, axis=1)),
    ("nanmedian-all", lambda x: np.nanmedian(x)),
    ("nanpercentile", lambda x: np.nanpercentile(x, [30.0, 80.0], axis=1)),
    ("nanquantile", lambda x: np.nanquantile(x, 0.4, axis=0)),
    ("nancumsum", lambda x: np.nancumsum(x, axis=1)),
    ("nancumprod", lambda x: np.nancumprod(x)),
    ("fmax-reduce", lambda x: np.fmax.reduce(x, axis=1)),
    ("fmin-reduce", lambda x: np.fmin.reduce(x, axis=0)),
])
_REDUCES_ROWS = {"nansum", "nanmax", "nanprod", "nanvar", "nanmedian", "nanpercentile",
                 "fmax-reduce", "nancumsum"}


def _compiled_value(fn, x):
    return np.asarray(st.jvp(fn, (x,), (np.zeros_like(x),))[0])


@pytest.mark.parametrize("name", NAN_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nan_values_match_numpy(name: str, dtype: str) -> None:
    fn = NAN_FUNCTIONS[name]
    x = _NAN.astype(dtype)
    got, expected = _compiled_value(fn, x), np.asarray(fn(x))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if name in ("nanquantile", "nanpercentile", "nanmedian") and _OLD_LERP:
        # NumPy before 2.3 interpolates in another order: equal to float32 rounding
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
        return
    np.testing.assert_array_equal(got, expected)


_OLD_LERP = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 3)


@pytest.mark.parametrize("name", sorted(_REDUCES_ROWS - {"nancumsum"}))
def test_nan_slice_gives_numpy_value(name: str) -> None:
    """A row of NaN only: NumPy's value there (nan, or 0/1 for nansum/nanprod)."""
    import warnings  # noqa: PLC0415

    fn = NAN_FUNCTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.asarray(fn(_ALL_NAN_ROW))
        got = _compiled_value(fn, _ALL_NAN_ROW)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", NAN_FUNCTIONS)
def test_nan_gradient_matches_differences_on_the_numbers(name: str) -> None:
    """The gradient is 0 at the NaN entries and matches central differences at the
    others; the forward mode agrees with it."""
    fn = NAN_FUNCTIONS[name]
    x = _NAN.copy()
    w = np.random.default_rng(1).standard_normal(np.shape(fn(x)))

    def loss(x):
        return np.sum(fn(x) * w)

    g = st.grad(loss)(x)
    nan = np.isnan(x)
    assert np.all(g[nan] == 0.0)
    h = 1e-6
    for i in zip(*np.nonzero(~nan)):
        e = np.zeros_like(x)
        e[i] = h
        fd = (loss(x + e) - loss(x - e)) / (2 * h)
        assert g[i] == pytest.approx(fd, rel=1e-6, abs=1e-7), i
    t = np.where(nan, 0.0, np.random.default_rng(2).standard_normal(x.shape))
    _, dot = st.jvp(loss, (x,), (t,))
    assert dot == pytest.approx(float(np.sum(g * t)), rel=1e-10, abs=1e-12)


# --- non-differentiable functions: located errors, never a zero -------------------------

def _spacing(x):
    return np.sum(np.spacing(x) * x)


def _nextafter(x):
    return np.sum(np.nextafter(x, 0.0))


def _spacing_inactive(x):
    return np.sum(x * np.spacing(np.ones(3)))


@pytest.mark.parametrize("fn", [_spacing, _nextafter], ids=["spacing", "nextafter"])
def test_no_derivative_is_a_located_error(fn) -> None:
    with pytest.raises(st.errors.NoRuleError, match=r"test_rules_numpy_more\.py:\d+:\d+"):
        st.grad(fn)(normal(3))


def test_spacing_of_a_constant_is_a_constant() -> None:
    x = normal(3)
    np.testing.assert_array_equal(st.grad(_spacing_inactive)(x), np.spacing(np.ones(3)))


# --- the eager runtime (PyTorch's spellings) ---------------------------------------------

def _eager_check(fn, ref, *arrays):
    ts = [st.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*ts)
    np.testing.assert_array_equal(out.detach().numpy(), ref(*arrays))
    w = np.random.default_rng(0).standard_normal(out.shape)
    out.backward(st.tensor(w))

    def loss(*xs):
        return np.sum(ref(*xs) * w)

    for k, t in enumerate(ts):
        expected = st.grad(loss, wrt=k)(*arrays)
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-10, atol=1e-12)


def _np_diff(x):
    return np.diff(x, n=2, axis=0)


def _np_fmod(x, y):
    return np.fmod(x, y)


def _np_ldexp(x):
    return np.ldexp(x, np.array([2, -1, 0]))


def _np_nanmean(x):
    return np.nanmean(x, axis=1)


def _np_nansum(x):
    return np.nansum(x, axis=0)


def test_eager_fmod_ldexp_diff_nansum_nanmean() -> None:
    _eager_check(lambda t: st.diff(t, n=2, dim=0), _np_diff, normal(4, 3))
    _eager_check(st.fmod, _np_fmod, np.array([2.5, -2.5, 3.7]), np.array([0.7, 0.7, -1.1]))
    _eager_check(lambda t: st.ldexp(t, st.tensor(np.array([2, -1, 0]))), _np_ldexp, normal(3))
    x = np.array([[0.3, np.nan, -1.1], [0.5, -0.2, np.nan]])
    t = st.tensor(x, requires_grad=True)
    out = st.nanmean(t, 1)
    np.testing.assert_array_equal(out.detach().numpy(), _np_nanmean(x))
    out.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), [[0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    t = st.tensor(x, requires_grad=True)
    st.nansum(t, 0).sum().backward()
    np.testing.assert_array_equal(st.nansum(t, 0).detach().numpy(), _np_nansum(x))
    np.testing.assert_array_equal(t.grad.numpy(), ~np.isnan(x) * 1.0)


def _polymul_sum(a, b):
    return np.sum(np.polymul(a, b))


def test_polymul_refuses_a_leading_zero_when_it_runs() -> None:
    """NumPy strips leading zeros (a shorter result): never a silently longer one."""
    g = st.grad(_polymul_sum)
    np.testing.assert_allclose(g(np.array([1.0, 2.0]), np.array([3.0, 1.0])), [4.0, 4.0])
    with pytest.raises(AssertionError, match="leading zero"):
        g(np.array([0.0, 2.0]), np.array([3.0, 1.0]))
