"""``RMSprop``: divide the gradient by a running root mean square, with PyTorch's update.

For a parameter ``p`` with gradient ``g`` (negated first when ``maximize``)::

    g = g + weight_decay * p                 # when weight_decay != 0
    v = alpha * v + (1 - alpha) * g * g      # state 'square_avg'
    a = sqrt(v) + eps                        # not centered
    m = lerp(m, g, 1 - alpha)                # centered: state 'grad_avg', and
    a = sqrt(v - m * m) + eps                #   the variance replaces v
    b = momentum * b + g / a;  p = p - lr * b     # momentum > 0: state 'momentum_buffer'
    p = p - lr * g / a                            # otherwise

Array arithmetic rounds like PyTorch's CPU kernels (``rounding``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, plain
from . import rounding as r
from .optimizer import Optimizer, array_of, new_buffer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """The RMSprop optimizer (see the module docstring for the update)."""

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        for value, what in ((lr, "learning rate"), (eps, "epsilon value"),
                            (momentum, "momentum value"), (weight_decay, "weight_decay value"),
                            (alpha, "alpha value")):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {what}: {value}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Any, group: dict[str, Any]) -> None:
        data = array_of(p)
        state = self.state[p]
        if not state:
            state["step"] = plain(np.array(0.0, dtype=np.float32))
            state["square_avg"] = new_buffer(data)
            if group["momentum"] > 0:
                state["momentum_buffer"] = new_buffer(data)
            if group["centered"]:
                state["grad_avg"] = new_buffer(data)
        if group["maximize"]:
            grad = -grad
        array_of(state["step"])[...] += 1
        if group["weight_decay"] != 0:
            grad = r.add(grad, data, group["weight_decay"])
        alpha = group["alpha"]
        square_avg = array_of(state["square_avg"])
        square_avg[...] = r.addcmul(r.mul(square_avg, alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = array_of(state["grad_avg"])
            grad_avg[...] = r.lerp(grad_avg, grad, 1 - alpha)
            avg = r.sqrt(r.addcmul(square_avg, grad_avg, grad_avg, -1))
        else:
            avg = r.sqrt(square_avg)
        avg = avg + r.scalar(group["eps"], avg)
        if group["momentum"] > 0:
            buf = array_of(state["momentum_buffer"])
            buf[...] = r.addcdiv(r.mul(buf, group["momentum"]), grad, avg)
            data[...] = r.add(data, buf, -group["lr"])
        else:
            data[...] = r.addcdiv(data, grad, avg, -group["lr"])
