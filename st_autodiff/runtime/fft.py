"""``torch.fft`` for the eager runtime: complex results as pairs of real tensors.

The runtime has no complex tensors (docs/architecture.md, "Complex numbers").  The
transforms are the exception, as in the compiler: ``torch.fft.rfft(x)`` returns a
``SpectrumTensor``, a complex intermediate made only by these functions and held as two
real ``Tensor`` parts, each recorded by the fft ops (``fft_c2c``, ``fft_r2c``,
``fft_c2r``, ``cmul``) whose backward nodes run the rules of ``derivatives/fft.py``.
Leaves stay real, so the gradient of a real loss is the one PyTorch gives its real
leaves (no complex convention enters).

A spectrum supports ``.real``, ``.imag``, ``.abs()``, ``.angle()``, ``.conj()``,
``+ - * /`` and unary ``-`` with spectra, real tensors and numbers, ``** k`` for small
positive integers, indexing, ``.sum()``/``.mean()``, and the transforms themselves
(``torch.fft.irfft(torch.fft.rfft(a, n) * torch.fft.rfft(b, n), n)``); ``torch.abs``,
``torch.real``, ``torch.imag``, ``torch.conj``, ``torch.angle`` and
``torch.view_as_real`` take it too.  Anything
else raises ``TypeError: complex tensors are not supported yet``.  ``abs`` is
``hypot(re, im)``, whose gradient at an exactly zero bin is 0, as PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.kernels_fft import cook_1d, cook_nd, fit_plan
from ..ir.ops import Op
from .functional import abs as _real_abs
from .tensor import Tensor
from .tensor_ops import apply_op

__all__ = ["SpectrumTensor", "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft",
           "rfft2", "rfftfreq", "rfftn"]

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _refuse(what: str) -> TypeError:
    return TypeError(f"{what}: complex tensors are not supported yet (a torch.fft result "
                     "supports .real, .imag, abs, angle, conj, + - * /, indexing, sum/mean "
                     "and further transforms)")


class SpectrumTensor:
    """A complex tensor made by ``torch.fft``, held as its real and imaginary parts."""

    __array_priority__ = 1000  # NumPy arrays defer to our reflected operators

    def __init__(self, real: Tensor, imag: Any) -> None:  # imag: a Tensor, or 0.0 if real
        self.real = real
        self.imag = imag

    # --- queries ---
    @property
    def shape(self) -> Any:
        return self.real.shape

    @property
    def ndim(self) -> int:
        return self.real.ndim

    def dim(self) -> int:
        return self.real.ndim

    def size(self, dim: int | None = None) -> Any:
        return self.real.size() if dim is None else self.real.size(dim)

    def is_complex(self) -> bool:
        return True

    @property
    def dtype(self) -> Any:
        """``torch.complex64`` for float32 parts, ``torch.complex128`` for float64."""
        from . import dtypes

        return dtypes.complex64 if self.real.dtype is dtypes.float32 else dtypes.complex128

    @property
    def device(self) -> Any:
        return self.real.device

    @property
    def requires_grad(self) -> bool:
        return bool(self.real.requires_grad or self.imag.requires_grad)

    def numel(self) -> int:
        return int(self.real.numel())

    def __setitem__(self, index: Any, value: Any) -> None:
        """``spectrum[10:] = 0``: a write into both parts (a real value leaves imag 0)."""
        if isinstance(value, SpectrumTensor):
            self.real[index], self.imag[index] = value.real, value.imag
        else:
            self.real[index] = _real(value, "=")
            self.imag[index] = 0.0

    def __repr__(self) -> str:
        return f"SpectrumTensor(real={self.real!r}, imag={self.imag!r})"

    # --- elementwise ---
    def abs(self) -> Any:
        return apply_op(Op.HYPOT, self.real, self.imag)

    __abs__ = abs

    def angle(self) -> Any:
        return apply_op(Op.ARCTAN2, self.imag, self.real)

    def conj(self) -> SpectrumTensor:
        return SpectrumTensor(self.real, -self.imag)

    def __neg__(self) -> SpectrumTensor:
        return SpectrumTensor(-self.real, -self.imag)

    def __pos__(self) -> SpectrumTensor:
        return self

    def __add__(self, o: Any) -> SpectrumTensor:
        if isinstance(o, SpectrumTensor):
            return SpectrumTensor(self.real + o.real, self.imag + o.imag)
        re = self.real + _real(o, "+")
        im = self.imag
        if tuple(re.shape) != tuple(im.shape):  # o was the larger: both parts broadcast
            im = im + apply_op(Op.ZEROS_LIKE, re)
        return SpectrumTensor(re, im)

    __radd__ = __add__

    def __sub__(self, o: Any) -> SpectrumTensor:
        r: SpectrumTensor = self + (-o)
        return r

    def __rsub__(self, o: Any) -> SpectrumTensor:
        r: SpectrumTensor = (-self) + o
        return r

    def __mul__(self, o: Any) -> SpectrumTensor:
        if isinstance(o, SpectrumTensor):
            return SpectrumTensor(*apply_op(Op.CMUL, self.real, self.imag, o.real, o.imag))
        o = _real(o, "*")
        return SpectrumTensor(self.real * o, self.imag * o)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> SpectrumTensor:
        if isinstance(o, SpectrumTensor):
            return SpectrumTensor(*apply_op(Op.CDIV, self.real, self.imag, o.real, o.imag))
        o = _real(o, "/")
        return SpectrumTensor(self.real / o, self.imag / o)

    def __rtruediv__(self, o: Any) -> SpectrumTensor:
        return SpectrumTensor(*apply_op(Op.CDIV, _real(o, "/"), 0.0, self.real, self.imag))

    def __pow__(self, k: Any) -> SpectrumTensor:
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 4:
            raise _refuse(f"a spectrum ** {k!r}")
        out = self
        for _ in range(k - 1):
            out = out * self
        return out

    # --- structure ---
    def __getitem__(self, index: Any) -> SpectrumTensor:
        return SpectrumTensor(self.real[index], self.imag[index])

    def sum(self, *args: Any, **kwargs: Any) -> SpectrumTensor:
        return SpectrumTensor(self.real.sum(*args, **kwargs), self.imag.sum(*args, **kwargs))

    def mean(self, *args: Any, **kwargs: Any) -> SpectrumTensor:
        return SpectrumTensor(self.real.mean(*args, **kwargs),
                              self.imag.mean(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(str(_refuse(f"SpectrumTensor.{name}")))

    def __bool__(self) -> bool:
        raise _refuse("the truth value of a spectrum")


def _real(o: Any, what: str) -> Any:
    if isinstance(o, complex) or getattr(getattr(o, "dtype", None), "kind", "") == "c":
        raise _refuse(f"a spectrum {what} a complex number")
    return o


# --- torch.abs / real / imag / conj / angle on spectra ----------------------------------


def abs(input: Any) -> Any:  # noqa: A001
    """``torch.abs``: the modulus of a spectrum, else the real elementwise abs."""
    return input.abs() if isinstance(input, SpectrumTensor) else _real_abs(input)


absolute = abs


def real(input: Any) -> Any:
    """``torch.real``: a spectrum's real part (a real tensor is its own)."""
    return input.real if isinstance(input, SpectrumTensor) else input


def imag(input: Any) -> Any:
    """``torch.imag``: a spectrum's imaginary part (PyTorch refuses real tensors)."""
    if not isinstance(input, SpectrumTensor):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return input.imag


def conj(input: Any) -> Any:
    """``torch.conj``: the conjugate of a spectrum (a real tensor is its own)."""
    return input.conj() if isinstance(input, SpectrumTensor) else input


def angle(input: Any) -> Any:
    """``torch.angle``: the argument of a spectrum; of a real tensor 0 or pi."""
    if isinstance(input, SpectrumTensor):
        return input.angle()
    return apply_op(Op.ARCTAN2, input * 0.0, input)


def view_as_real(input: Any) -> Any:
    """``torch.view_as_real``: a spectrum's parts stacked on a new last axis (a copy here)."""
    if not isinstance(input, SpectrumTensor):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return apply_op(Op.STACK, input.real, input.imag, axis=-1)


# --- the transforms ---------------------------------------------------------------------


def _fit(x: Any, axes: tuple[int, ...], sizes: tuple[int, ...]) -> Any:
    if not hasattr(x, "shape"):
        return x  # the number 0.0: a real input's imaginary part
    cut, pad = fit_plan(tuple(x.shape), axes, sizes)
    if cut is not None:
        x = apply_op(Op.GETITEM, x, index=cut)
    if pad is not None:
        x = apply_op(Op.PAD, x, pad_width=pad, constant_values=0)
    return x


def _transform(name: str, x: Any, size: Any, dim: Any, norm: str | None, one: bool) -> Any:
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f"Invalid normalization mode: {norm}")
    norm = norm or "backward"
    shape = tuple((x.real if isinstance(x, SpectrumTensor) else x).shape)
    axes, sizes = cook_1d(name, shape, size, dim) if one else cook_nd(name, shape, size, dim)
    base = name.rstrip("n2")  # fftn, rfft2 -> fft, rfft
    if base in ("rfft", "ihfft"):
        if isinstance(x, SpectrumTensor):
            raise _refuse(f"torch.fft.{name} of a complex input")
        nrm = _SWAP[norm] if base == "ihfft" else norm
        out = SpectrumTensor(*apply_op(Op.FFT_R2C, _fit(x, axes, sizes), axes=axes, norm=nrm))
        return out.conj() if base == "ihfft" else out
    z = x if isinstance(x, SpectrumTensor) else SpectrumTensor(x, 0.0)
    if base in ("irfft", "hfft"):
        if base == "hfft":
            z, norm = z.conj() if isinstance(x, SpectrumTensor) else z, _SWAP[norm]
        fitted = (*sizes[:-1], sizes[-1] // 2 + 1)
        return apply_op(Op.FFT_C2R, _fit(z.real, axes, fitted), _fit(z.imag, axes, fitted),
                        axes=axes, norm=norm, n=sizes[-1])
    return SpectrumTensor(*apply_op(Op.FFT_C2C, _fit(z.real, axes, sizes),
                                    _fit(z.imag, axes, sizes), axes=axes, norm=norm,
                                    inverse=base == "ifft"))


def _one(name: str) -> Any:
    def fn(input: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
        return _transform(name, input, n, dim, norm, True)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.fft.{name}(input, n=None, dim=-1, norm=None)``."
    return fn


def _many(name: str, base: str, default: Any) -> Any:
    def fn(input: Any, s: Any = None, dim: Any = default, norm: str | None = None) -> Any:
        return _transform(base + "n", input, s, dim, norm, False)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.fft.{name}(input, s=None, dim={default!r}, norm=None)``."
    return fn


fft, ifft, rfft, irfft, hfft, ihfft = (_one(n) for n in ("fft", "ifft", "rfft", "irfft",
                                                        "hfft", "ihfft"))
fft2, ifft2, rfft2, irfft2 = (_many(n + "2", n, (-2, -1)) for n in ("fft", "ifft", "rfft",
                                                                    "irfft"))
fftn, ifftn, rfftn, irfftn = (_many(n + "n", n, None) for n in ("fft", "ifft", "rfft",
                                                                "irfft"))


def _shift(input: Any, dim: Any, sign: int) -> Any:
    if isinstance(input, SpectrumTensor):
        return SpectrumTensor(_shift(input.real, dim, sign), _shift(input.imag, dim, sign))
    shape = tuple(input.shape)
    dims = tuple(range(len(shape))) if dim is None else (
        (dim,) if isinstance(dim, int) else tuple(dim))
    shift = tuple(sign * (shape[d] // 2) for d in dims)
    return apply_op(Op.ROLL, input, shift=shift, axis=dims)


def fftshift(input: Any, dim: Any = None) -> Any:
    """``torch.fft.fftshift``: the zero frequency moved to the middle."""
    return _shift(input, dim, 1)


def ifftshift(input: Any, dim: Any = None) -> Any:
    """``torch.fft.ifftshift``: the inverse of ``fftshift``."""
    return _shift(input, dim, -1)


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
            requires_grad: bool = False) -> Any:
    """``torch.fft.fftfreq``: the sample frequencies (a constant tensor)."""
    from .factory import tensor  # noqa: PLC0415

    return tensor(np.fft.fftfreq(n, d).tolist(), dtype=dtype, device=device,
                  requires_grad=requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Any:
    """``torch.fft.rfftfreq``: the sample frequencies of ``rfft`` (a constant tensor)."""
    from .factory import tensor  # noqa: PLC0415

    return tensor(np.fft.rfftfreq(n, d).tolist(), dtype=dtype, device=device,
                  requires_grad=requires_grad)


