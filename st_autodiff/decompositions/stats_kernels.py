"""The SciPy kernels that ``stats_impl`` calls as they are, with derivative rules: the
Student t distribution function ``stdtr(df, x)``, the regularised incomplete beta
function ``betainc(a, b, x)`` and its complement ``betaincc``, Pochhammer's symbol
``poch(a, m)`` (the t density's normalising constant) and the quantile functions of the
t, gamma, chi-squared, beta and Cauchy distributions.

Each kernel becomes one ``Op.CALL`` node (the ``register_vjp`` mechanism, as in
``scipy_kernels``), so generated code calls SciPy's own function and its values are
SciPy's bit for bit.  The rules are NumPy over ``rt.<name>`` kernels that have rules
themselves, so the compiler reads them to differentiate again (second order).

Derivatives:

* ``d stdtr(df, x) / dx`` is the t density ``exp(log poch(df/2, 1/2) - log(df pi)/2 -
  (df + 1)/2 log1p(x^2/df))``;
* ``d betainc(a, b, x) / dx = x^(a-1) (1-x)^(b-1) / B(a, b)`` (``betaincc``: its negative);
* ``d poch(a, m) / da = poch(a, m) (psi(a + m) - psi(a))``, ``/ dm = poch(a, m) psi(a + m)``;
* the quantile functions (``stdtrit``, ``gammaincinv``/``gammainccinv``, SciPy's beta and
  Cauchy quantile kernels, ``betainccinv``) are inverses in their probability argument:
  ``d out / dq = +-1 / density(out)``; in the shape parameters they have no closed form.

``stdtr`` in ``df``, ``betainc`` in ``a`` and ``b`` and the quantile functions in their shape
parameters have no closed form.  Their rules
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


# inverses (the quantile functions): d out / dq = +-1 / density(out)


def stdtrit(df: Any, q: Any) -> Any:
    """``scipy.special.stdtrit(df, q)``: the t quantile function."""
    return _special().stdtrit(df, q)


def gammaincinv(a: Any, q: Any) -> Any:
    """``scipy.special.gammaincinv(a, q)``: the inverse of ``gammainc`` in ``x``."""
    return _special().gammaincinv(a, q)


def gammainccinv(a: Any, q: Any) -> Any:
    """``scipy.special.gammainccinv(a, q)``: the inverse of ``gammaincc`` in ``x``."""
    return _special().gammainccinv(a, q)


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    """The beta quantile function SciPy's ``beta.ppf`` calls (Boost's ``ibeta_inv``)."""
    import scipy.special._ufuncs as scu  # noqa: PLC0415 (SciPy's kernel of beta._ppf)

    return scu._beta_ppf(q, a, b)


def betainccinv(a: Any, b: Any, q: Any) -> Any:
    """``scipy.special.betainccinv(a, b, q)``: the inverse of ``betaincc`` in ``x``."""
    return _special().betainccinv(a, b, q)


def cauchy_ppf(q: Any) -> Any:
    """The standard Cauchy quantile function SciPy's ``cauchy.ppf`` calls."""
    import scipy.special._ufuncs as scu  # noqa: PLC0415 (SciPy's kernel of cauchy._ppf)

    return scu._cauchy_ppf(q, 0, 1)


def cauchy_isf(q: Any) -> Any:
    """The standard Cauchy inverse survival function SciPy's ``cauchy.isf`` calls."""
    import scipy.special._ufuncs as scu  # noqa: PLC0415 (SciPy's kernel of cauchy._isf)

    return scu._cauchy_isf(q, 0, 1)


# --- rules ------------------------------------------------------------------------------


def t_density(df: Any, x: Any) -> Any:
    """The standard t density (as SciPy's ``t._logpdf``, exponentiated)."""
    return np.exp(np.log(poch(0.5 * df, 0.5)) - 0.5 * (np.log(df) + _LOG_PI)
                  - (df + 1) / 2 * np.log1p(x * x / df))


def beta_density(a: Any, b: Any, x: Any) -> Any:
    """The standard beta density ``x^(a-1) (1-x)^(b-1) / B(a, b)``."""
    return np.exp(rt.xlog1py(b - 1.0, -x) + rt.xlogy(a - 1.0, x) - rt.betaln(a, b))


def _like(grad: Any, arg: Any) -> Any:
    """``grad`` summed over the axes that broadcasting added to ``arg`` (the rules are
    read again for second order, where nothing else reduces them)."""
    return rt.unbroadcast(grad, np.shape(arg))


def _stdtr_vjp(g: Any, out: Any, df: Any, x: Any) -> tuple[Any, Any]:
    return None, _like(g * t_density(df, x), x)


def _stdtr_jvp(df: Any, x: Any, tdf: Any, tx: Any) -> Any:
    return tx * t_density(df, x)


def _betainc_vjp(g: Any, out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    return None, None, _like(g * beta_density(a, b, x), x)


def _betainc_jvp(a: Any, b: Any, x: Any, ta: Any, tb: Any, tx: Any) -> Any:
    return tx * beta_density(a, b, x)


def _betaincc_vjp(g: Any, out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    return None, None, _like(-(g * beta_density(a, b, x)), x)


def _betaincc_jvp(a: Any, b: Any, x: Any, ta: Any, tb: Any, tx: Any) -> Any:
    return -(tx * beta_density(a, b, x))


def _poch_vjp(g: Any, out: Any, a: Any, m: Any) -> tuple[Any, Any]:
    up = rt.digamma(a + m)
    return _like(g * (out * (up - rt.digamma(a))), a), _like(g * (out * up), m)


def _poch_jvp(a: Any, m: Any, ta: Any, tm: Any) -> Any:
    out = poch(a, m)
    up = rt.digamma(a + m)
    return out * ((up - rt.digamma(a)) * ta + up * tm)


def gamma_density(a: Any, x: Any) -> Any:
    """The standard gamma density ``x^(a-1) e^-x / Gamma(a)``."""
    return np.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a))


def _stdtrit_vjp(g: Any, out: Any, df: Any, q: Any) -> tuple[Any, Any]:
    return None, _like(g / t_density(df, out), q)


def _stdtrit_jvp(df: Any, q: Any, tdf: Any, tq: Any) -> Any:
    return tq / t_density(df, stdtrit(df, q))


def _gammaincinv_vjp(g: Any, out: Any, a: Any, q: Any) -> tuple[Any, Any]:
    return None, _like(g / gamma_density(a, out), q)


def _gammaincinv_jvp(a: Any, q: Any, ta: Any, tq: Any) -> Any:
    return tq / gamma_density(a, gammaincinv(a, q))


def _gammainccinv_vjp(g: Any, out: Any, a: Any, q: Any) -> tuple[Any, Any]:
    return None, _like(-g / gamma_density(a, out), q)


def _gammainccinv_jvp(a: Any, q: Any, ta: Any, tq: Any) -> Any:
    return -tq / gamma_density(a, gammainccinv(a, q))


def _beta_ppf_vjp(g: Any, out: Any, q: Any, a: Any, b: Any) -> tuple[Any, Any, Any]:
    return _like(g / beta_density(a, b, out), q), None, None


def _beta_ppf_jvp(q: Any, a: Any, b: Any, tq: Any, ta: Any, tb: Any) -> Any:
    return tq / beta_density(a, b, beta_ppf(q, a, b))


def _betainccinv_vjp(g: Any, out: Any, a: Any, b: Any, q: Any) -> tuple[Any, Any, Any]:
    return None, None, _like(-g / beta_density(a, b, out), q)


def _betainccinv_jvp(a: Any, b: Any, q: Any, ta: Any, tb: Any, tq: Any) -> Any:
    return -tq / beta_density(a, b, betainccinv(a, b, q))


def _cauchy_ppf_vjp(g: Any, out: Any, q: Any) -> tuple[Any]:
    return (g * (np.pi * (1 + out * out)),)


def _cauchy_ppf_jvp(q: Any, tq: Any) -> Any:
    out = cauchy_ppf(q)
    return tq * (np.pi * (1 + out * out))


def _cauchy_isf_vjp(g: Any, out: Any, q: Any) -> tuple[Any]:
    return (-(g * (np.pi * (1 + out * out))),)


def _cauchy_isf_jvp(q: Any, tq: Any) -> Any:
    out = cauchy_isf(q)
    return -(tq * (np.pi * (1 + out * out)))


def _broadcast_type(*args: Any) -> ShapeDtype:
    """The ufunc's result: broadcast shape; float32 for float32 arrays with Python numbers
    (SciPy's ``f`` loops), float64 otherwise."""
    shape = np.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in args))
    dtype = np.result_type(*(v.dtype if hasattr(v, "dtype") else v for v in args))
    return ShapeDtype(shape, dtype if dtype.kind == "f" else np.dtype(np.float64))


def register() -> None:
    """Put the kernels' rules and output types in the tables of ``register_vjp``."""
    register_kernels((
        (stdtr, _stdtr_vjp, _stdtr_jvp, _broadcast_type),
        (betainc, _betainc_vjp, _betainc_jvp, _broadcast_type),
        (betaincc, _betaincc_vjp, _betaincc_jvp, _broadcast_type),
        (poch, _poch_vjp, _poch_jvp, _broadcast_type),
        (stdtrit, _stdtrit_vjp, _stdtrit_jvp, _broadcast_type),
        (gammaincinv, _gammaincinv_vjp, _gammaincinv_jvp, _broadcast_type),
        (gammainccinv, _gammainccinv_vjp, _gammainccinv_jvp, _broadcast_type),
        (beta_ppf, _beta_ppf_vjp, _beta_ppf_jvp, _broadcast_type),
        (betainccinv, _betainccinv_vjp, _betainccinv_jvp, _broadcast_type),
        (cauchy_ppf, _cauchy_ppf_vjp, _cauchy_ppf_jvp, _broadcast_type),
        (cauchy_isf, _cauchy_isf_vjp, _cauchy_isf_jvp, _broadcast_type)))


register()
