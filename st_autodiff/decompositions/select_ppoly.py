"""The selector of SciPy's compiled piecewise-polynomial evaluation
(``scipy.interpolate._ppoly.evaluate``, reached by ``PPoly.__call__``, ``CubicSpline``,
``Akima1DInterpolator`` …): each point's value is its interval's polynomial, a weighted
sum of that interval's coefficients, so the derivative flows to the coefficients, the
points and the breakpoints alike.  The kernel writes into ``out``; so does ``evaluate``.
Intervals are half-open ``[a, b)`` except the last, as SciPy's; breakpoints must increase
(checked at run time: decreasing ones are refused, not misread).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import Selection, Unsupported, shape_of, static


def _evaluate(c: Any, x: Any, xp: Any, dx: Any, extrapolate: Any, out: Any) -> Selection:
    shape = shape_of(c, "c")
    if len(shape) != 3:
        raise Unsupported("c must have shape (k, m, n)")
    k, m, _n = shape
    nu = int(static(dx, "dx"))
    if nu < 0:
        raise Unsupported("Order of derivative cannot be negative")
    if m == 0:
        raise Unsupported("a piecewise polynomial needs at least one interval")
    factors = tuple((j, math.perm(k - 1 - j, nu), k - 1 - j - nu) for j in range(k)
                    if k - 1 - j >= nu)
    return evaluate, (c, x, xp, factors, bool(static(extrapolate, "extrapolate")), out)


def evaluate(c: Any, x: Any, xp: Any, factors: Any, extrapolate: bool, out: Any) -> None:
    """``out[r]``: the ``nu``-th derivative of the polynomial of ``xp[r]``'s interval,
    ``sum_j perm(p_j, nu) (xp - x[i])^(p_j - nu) c[j, i]`` (``factors`` lists ``(j,
    perm(p_j, nu), p_j - nu)``); NaN outside ``[x[0], x[-1]]`` unless ``extrapolate``."""
    if np.any(x[1:] < x[:-1]):
        raise ValueError("st_autodiff: piecewise polynomials with decreasing breakpoints "
                         "are not supported")
    m = np.shape(c)[1]
    interval = np.sum(np.expand_dims(xp, -1) >= x[1:m], axis=-1)
    s = np.expand_dims(xp - x[interval], -1)
    value = np.zeros((np.shape(xp)[0], np.shape(c)[2]), dtype=c.dtype)
    for j, scale, power in factors:  # unrolled
        term = scale * c[j, interval, :]
        value = value + (term if power == 0 else term * s ** power)  # no 0 * s^-1 at s = 0
    valid = ~np.isnan(xp)
    if not extrapolate:
        valid = valid & (xp >= x[0]) & (xp <= x[-1])
    out[...] = np.where(np.expand_dims(valid, -1), value, np.nan)


def names() -> dict[str, Any]:
    """``scipy.interpolate._ppoly``'s name and its selector, for ``select_scipy.lookup``."""
    return {"evaluate": _evaluate}
