"""``Adagrad``: per-element step sizes shrinking with the accumulated squared gradients.

For a parameter ``p`` with gradient ``g`` (negated first when ``maximize``) at step
``t = 1, 2, ...``::

    g = g + weight_decay * p                 # when weight_decay != 0
    clr = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g                            # state 'sum', from initial_accumulator_value
    p = p - clr * g / (sqrt(s) + eps)

As in PyTorch the state (``step``, ``sum``) is created for every parameter when the
optimizer is built.  Array arithmetic rounds like PyTorch's CPU kernels (``rounding``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, plain
from . import rounding as r
from .optimizer import Optimizer, array_of

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """The Adagrad optimizer (see the module docstring for the update)."""

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        for value, what in ((lr, "learning rate"), (lr_decay, "lr_decay value"),
                            (weight_decay, "weight_decay value"),
                            (initial_accumulator_value, "initial_accumulator_value value"),
                            (eps, "epsilon value")):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {what}: {value}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Tensor) -> None:
        data = array_of(p)
        state = self.state[p]
        state["step"] = plain(np.array(0.0, dtype=np.float32))
        state["sum"] = plain(np.full_like(data, self.defaults["initial_accumulator_value"]))

    def _update(self, p: Tensor, grad: Any, group: dict[str, Any]) -> None:
        data = array_of(p)
        state = self.state[p]
        if not state:
            self._init_state(p)
        counter = array_of(state["step"])
        counter += 1
        step = float(counter)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = r.add(grad, data, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = array_of(state["sum"])
        total[...] = r.addcmul(total, grad, grad, 1)
        std = r.sqrt(total) + r.scalar(group["eps"], total)
        data[...] = r.addcdiv(data, grad, std, -clr)
