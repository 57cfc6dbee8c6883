"""Float arithmetic that rounds like PyTorch's CPU kernels, for bit-identical optimizer steps.

PyTorch's vectorised CPU kernels compute ``a + alpha * b`` (``add(b, alpha=...)``) and
``lerp`` with a fused multiply-add: the product is not rounded before the sum.  NumPy has no
fused multiply-add, so ``fma`` below computes it exactly: for float32 operands the product is
exact in float64, the float64 sum's rounding error is recovered with Knuth's two-sum, and the
case where rounding to float32 twice differs from rounding once (the float64 sum lying
exactly halfway between two float32 numbers, or a subnormal result) is settled by rounding
the sum to odd first, from that error's sign.  For float64 operands a product's error is
recovered with Dekker's splitting and the result is corrected.

Scalars (``alpha``, ``value``, ``weight``) are cast to the tensor's dtype first, as PyTorch's
kernels do for float32 and float64.  The helpers named after PyTorch's in-place tensor methods
(``add``, ``addcmul``, ``addcdiv``, ``lerp``, ``mul``, ``div``) return the new array; each was
checked bit for bit against PyTorch 2.13 on 100,000 float32 elements.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..device import is_device, xp_of
from ..float_errors import INVALID_OVER, quiet, restore
from .rsqrt14 import rsqrt14

__all__ = ["add", "addcdiv", "addcmul", "div", "fma", "lerp", "mul", "scalar", "sqrt"]


def scalar(value: float, like: Any) -> Any:
    """``value`` cast to the dtype of array ``like`` (how a kernel sees a Python scalar)."""
    if type(like) is np.ndarray:  # per-op cost: the usual case first
        return like.dtype.type(value)
    dt = like.dtype if hasattr(like, "dtype") else np.asarray(like).dtype
    return dt.type(value)


# what ``ndarray.any()`` / ``.all()`` call, without their Python wrappers (per-op cost)
_any = np.logical_or.reduce
_all = np.logical_and.reduce
_min = np.minimum.reduce
_max = np.maximum.reduce
_F32 = np.dtype(np.float32)


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``a + b`` rounded, and the exact rounding error (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


#: the low 29 bits of a float64 that lies halfway between two normal float32 numbers
_LOW_BITS = np.uint64((1 << 29) - 1)
_HALFWAY = np.uint64(1 << 28)
_ABS_BITS = np.uint64((1 << 63) - 1)
_ONE = np.uint64(1)
_TINY_BITS = np.array(2.0**-125).view(np.uint64) - _ONE


def _fma32(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` for float32 operands, rounded once to float32."""
    product = np.multiply(a, b, dtype=np.float64)  # exact: 24 + 24 bits
    s = np.add(product, c, dtype=np.float64)
    r = s.astype(np.float32)
    # rounding s again can only go wrong where s sits exactly halfway between two float32
    # numbers (or where the result is subnormal, whose halfway points lie elsewhere)
    bits = s.view(np.uint64)
    suspect = (bits & _LOW_BITS) == _HALFWAY
    # speedcore: nonzero |s| below 2**-125, on the bits (an exact zero rounds exactly)
    suspect |= (bits & _ABS_BITS) - _ONE < _TINY_BITS
    if _any(suspect, axis=None):
        _fix_suspects(r, s, product, c, suspect)
    return r


def _fix_suspects(r: Any, s: Any, product: Any, c: Any, suspect: Any) -> None:
    """Round the suspect entries of ``r`` once (speedcore: cheaper than the general path).

    Where the float64 sum was exact (two float32 numbers whose sum needs 25 bits: a true
    tie), ``r`` is already right.  Elsewhere the sum is rounded to odd first (an inexact sum
    with an even last bit moves one step towards the exact value): rounding to odd with at
    least two extra bits, then to nearest, is rounding the exact value to nearest once."""
    shape = s.shape
    p_s = (product if product.shape == shape else np.broadcast_to(product, shape))[suspect]
    c64 = np.asarray(c, dtype=np.float64)
    c_s = (c64 if c64.shape == shape else np.broadcast_to(c64, shape))[suspect]
    total, err = _two_sum(p_s, c_s)
    inexact = err != 0
    if not inexact.any():
        return
    tb = total.view(np.uint64)
    move = inexact & ((tb & _ONE) == 0)
    up = (err > 0) == (total > 0)
    odd = np.where(move, np.where(up, tb + _ONE, tb - _ONE), tb)
    r[suspect] = odd.view(np.float64).astype(np.float32)


def _split(a: Any) -> tuple[Any, Any]:
    c = a * 134217729.0  # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    """``a * b`` rounded, and the exact error (Dekker), for float64 arrays."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fits(x: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``x`` is a scalar or an array of exactly ``shape``."""
    s = getattr(x, "shape", ())
    return s == () or s == shape


def fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` with a single rounding, in the common dtype of the arrays.

    On a device (CuPy, the stand-in) this is the plain ``a * b + c``: GPU kernels fuse or
    round as their compiler chooses, so PyTorch CPU's bits are not the reference there."""
    if type(c) is np.ndarray and c.dtype == _F32 and c.ndim:  # per-op cost: float32 first
        # (NumPy float32 scalars and arrays of ``c``'s shape: ``_fma32`` as below)
        shape = c.shape
        ta, tb = type(a), type(b)
        if ((ta is np.float32 or ta is np.ndarray and a.dtype == _F32 and (
                a.shape == shape or a.shape == ())) and (
                tb is np.float32 or tb is np.ndarray and b.dtype == _F32 and (
                b.shape == shape or b.shape == ()))):
            return _fma32(a, b, c)
    if is_device(c) or is_device(a) or is_device(b):
        return a * b + c
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        if type(c) is np.ndarray and c.ndim and _fits(a, c.shape) and _fits(b, c.shape):
            return _fma32(a, b, c)  # speedcore: the common case, no reshaping needed
        shape = np.broadcast(a, b, c).shape
        out = _fma32(*(np.atleast_1d(x) for x in (a, b, c)))
        return out.reshape(shape) if shape else out[0]
    a = np.asarray(a, dtype=dtype)
    b = np.asarray(b, dtype=dtype)
    c = np.asarray(c, dtype=dtype)
    if dtype == _F64:
        few = _fma64_few(a, b, c)
        if few is not None:
            return few
    p, perr = _two_prod(a, b)
    s, serr = _two_sum(p, c)
    token = quiet(INVALID_OVER)  # ``np.errstate(invalid="ignore", over="ignore")``, cheaper
    try:
        fixed = s + (perr + serr)
    finally:
        restore(token)
    finite = np.isfinite(fixed)
    if _all(finite, axis=None):  # speedcore: nothing to replace (np.where would copy ``fixed``)
        return np.asarray(fixed)
    return np.where(finite, fixed, a * b + c)


_F64 = np.dtype(np.float64)
_SPLIT_LIMIT = 2.0**490  # |a|, |b| below this: no step of the float64 path can overflow
_SUM_LIMIT = 2.0**1000  # (and |c| below this)


def _fma64_few(a: Any, b: Any, c: Any) -> Any:
    """``fma``'s float64 steps on Python floats, for a few elements (per-op cost: LBFGS's
    vectors of a handful of parameters, where NumPy's per-call cost is all there is).
    The same IEEE double operations in the same order, so the same bits; None (the NumPy
    path) for many elements, shapes that need broadcasting, or values large enough that a
    step could overflow (NumPy would warn there; nothing can overflow below the limits)."""
    shape = c.shape
    for x in (a, b):
        if x.ndim and x.shape != shape:
            if shape:
                return None
            shape = x.shape
    n = math.prod(shape)
    if not 0 < n <= 16:
        return None
    xs, ys, zs = (v.ravel().tolist() if v.ndim else [float(v)] * n for v in (a, b, c))
    out = []
    for x, y, z in zip(xs, ys, zs):
        if not (abs(x) < _SPLIT_LIMIT and abs(y) < _SPLIT_LIMIT and abs(z) < _SUM_LIMIT):
            return None  # (NaN fails the test too)
        p = x * y  # ``_two_prod``
        t = x * 134217729.0
        xh = t - (t - x)
        xl = x - xh
        t = y * 134217729.0
        yh = t - (t - y)
        yl = y - yh
        perr = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
        s = p + z  # ``_two_sum``
        bb = s - p
        serr = (p - (s - bb)) + (z - bb)
        out.append(s + (perr + serr))
    return np.array(out, dtype=np.float64).reshape(shape)


def sqrt(x: Any) -> Any:
    """PyTorch's CPU ``sqrt`` as MKL computes it for float32 on AVX-512 machines: the Newton
    step ``s + (x - s*s) * y/2`` from ``s = x*y``, ``y = VRSQRT14PS(x)``, with fused
    multiply-adds.  Zeros, infinities, NaNs, negatives and float64 take NumPy's correctly
    rounded ``sqrt`` (MKL's float64 path is not reproduced; it differs in the last bit for
    under 1% of inputs).  Device arrays take their library's ``sqrt``."""
    if is_device(x):
        return xp_of(x).sqrt(x)
    x = np.asarray(x)
    if x.dtype != np.float32:
        return np.sqrt(x)
    if x.size:
        lo, hi = _min(x, axis=None), _max(x, axis=None)  # ``x.min()``, ``x.max()``
        if lo >= np.float32(2.0**-64) and hi < np.float32(np.inf):
            return _newton_sqrt(x)  # the common case: nothing special, nothing tiny
        if lo >= 0 and hi < np.float32(np.inf):  # speedcore: zeros (e.g. unused rows) too
            pos = x > 0
            v = np.where(pos, x, np.float32(1))
            if v.min() >= np.float32(2.0**-64):
                return np.where(pos, _newton_sqrt(v), x)  # sqrt(+-0) is +-0
    regular = np.isfinite(x) & (x > 0)
    with np.errstate(invalid="ignore"):
        out = np.sqrt(x, out=np.empty_like(x))
    if not np.any(regular):
        return out
    v = x[regular]
    # tiny inputs are scaled by 2**64 first (their residual would otherwise underflow)
    tiny = v < np.float32(2.0**-64)
    v = np.where(tiny, np.where(tiny, v, 0) * np.float32(2.0**64), v)
    root = _newton_sqrt(v)
    out[regular] = np.where(tiny, root * np.float32(2.0**-32), root)
    return out


def _newton_sqrt(v: Any) -> Any:
    """MKL's step for positive normal float32 ``v`` (at least 2**-64)."""
    y = rsqrt14(v)
    s = v * y
    r = fma(-s, s, v)
    return fma(r, y * np.float32(0.5), s)


def add(a: Any, b: Any, alpha: float = 1) -> Any:
    """``a.add(b, alpha=alpha)``: ``a + alpha * b`` with one rounding."""
    return fma(scalar(alpha, a), b, a)


def mul(a: Any, s: float) -> Any:
    """``a.mul(s)`` for a Python number ``s``."""
    return a * scalar(s, a)


def div(a: Any, s: float) -> Any:
    """``a / s`` for a Python number ``s`` (a true division, not a reciprocal product)."""
    return a / scalar(s, a)


def addcmul(a: Any, t1: Any, t2: Any, value: float = 1) -> Any:
    """``a.addcmul(t1, t2, value=value)``: ``(value * t1) * t2 + a``, the last two fused."""
    return fma(scalar(value, a) * t1, t2, a)


def addcdiv(a: Any, t1: Any, t2: Any, value: float = 1) -> Any:
    """``a.addcdiv(t1, t2, value=value)``: ``a + (value * t1) / t2``, each step rounded."""
    return a + (scalar(value, a) * t1) / t2


def lerp(start: Any, end: Any, weight: float) -> Any:
    """``start.lerp(end, weight)``: ``start + w * (end - start)`` for ``|w| < 0.5``, else
    ``end + (w - 1) * (end - start)``, the product and sum fused."""
    w = scalar(weight, start)
    diff = end - start
    if abs(w) < 0.5:
        return fma(w, diff, start)
    return fma(w - w.dtype.type(1), diff, end)
