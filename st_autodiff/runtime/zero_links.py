"""Double-backward links with a zero derivative, as PyTorch records them.

PyTorch's backward of ``relu``, ``leaky_relu`` and ``hardtanh`` is a function of the
saved input or result (``threshold_backward(grad, result, 0)`` ...), differentiable with a
zero derivative there.  So under ``create_graph=True`` the gradient they give requires grad
even when the incoming gradient does not (``ThresholdBackwardBackward0`` ...), and a second
``autograd.grad`` returns zeros.  The table's rules select the gradient with a mask, which
leaves no edge to the input; ``linked`` adds PyTorch's node (edges: the incoming gradient,
the saved tensor; zero gradient to the saved tensor) in exactly that case.  Only the
``create_graph`` path (``ops.tensors``) pays for the check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .function import TensorBase, node_class
from .grad_mode import STATE
from .tensor_ops import record


def _rule_zero_link(ops: Any, gg: Any, out: Any, g: Any, saved: Any) -> tuple[Any, ...]:
    """The incoming gradient did not require grad; the saved tensor gets zeros."""
    return None, ops.zeros_like(saved)


_CLASSES: dict[str, type[Any]] = {}


def linked(rule: Callable[..., tuple[Any, ...]], name: str,
           saved_is_result: bool = False) -> Callable[..., tuple[Any, ...]]:
    """``rule`` whose first gradient, when made by a ``create_graph`` backward from an
    incoming gradient that does not require grad, is linked to the saved input (or the
    result) through a zero-derivative node named ``name``."""
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES[name] = node_class(name, _rule_zero_link, (0, 1), (), False)

    def rule_linked(ops: Any, g: Any, out: Any, x: Any, *rest: Any, **kw: Any) -> tuple[Any, ...]:
        grads = rule(ops, g, out, x, *rest, **kw)
        if not ops.tensors or not STATE.enabled:
            return grads
        saved = out if saved_is_result else x
        gx = grads[0]
        if (isinstance(gx, TensorBase) and not gx._requires_grad
                and isinstance(saved, TensorBase) and saved._requires_grad
                and isinstance(g, TensorBase) and not g._requires_grad):
            gx = record(cls, gx._data, (g, saved), {})
            return (gx,) + tuple(grads[1:])
        return grads

    rule_linked.__name__ = rule_linked.__qualname__ = getattr(rule, "__name__", "rule")
    return rule_linked
