"""Rules of the special family's scipy.special ops (VJP and JVP, see ``derivatives``).

Written, like ``special.py``, only with ops that have rules themselves, so second and
higher orders work: Bessel functions are differentiated by their recurrences (``iv'`` is
``(iv(v - 1) + iv(v + 1)) / 2``, the exponentially scaled ``ive``/``kve``/``i0e``... add
the scale's derivative), the gamma family by ``digamma``, ``betainc`` in ``x`` by the
beta density (through ``xlogy``/``xlog1py``, finite at ``x = 0`` and ``x = 1``).

Not differentiable, and a located error when the argument is active (the ``ops`` of the
adjoint pass turn ``NotDifferentiable`` into it; the JVP raises ``RuleError``):

* the orders of the Bessel functions (``v`` of ``iv``/``ive``/``jv``/``yv``/``kv``/
  ``kve``, ``n`` of ``yn``) and of ``expn`` (an integer): their derivative in the order is
  no closed form;
* ``a`` and ``b`` of ``betainc``; ``x`` of ``zeta(x, q)`` (``d/dq`` is ``-x zeta(x + 1,
  q)``) and the Riemann ``zeta(x)`` (``riemann_zeta``) as a whole.

``gammasgn`` is piecewise constant: it is in ``NONDIFFERENTIABLE``, like ``np.sign``.
Where a formula divides by a value that is zero at a point where the function is smooth
(``exprel`` and ``spence`` at their removable points) the point takes the series or the
limit, selected with a safe divisor so that differentiating again never meets ``0 * inf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..ir.ops import Op
from . import RULES, Grads, RuleError
from .jvp import _total, jvp_rule
from .special import NotDifferentiable, _unary

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_DEG = math.pi / 180

# --- one argument ----------------------------------------------------------------------

_unary(Op.GAMMA, lambda ops, g, out, x: g * (out * ops.digamma(x)))
_unary(Op.RGAMMA, lambda ops, g, out, x: g * (-out * ops.digamma(x)))
_unary(Op.LOGGAMMA, lambda ops, g, out, x: g * ops.digamma(x))
_unary(Op.ERFCINV, lambda ops, g, out, x: g * (ops.exp(ops.square(out)) * (-_SQRT_PI / 2)))
_unary(Op.ERFCX, lambda ops, g, out, x: g * (2 * x * out - 2 / _SQRT_PI))
_unary(Op.ERFI, lambda ops, g, out, x: g * (ops.exp(ops.square(x)) * (2 / _SQRT_PI)))
_unary(Op.DAWSN, lambda ops, g, out, x: g * (1 - 2 * x * out))
_unary(Op.I0, lambda ops, g, out, x: g * ops.i1(x))
_unary(Op.I1, lambda ops, g, out, x: g * ((ops.i0(x) + ops.iv(2, x)) * 0.5))
_unary(Op.I0E, lambda ops, g, out, x: g * (ops.i1e(x) - ops.sign(x) * out))
_unary(Op.I1E, lambda ops, g, out, x: g * ((ops.i0e(x) + ops.ive(2, x)) * 0.5
                                           - ops.sign(x) * out))
_unary(Op.J0, lambda ops, g, out, x: -g * ops.j1(x))
_unary(Op.J1, lambda ops, g, out, x: g * ((ops.j0(x) - ops.jv(2, x)) * 0.5))
_unary(Op.Y0, lambda ops, g, out, x: -g * ops.y1(x))
_unary(Op.Y1, lambda ops, g, out, x: g * ((ops.y0(x) - ops.yn(2, x)) * 0.5))
_unary(Op.K0, lambda ops, g, out, x: -g * ops.k1(x))
_unary(Op.K1, lambda ops, g, out, x: g * ((ops.k0(x) + ops.kv(2, x)) * -0.5))
_unary(Op.K0E, lambda ops, g, out, x: g * (out - ops.k1e(x)))
_unary(Op.K1E, lambda ops, g, out, x: g * (out - (ops.k0e(x) + ops.kve(2, x)) * 0.5))
_unary(Op.EXP1, lambda ops, g, out, x: g * (-ops.exp(-x) / x))
_unary(Op.EXPI, lambda ops, g, out, x: g * (ops.exp(x) / x))
_unary(Op.SP_LOG1P, lambda ops, g, out, x: g / (x + 1))
_unary(Op.SP_EXPM1, lambda ops, g, out, x: g * (out + 1))
_unary(Op.SP_CBRT, lambda ops, g, out, x: g / (ops.square(out) * 3))
_unary(Op.SP_EXP2, lambda ops, g, out, x: g * (out * math.log(2)))
_unary(Op.EXP10, lambda ops, g, out, x: g * (out * math.log(10)))
_unary(Op.COSM1, lambda ops, g, out, x: -g * ops.sin(x))
_unary(Op.SINDG, lambda ops, g, out, x: g * (ops.cosdg(x) * _DEG))
_unary(Op.COSDG, lambda ops, g, out, x: g * (ops.sindg(x) * -_DEG))


def _spence_slope(ops: Any, x: Any) -> Any:
    """d/dz spence(z) = log(z) / (1 - z), whose limit at z = 1 is -1."""
    one = ops.eq(x, 1)
    return ops.where(one, -1, ops.log(x) / ops.where(one, 1, 1 - x))


_unary(Op.SPENCE, lambda ops, g, out, x: g * _spence_slope(ops, x))

_EXPREL_SMALL = 1e-3


def _exprel_slope(ops: Any, out: Any, x: Any) -> Any:
    """d exprel(x) = (exp(x) - exprel(x)) / x; near 0 its Taylor series (1/2 + x/3 + x^2/8
    + x^3/30, exact to double precision for |x| < 1e-3) so that 0 and the second derivative
    there are right."""
    small = ops.abs(x) < _EXPREL_SMALL
    series = 0.5 + x / 3 + ops.square(x) / 8 + x ** 3 / 30
    return ops.where(small, series, (ops.exp(x) - out) / ops.where(small, 1, x))


_unary(Op.EXPREL, lambda ops, g, out, x: g * _exprel_slope(ops, out, x))


# --- several arguments: partial derivatives, shared by the VJP and the JVP -------------


def _partials(op: Op, partials: Callable[..., tuple[Any, ...]]) -> None:
    """``partials(ops, out, *inputs)``: one partial derivative per input, each a value,
    None (an input with no gradient) or ``NotDifferentiable``."""

    def vjp(ops: Any, g: Any, out: Any, *inputs: Any) -> Grads:
        return tuple(d if d is None or isinstance(d, NotDifferentiable) else g * d
                     for d in partials(ops, out, *inputs))

    def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *inputs: Any) -> Any:
        if all(t is None for t in tangents):
            return None
        terms = []
        for t, d in zip(tangents, partials(ops, out, *inputs), strict=True):
            if t is None or d is None:
                continue
            if isinstance(d, NotDifferentiable):
                raise RuleError(d.message)
            terms.append(t * d)
        return _total(ops, out, *terms)

    RULES[op] = vjp
    jvp_rule(op)(jvp)


def _order(name: str, arg: str) -> NotDifferentiable:
    return NotDifferentiable(
        f"scipy.special.{name} has no derivative rule in its order {arg} (only in x); "
        f"pass {arg} as a constant (st.stop_gradient)")


def _not_in(name: str, args: str, why: str) -> NotDifferentiable:
    return NotDifferentiable(
        f"scipy.special.{name} has no derivative rule in {args} ({why}); pass it as a "
        "constant (st.stop_gradient)")


def _bessel(op: Op, name: str, slope: Callable[..., Any], arg: str = "v") -> None:
    """``name(v, x)``: differentiable in ``x`` by ``slope(ops, out, v, x)``, not in ``v``."""
    _partials(op, lambda ops, out, v, x: (_order(name, arg), slope(ops, out, v, x)))


_bessel(Op.IV, "iv", lambda ops, out, v, x: (ops.iv(v - 1, x) + ops.iv(v + 1, x)) * 0.5)
_bessel(Op.IVE, "ive", lambda ops, out, v, x: (ops.ive(v - 1, x) + ops.ive(v + 1, x)) * 0.5
        - ops.sign(x) * out)
_bessel(Op.JV, "jv", lambda ops, out, v, x: (ops.jv(v - 1, x) - ops.jv(v + 1, x)) * 0.5)
_bessel(Op.YV, "yv", lambda ops, out, v, x: (ops.yv(v - 1, x) - ops.yv(v + 1, x)) * 0.5)
_bessel(Op.YN, "yn", lambda ops, out, n, x: (ops.yn(n - 1, x) - ops.yn(n + 1, x)) * 0.5,
        "n")
_bessel(Op.KV, "kv", lambda ops, out, v, x: (ops.kv(v - 1, x) + ops.kv(v + 1, x)) * -0.5)
_bessel(Op.KVE, "kve", lambda ops, out, v, x: out
        - (ops.kve(v - 1, x) + ops.kve(v + 1, x)) * 0.5)


def _expn_slope(ops: Any, out: Any, n: Any, x: Any) -> Any:
    """d/dx E_n(x) = -E_(n-1)(x), and -E_0(x) (1 + 1/x) for n = 0 (the other branch is
    evaluated at order max(n - 1, 0), so it stays finite)."""
    zero = ops.eq(n, 0)
    return ops.where(zero, -out * (1 + 1 / x), -ops.expn(ops.maximum(n - 1, 0), x))


_bessel(Op.EXPN, "expn", _expn_slope, "n")
_partials(Op.ZETA, lambda ops, out, x, q: (
    _not_in("zeta(x, q)", "x", "not a closed form"), -x * ops.zeta(x + 1, q)))
_RIEMANN = _not_in("zeta(x)", "x", "the Riemann zeta function's derivative is not a closed form")
RULES[Op.RIEMANN_ZETA] = lambda ops, g, out, x: (_RIEMANN,)
jvp_rule(Op.RIEMANN_ZETA)(lambda ops, tangents, out, x: _riemann_jvp(tangents))


def _riemann_jvp(tangents: tuple[Any, ...]) -> None:
    if tangents[0] is not None:
        raise RuleError(_RIEMANN.message)


def _digammas(ops: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """Partials of beta(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)."""
    both = ops.digamma(a + b)
    return out * (ops.digamma(a) - both), out * (ops.digamma(b) - both)


def _binom(ops: Any, out: Any, n: Any, k: Any) -> tuple[Any, Any]:
    """binom(n, k) = Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1))."""
    rest = ops.digamma(n - k + 1)
    return out * (ops.digamma(n + 1) - rest), out * (rest - ops.digamma(k + 1))


def _poch(ops: Any, out: Any, z: Any, m: Any) -> tuple[Any, Any]:
    """poch(z, m) = Gamma(z + m) / Gamma(z)."""
    top = ops.digamma(z + m)
    return out * (top - ops.digamma(z)), out * top


def _boxcox1p(ops: Any, out: Any, x: Any, lmbda: Any) -> tuple[Any, Any]:
    """boxcox(1 + x, lmbda): in lmbda ((1+x)^l log(1+x) - out) / l, log(1+x)^2 / 2 at 0."""
    zero = ops.eq(lmbda, 0)
    log_y = ops.log1p(x)
    y_l = ops.exp(lmbda * log_y)
    general = (y_l * log_y - out) / ops.where(zero, 1, lmbda)
    return y_l / (x + 1), ops.where(zero, ops.square(log_y) * 0.5, general)


def _inv_boxcox(ops: Any, out: Any, y: Any, lmbda: Any) -> tuple[Any, Any]:
    """out = (1 + l y)^(1/l) (exp(y) at l = 0): in y out^(1 - l); in l
    out (y / (l (1 + l y)) - log(1 + l y) / l^2), whose limit at l = 0 is -out y^2 / 2."""
    zero = ops.eq(lmbda, 0)
    safe = ops.where(zero, 1, lmbda)
    base = 1 + lmbda * y
    general = out * (y / (safe * base) - ops.log1p(lmbda * y) / ops.square(safe))
    return out / ops.where(zero, 1, base), ops.where(zero, out * ops.square(y) * -0.5, general)


def _owens_t(ops: Any, out: Any, h: Any, a: Any) -> tuple[Any, Any]:
    """T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt."""
    dh = ops.exp(ops.square(h) * -0.5) * ops.erf(a * h / math.sqrt(2)) * (-0.5 / _SQRT_2PI)
    s = 1 + ops.square(a)
    da = ops.exp(ops.square(h) * s * -0.5) / (s * (2 * math.pi))
    return dh, da


def _betainc(ops: Any, out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    """d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b); a and b have no rule."""
    density = ops.exp(ops.xlogy(a - 1, x) + ops.xlog1py(b - 1, -x) - ops.betaln(a, b))
    why = "its derivatives in a and b are not closed forms"
    return _not_in("betainc", "a", why), _not_in("betainc", "b", why), density


_partials(Op.BETA, _digammas)
_partials(Op.BINOM, _binom)
_partials(Op.POCH, _poch)
_partials(Op.BOXCOX1P, _boxcox1p)
_partials(Op.INV_BOXCOX, _inv_boxcox)
_partials(Op.OWENS_T, _owens_t)
_partials(Op.BETAINC, _betainc)
