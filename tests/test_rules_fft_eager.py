"""torch.fft in the eager runtime (``runtime/fft.py``): complex results held as pairs of
real tensors, recorded by the fft ops.  Each loss is written once and run three ways:
the eager runtime (``torch`` = st_autodiff), the compiler (``np``) and central
differences, plus JAX where installed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_rules_fft import _all_transforms, central

import st_autodiff as st
import st_autodiff as torch

RNG = np.random.default_rng(5)


def eager_grad(loss: Callable[[Any], Any], *arrays: np.ndarray) -> list[np.ndarray]:
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = loss(*leaves)
    out.backward()
    return [t.grad.numpy() for t in leaves]


def torch_loss(x, norm):
    total = 0.0
    for z in (torch.fft.fft(x, norm=norm), torch.fft.ifft(x, 5, dim=0, norm=norm),
              torch.fft.rfft(x, norm=norm), torch.fft.ihfft(x, 3, norm=norm),
              torch.fft.fft2(x, norm=norm), torch.fft.ifftn(x, s=(3, 7), dim=(0, 1), norm=norm),
              torch.fft.rfft2(x, s=(6, 5), norm=norm), torch.fft.rfftn(x, dim=(0,), norm=norm)):
        total = total + (torch.sin(z.real) * torch.cos(z.imag)).sum()
    z = torch.fft.fft2(x)
    for r in (torch.fft.irfft(z, norm=norm), torch.fft.irfft(z, 5, dim=0, norm=norm),
              torch.fft.hfft(z, 7, norm=norm), torch.fft.irfft2(z, norm=norm),
              torch.fft.irfftn(z, s=(3, 9), dim=(1, 0), norm=norm)):
        total = total + torch.tanh(r).sum()
    return total


numpy_loss = _all_transforms  # the same loss, compiled (tests/test_rules_fft.py)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_eager_every_transform_agrees_with_the_compiler_and_differences(norm: str | None
                                                                       ) -> None:
    x = RNG.normal(size=(4, 6))
    (g,) = eager_grad(lambda t: torch_loss(t, norm), x)

    def f(x):
        return numpy_loss(x, norm)

    np.testing.assert_allclose(g, st.grad(f)(x), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(g, central(f, [x], 0), rtol=1e-6, atol=1e-6)
    value = torch_loss(torch.tensor(x), norm)
    np.testing.assert_allclose(float(value), f(x), rtol=1e-14)


def test_eager_spectrum_arithmetic_matches_jax() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = RNG.normal(size=7)

    def ours(t):
        z = torch.fft.rfft(t)
        w = z * z.conj() / (z.abs() + 1.0) - 2.0 * z + t[:4] + 0.5
        return (torch.abs(z) ** 2).sum() + torch.real(w).sum() + torch.imag(w / (z + 3.0)).sum() \
            + torch.angle(z[1:3]).sum() + torch.fft.fftshift(torch.fft.ifft(z, 6)).imag.mean() \
            + (torch.view_as_real(z) ** 3).sum()

    def theirs(v):
        z = jnp.fft.rfft(v)
        w = z * z.conj() / (jnp.abs(z) + 1.0) - 2.0 * z + v[:4] + 0.5
        return (jnp.abs(z) ** 2).sum() + jnp.real(w).sum() + jnp.imag(w / (z + 3.0)).sum() \
            + jnp.angle(z[1:3]).sum() + jnp.fft.fftshift(jnp.fft.ifft(z, 6)).imag.mean() \
            + (jnp.stack([z.real, z.imag], axis=-1) ** 3).sum()

    (g,) = eager_grad(ours, x)
    np.testing.assert_allclose(g, jax.grad(theirs)(x), rtol=1e-10, atol=1e-10)


def test_eager_fft_convolution_equals_np_convolve_gradient() -> None:
    a, b, w = RNG.normal(size=5), RNG.normal(size=3), RNG.normal(size=7)

    def by_fft(a, b):
        n = 7
        return (torch.tensor(w) * torch.fft.irfft(torch.fft.rfft(a, n) * torch.fft.rfft(b, n),
                                                  n)).sum()

    def direct(a, b):
        return np.sum(w * np.convolve(a, b))

    got = eager_grad(by_fft, a, b)
    want = st.grad(direct, wrt=(0, 1))(a, b)
    for g, d in zip(got, want, strict=True):
        np.testing.assert_allclose(g, d, rtol=1e-10, atol=1e-12)


def test_eager_float32_stays_float32() -> None:
    x = torch.tensor(RNG.normal(size=8).astype(np.float32), requires_grad=True)
    z = torch.fft.rfft(x)
    assert z.real.dtype == torch.float32
    y = torch.fft.irfft(z * z, 8)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.dtype == torch.float32


def test_eager_fftfreq_is_a_constant() -> None:
    np.testing.assert_allclose(torch.fft.fftfreq(5, 0.5).numpy(), np.fft.fftfreq(5, 0.5))
    np.testing.assert_allclose(torch.fft.rfftfreq(6).numpy(), np.fft.rfftfreq(6))


def test_eager_other_complex_uses_are_refused() -> None:
    z = torch.fft.fft(torch.tensor(RNG.normal(size=4)))
    with pytest.raises(AttributeError, match="complex tensors are not supported yet"):
        z.exp()
    with pytest.raises(TypeError, match="complex tensors are not supported yet"):
        bool(z)
    with pytest.raises(TypeError, match="complex tensors are not supported yet"):
        torch.fft.rfft(z)
    with pytest.raises(TypeError):
        torch.exp(z)


def test_eager_second_order_agrees_with_the_compiler() -> None:
    x = RNG.normal(size=6)
    v = RNG.normal(size=6)

    def eager(t):
        z = torch.fft.rfft(t, 9)
        return torch.sin(torch.fft.irfft(z * z, 9)).sum() + (z.abs() ** 2).sum() + \
            torch.sin(torch.fft.fft2(t.reshape(2, 3), norm="ortho").imag).sum()

    def f(x):
        z = np.fft.rfft(x, 9)
        return np.sum(np.sin(np.fft.irfft(z * z, 9))) + np.sum(np.abs(z) ** 2) + \
            np.sum(np.sin(np.fft.fft2(x.reshape(2, 3), norm="ortho").imag))

    leaf = torch.tensor(x, requires_grad=True)
    (g,) = torch.autograd.grad(eager(leaf), leaf, create_graph=True)
    (hv,) = torch.autograd.grad((g * torch.tensor(v)).sum(), leaf)
    _, want = st.jvp(st.grad(f), (x,), (v,))
    np.testing.assert_allclose(hv.numpy(), want, rtol=1e-9, atol=1e-9)
