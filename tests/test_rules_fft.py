"""The fft family in the compiler: numpy.fft and scipy.fft transforms whose spectra are
carried as pairs of real arrays (``transforms/complex_pairs.py``), their derivatives
(``derivatives/fft.py``) checked against central differences, closed forms, np.convolve
and JAX; values equal to the library's; float32; and the located refusal of every use
of a spectrum that would need a general complex value."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.fft as sfft

import st_autodiff as st
from st_autodiff.errors import CompileError, UnsupportedSyntaxError

RNG = np.random.default_rng(11)


def central(f: Callable[..., Any], args: list[np.ndarray], k: int, h: float = 1e-6
            ) -> np.ndarray:
    """Central differences of the scalar ``f`` with respect to argument ``k``."""
    g = np.zeros_like(args[k])
    for i in range(args[k].size):
        up = [a.copy() for a in args]
        down = [a.copy() for a in args]
        up[k].flat[i] += h
        down[k].flat[i] -= h
        g.flat[i] = (f(*up) - f(*down)) / (2 * h)
    return g


def check_grad(f: Callable[..., Any], *args: np.ndarray) -> None:
    grads = st.grad(f, wrt=tuple(range(len(args))))(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, central(f, list(args), k), rtol=1e-6, atol=1e-6)


# --- losses users write -------------------------------------------------------------------


def power_spectrum(x):
    spectrum = np.fft.rfft(x)
    return np.sum(np.abs(spectrum) ** 2 * np.linspace(1.0, 2.0, spectrum.shape[0]))


def fft_convolution(a, b, w):
    n = a.size + b.size - 1
    return np.sum(w * np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n))


def direct_convolution(a, b, w):
    return np.sum(w * np.convolve(a, b))


def parseval(x):
    return np.sum(np.abs(np.fft.fft(x, norm="ortho")) ** 2)


def mixed(x):
    z = np.fft.fft2(x, s=(5, 4))
    y = np.fft.ifft2(z * np.conj(z) / (np.abs(z) + 1.0), axes=(0, 1))
    return np.sum(np.sin(y.real) + y.imag * np.angle(z + 0.5)) + np.sum(z[1:3, ::2].real)


@pytest.mark.parametrize("n", [8, 7])
def test_power_spectrum_matches_differences_and_numpy(n: int) -> None:
    x = RNG.normal(size=n)
    value, grad = st.value_and_grad(power_spectrum)(x)
    assert value == power_spectrum(x) or np.isclose(value, power_spectrum(x), rtol=1e-15)
    np.testing.assert_allclose(grad, central(power_spectrum, [x], 0), rtol=1e-6, atol=1e-6)


def test_power_spectrum_at_a_zero_bin_is_exact_to_second_order() -> None:
    x = np.arange(8.0) - 3.5  # the DC bin is exactly 0 (hypot's derivatives are 0/0 there)
    grad = st.grad(power_spectrum)(x)
    np.testing.assert_allclose(grad, central(power_spectrum, [x], 0), rtol=1e-6, atol=1e-6)
    hessian = st.hessian(power_spectrum)  # a quadratic form: the same everywhere
    np.testing.assert_allclose(hessian(x), hessian(RNG.normal(size=8)), rtol=1e-12,
                               atol=1e-12)


def abs_at_zero(x):
    return np.sum(np.abs(np.fft.rfft(x)))


def test_abs_of_a_zero_bin_has_a_zero_gradient_as_in_jax() -> None:
    x = np.arange(8.0) - 3.5
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    want = jax.grad(lambda v: jax.numpy.sum(jax.numpy.abs(jax.numpy.fft.rfft(v))))(x)
    np.testing.assert_allclose(st.grad(abs_at_zero)(x), want, rtol=1e-12, atol=1e-12)


def test_fft_convolution_gradient_equals_np_convolve_gradient() -> None:
    a, b = RNG.normal(size=6), RNG.normal(size=4)
    w = RNG.normal(size=9)
    np.testing.assert_allclose(fft_convolution(a, b, w), direct_convolution(a, b, w))
    by_fft = st.grad(fft_convolution, wrt=(0, 1))(a, b, w)
    direct = st.grad(direct_convolution, wrt=(0, 1))(a, b, w)
    for g, d in zip(by_fft, direct, strict=True):
        np.testing.assert_allclose(g, d, rtol=1e-10, atol=1e-12)


def test_second_order_parseval_hessian_is_twice_the_identity() -> None:
    x = RNG.normal(size=6)
    np.testing.assert_allclose(st.hessian(parseval)(x), 2 * np.eye(6), atol=1e-12)


def test_second_order_of_a_nonlinear_spectrum_function() -> None:
    x = RNG.normal(size=(4, 3))
    check_grad(mixed, x)
    grad = st.grad(mixed)
    v = RNG.normal(size=x.shape)
    _, hv = st.jvp(grad, (x,), (v,))
    h = 1e-5
    fd = (grad(x + h * v) - grad(x - h * v)) / (2 * h)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)


# --- every transform, norm, size -----------------------------------------------------------


def _all_transforms(x, norm):
    total = 0.0
    for z in (np.fft.fft(x, norm=norm), np.fft.ifft(x, 5, axis=0, norm=norm),
              np.fft.rfft(x, norm=norm), np.fft.ihfft(x, 3, norm=norm),
              np.fft.fft2(x, norm=norm), np.fft.ifftn(x, s=(3, 7), axes=(0, 1), norm=norm),
              np.fft.rfft2(x, s=(6, 5), norm=norm), np.fft.rfftn(x, axes=(0,), norm=norm)):
        total = total + np.sum(np.sin(z.real) * np.cos(z.imag))
    z = np.fft.fft2(x)
    for r in (np.fft.irfft(z, norm=norm), np.fft.irfft(z, 5, axis=0, norm=norm),
              np.fft.hfft(z, 7, norm=norm), np.fft.irfft2(z, norm=norm),
              np.fft.irfftn(z, s=(3, 9), axes=(1, 0), norm=norm)):
        total = total + np.sum(np.tanh(r))
    return total


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_every_transform_and_norm_matches_differences(norm: str | None) -> None:
    x = RNG.normal(size=(4, 6))

    def f(x):
        return _all_transforms(x, norm)

    value, grad = st.value_and_grad(f)(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-13)
    np.testing.assert_allclose(grad, central(f, [x], 0), rtol=1e-6, atol=1e-6)


def test_forward_mode_matches_differences() -> None:
    x, v = RNG.normal(size=7), RNG.normal(size=7)

    def f(x):
        z = np.fft.rfft(x, 10)
        return np.fft.irfft(z * z, 9) + np.fft.fftshift(np.fft.fft(x)).imag[:1]

    value, tangent = st.jvp(f, (x,), (v,))
    np.testing.assert_array_equal(value, f(x))
    h = 1e-6
    np.testing.assert_allclose(tangent, (f(x + h * v) - f(x - h * v)) / (2 * h), rtol=1e-6,
                               atol=1e-7)


def test_values_equal_numpys_bit_for_bit() -> None:
    a, b = RNG.normal(size=(3, 8)), RNG.normal(size=(3, 8))

    def f(a, b):
        return np.fft.irfft(np.fft.rfft(a, 12) * np.fft.rfft(b, 12), 12, norm="ortho") + \
            np.fft.ifft2(np.fft.fft2(a, s=(4, 5)), s=(3, 6)).real[:, :1]

    value, _ = st.vjp(f, a, b)
    np.testing.assert_array_equal(value, f(a, b))

    def quotient(a, b):
        return (np.fft.fft(a) / (np.fft.fft(b) + 1.0)).imag + (2.0 / np.fft.fft(a)).real

    value, _ = st.vjp(quotient, a, b)
    np.testing.assert_array_equal(value, quotient(a, b))


def test_fftshift_fftfreq_and_constants() -> None:
    x = RNG.normal(size=6)

    def f(x):
        k = np.fft.fftfreq(x.size, d=0.5)
        spectrum = np.fft.fftshift(np.fft.fft(x))
        return np.sum(np.abs(spectrum) ** 2 * np.fft.fftshift(k) ** 2) + \
            np.sum(np.fft.ifftshift(x) * np.fft.rfftfreq(11)[:6])

    check_grad(f, x)


def spectral_derivative(x):
    k = 2 * np.pi * np.fft.fftfreq(x.size, d=0.25)
    dx = np.fft.ifft(1j * k * np.fft.fft(x)).real
    return np.sum(dx ** 2)


def test_spectral_derivative_with_a_complex_constant() -> None:
    x = RNG.normal(size=8)
    value, grad = st.value_and_grad(spectral_derivative)(x)
    np.testing.assert_allclose(value, spectral_derivative(x), rtol=1e-14)
    np.testing.assert_allclose(grad, central(spectral_derivative, [x], 0), rtol=1e-6, atol=1e-6)


def spectra_in_python_code(x):
    spectra = [np.fft.rfft(x), np.fft.rfft(x[::-1]) * 0.5]
    total = sum(spectra)
    s = 0.0
    for k in range(len(total)):
        s = s + total[k].real * total[k].imag
    k = 0
    while s < 100.0 and k < 3:
        s = s + np.abs(total[k])
        k += 1
    return s


def test_spectra_read_in_loops_and_python_sum() -> None:
    x = RNG.normal(size=7)
    check_grad(spectra_in_python_code, x)


def joins_and_partwise(x):
    z = np.concatenate([np.fft.rfft(x), x[:2]])
    w = np.stack([np.fft.fft(x), np.fft.ifft(x)], axis=0)
    return np.sum(z.imag * z.real) + np.sum(np.abs(w.sum(axis=0)) ** 2) + \
        np.mean(np.diff(np.fft.fft(x)).imag ** 2) + np.sum(w.T[1:, ::-1].conj().imag)


def test_joins_and_functions_applied_to_both_parts() -> None:
    check_grad(joins_and_partwise, RNG.normal(size=6))


# --- scipy.fft ----------------------------------------------------------------------------


def scipy_spectrum(x):
    z = sfft.rfft(x, norm="ortho", workers=1)
    y = sfft.irfftn(sfft.fftn(x, axes=(0, 1)), s=(4, 5))
    return np.sum(np.abs(z) ** 2) + np.sum(np.sin(y)) + np.sum(sfft.ihfft(x).imag)


def scipy_round_trip(x):
    return sfft.irfft(sfft.rfft(x, 9) * sfft.fft(x, 4, axis=0), 9, norm="forward")


def test_scipy_fft_values_and_gradients() -> None:
    x = RNG.normal(size=(4, 6))
    value, grad = st.value_and_grad(scipy_spectrum)(x)
    np.testing.assert_allclose(value, scipy_spectrum(x), rtol=1e-14)
    np.testing.assert_allclose(grad, central(scipy_spectrum, [x], 0), rtol=1e-6, atol=1e-6)
    value, _ = st.vjp(scipy_round_trip, x[:, :5])
    np.testing.assert_array_equal(value, scipy_round_trip(x[:, :5]))  # SciPy's own kernels


# --- float32 --------------------------------------------------------------------------------


def test_float32_stays_float32_as_numpy_keeps_complex64() -> None:
    x = RNG.normal(size=8).astype(np.float32)

    def f(x):
        z = np.fft.rfft(x)
        return np.fft.irfft(z * np.conj(z), 8) + np.fft.fft(x).real

    value, pullback = st.vjp(f, x)
    assert value.dtype == np.float32 == f(x).dtype
    np.testing.assert_array_equal(value, f(x))
    (g,) = pullback(np.ones(8, np.float32))
    assert g.dtype == np.float32
    (g64,) = st.vjp(f, x.astype(np.float64))[1](np.ones(8))
    np.testing.assert_allclose(g, g64, rtol=1e-4, atol=1e-4)


# --- JAX ------------------------------------------------------------------------------------


def test_against_jax() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = RNG.normal(size=(4, 6))

    def loss(np, x):  # noqa: ANN001  (written once, run with NumPy and jax.numpy)
        z = np.fft.rfft2(x, norm="forward")
        y = np.fft.irfft(z * np.conj(z[::-1]), 7, axis=0)
        return np.sum(np.abs(z) ** 2) + np.sum(np.cos(y)) + np.sum(np.angle(z[1:, 1:]))

    def ours(x):
        return loss(np, x)

    np.testing.assert_allclose(st.grad(ours)(x), jax.grad(lambda v: loss(jnp, v))(x),
                               rtol=1e-10, atol=1e-10)


# --- refusals ---------------------------------------------------------------------------------


def returns_spectrum(x):
    return np.fft.fft(x)


def exp_of_spectrum(x):
    return np.sum(np.exp(np.fft.fft(x)).real)  # <- exp


def compares_spectrum(x):
    return np.sum(np.where(np.fft.rfft(x) > 0, 1.0, 0.0))  # <- compare


def sqrt_power(x):
    return np.sum((np.fft.fft(x) ** 0.5).real)  # <- pow


def rfft_of_pair(x):
    return np.sum(np.fft.rfft(np.fft.fft(x)).real)  # <- rfft


def maximum_of_pair(x):
    return np.sum(np.maximum(np.fft.fft(x), 0.0).real)  # <- maximum


REFUSED = [
    (exp_of_spectrum, "exp", "np.exp(", "np.exp() of a complex value"),
    (compares_spectrum, "compare", "np.fft.rfft(x) > 0", "the operator gt"),
    (sqrt_power, "pow", "np.fft.fft(x) ** 0.5", "the operator pow"),
    (rfft_of_pair, "rfft", "np.fft.rfft(np", "np.fft.rfft() of a complex value"),
    (maximum_of_pair, "maximum", "np.maximum(", "np.maximum() of a complex value"),
]
LINES = inspect.getsource(inspect.getmodule(returns_spectrum)).splitlines()


@pytest.mark.parametrize("fn, marker, token, message", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_unsupported_complex_use_is_refused_where_it_is(
        fn: Callable[..., Any], marker: str, token: str, message: str) -> None:
    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(fn)(RNG.normal(size=6))
    exc = info.value
    line = next(k for k, t in enumerate(LINES, 1) if t.rstrip().endswith(f"# <- {marker}"))
    assert exc.message.startswith("complex numbers are not supported yet: ")
    assert message in exc.message
    assert (exc.loc.line, exc.loc.col) == (line, LINES[line - 1].index(token) + 1)


def test_returning_a_spectrum_is_refused_at_the_return() -> None:
    with pytest.raises(UnsupportedSyntaxError, match="complex numbers are not supported yet: "
                       "a return of a complex value") as info:
        st.grad(returns_spectrum)(RNG.normal(size=4))
    assert info.value.loc.line == inspect.getsourcelines(returns_spectrum)[1] + 1


def spectrum_of(x):
    return np.fft.rfft(x, 2 * x.size)


def through_a_helper(x):
    z = spectrum_of(x)
    return np.sum(z.real * z.imag)


def test_a_helper_may_return_a_spectrum() -> None:
    x = RNG.normal(size=5)
    np.testing.assert_allclose(st.grad(through_a_helper)(x),
                               central(through_a_helper, [x], 0), rtol=1e-6, atol=1e-6)


def bad_length(x):
    return np.sum(np.fft.fft(x, 0).real)


def bad_norm(x):
    return np.sum(np.fft.fft(x, norm="unitary").real)


@pytest.mark.parametrize("fn, message", [(bad_length, "Invalid number of FFT data points"),
                                         (bad_norm, "Invalid norm value unitary")])
def test_numpys_argument_errors_are_located(fn: Callable[..., Any], message: str) -> None:
    with pytest.raises(CompileError, match=message) as info:
        st.grad(fn)(RNG.normal(size=4))
    assert info.value.loc.line == inspect.getsourcelines(fn)[1] + 1
