"""The methods of SciPy's continuous distributions (``scipy.stats.norm.logpdf`` …) written
with functions the compiler has rules for; ``select_stats`` picks them.

Each public method follows ``rv_continuous``'s own steps, in the same order and dtypes, so
that values are SciPy's: ``z = (x - loc) / scale`` cast to float64 (``promote_types(x,
float64)``), the argument check (shape parameters ``> 0``, ``scale > 0``), the support
mask, then SciPy's fill values: ``nan`` for invalid parameters or a ``nan`` point,
``-inf``/``0`` (log/plain) outside the support, ``1``/``0`` beyond the ends for the
distribution functions; a 0-d result is returned as a NumPy scalar.  The closed forms
are those of SciPy's ``_logpdf``, ``_cdf`` … (same expressions), with three changes
that keep derivatives right where values are not selected:

* every input of a closed form is first replaced by a safe value where its result is
  not used (``np.where(ok, z, 1.0)``), so that no ``0 * inf`` reaches a gradient;
* SciPy's ``apply_where`` and boolean ``place`` become ``np.where`` of both branches
  (each computed on safe inputs);
* the default ``_logcdf``/``_logsf`` (``log(cdf)`` below the median, ``log1p(-sf)``
  above) choose by ``cdf < 0.5`` instead of comparing with ``_ppf(0.5)``: the two
  formulas agree to rounding near the median.

A parameter with no closed-form derivative (``t``'s ``df`` in the distribution function,
``beta``'s ``a`` and ``b`` in its ``cdf``/``sf``, ``gamma``'s ``a`` and ``chi2``'s ``df``
there) passes through ``rt.no_derivative``: an active one is an error at the user's call.
The nodes of this file are located at the user's call (``common.SITE_LOCATED``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import kernels as rt
from .common import SITE_LOCATED
from .stats_kernels import (
    beta_ppf,
    betainc,
    betaincc,
    betainccinv,
    cauchy_isf,
    cauchy_ppf,
    gammainccinv,
    gammaincinv,
    poch,
    stdtr,
    stdtrit,
)

SITE_LOCATED.add(__file__)

# NumPy scalars, as SciPy's constants are: they keep float32 inputs' arithmetic in float64
_NORM_PDF_C = np.sqrt(2 * np.pi)
_NORM_PDF_LOGC = np.log(_NORM_PDF_C)
_LOG_PI = np.log(np.pi)
_INF = math.inf

#: the support of each standard distribution, and a point inside it (the safe value)
SUPPORT: dict[str, tuple[float, float, float]] = {
    "norm": (-_INF, _INF, 0.0), "t": (-_INF, _INF, 0.0), "gamma": (0.0, _INF, 1.0),
    "beta": (0.0, 1.0, 0.5), "chi2": (0.0, _INF, 1.0), "expon": (0.0, _INF, 1.0),
    "laplace": (-_INF, _INF, 0.0), "logistic": (-_INF, _INF, 0.0),
    "cauchy": (-_INF, _INF, 0.0), "lognorm": (0.0, _INF, 1.0), "uniform": (0.0, 1.0, 0.5),
}


def _result(out: Any) -> Any:
    """SciPy's ``output[()]`` for a 0-d result."""
    if out.ndim == 0:
        return out[()]
    return out


def _argcheck(p: tuple[Any, ...], scale: Any) -> Any:
    """``rv_generic._argcheck`` (every shape parameter ``> 0``) and ``scale > 0``."""
    ok = scale > 0
    for v in p:
        ok = ok & (v > 0)
    return ok


def _safe(p: tuple[Any, ...], ok0: Any) -> tuple[Any, ...]:
    """The shape parameters, 1.0 where the parameters are invalid (value unused)."""
    return tuple(np.where(ok0, v, 1.0) for v in p)


def _nd(p: tuple[Any, ...], what: tuple[Any, ...]) -> tuple[Any, ...]:
    """The shape parameters through ``rt.no_derivative`` (named by ``what``)."""
    return tuple(rt.no_derivative(v, what=w) for v, w in zip(p, what))


# --- the standard distributions' closed forms (SciPy's private methods) -----------------


def _t_logpdf(z: Any, df: Any) -> Any:
    return (np.log(poch(0.5 * df, 0.5)) - 0.5 * (np.log(df) + _LOG_PI)
            - (df + 1) / 2 * np.log1p(z * z / df))


def _infinite_df(df: Any) -> tuple[Any, Any]:
    """``df == inf`` (t is then the normal distribution) and ``df`` made finite there."""
    big = df == _INF
    return big, np.where(big, 1.0, df)


def _logpdf(dist: str, z: Any, p: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return -z ** 2 / 2.0 - _NORM_PDF_LOGC
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, -z ** 2 / 2.0 - _NORM_PDF_LOGC, _t_logpdf(z, df))
    if dist == "gamma":
        return rt.xlogy(p[0] - 1.0, z) - z - rt.gammaln(p[0])
    if dist == "beta":
        return rt.xlog1py(p[1] - 1.0, -z) + rt.xlogy(p[0] - 1.0, z) - rt.betaln(p[0], p[1])
    if dist == "chi2":
        df = p[0]
        return rt.xlogy(df / 2. - 1, z) - z / 2. - rt.gammaln(df / 2.) - (np.log(2) * df) / 2.
    if dist == "expon":
        return -z
    if dist == "laplace":
        return np.log(0.5 * np.exp(-np.abs(z)))
    if dist == "logistic":
        y = -np.abs(z)
        return y - 2. * np.log1p(np.exp(y))
    if dist == "cauchy":
        absx = np.abs(z)
        small = absx < 1
        inner = np.where(small, absx, 0.0)
        outer = np.where(small, 1.0, absx)
        return np.where(small, -_LOG_PI - np.log1p(inner ** 2),
                        -_LOG_PI - (2 * np.log(outer) + np.log1p((1 / outer) ** 2)))
    if dist == "lognorm":
        s = p[0]
        zero = z == 0
        x = np.where(zero, 1.0, z)
        return np.where(zero, -_INF, -np.log(x) ** 2 / (2 * s ** 2)
                        - np.log(s * x * np.sqrt(2 * np.pi)))
    return np.zeros_like(z)  # uniform: log(1.0)


def _pdf(dist: str, z: Any, p: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return np.exp(-z ** 2 / 2.0) / _NORM_PDF_C
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, np.exp(-z ** 2 / 2.0) / _NORM_PDF_C, np.exp(_t_logpdf(z, df)))
    if dist == "expon":
        return np.exp(-z)
    if dist == "laplace":
        return 0.5 * np.exp(-np.abs(z))
    if dist == "cauchy":
        return 1.0 / np.pi / (1.0 + z * z)
    if dist == "uniform":
        return np.ones_like(z)
    if dist == "beta":  # SciPy's kernel (Boost's beta density) computes in float64
        p = tuple(np.asarray(v, dtype=np.float64) for v in p)
    return np.exp(_logpdf(dist, z, p))  # gamma, beta, chi2, logistic, lognorm


def _laplace_cdf(z: Any) -> Any:
    pos = z > 0
    return np.where(pos, 1.0 - 0.5 * np.exp(-np.where(pos, z, 0.0)),
                    0.5 * np.exp(np.where(pos, 0.0, z)))


def _cdf(dist: str, z: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return rt.ndtr(z)
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, rt.ndtr(z), stdtr(rt.no_derivative(df, what=what[0]), z))
    if dist == "gamma":
        return rt.gammainc(rt.no_derivative(p[0], what=what[0]), z)
    if dist == "beta":
        a, b = _nd(p, what)
        return betainc(a, b, z)
    if dist == "chi2":
        return rt.gammainc(rt.no_derivative(p[0], what=what[0]) / 2.0, z / 2.0)
    if dist == "expon":
        return -np.expm1(-z)
    if dist == "laplace":
        return _laplace_cdf(z)
    if dist == "logistic":
        return rt.expit(z)
    if dist == "cauchy":
        return np.arctan2(1, -z) / np.pi
    if dist == "lognorm":
        return rt.ndtr(np.log(z) / p[0])
    return z  # uniform


def _sf(dist: str, z: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return rt.ndtr(-z)
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, rt.ndtr(-z), stdtr(rt.no_derivative(df, what=what[0]), -z))
    if dist == "gamma":
        return rt.gammaincc(rt.no_derivative(p[0], what=what[0]), z)
    if dist == "beta":
        a, b = _nd(p, what)
        return betaincc(a, b, z)
    if dist == "chi2":
        return rt.gammaincc(rt.no_derivative(p[0], what=what[0]) / 2.0, z / 2.0)
    if dist == "expon":
        return np.exp(-z)
    if dist == "laplace":
        return _laplace_cdf(-z)
    if dist == "logistic":
        return rt.expit(-z)
    if dist == "cauchy":
        return np.arctan2(1, z) / np.pi
    if dist == "lognorm":
        return rt.ndtr(-(np.log(z) / p[0]))
    return 1.0 - z  # uniform


def _logcdf(dist: str, z: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return rt.log_ndtr(z)
    if dist == "logistic":
        return rt.log_expit(z)
    if dist == "lognorm":
        return rt.log_ndtr(np.log(z) / p[0])
    cdf = _cdf(dist, z, p, what)
    sf = _sf(dist, z, p, what)
    lower = cdf < 0.5
    return np.where(lower, np.log(np.where(lower, cdf, 0.5)),
                    np.log1p(-np.where(lower, 0.5, sf)))


def _logsf(dist: str, z: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return rt.log_ndtr(-z)
    if dist == "logistic":
        return rt.log_expit(-z)
    if dist == "lognorm":
        return rt.log_ndtr(-(np.log(z) / p[0]))
    if dist == "expon":
        return -z
    cdf = _cdf(dist, z, p, what)
    sf = _sf(dist, z, p, what)
    upper = sf < 0.5
    return np.where(upper, np.log(np.where(upper, sf, 0.5)),
                    np.log1p(-np.where(upper, 0.5, cdf)))


def _ppf(dist: str, q: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return rt.ndtri(q)
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, rt.ndtri(q), stdtrit(rt.no_derivative(df, what=what[0]), q))
    if dist == "gamma":
        return gammaincinv(rt.no_derivative(p[0], what=what[0]), q)
    if dist == "chi2":
        return 2 * gammaincinv(rt.no_derivative(p[0], what=what[0]) / 2, q)
    if dist == "beta":
        a, b = _nd(p, what)
        return beta_ppf(q, a, b)
    if dist == "cauchy":
        return cauchy_ppf(q)
    if dist == "expon":
        return -np.log1p(-q)
    if dist == "laplace":
        high = q > 0.5
        return np.where(high, -np.log(2 * (1 - np.where(high, q, 0.25))),
                        np.log(2 * np.where(high, 0.25, q)))
    if dist == "logistic":
        return rt.logit(q)
    if dist == "lognorm":
        return np.exp(p[0] * rt.ndtri(q))
    return q  # uniform


def _isf(dist: str, q: Any, p: tuple[Any, ...], what: tuple[Any, ...]) -> Any:
    if dist == "norm":
        return -rt.ndtri(q)
    if dist == "t":
        big, df = _infinite_df(p[0])
        return np.where(big, -rt.ndtri(q), -stdtrit(rt.no_derivative(df, what=what[0]), q))
    if dist == "gamma":
        return gammainccinv(rt.no_derivative(p[0], what=what[0]), q)
    if dist == "chi2":
        return 2 * gammainccinv(rt.no_derivative(p[0], what=what[0]) / 2, q)
    if dist == "beta":
        a, b = _nd(p, what)
        return betainccinv(a, b, q)
    if dist == "cauchy":
        return cauchy_isf(q)
    if dist == "expon":
        return -np.log(q)
    if dist == "laplace":
        return -_ppf(dist, q, p, what)
    if dist == "logistic":
        return -rt.logit(q)
    if dist == "lognorm":
        return np.exp(p[0] * -rt.ndtri(q))
    return _ppf(dist, 1.0 - q, p, what)  # uniform: rv_continuous._isf


# --- the public methods (rv_continuous's steps) -------------------------------------------


def _standardised(ok: Any, x: Any, loc: Any, scale: Any, inside: float) -> Any:
    """``(x - loc) / scale`` where ``ok``, else ``inside``; ``x`` is replaced by ``loc``
    before the division, so that an infinite point (outside the support) sends no
    ``0 * inf`` to the gradients of ``loc`` and ``scale``.  (The masks are computed from
    SciPy's own ``z``, which gets no gradient.)"""
    xs = np.where(ok, x, loc)
    return np.where(ok, np.asarray((xs - loc) / scale, dtype=np.float64), inside)


def density(dist: str, log: bool, x: Any, loc: Any, scale: Any, *p: Any) -> Any:
    """``dist.logpdf(x, *p, loc, scale)`` (``log``) or ``dist.pdf``."""
    lo, hi, inside = SUPPORT[dist]
    z = np.asarray((x - loc) / scale, dtype=np.float64)
    ok0 = _argcheck(p, scale)
    ok = ok0 & ((lo <= z) & (z <= hi)) & (scale > 0)
    ss = np.where(ok0, scale, 1.0)
    zs = _standardised(ok, x, loc, ss, inside)
    ps = _safe(p, ok0)
    if log:
        value = _logpdf(dist, zs, ps) - np.log(ss)
        outside = -_INF
    else:
        value = _pdf(dist, zs, ps) / ss
        outside = 0.0
    bad = np.logical_not(ok0) | np.isnan(z)
    return _result(np.where(ok, value, np.where(bad, np.nan, outside)))


def distribution(dist: str, method: str, x: Any, loc: Any, scale: Any, what: tuple[Any, ...],
                 *p: Any) -> Any:
    """``dist.<method>(x, *p, loc, scale)`` for ``cdf``, ``logcdf``, ``sf``, ``logsf``."""
    lo, hi, inside = SUPPORT[dist]
    z = np.asarray((x - loc) / scale, dtype=np.float64)
    ok0 = _argcheck(p, scale)
    ok = ok0 & ((lo < z) & (z < hi)) & (scale > 0)
    zs = _standardised(ok, x, loc, np.where(ok0, scale, 1.0), inside)
    ps = _safe(p, ok0)
    upper = method in ("cdf", "logcdf")
    end = (z >= hi) & ok0 if upper else ok0 & (z <= lo)
    if method == "cdf":
        value, at_end, outside = _cdf(dist, zs, ps, what), 1.0, 0.0
    elif method == "sf":
        value, at_end, outside = _sf(dist, zs, ps, what), 1.0, 0.0
    elif method == "logcdf":
        value, at_end, outside = _logcdf(dist, zs, ps, what), 0.0, -_INF
    else:
        value, at_end, outside = _logsf(dist, zs, ps, what), 0.0, -_INF
    bad = np.logical_not(ok0) | np.isnan(z)
    return _result(np.where(ok, value, np.where(bad, np.nan, np.where(end, at_end, outside))))


def quantile(dist: str, inverse: bool, q: Any, loc: Any, scale: Any, what: tuple[Any, ...],
             *p: Any) -> Any:
    """``dist.ppf(q, *p, loc, scale)`` or (``inverse``) ``dist.isf``."""
    lo, hi, _inside = SUPPORT[dist]
    q = np.asarray(q)
    ok0 = _argcheck(p, scale) & (loc == loc)
    ok = ok0 & ((0 < q) & (q < 1))
    qs = np.where(ok, q, 0.5)
    ps = _safe(p, ok0)
    ss = np.where(ok0, scale, 1.0)
    core = _isf(dist, qs, ps, what) if inverse else _ppf(dist, qs, ps, what)
    value = np.asarray(core * ss + loc, dtype=np.float64)
    low = np.full(np.shape(value), lo) if lo == -_INF else lo * ss + loc
    high = np.full(np.shape(value), hi) if hi == _INF else hi * ss + loc
    at_low = ok0 & (q == (1 if inverse else 0))
    at_high = ok0 & (q == (0 if inverse else 1))
    out = np.where(ok, value, np.where(at_low, low, np.where(at_high, high, np.nan)))
    return _result(np.asarray(out, dtype=np.float64))
