"""Rules of the fft ops (VJP and JVP, see ``derivatives``): ``fft_c2c``, ``fft_r2c``,
``fft_c2r``, the product of pairs ``cmul`` (a complex-linear map in each factor, whose
transpose multiplies by the conjugate of the other) and the quotient ``cdiv``, whose
complex values are pairs of real arrays (``transforms/complex_pairs``).

Each transform is linear in the real numbers of its inputs, so its JVP is the same
transform of the tangents, and its VJP is the transpose of that real-linear map:

* ``fft_c2c``: the adjoint of a DFT ``F`` (on ``C^n`` seen as ``R^2n`` with the real inner
  product ``Re <u, v>``) is ``F^H``, the unscaled inverse DFT, so the VJP of ``fftn`` with
  ``norm`` is ``ifftn`` of the cotangent pair with the swapped norm (``backward`` <->
  ``forward``, ``ortho`` stays): the scale ``1/N`` moves to the other direction;
* ``fft_r2c`` (``rfftn``): the transpose keeps the real part of ``F^H`` applied to the
  half spectrum padded with zeros.  ``irfftn`` computes exactly that real part, except
  that it counts each interior bin of the halved axis twice (it stands for its
  conjugate mirror too); so the VJP is ``irfftn`` (swapped norm, the input's length) of
  the cotangent with interior bins halved.  The imaginary parts of the DC bin (and of
  the Nyquist bin of an even length), which ``irfftn`` ignores, are always zero in the
  output, so their cotangents rightly count for nothing;
* ``fft_c2r`` (``irfftn``): its transpose weighs the ``rfftn`` of the cotangent (swapped
  norm) by 2 on interior bins of the halved axis, by 1 on the DC and Nyquist bins; the
  imaginary parts ``irfftn`` ignores get zero there (``rfft`` of a real array has
  exactly zero imaginary DC and Nyquist bins).

Multi-dimensional transforms are compositions of one-axis ones (a complex transform on
the other axes, the halved one last), and the weights act on the last axis only, so
the same formulas hold.  Zero padding and truncation (``n=``, ``s=``) are separate ops
(``pad``, ``getitem``) emitted when lowering, with their own rules.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from ..ir.ops import Op
from . import RULES, Grads
from .jvp import jvp_rule

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _weights(ops: Any, like: Any, axis: int, n: int, interior: float) -> Any:
    """A constant shaped to broadcast along ``axis`` of ``like`` (rank known): 1 on the DC
    bin and on the Nyquist bin of an even ``n``, ``interior`` on the other bins of the
    ``n // 2 + 1`` kept."""
    m = n // 2 + 1
    w = _np.full(m, interior)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    rank = ops.ndim(like)
    shape = [1] * rank
    shape[axis] = m
    dt = ops.dtype(like) or "float64"
    return ops.const(w.reshape(shape).astype(dt))


def _zero(v: Any) -> Any:
    return 0.0 if v is None else v


def _c2c_vjp(ops: Any, g: Any, out: Any, re: Any, im: Any, axes: Any = (), norm: str = "backward",
             lib: str = "numpy", inverse: bool = False) -> Grads:
    gr, gi = g
    z = ops.fft_c2c(_zero(gr), _zero(gi), axes=axes, norm=_SWAP[norm], lib=lib,
                    inverse=not inverse)
    return (z[0], z[1])


def _r2c_vjp(ops: Any, g: Any, out: Any, x: Any, axes: Any = (), norm: str = "backward",
             lib: str = "numpy") -> Grads:
    gr, gi = (_zero(v) for v in g)
    n = ops.static_shape(x)[axes[-1]]
    w = _weights(ops, x, axes[-1], n, 0.5)
    return (ops.fft_c2r(ops.mul(gr, w), ops.mul(gi, w), axes=axes, norm=_SWAP[norm], lib=lib, n=n),)


def _c2r_vjp(ops: Any, g: Any, out: Any, re: Any, im: Any, axes: Any = (), norm: str = "backward",
             lib: str = "numpy", n: int = 0) -> Grads:
    z = ops.fft_r2c(g, axes=axes, norm=_SWAP[norm], lib=lib)
    w = _weights(ops, g, axes[-1], n, 2.0)
    return (ops.mul(z[0], w), ops.mul(z[1], w))  # (ops.mul: w is a raw constant)


def _cmul_vjp(ops: Any, g: Any, out: Any, ar: Any, ai: Any, br: Any, bi: Any) -> Grads:
    # z = a * b is complex-linear in each factor: its transpose multiplies by the conjugate
    gr, gi = (_zero(v) for v in g)
    da = ops.cmul(gr, gi, br, -bi)
    db = ops.cmul(gr, gi, ar, -ai)
    return (da[0], da[1], db[0], db[1])


def _cdiv_vjp(ops: Any, g: Any, out: Any, ar: Any, ai: Any, br: Any, bi: Any) -> Grads:
    # z = a / b: dz = da / b - z db / b; transposed, a gets g / conj(b) and b gets
    # -conj(z) g / conj(b)
    gr, gi = (_zero(v) for v in g)
    z = _quotient(ops, out, ar, ai, br, bi)
    da = ops.cdiv(gr, gi, br, -bi)
    db = ops.cmul(da[0], da[1], -z[0], z[1])
    return (da[0], da[1], db[0], db[1])


def _quotient(ops: Any, out: Any, ar: Any, ai: Any, br: Any, bi: Any) -> Any:
    """Both parts of ``cdiv``'s output (the adjoint pass passes only those the program
    reads; the rest is computed again)."""
    out = tuple(out)
    return out if len(out) >= 2 else ops.cdiv(ar, ai, br, bi)


RULES[Op.CMUL] = _cmul_vjp
RULES[Op.CDIV] = _cdiv_vjp
RULES[Op.FFT_C2C] = _c2c_vjp
RULES[Op.FFT_R2C] = _r2c_vjp
RULES[Op.FFT_C2R] = _c2r_vjp


@jvp_rule(Op.FFT_C2C)
def _c2c_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, re: Any, im: Any, **params: Any) -> Any:
    tr, ti = tangents
    if tr is None and ti is None:
        return None  # (no tangent: the convention of every multi-output op)
    if tr is None:  # the real part's tangent broadcast to the pair's shape
        tr = ops.zeros_like(ti)
    z = ops.fft_c2c(tr, _zero(ti), **params)
    return (z[0], z[1])


@jvp_rule(Op.FFT_R2C)
def _r2c_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, **params: Any) -> Any:
    if tangents[0] is None:
        return None  # (no tangent: the convention of every multi-output op)
    z = ops.fft_r2c(tangents[0], **params)
    return (z[0], z[1])


@jvp_rule(Op.FFT_C2R)
def _c2r_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, re: Any, im: Any, **params: Any) -> Any:
    tr, ti = tangents
    if tr is None and ti is None:
        return None
    if tr is None:
        tr = ops.zeros_like(ti)
    return ops.fft_c2r(tr, _zero(ti), **params)


@jvp_rule(Op.CMUL)
def _cmul_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, ar: Any, ai: Any, br: Any,
              bi: Any) -> Any:
    tar, tai, tbr, tbi = tangents
    terms = []
    for tr, ti, (cr, ci) in ((tar, tai, (br, bi)), (tbr, tbi, (ar, ai))):
        if tr is None and ti is None:
            continue
        z = ops.cmul(ops.zeros_like(ti) if tr is None else tr, _zero(ti), cr, ci)
        terms.append((z[0], z[1]))
    if not terms:
        return None  # (no tangent: the convention of every multi-output op)
    if len(terms) == 1:
        return terms[0]
    return (terms[0][0] + terms[1][0], terms[0][1] + terms[1][1])


@jvp_rule(Op.CDIV)
def _cdiv_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, ar: Any, ai: Any, br: Any,
              bi: Any) -> Any:
    tar, tai, tbr, tbi = tangents
    if all(t is None for t in tangents):
        return None  # (no tangent: the convention of every multi-output op)
    nr, ni = _zero(tar), _zero(tai)  # the numerator's tangent: ta - z tb
    if tbr is not None or tbi is not None:
        z = _quotient(ops, out, ar, ai, br, bi)
        ztb = ops.cmul(z[0], z[1], ops.zeros_like(tbi) if tbr is None else tbr,
                       _zero(tbi))
        nr, ni = nr - ztb[0], ni - ztb[1]
    if isinstance(nr, float):  # (only ai's tangent: the real part is zeros)
        nr = ops.zeros_like(ni)
    z = ops.cdiv(nr, ni, br, bi)
    return (z[0], z[1])
