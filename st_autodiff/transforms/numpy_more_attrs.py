"""Array attributes of the numpy-more family (issue 11): ``x.imag`` of a real array (its
zeros, as NumPy gives), ``x.mT`` (the last two axes swapped), and the methods
``x.compress(condition, axis)`` and ``x.choose(choices)``, read as the functions
``np.compress``/``np.choose`` with ``x`` bound (their decompositions)."""

from __future__ import annotations

from typing import Any

import libcst as cst
import numpy as np

from ..decompositions.select_numpy_more import ndarray_compress
from ..ir.graph import Node
from ..ir.ops import Op


def numpy_more_attribute(lw: Any, x: Node, attr: str, e: cst.CSTNode) -> Any:
    """The value of ``x.<attr>``, or NotImplemented where this module does not read it."""
    from .wrappers import Partial  # noqa: PLC0415  (wrappers imports lowering modules)

    t = x.type
    if t is not None and t.kind != "array":
        return NotImplemented
    if attr == "imag" and t is not None and t.dtype is not None and \
            np.dtype(t.dtype).kind != "c":
        return lw.emit(Op.ZEROS_LIKE, [x], None, e)
    if attr == "mT":
        if t is not None and t.shape is not None and len(t.shape) < 2:
            raise lw.fail(f"matrix transpose with ndim < 2 is undefined (x has {len(t.shape)})",
                          e)
        return lw.emit(Op.SWAPAXES, [x], {"axis1": -2, "axis2": -1}, e)
    if attr == "compress":
        return Partial(ndarray_compress, (x,), ())
    if attr == "choose":
        return Partial(np.choose, (x,), ())
    return NotImplemented
