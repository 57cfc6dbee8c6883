"""Kernels of the fft ops (``rt.fft_c2c``, ``rt.fft_r2c``, ``rt.fft_c2r``) and of the
products and quotients of pairs (``rt.cmul``, ``rt.cdiv``).

A complex spectrum travels as two real arrays (see ``transforms/complex_pairs``): each
kernel joins its pair into one complex array, calls the library's own transform (NumPy's
``np.fft`` or SciPy's ``scipy.fft``, named by ``lib``, so that values equal the
library's bit for bit) and splits the complex result again.  A pair whose imaginary part
is the number ``0.0`` is a real input and is passed to the library as real (SciPy takes
another path for real input).  Sizes were fitted by the caller (zero padding and
truncation are separate ops), so ``axes`` is all the transforms need; ``fft_c2r`` also
takes ``n``, the length of its real output along the last axis.  CuPy arrays go to
``cupy.fft``.  ``cook_1d``/``cook_nd`` resolve ``n``/``s`` and
``axis``/``axes`` as NumPy does, for the compiler and the eager runtime alike.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index  # NumPy >= 2

from .types import type_module


def _lib(lib: str, x: Any) -> Any:
    """The transforms' module: NumPy's or SciPy's; CuPy's for a CuPy array (CuPy is loaded
    then; only ``runtime/backend`` imports it)."""
    if type_module(x).startswith("cupy"):
        return sys.modules["cupy"].fft
    if hasattr(x, "shape") and not type_module(x).startswith("numpy"):
        from .namespaces import namespace_of  # noqa: PLC0415 (backends, issue 15)

        ns = namespace_of(x)  # an array-API library's fft extension, never NumPy's
        if ns is not None and ns is not np and hasattr(ns, "fft"):
            return ns.fft
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
    if type_module(z).startswith("cupy") or hasattr(type(z), "__cupyx_scipy__"):
        return z.real.copy(), z.imag.copy()  # (CuPy, or the runtime's CuPy double)
    return np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)


def fft_c2c(re: Any, im: Any, axes: tuple[int, ...], norm: str = "backward",
            lib: str = "numpy", inverse: bool = False) -> tuple[Any, Any]:
    """``fftn`` (``ifftn`` when ``inverse``) of ``re + 1j * im`` over ``axes``, as the
    pair ``(real part, imaginary part)``."""
    z = _join(re, im)
    mod = _lib(lib, z)
    if len(axes) == 1:
        z = (mod.ifft if inverse else mod.fft)(z, axis=axes[0], norm=norm)
    else:
        z = (mod.ifftn if inverse else mod.fftn)(z, axes=axes, norm=norm)
    return _split(z)


def fft_r2c(x: Any, axes: tuple[int, ...], norm: str = "backward",
            lib: str = "numpy") -> tuple[Any, Any]:
    """``rfftn`` of the real ``x`` over ``axes`` (the halved axis last), as a pair."""
    mod = _lib(lib, x)
    if len(axes) == 1:
        z = mod.rfft(x, axis=axes[0], norm=norm)
    else:
        z = mod.rfftn(x, axes=axes, norm=norm)
    return _split(z)


def fft_c2r(re: Any, im: Any, axes: tuple[int, ...], n: int, norm: str = "backward",
            lib: str = "numpy") -> Any:
    """``irfftn`` of ``re + 1j * im`` over ``axes``, ``n`` long on the last of them."""
    z = _join(re, im)
    mod = _lib(lib, z)
    if len(axes) == 1:
        return mod.irfft(z, n, axis=axes[0], norm=norm)
    s = tuple(np.shape(z)[a] for a in axes[:-1]) + (n,)
    return mod.irfftn(z, s=s, axes=axes, norm=norm)


def cmul(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """The product of the pairs ``(ar, ai)`` and ``(br, bi)`` by NumPy's complex multiply
    (so that it equals NumPy's product of the complex arrays bit for bit)."""
    return _split(_join(ar, ai) * _join(br, bi) + 0j)


def cdiv(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """The quotient of the pairs ``(ar, ai)`` and ``(br, bi)`` by NumPy's complex divide."""
    return _split(_join(ar, ai) / _join(br, bi) + 0j)


def cook_1d(name: str, shape: tuple[int, ...], n: Any, axis: Any
             ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axis (non-negative) and length of a one-axis transform ``name`` of an input of
    ``shape``, as NumPy resolves ``n`` and ``axis`` (``irfft``/``hfft``: ``2 * (m - 1)``)."""
    ax = normalize_axis_index(axis, len(shape))
    if n is None:
        n = 2 * (shape[ax] - 1) if name in ("irfft", "hfft") else shape[ax]
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return (ax,), (int(n),)


def cook_nd(name: str, shape: tuple[int, ...], s: Any, axes: Any
             ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """NumPy's ``_cook_nd_args``, axes made non-negative."""
    if axes is not None:
        axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
        axes = tuple(normalize_axis_index(int(ax), len(shape)) for ax in axes)
    shapeless = s is None
    if s is None:
        s = [shape[ax] for ax in axes] if axes is not None else list(shape)
    s = list(s)
    if axes is None:
        axes = tuple(range(len(shape) - len(s), len(shape)))
        if min(axes, default=0) < 0:
            raise ValueError("Shape and axes have different lengths.")
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if len(set(axes)) != len(axes) or not axes:
        raise ValueError("repeated or no axes are not supported by the compiler")
    if name.startswith(("irfft", "hfft")) and shapeless:
        s[-1] = (shape[axes[-1]] - 1) * 2
    s = [shape[ax] if v == -1 else v for v, ax in zip(s, axes)]
    for v in s:
        if v is None or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"Invalid number of FFT data points ({v}) specified.")
    return tuple(axes), tuple(int(v) for v in s)


def fit_plan(shape: tuple[int, ...], axes: tuple[int, ...], sizes: tuple[int, ...]
             ) -> tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]:
    """How ``n=``/``s=`` fit an input of ``shape`` to ``sizes`` along ``axes``: the
    ``getitem`` index that truncates and the ``pad`` widths that zero-pad (None where
    nothing is cut or padded); both engines emit these ops before a transform."""
    index: list[tuple[str, None, int | None, None]] = [("slice", None, None, None)] * len(shape)
    pad = [(0, 0)] * len(shape)
    for ax, size in zip(axes, sizes):
        if shape[ax] > size:
            index[ax] = ("slice", None, size, None)
        elif shape[ax] < size:
            pad[ax] = (0, size - shape[ax])
    cut = tuple(index) if any(part[2] is not None for part in index) else None
    return cut, (tuple(pad) if any(p != (0, 0) for p in pad) else None)
