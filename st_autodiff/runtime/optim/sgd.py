"""``SGD``: stochastic gradient descent with optional momentum, dampening, weight decay and
Nesterov momentum, with PyTorch's update equations.

For a parameter ``p`` with gradient ``g`` (negated first when ``maximize``)::

    g = g + weight_decay * p                       # when weight_decay != 0
    b = g            (first step)                  # when momentum != 0
    b = momentum * b + (1 - dampening) * g         (later steps)
    g = g + momentum * b  if nesterov  else  b
    p = p - lr * g

The buffer ``b`` is kept in ``state[p]['momentum_buffer']``.  Each ``x + c * y`` is one fused
multiply-add and ``momentum * b`` a separate product, as in PyTorch's CPU kernels, so float32
steps are bit-identical to PyTorch's default (single-tensor) implementation.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import rounding as r
from .optimizer import Optimizer, array_of, copy_buffer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (see the module docstring for the update).

    >>> import st_autodiff as torch
    >>> w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Any, group: dict[str, Any]) -> None:
        data = array_of(p)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = r.add(grad, data, group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = copy_buffer(grad)
                b = array_of(buf)
            else:
                b = array_of(buf)
                b[...] = r.add(r.mul(b, momentum), grad, 1 - group["dampening"])
            grad = r.add(grad, b, momentum) if group["nesterov"] else b
        data[...] = r.add(data, grad, -group["lr"])
