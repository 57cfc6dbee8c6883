"""Kernels of the fft ops (``rt.fft_c2c``, ``rt.fft_r2c``, ``rt.fft_c2r``, ``rt.cmul``).

A complex spectrum travels as two real arrays (see ``transforms/complex_pairs``): each
kernel joins its pair into one complex array, calls the library's own transform (NumPy's
``np.fft`` or SciPy's ``scipy.fft``, named by ``lib``, so that values equal the
library's bit for bit) and splits the complex result again.  A pair whose imaginary part
is the number ``0.0`` is a real input and is passed to the library as real (SciPy takes
another path for real input).  Sizes were fitted by the caller (zero padding and
truncation are separate ops), so ``axes`` is all the transforms need; ``fft_c2r`` also
takes ``n``, the length of its real output along the last axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _lib(lib: str) -> Any:
    if lib == "scipy":
        import scipy.fft  # noqa: PLC0415  (SciPy is optional)

        return scipy.fft
    return np.fft


def _join(re: Any, im: Any) -> Any:
    """``re + 1j * im`` (exact), or ``re`` itself when ``im`` is the number 0."""
    if isinstance(im, (int, float)) and im == 0:
        return re
    return re + 1j * im


def _split(z: Any) -> tuple[Any, Any]:
    return np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)


def fft_c2c(re: Any, im: Any, axes: tuple[int, ...], norm: str = "backward",
            lib: str = "numpy", inverse: bool = False) -> tuple[Any, Any]:
    """``fftn`` (``ifftn`` when ``inverse``) of ``re + 1j * im`` over ``axes``, as the
    pair ``(real part, imaginary part)``."""
    mod, z = _lib(lib), _join(re, im)
    if len(axes) == 1:
        z = (mod.ifft if inverse else mod.fft)(z, axis=axes[0], norm=norm)
    else:
        z = (mod.ifftn if inverse else mod.fftn)(z, axes=axes, norm=norm)
    return _split(z)


def fft_r2c(x: Any, axes: tuple[int, ...], norm: str = "backward",
            lib: str = "numpy") -> tuple[Any, Any]:
    """``rfftn`` of the real ``x`` over ``axes`` (the halved axis last), as a pair."""
    mod = _lib(lib)
    if len(axes) == 1:
        z = mod.rfft(x, axis=axes[0], norm=norm)
    else:
        z = mod.rfftn(x, axes=axes, norm=norm)
    return _split(z)


def fft_c2r(re: Any, im: Any, axes: tuple[int, ...], n: int, norm: str = "backward",
            lib: str = "numpy") -> Any:
    """``irfftn`` of ``re + 1j * im`` over ``axes``, ``n`` long on the last of them."""
    mod, z = _lib(lib), _join(re, im)
    if len(axes) == 1:
        return mod.irfft(z, n, axis=axes[0], norm=norm)
    s = tuple(np.shape(z)[a] for a in axes[:-1]) + (n,)
    return mod.irfftn(z, s=s, axes=axes, norm=norm)


def cmul(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """The product of the pairs ``(ar, ai)`` and ``(br, bi)`` by NumPy's complex multiply
    (so that it equals NumPy's product of the complex arrays bit for bit)."""
    return _split(np.multiply(_join(ar, ai), _join(br, bi)) + 0j)
