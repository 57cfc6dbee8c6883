"""Kernels of the special family's scipy.special ops, reached as ``rt.<name>``.

Each op runs SciPy's own ufunc (``scipy.special.<name>``), so values and dtypes
(``float32`` in, ``float32`` out) are SciPy's to the last bit; ``yn`` and ``expn`` with an
integer order, which SciPy computes in float64 for any ``x``, are cast to ``x``'s dtype.
Ops whose name NumPy already uses (``log1p``, ``expm1``, ``cbrt``, ``exp2``) are
``sp_<name>`` here: SciPy's kernels are not NumPy's.  ``riemann_zeta`` is
``scipy.special.zeta(x)`` without ``q``.  SciPy is imported on first use (see ``kernels_special``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .kernels_special import _sp

#: op name (``rt.<name>``) -> scipy.special attribute name
_SCIPY_ATTR: dict[str, str] = {
    **{name: name for name in (
        "gamma", "rgamma", "gammasgn", "loggamma", "erfcinv", "erfcx", "erfi", "dawsn",
        "i0", "i0e", "i1", "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "exp1",
        "expi", "spence", "cosm1", "exprel", "exp10", "sindg", "cosdg", "beta", "iv", "ive",
        "jv", "yv", "yn", "kv", "kve", "zeta", "expn", "boxcox1p", "inv_boxcox", "owens_t",
        "binom", "poch", "betainc")},
    "sp_log1p": "log1p", "sp_expm1": "expm1", "sp_cbrt": "cbrt", "sp_exp2": "exp2",
    "riemann_zeta": "zeta",
}


#: ufuncs whose loop for an integer order computes in float64 whatever ``x`` is: their
#: result is cast to ``x``'s floating dtype (float32 in, float32 out, as ``polygamma``)
_INTEGER_ORDER = frozenset({"yn", "expn"})


def _kernel(name: str, attr: str) -> Callable[..., Any]:
    def kernel(*args: Any) -> Any:
        out = getattr(_sp(*args), attr)(*args)
        if name in _INTEGER_ORDER:
            dtype = np.result_type(args[-1], 1.0)
            if out.dtype != dtype:
                out = out.astype(dtype)
        return out

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"``scipy.special.{attr}`` (SciPy's own kernel)."
    return kernel


#: ``rt.<name>`` -> kernel; ``ir/kernels.py`` and ``runtime/support.py`` take them all
KERNELS: dict[str, Callable[..., Any]] = {
    name: _kernel(name, attr) for name, attr in _SCIPY_ATTR.items()}

#: scipy.special attribute -> op name, for ``transforms/calls.special_op`` (``zeta`` is
#: ``zeta``; without ``q`` the lowering makes it ``riemann_zeta``, see ``dispatch``)
SCIPY_NAMES_MORE: dict[str, str] = {
    attr: name for name, attr in _SCIPY_ATTR.items() if name != "riemann_zeta"}
