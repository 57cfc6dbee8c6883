"""``Adam`` and ``AdamW``: adaptive moment estimation, with PyTorch's update equations.

For a parameter ``p`` with gradient ``g`` (negated first when ``maximize``) at step
``t = 1, 2, ...``::

    g = g + weight_decay * p            # L2 penalty (or, decoupled as in AdamW,
                                        # p = p * (1 - lr * weight_decay))
    m = lerp(m, g, 1 - beta1)           # m + (1 - beta1) * (g - m)
    v = beta2 * v + (1 - beta2) * g * g
    v_hat = max(v_hat, v)               # amsgrad only; then v_hat replaces v below
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

``state[p]`` holds ``step`` (a float32 0-d tensor), ``exp_avg`` (m), ``exp_avg_sq`` (v)
and, with amsgrad, ``max_exp_avg_sq``.  The scalar factors are Python floats, the array
arithmetic rounds like PyTorch's CPU kernels (``rounding``), so float32 runs are
bit-identical to PyTorch's default single-tensor implementation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, plain
from . import rounding as r
from .optimizer import Optimizer, array_of, new_buffer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """The Adam optimizer (see the module docstring for the update)."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Any, group: dict[str, Any]) -> None:
        data = array_of(p)
        state = self.state[p]
        if not state:
            state["step"] = plain(np.array(0.0, dtype=np.float32))
            state["exp_avg"] = new_buffer(data)
            state["exp_avg_sq"] = new_buffer(data)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = new_buffer(data)
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        counter = array_of(state["step"])
        counter += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                data[...] = r.mul(data, 1 - lr * wd)
            else:
                grad = r.add(grad, data, wd)
        m = array_of(state["exp_avg"])
        m[...] = r.lerp(m, grad, 1 - beta1)
        v = array_of(state["exp_avg_sq"])
        v[...] = r.addcmul(r.mul(v, beta2), grad, grad, 1 - beta2)
        step = float(counter)
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if group["amsgrad"]:
            v_max = array_of(state["max_exp_avg_sq"])
            np.maximum(v_max, v, out=v_max)
            v = v_max
        denom = r.div(r.sqrt(v), bias_correction2_sqrt) + r.scalar(group["eps"], v)
        data[...] = r.addcdiv(data, m, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (``p = p * (1 - lr * weight_decay)`` before the
    update), default ``weight_decay=1e-2``."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
