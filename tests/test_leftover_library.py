"""Library idioms the real-world corpus stopped on: ``zeros_like(a, shape=...)`` and its
siblings, a static list indexed with a loop's runtime index, frozen SciPy distributions
and broadcasting in SciPy's ``_lazywhere``.  Values against the function run directly,
gradients against float64 central differences; the unsupported neighbours are refused
with a located error."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import numerical_vjp


def _check(f, *args, argnums=(0,), atol=1e-6, rtol=1e-6):
    value, grads = st.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    expected = numerical_vjp(f, args, 1.0, argnums=argnums)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(argnums, grads):
        np.testing.assert_allclose(g, expected[i], atol=atol, rtol=rtol)


X = np.array([0.7, -1.3, 2.1])


# ---- zeros_like(a, shape=...) and siblings -------------------------------------------

def zeros_like_shape(a):
    res = np.asanyarray([1.0, a[0], a[1] * 2.0])
    buff = np.zeros_like(res, shape=(2,) + res.shape)
    buff[0] = res
    buff[1] = res * a[2]
    return np.sum(buff ** 2)


def ones_like_shape(a):
    return np.sum(np.ones_like(a, shape=(2, 3)) * a)


def full_like_shape(a):
    return np.sum(np.full_like(a, a[0], shape=(4,)) * a[1])


def empty_like_shape(a):
    e = np.empty_like(a, shape=(2, 3))
    e[...] = a
    return np.sum(e * a)


def zeros_like_int_shape(a):
    z = np.zeros_like(a, shape=5)
    z[1:4] = a
    return np.sum(z ** 3)


@pytest.mark.parametrize("f", [zeros_like_shape, ones_like_shape, full_like_shape,
                               empty_like_shape, zeros_like_int_shape])
def test_like_with_shape(f):
    _check(f, X)


def test_like_shape_keeps_prototype_dtype_and_given_dtype():
    def f(a):
        i = np.zeros_like(np.arange(3), shape=(2,))
        z = np.zeros_like(a, shape=(2,), dtype=np.float32)
        return np.sum(a) + float(i.dtype == np.int64) + float(z.dtype == np.float32)
    value, _ = st.value_and_grad(f)(X)
    assert value == pytest.approx(f(X))


def test_like_shape_from_a_runtime_count():
    def f(a):
        n = int(np.sum(a > 0))
        z = np.zeros_like(a, shape=(n,))
        return np.sum(z + 1.0) * np.sum(a)
    grad = st.value_and_grad(f)
    for x in (X, np.array([0.7, 1.3, 2.1]), np.array([-0.7, -1.3, 2.1])):
        try:
            value, g = grad(x)
        except StAutodiffError as exc:  # refused: it must point at this file
            assert "test_leftover_library.py" in str(exc)
            continue
        assert value == pytest.approx(f(x))
        np.testing.assert_allclose(g, numerical_vjp(f, (x,), 1.0)[0], atol=1e-6)


# ---- a static list indexed with a runtime loop index ----------------------------------

def list_with_constant(a):
    r = [1, a[0], a[1]]
    s = 0.0
    for k in range(3):
        s = s + r[k] * a[2] ** k
    return s


def list_of_runtime_items(a):
    r = [a[0] * 2.0, a[0], a[1]]
    s = 0.0
    for k in range(3):
        s = s + r[k] * a[2] ** k
    return s


@pytest.mark.parametrize("f", [list_with_constant, list_of_runtime_items])
def test_static_list_runtime_index(f):
    _check(f, X)


def test_static_list_of_mixed_shapes_runtime_index_is_located():
    def f(a):
        r = [a, a[0]]
        s = 0.0
        for k in range(2):
            s = s + np.sum(r[k])
        return s
    try:
        value, grad = st.value_and_grad(f)(X)
    except StAutodiffError as exc:
        assert "test_leftover_library.py" in str(exc)
    else:  # where the loop unrolls, the result must be right
        np.testing.assert_allclose(grad, numerical_vjp(f, (X,), 1.0)[0], atol=1e-6)


def central_moments_like(a):  # statsmodels' mnc2mc body: [1, *list(x)] indexed by k
    r = [1, *list(a)]
    mu = []
    for n, _ in enumerate(r):
        mu.append(0)
        for k in range(n + 1):
            mu[n] += (-1) ** (n - k) * r[k] * a[0] ** (n - k)
    return np.sum(np.asarray(mu[1:]))


def test_mixed_static_list_indexed_by_loop_variable_unrolls():
    _check(central_moments_like, X)


# ---- generators of static index tuples consumed after writes ---------------------------

def apply_rows(a):
    m = a.reshape(3, 1) * np.array([1.0, 2.0])
    inds = np.ndindex(m.shape[:-1])
    inds = (ind + (Ellipsis,) for ind in inds)
    ind0 = next(inds)
    buff = np.zeros((3,))
    buff[ind0] = np.sum(m[ind0] ** 2)
    for ind in inds:
        buff[ind] = np.sum(m[ind] ** 2)
    return np.sum(buff * a)


def test_generator_of_static_tuples_consumed_after_writes():
    _check(apply_rows, X)


def test_generator_reading_an_array_written_later_is_located():
    def f(a):
        b = a * 1.0
        gen = (b[i] for i in range(3))
        b[0] = 5.0
        return sum(gen)
    with pytest.raises(StAutodiffError) as info:
        st.value_and_grad(f)(X)
    assert "test_leftover_library.py" in str(info.value)


def test_generator_over_a_list_appended_later_is_located():
    def f(a):
        xs = [1, 2]
        gen = (k * a[0] for k in xs)
        xs.append(3)
        return sum(gen)
    try:
        value, grad = st.value_and_grad(f)(X)
    except StAutodiffError as exc:
        assert "test_leftover_library.py" in str(exc)
    else:  # Python sees the appended 3: 6 * a[0]
        assert value == pytest.approx(f(X))
        np.testing.assert_allclose(grad, [6.0, 0.0, 0.0])


def test_apply_along_axis():
    _check(lambda a: np.sum(np.apply_along_axis(np.sum, 1, a.reshape(3, 1) * a ** 2)), X)
    _check(lambda a: np.sum(np.apply_along_axis(lambda r: r * r[0], 0,
                                                a.reshape(3, 1) * a)), X)


# ---- tuples given to NumPy ------------------------------------------------------------

def test_asarray_of_a_tuple_of_runtime_values_is_an_array():
    def f(a):
        res = np.asanyarray((a[0], a[1] ** 1.5, np.divide(a[2], a[1])))
        return np.sum(np.zeros_like(res, shape=(2,) + res.shape) + res) * len(res.shape)
    _check(f, np.abs(X) + 0.5)


def test_numpy_reduction_of_a_tuple_of_runtime_values():
    _check(lambda a: np.sum((a[0] * a[1], a[2])) + np.prod((a[0], a[2])), X)
    _check(lambda a: np.sum(tuple(a)) * np.max(tuple(a ** 2)), X)


# ---- frozen SciPy distributions --------------------------------------------------------

stats = pytest.importorskip("scipy.stats")
XS = np.array([0.3, -0.8, 1.7, 2.2])


def frozen_norm(x, mu, sigma):
    return np.sum(stats.norm(mu, sigma).logpdf(x))


def frozen_norm_keywords(x, mu, sigma):
    d = stats.norm(loc=mu, scale=sigma)
    return np.sum(d.logcdf(x)) + np.sum(d.pdf(x))


def frozen_t(x, mu, sigma):
    d = stats.t(4.5, loc=mu, scale=sigma)
    return np.sum(d.logpdf(x)) + np.sum(d.sf(x))


def frozen_gamma_freeze(x, mu, sigma):
    d = stats.gamma.freeze(2.0 + mu ** 2, scale=sigma)
    return np.sum(d.logpdf(np.abs(x) + 0.1))


@pytest.mark.parametrize("f", [frozen_norm, frozen_norm_keywords,
                               frozen_gamma_freeze])
def test_frozen_distribution(f):
    _check(f, XS, 0.2, 1.3, argnums=(0, 1, 2), atol=1e-5, rtol=1e-5)


def test_frozen_distribution_reused_with_new_parameters():
    grad = st.value_and_grad(frozen_norm, argnums=(1, 2))
    for mu, sigma in ((0.2, 1.3), (-1.0, 0.4)):
        value, (gmu, gsigma) = grad(XS, mu, sigma)
        assert value == pytest.approx(frozen_norm(XS, mu, sigma))
        expected = numerical_vjp(frozen_norm, (XS, mu, sigma), 1.0, argnums=(1, 2))
        assert gmu == pytest.approx(float(expected[1]), abs=1e-5)
        assert gsigma == pytest.approx(float(expected[2]), abs=1e-5)


def test_distribution_class_with_runtime_parameter_is_not_run_while_compiling():
    def f(x, mu, sigma):
        dist = stats.norm.__class__(a=mu)  # a runtime support bound: not static
        return np.sum(dist.logpdf(x))
    try:
        st.value_and_grad(f)(XS, 0.2, 1.3)
    except StAutodiffError as exc:
        assert "test_leftover_library.py" in str(exc)


# ---- np.broadcast_arrays of a shape known only at run time -----------------------------

def broadcast_masked(a):
    m = a[a > 0]  # how many items pass is known only at run time
    b, c = np.broadcast_arrays(m, a[0] * a[2])
    return np.sum(b * c ** 2) + np.sum(np.sin(c))


def broadcast_masked_columns(a):
    m = a[a > -1.0].reshape(-1, 1)
    b, c = np.broadcast_arrays(m, a)
    return np.sum(b * c)


@pytest.mark.parametrize("f", [broadcast_masked, broadcast_masked_columns])
def test_broadcast_arrays_of_runtime_shapes(f):
    _check(f, X)
    _check(f, np.array([1.5, 0.4, -2.0]))


def test_broadcast_arrays_runtime_shapes_keep_dtype():
    def f(a):
        k = np.nonzero(a > 0)[0]
        i, v = np.broadcast_arrays(k, a[0])
        return np.sum(v * i) + float(i.dtype == k.dtype)
    _check(f, X)


def _right_or_located(f, *args):
    """``f`` compiled gives the right value and gradient, or a located refusal."""
    try:
        _check(f, *args, argnums=tuple(range(len(args))), atol=1e-5, rtol=1e-5)
    except StAutodiffError as exc:
        assert "test_leftover_library.py" in str(exc).splitlines()[0]


def t_logpdf(x, df):
    return np.sum(stats.t.logpdf(x, df))


def cauchy_logpdf(x, mu):
    return np.sum(stats.cauchy.logpdf(x, loc=mu))


@pytest.mark.parametrize("f, args", [(t_logpdf, (XS, 4.5)), (cauchy_logpdf, (XS, 0.3)),
                                     (frozen_t, (XS, 0.2, 1.3))])
def test_lazywhere_distributions_right_or_located(f, args):
    _right_or_located(f, *args)


def test_like_shape_of_a_list_of_runtime_values():
    def f(a):
        z = np.full_like([a[0], a[1]], 2.5, shape=(2, 2))
        return np.sum(z * a[2]) + float(z.dtype == np.float64)
    _check(f, X)
