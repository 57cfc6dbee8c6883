"""Kernels of the scipy.special ops (and ``np.sinc``), reached as ``rt.<name>``.

Each runs the SciPy ufunc itself, so values are SciPy's to the last bit.  SciPy is
imported on first use: st_autodiff does not need it unless a program calls it (and a
program that calls ``scipy.special.gammaln`` has imported SciPy already).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _sp(*values: Any) -> Any:
    """``scipy.special``, or ``cupyx.scipy.special`` for CuPy arrays (``namespaces``)."""
    from .namespaces import scipy_module  # noqa: PLC0415 (SciPy: optional, loaded on use)

    return scipy_module("special", *values)


def expit(x: Any) -> Any:
    return _sp(x).expit(x)


def logit(x: Any) -> Any:
    return _sp(x).logit(x)


def log_expit(x: Any) -> Any:
    return _sp(x).log_expit(x)


def gammaln(x: Any) -> Any:
    return _sp(x).gammaln(x)


def digamma(x: Any) -> Any:
    return _sp(x).digamma(x)


def erf(x: Any) -> Any:
    return _sp(x).erf(x)


def erfc(x: Any) -> Any:
    return _sp(x).erfc(x)


def erfinv(x: Any) -> Any:
    return _sp(x).erfinv(x)


def ndtr(x: Any) -> Any:
    return _sp(x).ndtr(x)


def log_ndtr(x: Any) -> Any:
    return _sp(x).log_ndtr(x)


def ndtri(x: Any) -> Any:
    return _sp(x).ndtri(x)


def entr(x: Any) -> Any:
    return _sp(x).entr(x)


def sinc(x: Any) -> Any:
    from .kernels import array_namespace  # noqa: PLC0415 (kernels imports this module)

    xp = array_namespace(x)
    if hasattr(xp, "sinc"):
        return xp.sinc(x)
    y = xp.pi * xp.where(x == 0, 1.0e-20, x)
    return xp.sin(y) / y


def polygamma(n: Any, x: Any) -> Any:
    """SciPy's polygamma, in ``x``'s floating dtype (SciPy computes it in float64)."""
    out = _sp(n, x).polygamma(n, x)
    dtype = np.result_type(x, 1.0)
    return out if out.dtype == dtype else out.astype(dtype)


def xlogy(x: Any, y: Any) -> Any:
    return _sp(x, y).xlogy(x, y)


def xlog1py(x: Any, y: Any) -> Any:
    return _sp(x, y).xlog1py(x, y)


def rel_entr(x: Any, y: Any) -> Any:
    return _sp(x, y).rel_entr(x, y)


def kl_div(x: Any, y: Any) -> Any:
    return _sp(x, y).kl_div(x, y)


def huber(delta: Any, r: Any) -> Any:
    return _sp(delta, r).huber(delta, r)


def pseudo_huber(delta: Any, r: Any) -> Any:
    return _sp(delta, r).pseudo_huber(delta, r)


def boxcox(x: Any, lmbda: Any) -> Any:
    return _sp(x, lmbda).boxcox(x, lmbda)


def betaln(a: Any, b: Any) -> Any:
    return _sp(a, b).betaln(a, b)


def gammainc(a: Any, x: Any) -> Any:
    return _sp(a, x).gammainc(a, x)


def gammaincc(a: Any, x: Any) -> Any:
    return _sp(a, x).gammaincc(a, x)


def svd(x: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    """``np.linalg.svd(x, full_matrices)`` as a plain tuple ``(U, S, Vh)``."""
    from .kernels import array_namespace  # noqa: PLC0415 (kernels imports this module)

    u, s, vh = array_namespace(x).linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh


#: scipy.special attribute names of the ops above (``psi`` is ``digamma``)
SCIPY_NAMES: dict[str, str] = {
    "expit": "expit", "logit": "logit", "log_expit": "log_expit", "gammaln": "gammaln",
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc",
    "erfinv": "erfinv", "ndtr": "ndtr", "log_ndtr": "log_ndtr", "ndtri": "ndtri",
    "entr": "entr", "sinc": "sinc", "polygamma": "polygamma", "xlogy": "xlogy",
    "xlog1py": "xlog1py", "rel_entr": "rel_entr", "kl_div": "kl_div", "huber": "huber",
    "pseudo_huber": "pseudo_huber", "boxcox": "boxcox", "betaln": "betaln",
    "gammainc": "gammainc", "gammaincc": "gammaincc",
}
