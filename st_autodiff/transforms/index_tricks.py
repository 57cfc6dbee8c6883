"""``np.r_[...]``, ``np.c_[...]`` and ``np.einsum`` in its interleaved form, lowered as the
concatenations and the subscript string NumPy builds from them.

``np.r_[a, b, 1.0, 0:3]``: each item made at least 1-d (a number becomes one element, a
slice of static integers an ``arange``) and concatenated along axis 0.  ``np.c_[a, b]``:
1-d items become columns, numbers ``(1, 1)`` blocks, and everything is concatenated along
the last axis.  Directive strings (``np.r_['0,2', ...]``) and complex steps (linspace)
are refused, located.
"""

from __future__ import annotations

import string
from typing import Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op


def is_concatenator(base: Any) -> bool:
    """Whether ``base`` is ``np.r_`` or ``np.c_``."""
    return base is np.r_ or base is np.c_


def concatenate_items(lw: Any, base: Any, parts: list[Any], e: cst.CSTNode) -> Any:
    """``np.r_[parts]`` or ``np.c_[parts]``."""
    columns = base is np.c_
    what = "np.c_" if columns else "np.r_"
    items = []
    for p in parts:
        if isinstance(p, str):
            raise lw.fail(f"{what}[...] with a directive string is not supported", e,
                          "concatenate with np.concatenate or np.stack")
        if isinstance(p, slice):
            if any(isinstance(v, (Node, complex)) or v is not None and not isinstance(
                    v, (int, np.integer)) for v in (p.start, p.stop, p.step)):
                raise lw.fail(f"{what}[a:b:k] needs integers known when compiling", e,
                              kind=CompileError)
            p = np.arange(0 if p.start is None else p.start, p.stop,
                          1 if p.step is None else p.step)
        node = lw.to_node(p, e)
        t = node.type
        if t is None or t.shape is None:
            raise lw.fail(f"{what}[...] needs the rank of its items; call with arguments "
                          "first", e, kind=CompileError)
        nd = len(t.shape)
        if nd == 0:
            node = lw.emit(Op.EXPAND_DIMS, [node], {"axis": (0, 1) if columns else (0,)}, e)
        elif nd == 1 and columns:
            node = lw.emit(Op.EXPAND_DIMS, [node], {"axis": (1,)}, e)
        items.append(node)
    if not items:
        raise lw.fail(f"{what}[] of nothing", e, kind=CompileError)
    from .dispatch import emit_call  # noqa: PLC0415  (dispatch imports lowering)

    return emit_call(lw, Op.CONCATENATE, [items], {"axis": -1 if columns else 0}, e, what)


def interleaved_einsum(lw: Any, args: list[Any], e: cst.CSTNode) -> list[Any]:
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``einsum('ab,bc->ac', a, b)``."""
    out = args[-1] if len(args) % 2 == 1 else None
    pairs = args[:-1] if out is not None else args
    operands, sublists = pairs[0::2], pairs[1::2]
    if not operands:
        raise lw.fail("einsum's interleaved form needs one subscript list per operand", e,
                      kind=CompileError)
    letters = string.ascii_letters

    def spell(sub: Any) -> str:
        if not isinstance(sub, (list, tuple)):
            raise lw.fail("einsum's subscript lists must be lists known when compiling", e,
                          kind=CompileError)
        text = ""
        for s in sub:
            if s is Ellipsis:
                text += "..."
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and \
                    0 <= s < len(letters):
                text += letters[s]
            else:
                raise lw.fail(f"einsum subscript {s!r} must be an integer in [0, 52)", e,
                              kind=CompileError)
        return text

    subscripts = ",".join(spell(s) for s in sublists)
    if out is not None:
        subscripts += "->" + spell(out)
    return [subscripts, *operands]
