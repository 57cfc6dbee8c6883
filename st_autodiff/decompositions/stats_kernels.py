"""The SciPy kernels that ``stats_impl`` calls as they are, with derivative rules: the
Student t distribution function ``stdtr(df, x)``, the regularised incomplete beta
function ``betainc(a, b, x)`` and its complement ``betaincc``, and Pochhammer's symbol
``poch(a, m)`` (the t density's normalising constant).

Each kernel becomes one ``Op.CALL`` node (the ``register_vjp`` mechanism, as in
``scipy_kernels``), so generated code calls SciPy's own function and its values are
SciPy's bit for bit.  The rules are NumPy over ``rt.<name>`` kernels that have rules
themselves, so the compiler reads them to differentiate again (second order).

Derivatives:

* ``d stdtr(df, x) / dx`` is the t density ``exp(log poch(df/2, 1/2) - log(df pi)/2 -
  (df + 1)/2 log1p(x^2/df))``;
* ``d betainc(a, b, x) / dx = x^(a-1) (1-x)^(b-1) / B(a, b)`` (``betaincc``: its negative);
* ``d poch(a, m) / da = poch(a, m) (psi(a + m) - psi(a))``, ``/ dm = poch(a, m) psi(a + m)``.

``stdtr`` in ``df`` and ``betainc`` in ``a`` and ``b`` have no closed form.  Their rules
give no gradient there, and ``stats_impl`` passes those arguments through
``rt.no_derivative`` first, whose rule is a located error when the argument is active:
never a silent zero.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import kernels as rt
from ..transforms.call_types import ShapeDtype
from .scipy_kernels import register_kernels

_LOG_PI = math.log(math.pi)


def _special() -> Any:
    import scipy.special  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.special


# --- kernels ----------------------------------------------------------------------------


def stdtr(df: Any, x: Any) -> Any:
    """``scipy.special.stdtr(df, x)``: the t distribution function."""
    return _special().stdtr(df, x)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """``scipy.special.betainc(a, b, x)``: the regularised incomplete beta function."""
    return _special().betainc(a, b, x)


def betaincc(a: Any, b: Any, x: Any) -> Any:
    """``scipy.special.betaincc(a, b, x)``: ``1 - betainc(a, b, x)``, accurately."""
    return _special().betaincc(a, b, x)


def poch(a: Any, m: Any) -> Any:
    """``scipy.special.poch(a, m)``: ``Gamma(a + m) / Gamma(a)``."""
    return _special().poch(a, m)


# --- rules ------------------------------------------------------------------------------


def t_density(df: Any, x: Any) -> Any:
    """The standard t density (as SciPy's ``t._logpdf``, exponentiated)."""
    return np.exp(np.log(poch(0.5 * df, 0.5)) - 0.5 * (np.log(df) + _LOG_PI)
                  - (df + 1) / 2 * np.log1p(x * x / df))


def beta_density(a: Any, b: Any, x: Any) -> Any:
    """The standard beta density ``x^(a-1) (1-x)^(b-1) / B(a, b)``."""
    return np.exp(rt.xlog1py(b - 1.0, -x) + rt.xlogy(a - 1.0, x) - rt.betaln(a, b))


def _stdtr_vjp(g: Any, out: Any, df: Any, x: Any) -> tuple:
    return None, g * t_density(df, x)


def _stdtr_jvp(df: Any, x: Any, tdf: Any, tx: Any) -> Any:
    return tx * t_density(df, x)


def _betainc_vjp(g: Any, out: Any, a: Any, b: Any, x: Any) -> tuple:
    return None, None, g * beta_density(a, b, x)


def _betainc_jvp(a: Any, b: Any, x: Any, ta: Any, tb: Any, tx: Any) -> Any:
    return tx * beta_density(a, b, x)


def _betaincc_vjp(g: Any, out: Any, a: Any, b: Any, x: Any) -> tuple:
    return None, None, -(g * beta_density(a, b, x))


def _betaincc_jvp(a: Any, b: Any, x: Any, ta: Any, tb: Any, tx: Any) -> Any:
    return -(tx * beta_density(a, b, x))


def _poch_vjp(g: Any, out: Any, a: Any, m: Any) -> tuple:
    up = rt.digamma(a + m)
    return g * (out * (up - rt.digamma(a))), g * (out * up)


def _poch_jvp(a: Any, m: Any, ta: Any, tm: Any) -> Any:
    out = poch(a, m)
    up = rt.digamma(a + m)
    return out * ((up - rt.digamma(a)) * ta + up * tm)


def _broadcast_type(*args: Any) -> ShapeDtype:
    shape = np.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in args))
    dtype = np.result_type(*(getattr(v, "dtype", np.float64) for v in args), np.float64)
    return ShapeDtype(shape, dtype)


def register() -> None:
    """Put the kernels' rules and output types in the tables of ``register_vjp``."""
    register_kernels((
        (stdtr, _stdtr_vjp, _stdtr_jvp, _broadcast_type),
        (betainc, _betainc_vjp, _betainc_jvp, _broadcast_type),
        (betaincc, _betaincc_vjp, _betaincc_jvp, _broadcast_type),
        (poch, _poch_vjp, _poch_jvp, _broadcast_type)))


register()
