"""Node classes of the everyday ops with a cheaper backward for the common case.

Most nodes a program records are small elementwise ops, transposes and ``addmm``s over
NumPy arrays, and for arrays of a few hundred numbers the generic ``RuleNode.backward``
(saved-value checks, the rule called through the shared table with its keyword
parameters, a shape and dtype fit per edge) costs more than the arithmetic.  Each factory
here subclasses a runtime node class (same name, same saved values, same ``_saved_*``
attributes) and overrides only ``backward`` for the common case: NumPy arrays, a gradient
of the inputs' shape and dtype, no ``create_graph``.  It evaluates the same expression as
the shared rule in the same order, so the gradients are bit for bit those of the generic
path, which every other case (freed graph, in-place modified input, Tensor gradients,
broadcasting) still takes.  It also skips the products of an input that needs no
gradient (``x * 2.0`` computes no gradient for the ``2.0``), as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .function import RuleNode, TensorBase

__all__ = ["addmm_class", "binary_class", "transpose_class", "unary_class", "versions_ok"]


def versions_ok(saved: tuple[Any, ...]) -> bool:
    """Whether no saved tensor was modified in place since it was saved."""
    for _tensor, counter, version in saved:
        if counter[0] != version:
            return False
    return True


def _subclass(base: type[RuleNode], backward: Callable[..., Any]) -> type:
    """``base`` under its own name with ``backward`` replaced."""
    return type(base.__name__, (base,), {"__slots__": (), "backward": backward,
                                          "__module__": base.__module__,
                                          "__qualname__": base.__qualname__})


def _add_grads(g: Any, y: Any, x: Any, nx: bool, ny: bool) -> list[Any]:
    return [g if nx else None, g if ny else None]


def _sub_grads(g: Any, y: Any, x: Any, nx: bool, ny: bool) -> list[Any]:
    return [g if nx else None, -g if ny else None]


def _mul_grads(g: Any, y: Any, x: Any, nx: bool, ny: bool) -> list[Any]:
    return [g * y if nx else None, g * x if ny else None]


_BINARY = {"add": _add_grads, "sub": _sub_grads, "mul": _mul_grads}


def binary_class(base: type[RuleNode], kind: str) -> type:
    """``base`` (the ``add``/``sub``/``mul`` node of ``functional``: a Tensor and a Tensor
    or Python number) with a backward for same-shaped NumPy operands of one dtype; a
    number's gradient is never needed.  The table's rules: ``(g, g)``, ``(g, -g)``,
    ``(g * y, g * x)``."""
    slow = base.backward
    grads_of = _BINARY[kind]

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        saved = self._saved
        g = grads[0]
        if ops.tensors or saved is None or type(g) is not np.ndarray:
            return slow(self, grads, ops)
        for _tensor, counter, version in saved:  # ``versions_ok``, inlined
            if counter[0] != version:
                return slow(self, grads, ops)
        x, y = self._args
        if not isinstance(x, TensorBase):
            return slow(self, grads, ops)
        xd = x._data
        dt = g.dtype
        (fx, _), (fy, _) = self.next_functions
        if isinstance(y, TensorBase):
            yd = y._data
            if (g.shape != xd.shape or g.shape != yd.shape or dt != xd.dtype
                    or dt != yd.dtype):
                return slow(self, grads, ops)
        else:
            yd = y
            if fy is not None or g.shape != xd.shape or dt != xd.dtype:
                return slow(self, grads, ops)
        out = grads_of(g, yd, xd, fx is not None, fy is not None)
        gx = out[0]
        if gx is not None and gx.dtype != dt:  # ``fit``'s cast (a NumPy scalar factor)
            out[0] = gx.astype(dt)
        return out

    return _subclass(base, backward)


def unary_class(base: type[RuleNode]) -> type:
    """``base`` (an elementwise op of one Tensor, ``rule(ops, g, out, x) -> (gx,)``) with a
    backward that calls the rule directly for a NumPy gradient of the input's shape and
    dtype whose result keeps them (else the generic path fits it)."""
    slow = base.backward
    rule = base._rule

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        saved = self._saved
        g = grads[0]
        if (ops.tensors or saved is None or type(g) is not np.ndarray or self._params
                or (saved and not versions_ok(saved))):
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        x = self._args[0]._data
        if type(x) is not np.ndarray or g.shape != x.shape or g.dtype != x.dtype:
            return slow(self, grads, ops)
        gx = rule(ops, g, self._out, x)[0]
        if type(gx) is not np.ndarray or gx.shape != x.shape or gx.dtype != x.dtype:
            return slow(self, grads, ops)
        return [gx]

    return _subclass(base, backward)


def addmm_class(base: type[RuleNode]) -> type:
    """``base`` (``AddmmBackward0``) with a backward for NumPy arrays: the bias gradient
    summed over rows as ``fit`` sums it, ``g @ mat2.T`` and ``mat1.T @ g`` as the rule."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        saved = self._saved
        if ops.tensors or saved is None or (saved and not versions_ok(saved)):
            return slow(self, grads, ops)
        g = grads[0]
        bias, m1, m2 = self._args
        a1, a2, bd = m1._data, m2._data, bias._data
        if (type(g) is not np.ndarray or g.dtype != a1.dtype or g.dtype != a2.dtype
                or g.dtype != bd.dtype or g.shape != (a1.shape[0], a2.shape[1])
                or bd.shape != (g.shape[1],)):
            return slow(self, grads, ops)
        (fb, _), (f1, _), (f2, _) = self.next_functions
        params = self._params
        # (``np.add.reduce`` over axis 0 is ``fit``'s ``sum(axis=(0,), keepdims=True)``
        # reduction without its wrapper: the same bits)
        return [np.add.reduce(g, axis=0) if fb is not None else None,
                g @ a2.T if f1 is not None and params["need1"] else None,
                a1.T @ g if f2 is not None and params["need2"] else None]

    return _subclass(base, backward)


def transpose_class(base: type[RuleNode]) -> type:
    """``base`` (``TBackward0`` of a matrix) with a backward that transposes a NumPy gradient
    directly, as the rule's ``ops.transpose(g)`` does (a view; no arithmetic)."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        if ops.tensors or self._saved is None or type(g) is not np.ndarray:
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        x = self._args[0]._data
        if g.ndim != 2 or g.dtype != x.dtype or g.shape[::-1] != x.shape:
            return slow(self, grads, ops)
        return [g.T]  # ``np.transpose(g)``: the same view

    return _subclass(base, backward)


# --- part "speed2" (issue 12): select and mse_loss nodes ----------------------------------
def select_class(base: type[RuleNode]) -> type:
    """``base`` (``SelectBackward0``: ``x[..., i]`` along one dim) with a backward for NumPy
    arrays: zeros of the input's shape with the gradient added at the index, as the table's
    ``getitem`` rule does (``zeros[index] += g``), without its generic index handling."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        if ops.tensors or self._saved is None or type(g) is not np.ndarray:
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        x = self._args[0]._data
        index = self._params["index"]  # (full slices) * dim + (i,)
        d = len(index) - 1
        i = index[-1]
        shape = x.shape
        if (type(x) is not np.ndarray or type(i) is not int or g.dtype != x.dtype
                or g.shape != shape[:d] + shape[d + 1:]):
            return slow(self, grads, ops)
        z = np.zeros(shape, g.dtype)
        z[(slice(None),) * d + (i,)] += g
        return [z]

    return _subclass(base, backward)


def mse_class(base: type[RuleNode]) -> type:
    """``base`` (``MseLossBackward0``) with a backward for same-shaped NumPy operands: the
    rule's ``(x - t) * scale * g`` and its negation, the latter only where the target needs
    a gradient."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        saved = self._saved
        if ops.tensors or not saved or type(g) is not np.ndarray or not versions_ok(saved):
            return slow(self, grads, ops)
        x, t = self._args
        xd, td = x._data, t._data
        dt = xd.dtype
        if (type(xd) is not np.ndarray or type(td) is not np.ndarray or xd.shape != td.shape
                or td.dtype != dt or g.dtype != dt):
            return slow(self, grads, ops)
        reduction = self._params.get("reduction", 1)
        if reduction == 1:  # mean
            scale = 2.0 / xd.size
        elif reduction == 2 or (reduction == 0 and g.shape == xd.shape):  # sum, none
            scale = 2.0
        else:
            return slow(self, grads, ops)
        if reduction and g.shape != ():
            return slow(self, grads, ops)
        gx = (xd - td) * scale * g
        if type(gx) is not np.ndarray or gx.dtype != dt or gx.shape != xd.shape:
            return slow(self, grads, ops)
        (fx, _), (ft, _) = self.next_functions
        return [gx if fx is not None else None, -gx if ft is not None else None]

    return _subclass(base, backward)


def log_softmax_class(base: type[RuleNode]) -> type:
    """``base`` (``LogSoftmaxBackward0``) with a backward for NumPy arrays: the rule's
    ``g - exp(out) * sum(g, axis, keepdims=True)`` called directly."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        saved = self._saved
        if ops.tensors or not saved or type(g) is not np.ndarray or not versions_ok(saved):
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        out = self._out
        x = self._args[0]._data
        axis = self._params["axis"]
        if (axis is None or type(out) is not np.ndarray or type(x) is not np.ndarray
                or g.shape != out.shape or g.shape != x.shape or g.dtype != out.dtype
                or g.dtype != x.dtype):
            return slow(self, grads, ops)
        return [g - np.exp(out) * np.sum(g, axis=axis, keepdims=True)]

    return _subclass(base, backward)


def mm_class(base: type[RuleNode]) -> type:
    """``base`` (``MmBackward0``, two matrices) with a backward for NumPy arrays: the
    rule's ``g @ y^T`` and ``x^T @ g`` (the transposes as views, as ``swapaxes`` makes
    them), each only where its input needs a gradient."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        saved = self._saved
        if (ops.tensors or saved is None or type(g) is not np.ndarray
                or (saved and not versions_ok(saved))):
            return slow(self, grads, ops)
        x, y = self._args
        xd, yd = x._data, y._data
        dt = g.dtype
        if (type(xd) is not np.ndarray or type(yd) is not np.ndarray or xd.ndim != 2
                or yd.ndim != 2 or xd.dtype != dt or yd.dtype != dt
                or g.shape != (xd.shape[0], yd.shape[1])):
            return slow(self, grads, ops)
        (fx, _), (fy, _) = self.next_functions
        live = self._params.get("live")
        return [g @ yd.T if fx is not None and live != 1 else None,
                xd.T @ g if fy is not None and live != 0 else None]

    return _subclass(base, backward)


def reshape_class(base: type[RuleNode]) -> type:
    """``base`` (``ViewBackward0``, ``UnsafeViewBackward0``, ``SqueezeBackward*``: a reshape
    of the input) with a backward that reshapes a NumPy gradient directly, as the rule does
    (``g.reshape(x.shape)``; no arithmetic)."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        g = grads[0]
        if ops.tensors or self._saved is None or type(g) is not np.ndarray:
            return slow(self, grads, ops)
        if self.next_functions[0][0] is None:
            return [None]
        x = self._args[0]._data
        if type(x) is not np.ndarray or g.dtype != x.dtype or g.size != x.size:
            return slow(self, grads, ops)
        return [g.reshape(x.shape)]

    return _subclass(base, backward)
