"""What the selectors of ``decompositions`` share: reading the static facts of a call's
arguments (shapes, dtypes and constants known at compile time) and normalising axes."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.graph import Node as Node  # re-exported: the selectors import it from here
from ..ir.ops import Op

Selection = tuple[Callable[..., Any], tuple[Any, ...]]


#: stats: implementation files whose nodes the lowering locates at the user's call (their
#: errors, such as an active integer argument, then point at the user's line)
SITE_LOCATED: set[str] = set()


class Unsupported(TypeError):
    """A use of a decomposed function that the decomposition does not cover."""


NO: Any = np.__dict__["_NoValue"]  # NumPy's own "argument not given" marker (not in its stubs)


def shape_of(v: Any, what: str = "the argument") -> tuple[int, ...]:
    """The shape of ``v``, known at compile time (from the example arguments)."""
    if isinstance(v, Node):
        t = v.type
        shape = None if t is None else (() if t.kind != "array" else t.shape)
        if shape is None:
            raise Unsupported(f"needs the shape of {what} at compile time")
        return tuple(shape)
    if isinstance(v, (list, tuple)) and _holds_node(v):
        if any(isinstance(x, (list, tuple)) for x in v):
            unsupported(f"{what} as a nested list of runtime values")
        return (len(v),)
    return tuple(np.shape(v))


def _holds_node(v: Any) -> bool:
    """Whether a (nested) list or tuple holds a runtime value anywhere: a nested list of
    plain numbers is a constant whose shape NumPy reads."""
    if isinstance(v, (list, tuple)):
        return any(_holds_node(x) for x in v)
    return isinstance(v, Node)


def unsupported(message: str) -> Any:
    raise Unsupported(message)


def dtype_of(v: Any) -> np.dtype[Any]:
    if isinstance(v, Node):
        t = v.type
        if t is None or t.dtype is None:
            return np.dtype(np.float64) if t is not None and t.kind == "float" else \
                unsupported("needs the dtype of its argument at compile time")
        return np.dtype(t.dtype)
    dt: np.dtype[Any] = np.asarray(v).dtype
    return dt


def constant(v: Any) -> Any:
    """``v`` itself, or the value of a constant node (an array literal); else a node."""
    if isinstance(v, Node) and v.op is Op.CONST:
        return v.param("value")
    return v


def static(v: Any, what: str) -> Any:
    if isinstance(v, Node):
        raise Unsupported(f"{what} must be a constant (it is computed at run time here)")
    return v


def norm_axis_index(axis: Any, nd: int) -> int:
    axis = operator.index(static(axis, "axis"))
    if not -nd <= axis < max(nd, 1):
        raise Unsupported(f"axis {axis} is out of bounds for an array of dimension {nd}")
    return axis % nd if nd else 0


def given(v: Any) -> bool:
    return v is not None and v is not NO


def norm_axis(axis: Any, nd: int) -> Any:
    if axis is None:
        return None
    if isinstance(axis, tuple):
        return tuple(norm_axis_index(ax, nd) for ax in axis)
    return norm_axis_index(axis, nd)


def keep(keepdims: Any) -> bool:
    return bool(static(keepdims, "keepdims")) if keepdims is not NO else False
