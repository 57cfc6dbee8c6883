"""``st_autodiff.autograd``: PyTorch's ``torch.autograd`` for the eager runtime.

``backward(tensors, grad_tensors)`` accumulates gradients into the leaves' ``.grad``
(``t.backward()`` is ``backward(t)``); ``grad(outputs, inputs)`` returns them instead.
``Function`` defines an op by its forward and backward, as ``torch.autograd.Function``.

>>> import st_autodiff as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> torch.autograd.grad(x ** 3, x)
(tensor(12.),)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .runtime import grad_mode
from .runtime.engine import backward as _backward
from .runtime.engine import grad as _grad
from .runtime.function import Node, TensorBase, next_seq
from .runtime.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from .runtime.tensor import Tensor, edge_of, make, plain

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "enable_grad", "grad", "inference_mode",
    "no_grad", "set_grad_enabled",
]


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None,
             inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of graph leaves.

    ``grad_tensors`` holds one gradient per tensor (``None`` for a one-element tensor);
    ``grad_variables`` is its old name.  ``inputs`` limits accumulation to those tensors.
    """
    if grad_tensors is None:
        grad_tensors = grad_variables
    if grad_tensors is not None and isinstance(grad_tensors, TensorBase):
        grad_tensors = (grad_tensors,)
    _backward(tensors, grad_tensors, retain_graph, create_graph, inputs=inputs)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to each of ``inputs`` (a tuple).

    ``.grad`` fields are not touched.  With ``create_graph=True`` the results are
    themselves differentiable.  An input the outputs do not depend on is an error unless
    ``allow_unused=True`` (its gradient is then ``None``, or zeros with
    ``materialize_grads=True``).
    """
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                 materialize_grads)


def Variable(data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:  # noqa: N802
    """The pre-0.4 wrapper: today simply the tensor (with ``requires_grad`` set)."""
    if requires_grad:
        data.requires_grad_(True)
    return data


class FunctionCtx:
    """The ``ctx`` of a custom ``Function``: what forward leaves for backward."""

    def __init__(self) -> None:
        self.saved_tensors: tuple = ()
        self.needs_input_grad: tuple = ()
        self.materialize_grads = True
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self.saved_tensors = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class _FunctionNode(Node):
    """The graph node of one ``Function.apply`` call; its backward is the user's."""

    __slots__ = ("_fn", "_ctx", "_outs")

    def __init__(self, fn: type, ctx: FunctionCtx, tensor_args: Sequence[Any], nout: int) -> None:
        self._fn = fn
        self._ctx = ctx
        self._outs = nout
        self.next_functions = tuple(edge_of(a) if isinstance(a, TensorBase) else (None, 0)
                                    for a in tensor_args)
        self._seq = next_seq()
        self._hooks = None

    @property
    def _nout(self) -> int:  # type: ignore[override]
        return self._outs

    def backward(self, grads: list, ops: Any) -> list:
        wrapped = [g if ops.tensors or g is None else plain(g) for g in grads]
        with grad_mode.set_grad_enabled(ops.tensors):
            result = self._fn.backward(self._ctx, *wrapped)
        if not isinstance(result, tuple):
            result = (result,)
        out = []
        for (fn, _), g in zip(self.next_functions, result, strict=False):
            if fn is None or g is None:
                out.append(None)
            else:
                out.append(g if ops.tensors else g._data)
        return out + [None] * (len(self.next_functions) - len(out))


_NODE_CLASSES: dict[type, type] = {}


class Function:
    """Define a differentiable op by ``forward(ctx, *args)`` and ``backward(ctx, *grads)``.

    ``backward`` returns one gradient (or ``None``) per argument of ``forward``.
    Call the op with ``MyFunction.apply(*args)``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, TensorBase) and a._requires_grad
                                     for a in args)
        with no_grad():
            out = cls.forward(ctx, *args)
        record = grad_mode.STATE.enabled and any(ctx.needs_input_grad)
        outs = out if isinstance(out, tuple) else (out,)
        if not record:
            return out
        node_cls = _NODE_CLASSES.get(cls)
        if node_cls is None:
            node_cls = type(f"{cls.__name__}Backward", (_FunctionNode,), {"__slots__": ()})
            _NODE_CLASSES[cls] = node_cls
        node = node_cls(cls, ctx, args, len(outs))
        wrapped = tuple(make(o._data, node, i) if isinstance(o, TensorBase) else o
                        for i, o in enumerate(outs))
        return wrapped if isinstance(out, tuple) else wrapped[0]



# --- part "autograd" (issue 12): functional, gradcheck, profiler -------------------------
import sys as _sys  # noqa: E402

from .runtime import autograd_functional as functional  # noqa: E402
from .runtime.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402

_sys.modules[__name__ + ".functional"] = functional  # ``import torch.autograd.functional``
__all__ += ["GradcheckError", "functional", "gradcheck", "gradgradcheck"]
