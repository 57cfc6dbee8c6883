"""A Python tuple holding runtime values, given where NumPy takes an array.

``lower.to_node`` makes such a tuple an ``Op.TUPLE`` node: right for shapes and
indices, wrong for an array argument, which NumPy converts with ``np.asarray`` (the
tuple's items stacked as rows).  ``np.transpose(np.nonzero(x))`` (``np.argwhere``) read
the tuple as its one item and gave the wrong rank; ``np.sin((x, y))`` had no derivative.
Array inputs of ops and the value of ``np.array``/``np.asarray`` go through
``as_array_input``, which stacks the tuple as a list is stacked.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..ir.graph import holds_node
from ..ir.ops import OP_INFO, Op

#: names of op inputs that NumPy converts with ``np.asarray``
ARRAY_INPUTS = frozenset({"x", "y", "a", "b"})


def as_array_input(lw: Any, v: Any, e: cst.CSTNode) -> Any:
    """``v``, or the stack of its rows where it is a Python tuple holding nodes."""
    if isinstance(v, tuple) and holds_node(v):
        return lw.to_node(list(v), e)  # nested tuples become rows as lists do
    return v


def array_inputs(lw: Any, op: Op, inputs: list[Any], e: cst.CSTNode) -> list[Any]:
    """``inputs`` of ``op`` (bound by ``calls.bind``) with tuples in array positions
    stacked; variadic ops (``np.stack``, ``np.concatenate`` …) are left as they are."""
    info = OP_INFO[op]
    if info.variadic or not any(isinstance(v, tuple) for v in inputs):
        return inputs
    names = [n.lstrip("*") for n in info.inputs]
    return [as_array_input(lw, v, e) if k < len(names) and names[k] in ARRAY_INPUTS else v
            for k, v in enumerate(inputs)]
