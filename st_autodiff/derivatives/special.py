"""Rules of the scipy.special ops and ``np.sinc`` (VJP and JVP, see ``derivatives``).

Every rule is written with ops that have rules themselves (``gammaln`` needs
``digamma``, which needs ``polygamma``, whose derivative is ``polygamma`` of the next
order), so second and higher orders work.  Divisors that can be zero where the
numerator is too are made safe (``x / where(x == 0, 1, y)``) rather than selected
afterwards, so that differentiating a rule again never meets ``0 * inf``.

``gammainc``/``gammaincc`` have no closed-form derivative in ``a``: their rules return
``NotDifferentiable`` there, which the adjoint pass turns into a located error when ``a``
is active (and the JVP rule raises when ``a`` has a tangent).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..ir.ops import Op
from . import RULES, Grads, RuleError
from .jvp import _diagonal_jvp, _total, jvp_rule

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


class NotDifferentiable:
    """A rule's answer for an input its op has no derivative in (``gammainc``'s ``a``)."""

    def __init__(self, message: str) -> None:
        self.message = message


def _unary(op: Op, fn: Callable[..., Any]) -> None:
    """``fn(ops, g, out, x)``: the VJP; the Jacobian is diagonal, so also the JVP."""
    RULES[op] = lambda ops, g, out, x: (fn(ops, g, out, x),)
    jvp_rule(op)(_diagonal_jvp(RULES[op]))


_unary(Op.EXPIT, lambda ops, g, out, x: g * (out * (1 - out)))
_unary(Op.LOGIT, lambda ops, g, out, x: g / (x * (1 - x)))
_unary(Op.LOG_EXPIT, lambda ops, g, out, x: g * ops.expit(-x))
_unary(Op.GAMMALN, lambda ops, g, out, x: g * ops.digamma(x))
_unary(Op.DIGAMMA, lambda ops, g, out, x: g * ops.polygamma(1, x))
_unary(Op.ERF, lambda ops, g, out, x: g * (ops.exp(-ops.square(x)) * (2 / _SQRT_PI)))
_unary(Op.ERFC, lambda ops, g, out, x: g * (ops.exp(-ops.square(x)) * (-2 / _SQRT_PI)))
_unary(Op.ERFINV, lambda ops, g, out, x: g * (ops.exp(ops.square(out)) * (_SQRT_PI / 2)))
_unary(Op.NDTR, lambda ops, g, out, x: g * (ops.exp(ops.square(x) * -0.5) / _SQRT_2PI))
# d log Phi(x) = phi(x) / Phi(x), as exp(-x^2/2 - log Phi(x)): finite far in the left tail
_unary(Op.LOG_NDTR, lambda ops, g, out, x: g * (ops.exp(ops.square(x) * -0.5 - out)
                                                / _SQRT_2PI))
_unary(Op.NDTRI, lambda ops, g, out, x: g * (ops.exp(ops.square(out) * 0.5) * _SQRT_2PI))
_unary(Op.ENTR, lambda ops, g, out, x: -g * (ops.log(x) + 1))

_SINC_SMALL = 1e-3


def _sinc_slope(ops: Any, out: Any, x: Any) -> Any:
    """d sinc(x) = (cos(pi x) - sinc(x)) / x; its Taylor series near 0 (exact to double
    precision for |x| < 1e-3), so that the second derivative at 0 is right too."""
    small = ops.abs(x) < _SINC_SMALL
    safe = ops.where(small, 1, x)
    series = x * (math.pi ** 2 / -3) + x ** 3 * (math.pi ** 4 / 30)
    return ops.where(small, series, (ops.cos(x * math.pi) - out) / safe)


_unary(Op.SINC, lambda ops, g, out, x: g * _sinc_slope(ops, out, x))


# --- binary: partial derivatives, shared by the VJP and the JVP -------------------------

Partials = Callable[..., tuple[Any, Any]]


def _binary(op: Op, partials: Partials) -> None:
    """``partials(ops, out, a, b) -> (d out/d a, d out/d b)``; a partial may be None (an
    integer order) or ``NotDifferentiable``."""

    def vjp(ops: Any, g: Any, out: Any, a: Any, b: Any) -> Grads:
        da, db = partials(ops, out, a, b)
        return tuple(d if d is None or isinstance(d, NotDifferentiable) else g * d
                     for d in (da, db))

    def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, a: Any, b: Any) -> Any:
        if all(t is None for t in tangents):
            return None
        terms = []
        for t, d in zip(tangents, partials(ops, out, a, b)):
            if t is None or d is None:
                continue
            if isinstance(d, NotDifferentiable):
                raise RuleError(d.message)
            terms.append(t * d)
        return _total(ops, out, *terms)

    RULES[op] = vjp
    jvp_rule(op)(jvp)


def _safe(ops: Any, x: Any, v: Any) -> Any:
    """``v``, but 1 where both ``x`` and ``v`` are 0: the divisor of ``x / v``, which is
    then 0 instead of 0/0.  Only there: replacing ``v`` wherever ``x == 0`` made the
    derivative of ``x / v`` in ``x`` (a second derivative of xlogy) ``1`` instead of
    ``1 / v``."""
    return ops.where(ops.logical_and(ops.eq(x, 0), ops.eq(v, 0)), 1, v)


def _huber(ops: Any, out: Any, delta: Any, r: Any) -> tuple[Any, Any]:
    inside = ops.abs(r) <= delta
    return (ops.where(inside, 0, ops.abs(r) - delta),
            ops.where(inside, r, delta * ops.sign(r)))


def _pseudo_huber(ops: Any, out: Any, delta: Any, r: Any) -> tuple[Any, Any]:
    s = ops.sqrt(1 + ops.square(r / delta))  # out = delta^2 (s - 1)
    return delta * ops.square(s - 1) / s, r / s


def _boxcox(ops: Any, out: Any, x: Any, lmbda: Any) -> tuple[Any, Any]:
    # d/d lmbda (x^l - 1) / l = (x^l log x - out) / l, and (log x)^2 / 2 at l = 0
    zero = ops.eq(lmbda, 0)
    log_x = ops.log(x)
    general = (x ** lmbda * log_x - out) / ops.where(zero, 1, lmbda)
    return x ** (lmbda - 1), ops.where(zero, ops.square(log_x) * 0.5, general)


def _gammainc_x(ops: Any, a: Any, x: Any) -> Any:
    """d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a)."""
    return ops.exp((a - 1) * ops.log(x) - x - ops.gammaln(a))


def _not_in_a(name: str) -> NotDifferentiable:
    return NotDifferentiable(
        f"scipy.special.{name}(a, x) has no derivative rule in a (only in x); "
        "pass a as a constant (st.stop_gradient) or write the series yourself")


_binary(Op.POLYGAMMA, lambda ops, out, n, x: (None, ops.polygamma(n + 1, x)))
_binary(Op.XLOGY, lambda ops, out, x, y: (ops.log(y), x / _safe(ops, x, y)))
_binary(Op.XLOG1PY, lambda ops, out, x, y: (ops.log1p(y), x / _safe(ops, x, y + 1)))
_binary(Op.REL_ENTR, lambda ops, out, x, y: (ops.log(x) - ops.log(y) + 1, -x / y))
_binary(Op.KL_DIV, lambda ops, out, x, y: (ops.log(x) - ops.log(y), 1 - x / y))
_binary(Op.HUBER, _huber)
_binary(Op.PSEUDO_HUBER, _pseudo_huber)
_binary(Op.BOXCOX, _boxcox)
_binary(Op.BETALN, lambda ops, out, a, b: (ops.digamma(a) - ops.digamma(a + b),
                                           ops.digamma(b) - ops.digamma(a + b)))
_binary(Op.GAMMAINC, lambda ops, out, a, x: (_not_in_a("gammainc"), _gammainc_x(ops, a, x)))
_binary(Op.GAMMAINCC, lambda ops, out, a, x: (_not_in_a("gammaincc"), -_gammainc_x(ops, a, x)))
