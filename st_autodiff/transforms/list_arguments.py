"""Lists built at run time passed to a NumPy ufunc: ``gammaln([a - j / 2 for j in ...])``.

A ufunc converts each list argument with ``np.asarray``; for a list of numbers or of
arrays of one shape that is ``np.stack(xs)`` (``Op.LIST_STACK``), whose shape and
gradient the IR knows.  Items of differing shapes fail at run time in both (NumPy's
ragged-array error), so the stacked call is exactly the ufunc's.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..ir.graph import Node
from ..ir.ops import Op


def is_runtime_list(v: Any) -> bool:
    """Whether ``v`` is a list built at run time (a node of list kind)."""
    return isinstance(v, Node) and v.type is not None and v.type.kind == "list"


def ufunc_list_arguments(lw: Any, args: list[Any], e: cst.CSTNode) -> list[Any]:
    """``args`` with each runtime list replaced by its stack (``np.asarray`` of it)."""
    return [lw.emit(Op.LIST_STACK, [a], {"axis": 0}, e) if is_runtime_list(a) else a
            for a in args]
