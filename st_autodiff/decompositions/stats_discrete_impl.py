"""The methods of SciPy's discrete distributions ``poisson``, ``binom`` and ``nbinom``
(``pmf``, ``logpmf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``) written with functions the
compiler has rules for; ``select_stats`` picks them.

Each follows ``rv_discrete``'s own steps: ``k - loc``, the argument check, the support
(integers in ``[0, n]`` for ``binom``, ``[0, inf)`` otherwise), SciPy's fill values
(``nan`` for invalid parameters or a ``nan`` point, ``0``/``-inf`` outside the support,
``1``/``0`` past the ends of the distribution functions, in SciPy's order of ``place``
calls) and a 0-d result as a NumPy scalar.  The closed forms are SciPy's ``_logpmf``,
and its ``_cdf``/``_sf`` as the incomplete gamma and beta functions they are:
``pdtr(k, mu) = gammaincc(k + 1, mu)``, ``bdtr(k, n, p) = betaincc(k + 1, n - k, p)``,
``nbdtr(k, n, p) = betainc(n, k + 1, p)`` (and the complements).  ``pmf`` is
``exp(logpmf)``: SciPy computes ``binom.pmf`` and ``nbinom.pmf`` with Boost's kernels, which
agree with it to about 1e-13 relative.

The point ``k``, ``loc`` and ``binom``'s ``n`` are integers, and ``nbinom``'s ``n`` has no
closed-form derivative in ``cdf``/``sf``: each passes through ``rt.no_derivative`` (a
located error when active).  ``mu``, ``p`` and ``nbinom``'s ``n`` in ``pmf``/``logpmf``
are differentiable.  Inputs are replaced by safe values where their results are unused,
as in ``stats_impl``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import kernels as rt
from .common import SITE_LOCATED
from .stats_impl import _result
from .stats_kernels import betainc, betaincc

SITE_LOCATED.add(__file__)

_INF = math.inf


def _argcheck(dist: str, p: tuple[Any, ...]) -> Any:
    if dist == "poisson":
        return p[0] >= 0
    n, q = p
    if dist == "binom":
        return (n >= 0) & (n == np.round(n)) & (q >= 0) & (q <= 1)
    return (n > 0) & (q > 0) & (q <= 1)


def _logpmf(dist: str, k: Any, p: tuple[Any, ...]) -> Any:
    if dist == "poisson":
        return rt.xlogy(k, p[0]) - rt.gammaln(k + 1) - p[0]
    n, q = p
    if dist == "binom":
        k = np.floor(k)
        combiln = rt.gammaln(n + 1) - (rt.gammaln(k + 1) + rt.gammaln(n - k + 1))
        return combiln + rt.xlogy(k, q) + rt.xlog1py(n - k, -q)
    coeff = rt.gammaln(n + k) - rt.gammaln(k + 1) - rt.gammaln(n)
    return coeff + n * np.log(q) + rt.xlog1py(k, -q)


def _cdf(dist: str, k: Any, p: tuple[Any, ...]) -> Any:
    k = np.floor(k)
    if dist == "poisson":
        return rt.gammaincc(k + 1, p[0])
    n, q = p
    if dist == "binom":
        return betaincc(k + 1, n - k, q)
    return betainc(n, k + 1, q)


def _sf(dist: str, k: Any, p: tuple[Any, ...]) -> Any:
    k = np.floor(k)
    if dist == "poisson":
        return rt.gammainc(k + 1, p[0])
    n, q = p
    if dist == "binom":
        return betainc(k + 1, n - k, q)
    return betaincc(n, k + 1, q)


def _logcdf(dist: str, k: Any, p: tuple[Any, ...]) -> Any:
    cdf = _cdf(dist, k, p)
    if dist != "nbinom":
        return np.log(cdf)
    n, q = p
    high = cdf > 0.5
    rest = betainc(np.floor(k) + 1, n, 1 - q)
    return np.where(high, np.log1p(-np.where(high, rest, 0.5)),
                    np.log(np.where(high, 0.5, cdf)))


def _safe(dist: str, p: tuple[Any, ...], ok0: Any) -> tuple[Any, ...]:
    """The parameters, replaced where they are invalid (their results are unused)."""
    if dist == "poisson":
        return (np.where(ok0, p[0], 1.0),)
    return np.where(ok0, p[0], 1.0), np.where(ok0, p[1], 0.5)


def method(dist: str, name: str, k: Any, loc: Any, what: tuple[Any, ...], *p: Any) -> Any:
    """``dist.<name>(k, *p, loc)`` for ``pmf``, ``logpmf``, ``cdf``, ``logcdf``, ``sf``,
    ``logsf``."""
    k = rt.no_derivative(k, what=what[0])
    loc = rt.no_derivative(loc, what=what[1])
    if dist == "binom" or dist == "nbinom" and name not in ("pmf", "logpmf"):
        p = (rt.no_derivative(p[0], what=what[2]), p[1])
    k = np.asarray(k - loc)
    ok0 = _argcheck(dist, p)
    hi = p[0] if dist == "binom" else _INF
    bad = np.logical_not(ok0) | np.isnan(k)
    if name in ("pmf", "logpmf"):
        ok = ok0 & ((k >= 0) & (k <= hi) & (np.floor(k) == k))
    elif name in ("cdf", "sf"):
        ok = ok0 & ((k >= 0) & (k < hi)) & np.isfinite(k)
    else:
        ok = ok0 & ((k >= 0) & (k < hi))
    ks = np.where(ok, k, 0)
    ps = _safe(dist, p, ok0)
    if name == "logpmf":
        out = np.where(ok, _logpmf(dist, ks, ps), np.where(bad, np.nan, -_INF))
    elif name == "pmf":
        value = np.clip(np.exp(_logpmf(dist, ks, ps)), 0, 1)
        out = np.where(ok, value, np.where(bad, np.nan, 0.0))
    elif name == "cdf":
        value = np.clip(_cdf(dist, ks, ps), 0, 1)
        out = np.where(ok, value, np.where(bad, np.nan, np.where(k >= hi, 1.0, 0.0)))
    elif name == "logcdf":
        value = _logcdf(dist, ks, ps)
        out = np.where(ok, value, np.where(k >= hi, 0.0, np.where(bad, np.nan, -_INF)))
    elif name == "sf":
        value = np.clip(_sf(dist, ks, ps), 0, 1)
        out = np.where(ok, value, np.where(bad, np.nan, np.where(
            ((k < 0) | (k == -_INF)) & ok0, 1.0, 0.0)))
    else:  # logsf
        value = np.log(_sf(dist, ks, ps))
        out = np.where(ok, value, np.where(bad, np.nan, np.where((k < 0) & ok0, 0.0, -_INF)))
    return _result(np.asarray(out, dtype=np.float64))
