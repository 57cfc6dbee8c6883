"""Spectra as pairs of real arrays: NumPy's and SciPy's FFTs for ``lower``.

Complex values are refused by the compiler (``no_complex.py``): the rule table follows
no convention for complex inputs.  The FFT is the exception users need most, and it does
not need complex values inside the compiler: a spectrum is carried as a ``Pair`` of real
nodes (real part, imaginary part), a compile-time object like a tuple, never a complex
IR value.  The transforms are ops from real arrays to real arrays (``fft_c2c`` takes a
pair and gives a pair, ``fft_r2c`` takes a real array, ``fft_c2r`` gives one; rules in
``derivatives/fft.py``), so every derivative is that of a real function of real inputs,
with no convention to choose.

What a pair supports (each on the two real parts, with NumPy's formulas):

* the transforms ``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft`` and their
  ``2``/``n`` forms, with ``n=``/``s=``, ``axis=``/``axes=``, ``norm=`` (zero padding and
  truncation are ``pad``/``getitem`` ops), of ``numpy.fft`` and ``scipy.fft`` (their own
  kernels run, so values equal the library's); ``fftshift``/``ifftshift`` of pairs and
  of real arrays (a ``roll``);
* ``.real``, ``.imag``, ``np.real``, ``np.imag``, ``np.abs`` (``abs``), ``np.conj``,
  ``.conj()``, ``np.angle``; ``abs(z) ** 2`` (and ``np.square(np.abs(z))``) is
  ``re**2 + im**2``, so that its derivatives, second order included, are exact at a zero
  bin too (its value may differ from NumPy's ``hypot(re, im)**2`` in the last bit);
  ``abs`` itself has a zero gradient at a zero bin, as in JAX and PyTorch;
* ``+ - * / @`` and unary ``-`` between pairs, real arrays, real numbers and complex
  constants (``z * 1j * k`` with ``k`` known when compiling; ``z ** 2`` too); indexing
  and slicing; ``np.sum``, ``np.mean``, ``np.cumsum`` and shape functions (``reshape``,
  ``transpose``, ``roll`` ...) applied to both parts; ``np.concatenate`` and ``np.stack``
  of pairs.

Anything else that would need a general complex value (``np.exp(z)``, ``z > 0``, a pair
returned, stored or written into) is refused with "complex numbers are not supported
yet" at the user's expression.  Products of pairs run NumPy's complex multiply (the
``cmul`` op) and quotients its division (``cdiv``), and ``abs`` is ``hypot``, as in
NumPy, so values match NumPy's bit for bit.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op
from . import static_numpy
from .no_complex import HINT, MESSAGE
from .static_queries import known_shape

if TYPE_CHECKING:
    from .lower import Lowerer


@dataclass(frozen=True, eq=False)
class Pair:
    """A complex value as two real parts (nodes or Python numbers)."""

    re: Any
    im: Any


@dataclass(frozen=True, eq=False)
class PairMethod:
    """``z.name`` of a pair, called later (``z.conj()``, ``z.sum(axis=0)``)."""

    pair: Pair
    name: str


def refuse(lw: Lowerer, what: str, where: cst.CSTNode) -> Exception:
    """The located refusal of a use of a spectrum that needs a general complex value."""
    return lw.fail(f"{MESSAGE}: {what} of a complex value (a spectrum, carried as its "
                   "real and imaginary parts) is not supported", where,
                   HINT + "; FFT results support .real, .imag, abs, angle, conj, + - * /, "
                   "indexing, sum/mean and further FFTs")


# --- calls ------------------------------------------------------------------------------


def call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
    """A call that involves FFTs or pairs; ``NotImplemented`` for every other call."""
    from . import fft_calls  # noqa: PLC0415  (the transforms' argument handling)

    if isinstance(fn, PairMethod):
        return _method(lw, fn, args, kwargs, e)
    kind = fft_calls.kind_of(fn)
    if kind is not None:
        return fft_calls.transform(lw, kind, args, kwargs, e)
    if fn is np.square and args and _abs_parts(lw, args[0]) is not None and not kwargs:
        return _abs_squared(lw, args[0], e)
    if fn is builtins.sum and len(args) == 1 and isinstance(args[0], (list, tuple)) and \
            any(isinstance(v, Pair) for v in args[0]):
        total: Any = 0
        for v in args[0]:  # sum(spectra): Python's additions
            total = lw.binary(Op.ADD, total, v, e)
        return total
    if fn is builtins.len and len(args) == 1 and isinstance(args[0], Pair) and not kwargs:
        return lw.call(builtins.len, [args[0].re], {}, e)
    seq = args[0] if args and isinstance(args[0], (list, tuple)) else ()
    if not any(isinstance(v, Pair) for v in (*args, *kwargs.values(), *seq)):
        return NotImplemented
    return _function(lw, fn, args, kwargs, e)


def _function(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    name = getattr(fn, "__name__", None)
    z = args[0] if args else None
    if isinstance(z, Pair):
        if fn in (np.real,) and len(args) == 1 and not kwargs:
            return z.re
        if fn in (np.imag,) and len(args) == 1 and not kwargs:
            return z.im
        if fn in (np.abs, np.absolute, builtins.abs) and len(args) == 1 and not kwargs:
            return absolute(lw, z, e)
        if fn in (np.conj, np.conjugate) and len(args) == 1 and not kwargs:
            return conj(lw, z, e)
        if fn is np.angle:
            deg = lw.static((args[1:] or [kwargs.get("deg", False)])[0], "deg", e)
            a = lw.emit(Op.ARCTAN2, [z.im, z.re], None, e)
            return lw.binary(Op.MUL, a, 180.0 / math.pi, e) if deg else a
        if fn is np.square and len(args) == 1 and not kwargs:
            return binary(lw, Op.MUL, z, z, e)
        binops = {np.add: Op.ADD, np.subtract: Op.SUB, np.multiply: Op.MUL,
                  np.divide: Op.DIV, np.true_divide: Op.DIV, np.matmul: Op.MATMUL}
        if fn in binops and len(args) == 2 and not kwargs:
            return binary(lw, binops[fn], args[0], args[1], e)
        if fn is np.negative and len(args) == 1 and not kwargs:
            return Pair(lw.emit(Op.NEG, [z.re], None, e), lw.emit(Op.NEG, [z.im], None, e))
        if name in _PARTWISE and getattr(fn, "__module__", "").startswith("numpy"):
            return _partwise(lw, fn, args, kwargs, e)
    if fn in (np.concatenate, np.stack) and isinstance(z, (list, tuple)):
        items = [v if isinstance(v, Pair) else Pair(v, lw.emit(Op.ZEROS_LIKE, [v], None, e))
                 for v in z]
        re = lw.call(fn, [[v.re for v in items], *args[1:]], kwargs, e)
        im = lw.call(fn, [[v.im for v in items], *args[1:]], kwargs, e)
        return Pair(re, im)
    label = f"np.{name}" if name and getattr(fn, "__module__", "").startswith("numpy") \
        else (name or type(fn).__name__)
    raise refuse(lw, f"{label}()", e)


#: NumPy functions linear in their first argument and applied alike to every element
#: (sums, shape changes): a pair's result is the pair of the parts' results
_PARTWISE = frozenset({"sum", "mean", "cumsum", "roll", "flip", "reshape", "transpose",
                       "squeeze", "expand_dims", "moveaxis", "swapaxes", "ravel", "trace",
                       "diagonal", "fliplr", "flipud", "atleast_1d", "copy", "asarray",
                       "array", "broadcast_to", "tile", "repeat", "diff"})
_METHODS = frozenset({"sum", "mean", "cumsum", "reshape", "transpose", "squeeze", "ravel",
                      "flatten", "copy", "swapaxes", "diagonal", "trace", "repeat"})


def _partwise(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Pair:
    z = args[0]
    return Pair(lw.call(fn, [z.re, *args[1:]], kwargs, e),
                lw.call(fn, [z.im, *args[1:]], kwargs, e))


def _method(lw: Lowerer, m: PairMethod, args: list[Any], kwargs: dict[str, Any],
            e: cst.Call) -> Any:
    z = m.pair
    if m.name in ("conj", "conjugate") and not args and not kwargs:
        return conj(lw, z, e)
    parts = [lw.call(lw.array_attribute(p, m.name, e), list(args), dict(kwargs), e)
             for p in (z.re, z.im)]
    return Pair(*parts)


def attribute(lw: Lowerer, z: Pair, attr: str, e: cst.CSTNode) -> Any:
    """``z.attr`` of a pair."""
    if attr == "real":
        return z.re
    if attr == "imag":
        return z.im
    if attr == "T":
        return Pair(lw.emit(Op.TRANSPOSE, [z.re], None, e), lw.emit(Op.TRANSPOSE, [z.im],
                                                                        None, e))
    if attr in ("shape", "ndim", "size"):
        return lw.array_attribute(z.re, attr, e)
    if attr == "dtype":
        single = lw.array_attribute(z.re, "dtype", e) == np.float32
        return np.dtype(np.complex64 if single else np.complex128)
    if attr in ("conj", "conjugate") or attr in _METHODS:
        return PairMethod(z, attr)
    raise refuse(lw, f"the attribute {attr!r}", e)


def getitem(lw: Lowerer, z: Pair, parts: list[Any], e: cst.CSTNode) -> Pair:
    """``z[index]``: both parts indexed alike."""
    index, dyn = lw.index_spec(parts, e)
    return Pair(*(lw.emit(Op.GETITEM, [p, *dyn], {"index": index}, e) for p in (z.re, z.im)))


# --- arithmetic ---------------------------------------------------------------------------


def _abs_table(lw: Lowerer) -> dict[Node, Pair]:
    return cast("dict[Node, Pair]", lw.__dict__.setdefault("complex_abs", {}))


def _abs_parts(lw: Lowerer, v: Any) -> Pair | None:
    return _abs_table(lw).get(v) if isinstance(v, Node) else None


def _abs_squared(lw: Lowerer, v: Node, e: cst.CSTNode) -> Any:
    z = _abs_table(lw)[v]
    return lw.binary(Op.ADD, lw.binary(Op.MUL, z.re, z.re, e),
                     lw.binary(Op.MUL, z.im, z.im, e), e)


def absolute(lw: Lowerer, z: Pair, e: cst.CSTNode) -> Node:
    """``np.abs(z)``: ``hypot(re, im)``, remembered so that ``abs(z) ** 2`` is
    ``re**2 + im**2``."""
    out = lw.emit(Op.HYPOT, [z.re, z.im], None, e)
    _abs_table(lw)[out] = z
    return out


def conj(lw: Lowerer, z: Pair, e: cst.CSTNode) -> Pair:
    return Pair(z.re, lw.emit(Op.NEG, [z.im], None, e))


def _is_real(v: Any) -> bool:
    return isinstance(v, Node) or isinstance(v, (int, float, np.ndarray, np.floating,
                                                 np.integer)) and not isinstance(v, bool)


def binary(lw: Lowerer, op: Op, a: Any, b: Any, e: cst.CSTNode) -> Any:
    """``a op b`` where a side is a pair (``NotImplemented`` where none is, except
    ``abs(z) ** 2``)."""
    if not isinstance(a, Pair) and not isinstance(b, Pair):
        if op is Op.POW and isinstance(b, (int, float)) and b == 2 and \
                _abs_parts(lw, a) is not None:
            return _abs_squared(lw, a, e)
        return NotImplemented
    a, b = (_operand(lw, v, e) for v in (a, b))
    if not all(isinstance(v, Pair) or _is_real(v) for v in (a, b)):
        raise refuse(lw, f"the operator {op.value} with a {type(b).__name__}", e)

    def bop(o: Op, x: Any, y: Any) -> Any:
        return lw.binary(o, x, y, e)

    if op in (Op.ADD, Op.SUB):
        if isinstance(a, Pair) and isinstance(b, Pair):
            return Pair(bop(op, a.re, b.re), bop(op, a.im, b.im))
        if isinstance(a, Pair):
            re = bop(op, a.re, b)
            return Pair(re, _broadcast(lw, a.im, re, e))
        re = bop(op, a, b.re)
        im = lw.emit(Op.NEG, [b.im], None, e) if op is Op.SUB else b.im
        return Pair(re, _broadcast(lw, im, re, e))
    if op is Op.MUL and isinstance(a, Pair) and isinstance(b, Pair):
        node = lw.emit(Op.CMUL, [a.re, a.im, b.re, b.im], None, e)  # NumPy's product
        return Pair(*(lw.emit(Op.ITEM, [node], {"index": i}, e) for i in (0, 1)))
    if op in (Op.MUL, Op.MATMUL):
        if isinstance(a, Pair) and isinstance(b, Pair):
            return Pair(bop(Op.SUB, bop(op, a.re, b.re), bop(op, a.im, b.im)),
                        bop(Op.ADD, bop(op, a.re, b.im), bop(op, a.im, b.re)))
        if isinstance(a, Pair):
            return Pair(bop(op, a.re, b), bop(op, a.im, b))
        return Pair(bop(op, a, b.re), bop(op, a, b.im))
    if op is Op.DIV:
        if not isinstance(b, Pair):
            return Pair(bop(Op.DIV, a.re, b), bop(Op.DIV, a.im, b))
        a = a if isinstance(a, Pair) else Pair(a, 0.0)
        node = lw.emit(Op.CDIV, [a.re, a.im, b.re, b.im], None, e)  # NumPy's quotient
        return Pair(*(lw.emit(Op.ITEM, [node], {"index": i}, e) for i in (0, 1)))
    if op is Op.POW and isinstance(a, Pair) and isinstance(b, int) and 1 <= b <= 4:
        out = a
        for _ in range(b - 1):
            out = binary(lw, Op.MUL, out, a, e)
        return out
    raise refuse(lw, f"the operator {op.value}", e)


def _operand(lw: Lowerer, v: Any, e: cst.CSTNode) -> Any:
    """An operand next to a pair: a complex constant (``1j``, ``1j * k`` of a constant
    ``k``) becomes a pair of real constants; a static array its value."""
    if isinstance(v, static_numpy.StaticArray):
        v = v.value
    if isinstance(v, (complex, np.complexfloating)):
        return Pair(float(v.real), float(v.imag))
    if isinstance(v, np.ndarray) and v.dtype.kind == "c":
        return constant(lw, v, e)
    return v


def unary(lw: Lowerer, word: str, z: Pair, e: cst.CSTNode) -> Any:
    """``-z`` and ``+z`` of a pair."""
    if word == "+":
        return z
    if word == "-":
        return Pair(lw.emit(Op.NEG, [z.re], None, e), lw.emit(Op.NEG, [z.im], None, e))
    raise refuse(lw, f"the operator {word}", e)


def constant(lw: Lowerer, value: Any, e: cst.CSTNode) -> Pair:
    """A complex array or number known when compiling, as a pair of real constants."""
    arr = np.asarray(value)
    return Pair(lw.to_node(np.ascontiguousarray(arr.real), e),
                lw.to_node(np.ascontiguousarray(arr.imag), e))


def _broadcast(lw: Lowerer, part: Any, like: Node, e: cst.CSTNode) -> Any:
    """``part`` broadcast to ``like``'s shape (``z + r`` where ``r`` is the larger): the
    two parts of a pair always have one shape."""
    have, want = known_shape(part) if isinstance(part, Node) else (), known_shape(like)
    if want is not None and have == want:
        return part
    if want is not None:
        return lw.emit(Op.BROADCAST_TO, [part, want], None, e)
    return lw.binary(Op.ADD, part, lw.emit(Op.ZEROS_LIKE, [like], None, e), e)
