"""Calls whose result keeps the kind its node's op gives (``ir/scalar_kinds``), and the
others, whose result nodes are marked ``kind_unknown``: queries of their kind stay refused.

A call is lowered faithfully, kind included, when the compiler reads the callee's own
source (a user's or a library's Python function, an inner ``def``), or maps a NumPy
callable to the op that *is* that callable (``np.exp`` to ``exp``), or an array method
whose kind the table of tests/test_scalar_kinds.py checks.  Every other lowering may give
the expression another kind than its node's: ``math.exp(x)`` is lowered as ``np.exp``
(a NumPy scalar where Python gives a float), ``np.float64(x)`` as ``astype`` (a 0-d array
where NumPy gives a scalar), ``x.conj()`` as ``x``, a decomposition of a NumPy function,
a derivative rule's call, a passed-through call.
"""

from __future__ import annotations

import builtins
import os
import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from .. import decompositions
from ..derivatives import CUSTOM_VJPS
from ..ir.graph import Node
from ..ir.scalar_kinds import (
    CHECKED_METHODS,
    NUMPY,
    PYTHON,
    exact_kind,
    kind_unknown,
    node_key,
    numpy_objects,
)
from . import calls
from .static_stmts import static_exception

if TYPE_CHECKING:
    from .lower import Lowerer


#: builtins that hand back values they were given (or items of them) unchanged
_MOVERS = (builtins.next, builtins.iter, builtins.getattr, tuple, list, dict, zip, enumerate,
           reversed)


#: NumPy functions lowered through a decomposition whose kind of result the end-to-end
#: table of tests/test_scalar_kinds.py checks (NumPy scalar for vectors, else arrays)
CHECKED_DECOMPOSITIONS: tuple[Any, ...] = tuple(
    f for f in (getattr(np, "vecdot", None),) if f is not None)

#: NumPy functions whose results are always ndarrays, as their decompositions' nodes are
#: (rank one or more, or ``np.where``/``np.asarray``/``np.broadcast_to``, ndarrays even 0-d)
_ALWAYS_NDARRAYS: tuple[Any, ...] = (np.atleast_1d, np.atleast_2d, np.atleast_3d,
                                     np.broadcast_arrays, np.extract)


def faithful(fn: Any) -> bool:
    """Whether the node a call of ``fn`` lowers to has the kind Python gives the call."""
    from .scope import BoundMethod, Closure  # noqa: PLC0415  (scope imports lower)

    if isinstance(fn, Closure) or any(fn is m for m in _MOVERS + CHECKED_DECOMPOSITIONS
                                          + _ALWAYS_NDARRAYS):
        return True
    if isinstance(fn, BoundMethod):
        return not isinstance(fn.receiver, Node) or fn.name in CHECKED_METHODS
    if _registered(fn) or getattr(fn, "generated_for", None) is not None or callable(
            getattr(fn, "st_readable_for", None)):
        return False
    try:
        op = calls.FUNCTIONS.get(id(fn))
    except TypeError:
        return False
    if op is not None:
        return any(fn is obj for obj in numpy_objects(op))
    if fn is np.asanyarray:
        return True  # lowered as np.asarray: a 0-d array either way
    if decompositions.lookup(fn) is not None:  # its 0-d results made the library's kind
        return decompositions.result_kind(fn) is not None  # (dispatch._scalar_result)
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    return isinstance(fn, types.FunctionType)  # its source is read (or it is passed through)


def after_call(lw: Lowerer, fn: Any, result: Any) -> None:
    """Mark the nodes of an unfaithful call's result as of unknown kind."""
    if faithful(fn):
        return
    unknown = kind_unknown(lw)
    for node in _nodes(result):
        unknown.add(node_key(lw, node))


def _registered(fn: Any) -> bool:
    try:
        return fn in CUSTOM_VJPS
    except TypeError:  # unhashable: not registered
        return False


def _nodes(v: Any) -> list[Node]:
    if isinstance(v, Node):
        return [v]
    if isinstance(v, (tuple, list)):
        return [n for x in v for n in _nodes(x)]
    return []


_OURS = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def python_attribute(lw: Lowerer, x: Node, attr: str, e: cst.CSTNode) -> None:
    """``x.dtype`` (or ``x.shape`` ...) of a value known to be a Python number: Python's
    ``AttributeError``, located, where the node's type would answer as for an array."""
    t = x.type
    if t is None or t.kind not in ("float", "int", "bool"):
        return
    fn = getattr(lw, "fn", None)
    if fn is not None and os.path.abspath(fn.module.file).startswith(_OURS):
        return  # our own decompositions read a number's dtype as NumPy's (float64)
    from .static_queries import _is_argument  # noqa: PLC0415  (static_queries imports lower)

    if exact_kind(lw, x, _is_argument) != PYTHON:
        return
    number = {"float": 1.0, "int": 1, "bool": True}[t.kind]
    if not hasattr(number, attr):
        raise static_exception(lw, AttributeError(
            f"{type(number).__name__!r} object has no attribute {attr!r}"), e)


def in_place(lw: Lowerer, target: Any, result: Any) -> None:
    """``x += y`` lowered as ``x = x + y``: NumPy writes into a 0-d array (which stays an
    array) where ``x + y`` is a NumPy scalar, so the result's kind is known only where
    ``x`` is known to be a number (rebound) or an array of rank one or more."""
    if not isinstance(result, Node) or not isinstance(target, Node):
        return
    t = target.type
    if t is not None and t.kind == "array" and t.shape:
        return
    from .static_queries import _is_argument  # noqa: PLC0415

    if exact_kind(lw, target, _is_argument) not in (PYTHON, NUMPY):
        kind_unknown(lw).add(node_key(lw, result))
