"""Frozen SciPy distributions: ``stats.norm(mu, sigma)`` in compiled code.

Freezing makes ``rv_frozen(dist, *args, **kwds)``, whose ``__init__`` builds a private
copy of the distribution, ``dist.__class__(**dist._updated_ctor_param())``; its methods
then call the copy's methods with the stored arguments.  Building a distribution object
from static constructor parameters (names, support bounds, tolerances, a random state) is
Python work on static values only (its ``__init__`` ``exec``-s generated argument parsers
from static text), so the lowering runs that constructor while compiling, as Python would
at every call, and the frozen object's methods are read like any Python method: the
runtime arguments (``mu``, ``sigma``) flow through ``self.args`` into the unfrozen
methods, whose derivatives the compiler already follows.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..ir.graph import holds_node
from .static_stmts import static_exception

if TYPE_CHECKING:
    from .lower import Lowerer


def _distribution_class(fn: Any) -> bool:
    """Whether ``fn`` is a SciPy distribution class (``rv_continuous`` and the like)."""
    infra = sys.modules.get("scipy.stats._distn_infrastructure")
    return infra is not None and isinstance(fn, type) and issubclass(fn, infra.rv_generic)


def construct(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    """``cls(**params)`` for a SciPy distribution class and static parameters: the object
    Python builds; NotImplemented for any other call (a runtime parameter included)."""
    if not _distribution_class(fn) or holds_node(list(args)) or holds_node(
            list(kwargs.values())):
        return NotImplemented
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - SciPy's own error, at the user's line
        raise static_exception(lw, exc, e) from None
