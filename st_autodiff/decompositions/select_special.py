"""Selectors of the scipy.special functions that are Python functions rather than ufuncs
(see ``decompositions/__init__``): ``logsumexp`` (``axis``, ``b``, ``keepdims``,
``return_sign``; SciPy's own source indexes a constant with a runtime value).  The ufuncs
are ops of their own (``transforms/calls.special_op``); ``softmax``, ``log_softmax`` and
``multigammaln`` are compiled from SciPy's source.  Axes and flags are static.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import special_impl as impl
from .common import Selection, constant, keep, norm_axis, shape_of, static


def _logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: Any = False,
               return_sign: Any = False) -> Selection:
    weighted = constant(b) is not None
    nd = len(shape_of(a, "a"))
    if weighted:  # a and b broadcast together: axes count in the joint rank
        nd = max(nd, len(shape_of(b, "b")))
    keepdims = keep(keepdims)
    return_sign = bool(static(return_sign, "return_sign"))
    if isinstance(axis, list):
        axis = tuple(axis)
    axis = norm_axis(static(axis, "axis"), nd)
    if not weighted and not return_sign:
        return impl.logsumexp, (a, axis, keepdims)
    return impl.logsumexp_weighted, (a, b if weighted else 1.0, axis, keepdims, return_sign)

def names() -> dict[str, Callable[..., Selection]]:
    """scipy.special attribute name -> selector (read by ``select_scipy``)."""
    return {"logsumexp": _logsumexp}
