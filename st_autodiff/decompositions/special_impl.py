"""scipy.special functions written with ops that have rules (read like the user's own
code, see ``numpy_impl``): ``logsumexp`` with weights ``b`` and ``return_sign``, chosen
by ``select_special``.

``logsumexp`` shifts by the maximum of the entries whose weight is not zero, as SciPy
does, and the shift is a constant (``stop_gradient``): the result does not depend on it,
so neither does its derivative.  A negative weighted sum is NaN without
``return_sign``, as in SciPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.kernels import logsumexp as rt_logsumexp
from ..ir.kernels import stop_gradient


def logsumexp(a: Any, axis: Any, keepdims: Any) -> Any:
    """``log(sum(exp(a)))`` over ``axis`` without weights: the ``logsumexp`` op."""
    return rt_logsumexp(a, axis=axis, keepdims=keepdims)


def logsumexp_weighted(a: Any, b: Any, axis: Any, keepdims: Any, return_sign: bool) -> Any:
    """``log|sum(b * exp(a))|`` over ``axis`` (and the sum's sign with ``return_sign``)."""
    m = np.max(np.where(b != 0, a, -np.inf), axis=axis, keepdims=True)
    m = stop_gradient(np.where(np.isfinite(m), m, 0))
    s = np.sum(b * np.exp(a - m), axis=axis, keepdims=keepdims)
    shift = m if keepdims else np.squeeze(m, axis=axis)
    sign = np.sign(s)
    out = np.log(np.abs(s)) + shift
    if return_sign:
        return out, sign
    return np.where(sign < 0, np.nan, out)

