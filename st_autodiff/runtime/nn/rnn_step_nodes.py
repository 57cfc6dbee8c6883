"""Node classes the bulk recurrent steps record: PyTorch's elementwise nodes, run cheaper.

An unrolled GRU or LSTM records a dozen small elementwise nodes per time step, and for
arrays of a few hundred numbers the generic ``RuleNode.backward`` (saved-value checks, the
rule called through the shared table, a shape and dtype fit per edge) costs more than the
arithmetic.  Each class here subclasses the runtime's own node class (same name, same saved
values, same ``_saved_*`` attributes) and overrides only ``backward`` for the common case:
arrays of one library (NumPy, or the device library through the arrays' namespace), a
gradient of the inputs' shape and dtype, no ``create_graph``.  It evaluates
the same expression as the shared rule (``g * out * (1 - out)`` for sigmoid ...) in the same
order, so the gradients are bit for bit those of the generic path, which every other case
(freed graph, in-place modified input, Tensor gradients, other shapes) still takes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, cast

import numpy as np

from .. import functional as RF
from ..device import xp_of
from ..fast_nodes import versions_ok
from ..function import RuleNode
from ..grad_mode import enable_grad
from ..tensor import plain

__all__ = ["step_classes"]


def _fits(g: Any, a: Any) -> bool:
    """Whether gradient ``g`` is an array of the type (NumPy's or the device library's),
    shape and dtype of array ``a``."""
    return type(g) is type(a) and g.shape == a.shape and g.dtype == a.dtype


def _binary(base: type[RuleNode],
            rule: Callable[[Any, Any, Any, bool, bool], list[Any]]) -> type[RuleNode]:
    """``base`` with a backward for two same-shaped inputs; ``rule(g, x, y, need_x, need_y)``."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> list[Any]:
        saved = self._saved
        g = grads[0]
        if ops.tensors or saved is None or (saved and not versions_ok(saved)):
            return slow(self, grads, ops)
        x, y = self._args
        xd, yd = x._data, y._data
        kind = type(g)
        if (kind is not type(xd) or kind is not type(yd) or g.shape != xd.shape
                or g.shape != yd.shape or g.dtype != xd.dtype or g.dtype != yd.dtype):
            return slow(self, grads, ops)
        (fx, _), (fy, _) = self.next_functions
        return rule(g, xd, yd, fx is not None, fy is not None)

    return cast("type[RuleNode]", type(base.__name__, (base,), {
        "__slots__": (), "backward": backward, "__module__": base.__module__,
        "__qualname__": base.__qualname__}))


def _unary(base: type[RuleNode], rule: Any) -> type[RuleNode]:
    """``base`` (which saves its result) with a backward ``rule(g, out)``."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> list[Any]:
        saved = self._saved
        g = grads[0]
        out = self._out
        if ops.tensors or not saved or not versions_ok(saved):
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        x = self._args[0]._data
        kind = type(g)
        if (kind is not type(out) or kind is not type(x) or g.shape != out.shape
                or g.shape != x.shape or g.dtype != out.dtype or g.dtype != x.dtype):
            return slow(self, grads, ops)
        return [rule(g, out)]

    return cast("type[RuleNode]", type(base.__name__, (base,), {
        "__slots__": (), "backward": backward, "__module__": base.__module__,
        "__qualname__": base.__qualname__}))


def _add(g: Any, x: Any, y: Any, nx: bool, ny: bool) -> list[Any]:
    return [g if nx else None, g if ny else None]


def _sub(g: Any, x: Any, y: Any, nx: bool, ny: bool) -> list[Any]:
    return [g if nx else None, -g if ny else None]


def _mul(g: Any, x: Any, y: Any, nx: bool, ny: bool) -> list[Any]:
    return [g * y if nx else None, g * x if ny else None]


@cache
def step_classes() -> dict[str, type[RuleNode]]:
    """The fast subclasses of the runtime's add/sub/mul/sigmoid/tanh node classes."""
    p = plain(np.ones(1))
    p._requires_grad = True  # (a leaf; made at import, before Tensor has its methods)
    with enable_grad():
        made = {"add": RF.add(p, p), "sub": RF.sub(p, p), "mul": RF.mul(p, p),
                "sigmoid": RF.sigmoid(p), "tanh": RF.tanh(p)}
    base = {name: cast("type[RuleNode]", type(t._grad_fn)) for name, t in made.items()}
    return {
        "add": _binary(base["add"], _add),
        "sub": _binary(base["sub"], _sub),
        "mul": _binary(base["mul"], _mul),
        # the shared rules' expressions, in their order (derivatives/__init__.py)
        "sigmoid": _unary(base["sigmoid"], lambda g, out: g * out * (1 - out)),
        "tanh": _unary(base["tanh"], lambda g, out: g * (1 - out * out)),
    }


def _joined(node: Any, grads: list[Any], ops: Any,
            slow: Callable[[Any, list[Any], Any], list[Any]], join: Any) -> list[Any]:
    """The input gradient of a node that split its input into ``node._out``: the pieces'
    gradients (arrays of the pieces' library) joined by ``join(full, xp)`` (a missing one is
    zeros, as ``fill_missing``), or the rule's own backward where that fast path does not
    apply."""
    pieces = node._out
    if ops.tensors or node._saved is None or pieces is None:
        return slow(node, grads, ops)
    if node.next_functions[0][0] is None:
        return [None]
    full = []
    xp = np if type(pieces[0]) is np.ndarray else xp_of(pieces[0])
    for g, o in zip(grads, pieces, strict=True):
        if g is None:
            g = xp.zeros_like(o)
        elif not _fits(g, o):
            return slow(node, grads, ops)
        full.append(g)
    return [join(full, xp)]


def split_class(base: type[RuleNode]) -> type[RuleNode]:
    """``base`` (a split node over dim 1 of a 2-d array) with a backward that concatenates
    array gradients directly (a missing piece's gradient is zeros, as ``fill_missing``)."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> list[Any]:
        return _joined(self, grads, ops, slow,
                       lambda full, xp: xp.concatenate(full, axis=1))

    return cast("type[RuleNode]", type(base.__name__, (base,), {
        "__slots__": (), "backward": backward, "__module__": base.__module__,
        "__qualname__": base.__qualname__}))


def unbind_class(base: type[RuleNode]) -> type[RuleNode]:
    """``base`` (``UnbindBackward0``) with a backward that stacks array gradients directly
    (what the rule's ``expand_dims`` and ``concatenate`` make; a missing one is zeros)."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> list[Any]:
        return _joined(self, grads, ops, slow,
                       lambda full, xp: xp.stack(full, axis=self._params["axis"]))

    return cast("type[RuleNode]", type(base.__name__, (base,), {
        "__slots__": (), "backward": backward, "__module__": base.__module__,
        "__qualname__": base.__qualname__}))
