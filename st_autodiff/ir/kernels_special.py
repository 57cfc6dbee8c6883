"""Kernels of the scipy.special ops (and ``np.sinc``), reached as ``rt.<name>``.

Each runs the SciPy ufunc itself, so values are SciPy's to the last bit.  SciPy is
imported on first use: st_autodiff does not need it unless a program calls it (and a
program that calls ``scipy.special.gammaln`` has imported SciPy already).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _sp() -> Any:
    import scipy.special  # noqa: PLC0415 (optional dependency, imported on first use)

    return scipy.special


def expit(x: Any) -> Any:
    return _sp().expit(x)


def logit(x: Any) -> Any:
    return _sp().logit(x)


def log_expit(x: Any) -> Any:
    return _sp().log_expit(x)


def gammaln(x: Any) -> Any:
    return _sp().gammaln(x)


def digamma(x: Any) -> Any:
    return _sp().digamma(x)


def erf(x: Any) -> Any:
    return _sp().erf(x)


def erfc(x: Any) -> Any:
    return _sp().erfc(x)


def erfinv(x: Any) -> Any:
    return _sp().erfinv(x)


def ndtr(x: Any) -> Any:
    return _sp().ndtr(x)


def log_ndtr(x: Any) -> Any:
    return _sp().log_ndtr(x)


def ndtri(x: Any) -> Any:
    return _sp().ndtri(x)


def entr(x: Any) -> Any:
    return _sp().entr(x)


def sinc(x: Any) -> Any:
    return np.sinc(x)


def polygamma(n: Any, x: Any) -> Any:
    """SciPy's polygamma, in ``x``'s floating dtype (SciPy computes it in float64)."""
    out = _sp().polygamma(n, x)
    dtype = np.result_type(x, 1.0)
    return out if out.dtype == dtype else out.astype(dtype)


def xlogy(x: Any, y: Any) -> Any:
    return _sp().xlogy(x, y)


def xlog1py(x: Any, y: Any) -> Any:
    return _sp().xlog1py(x, y)


def rel_entr(x: Any, y: Any) -> Any:
    return _sp().rel_entr(x, y)


def kl_div(x: Any, y: Any) -> Any:
    return _sp().kl_div(x, y)


def huber(delta: Any, r: Any) -> Any:
    return _sp().huber(delta, r)


def pseudo_huber(delta: Any, r: Any) -> Any:
    return _sp().pseudo_huber(delta, r)


def boxcox(x: Any, lmbda: Any) -> Any:
    return _sp().boxcox(x, lmbda)


def betaln(a: Any, b: Any) -> Any:
    return _sp().betaln(a, b)


def gammainc(a: Any, x: Any) -> Any:
    return _sp().gammainc(a, x)


def gammaincc(a: Any, x: Any) -> Any:
    return _sp().gammaincc(a, x)


def svd(x: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    """``np.linalg.svd(x, full_matrices)`` as a plain tuple ``(U, S, Vh)``."""
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
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
