"""Differential specs of the fft family (``numpy.fft``): real functions built from spectra
(real and imaginary parts, ``abs``, ``abs(z) ** 2``, products with conjugates, round trips
through the inverse transforms), for every transform and every ``norm``, with ``n=``/``s=``
that pad and truncate, odd and even lengths, and other axes.  The compiler carries each
spectrum as a pair of real arrays (``transforms/complex_pairs.py``); JAX (``jnp.fft``)
computes the same functions with complex arrays, so it checks the pair arithmetic too.
The eager runtime has no FFT (torch.fft needs complex tensors): ``eager`` is None.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from st_autodiff.ir.ops import Op

from .specs import Spec

C2C, R2C, C2R = Op.FFT_C2C, Op.FFT_R2C, Op.FFT_C2R
NORMS = ("backward", "ortho", "forward")
ONE_D = (((8,),), ((7,),), ((2, 5),), ((1,),))
TWO_D = (((4, 6),), ((3, 5),), ((2, 3, 4),))


def _mix(call: str) -> str:
    """A nonlinear real function of the spectrum ``call`` (a body ending in return)."""
    return f"z = {call}\nreturn z.real * z.imag + np.abs(z) ** 2 + np.sin(z.real)"


def _jax(expr: str, nargs: int) -> Callable[..., Any]:
    """The spec's body in JAX: ``np.`` read as ``jax.numpy`` (bodies may have several
    lines, which the harness's one-line lambda cannot hold)."""
    body = expr if "\n" in expr else f"return {expr}"
    params = ", ".join(f"a{k}" for k in range(nargs))
    src = f"def f(jnp, {params}):\n" + textwrap.indent(body.replace("np.", "jnp."), "    ")
    space: dict[str, Any] = {}
    exec(src, space)  # noqa: S102  (our own spec text)
    return space["f"]


def _spec(name: str, call: str, ops: tuple[Op, ...], shapes: tuple, **kw: Any) -> Spec:
    return Spec(name, _mix(call), ops, shapes, ("real",), None, jax=_jax(_mix(call), 1), **kw)


def _real(name: str, expr: str, ops: tuple[Op, ...], shapes: tuple, nargs: int = 1,
          **kw: Any) -> Spec:
    """A spec whose expression is already real (an inverse real transform, a part)."""
    return Spec(name, expr, ops, shapes, ("real",) * nargs, None, jax=_jax(expr, nargs),
                **kw)


def _per_norm() -> tuple[Spec, ...]:
    out: list[Spec] = []
    for norm in NORMS:
        nm = f"norm='{norm}'"
        out += [
            _spec(f"fft.fft-{norm}", f"np.fft.fft(a0, {nm})", (C2C,), ONE_D),
            _spec(f"fft.ifft-{norm}", f"np.fft.ifft(a0, {nm})", (C2C,), ONE_D),
            _spec(f"fft.rfft-{norm}", f"np.fft.rfft(a0, {nm})", (R2C,), ONE_D),
            _real(f"fft.irfft-{norm}", f"np.sin(np.fft.irfft(np.fft.fft(a0), {nm}))",
                  (C2C, C2R), ONE_D[:3]),
            _real(f"fft.hfft-{norm}", f"np.sin(np.fft.hfft(np.fft.fft(a0), {nm}))",
                  (C2C, C2R), ONE_D[:3]),
            _spec(f"fft.ihfft-{norm}", f"np.fft.ihfft(a0, {nm})", (R2C,), ONE_D),
            _spec(f"fft.fft2-{norm}", f"np.fft.fft2(a0, {nm})", (C2C,), TWO_D),
            _spec(f"fft.ifft2-{norm}", f"np.fft.ifft2(a0, {nm})", (C2C,), TWO_D),
            _spec(f"fft.rfft2-{norm}", f"np.fft.rfft2(a0, {nm})", (R2C,), TWO_D),
            _real(f"fft.irfft2-{norm}", f"np.sin(np.fft.irfft2(np.fft.fft2(a0), {nm}))",
                  (C2C, C2R), TWO_D),
            _spec(f"fft.fftn-{norm}", f"np.fft.fftn(a0, {nm})", (C2C,), TWO_D),
            _spec(f"fft.ifftn-{norm}", f"np.fft.ifftn(a0, {nm})", (C2C,), TWO_D),
            _spec(f"fft.rfftn-{norm}", f"np.fft.rfftn(a0, {nm})", (R2C,), TWO_D),
            _real(f"fft.irfftn-{norm}", f"np.sin(np.fft.irfftn(np.fft.fftn(a0), {nm}))",
                  (C2C, C2R), TWO_D),
        ]
    return tuple(out)


SPECS_FFT: tuple[Spec, ...] = _per_norm() + (
    # sizes: n= and s= pad with zeros and truncate; other axes
    _spec("fft.fft-n-pad", "np.fft.fft(a0, 11)", (C2C,), ONE_D),
    _spec("fft.fft-n-cut", "np.fft.fft(a0, 4, axis=0)", (C2C,), (((6,),), ((5, 3),))),
    _spec("fft.rfft-n-odd", "np.fft.rfft(a0, n=9)", (R2C,), ONE_D),
    _spec("fft.rfft-axis0", "np.fft.rfft(a0, axis=0)", (R2C,), (((6, 3),), ((5, 2),))),
    _real("fft.irfft-n-odd", "np.sin(np.fft.irfft(np.fft.rfft(a0), n=7) * 3.0)",
          (R2C, C2R), ONE_D[:3]),
    _real("fft.irfft-n-even-pad", "np.sin(np.fft.irfft(np.fft.fft(a0), n=12))",
          (C2C, C2R), ONE_D[:3]),
    _real("fft.irfft-of-real", "np.sin(np.fft.irfft(a0))", (C2R,), ONE_D[:3]),
    _real("fft.hfft-n", "np.sin(np.fft.hfft(np.fft.rfft(a0), n=9))", (R2C, C2R), ONE_D[:3]),
    _spec("fft.fftn-s-axes", "np.fft.fftn(a0, s=(5, 3), axes=(1, 0))", (C2C,), TWO_D[:2]),
    _spec("fft.rfftn-s", "np.fft.rfftn(a0, s=(3, 7), axes=(-2, -1))", (R2C,), TWO_D),
    _real("fft.irfftn-s-odd", "np.sin(np.fft.irfftn(np.fft.rfftn(a0), s=(4, 5), axes=(-2, -1)))",
          (R2C, C2R), TWO_D[:2]),
    _real("fft.irfft2-axes", "np.sin(np.fft.irfft2(np.fft.fft2(a0), axes=(0, 1)))",
          (C2C, C2R), TWO_D[:2]),
    # losses users write
    _real("fft.power-spectrum", "np.sum(np.abs(np.fft.rfft(a0)) ** 2) * np.cos(np.sum(a0))",
          (R2C,), ONE_D),
    _real("fft.convolution",
          "n = a0.shape[-1] + a1.shape[-1] - 1\n"
          "c = np.fft.irfft(np.fft.rfft(a0, n) * np.fft.rfft(a1, n), n)\n"
          "return c * c", (R2C, C2R, Op.CMUL), (((5,), (4,)), ((6,), (6,)), ((2, 3), (3,))),
          nargs=2),
    _real("fft.cross-spectrum", "np.real(np.fft.fft(a0) * np.conj(np.fft.fft(a1)))",
          (C2C, Op.CMUL), (((6,), (6,)), ((2, 5), (5,))), nargs=2),
    _real("fft.divide", "z = np.fft.fft(a0) / (np.fft.fft(a1) + 9.0)\nreturn z.real + z.imag",
          (C2C, Op.CDIV), (((6,), (6,)), ((2, 5), (5,))), nargs=2),
    _real("fft.divide-real-part", "(a0[:4] / (np.fft.rfft(a0) + 5.0)).real", (R2C, Op.CDIV),
          (((6,),), ((7,),))),
    _real("fft.angle", "np.angle(np.fft.rfft(a0)[1:3])", (R2C,), (((8,),), ((7,),))),
    _real("fft.mean-sum", "z = np.fft.fft2(a0)\n"
          "return np.mean(z, axis=0).imag * np.sum(z).real", (C2C,), TWO_D[:2]),
    _real("fft.scale-shift", "z = 2.0 * np.fft.fft(a0) - a0 + 1.5\nreturn np.imag(-z / 3.0)",
          (C2C,), ONE_D[:3]),
    _real("fft.spectral-derivative",
          "np.fft.ifft(np.fft.fft(a0) * 1j * np.fft.fftfreq(a0.shape[-1], 0.5)).real ** 2",
          (C2C,), ONE_D[:3]),
    _real("fft.fftshift-real", "np.fft.fftshift(a0) * np.fft.ifftshift(a0) ** 2",
          (Op.ROLL,), ONE_D[:3]),
    _spec("fft.fftshift-pair", "np.fft.ifftshift(np.fft.fftshift(np.fft.fft(a0), axes=-1))",
          (C2C, Op.ROLL), ONE_D[:3]),
)
