"""Deterministic optimizer and scheduler runs shared by ``test_optim_more.py`` (stored
PyTorch 2.13 results) and ``test_optim_torch.py`` (live PyTorch).

Parameters and gradients are built with exactly rounded float32 arithmetic only (integer
patterns, products, sums), so every machine feeds the optimizers the same bits.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

OPTIMIZER_RUNS: dict[str, tuple[str, dict[str, Any], int]] = {
    "sgd one step": ("SGD", dict(lr=0.0123), 1),
    "sgd nesterov": ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.01), 30),
    "sgd dampening maximize": ("SGD", dict(lr=0.03, momentum=0.5, dampening=0.3, maximize=True,
                                           weight_decay=0.1), 30),
    "adam": ("Adam", dict(lr=0.01), 200),
    "adam amsgrad l2": ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1,
                                     betas=(0.8, 0.95)), 200),
    "adamw": ("AdamW", dict(lr=0.01), 200),
    "adamw maximize": ("AdamW", dict(lr=0.003, maximize=True, eps=1e-3, amsgrad=True), 200),
    "rmsprop": ("RMSprop", dict(lr=0.001), 200),
    "rmsprop centered momentum": ("RMSprop", dict(lr=0.001, alpha=0.9, centered=True,
                                                  momentum=0.9, weight_decay=0.01), 200),
    "adagrad": ("Adagrad", dict(lr=0.05), 200),
    "adagrad decay": ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1,
                                      weight_decay=0.01, maximize=True), 200),
}


def start_values(n: int) -> np.ndarray:
    """A float32 vector with values spread over (-4, 4) (an integer pattern, scaled)."""
    j = np.arange(n, dtype=np.int64)
    return (((j * 7919) % 2003 - 1001) / np.float32(256.0)).astype(np.float32)


def gradient(p: np.ndarray, k: int) -> np.ndarray:
    """Step ``k``'s gradient: ``a_k * p + b_k * noise``, all float32 operations."""
    j = np.arange(p.size, dtype=np.int64)
    noise = (((j * 104729 + 31 * k) % 1009 - 504) / np.float32(512.0)).astype(np.float32)
    a = np.float32(0.5 + 0.25 * (k % 5))
    b = np.float32(1.0 / (k + 1))
    return p * a + noise * b


def run_optimizer(lib: Any, name: str, settings: dict[str, Any], steps: int,
                  n: int) -> np.ndarray:
    """The float32 parameter after ``steps`` steps of ``lib.optim.<name>``."""
    p = lib.nn.Parameter(lib.tensor(start_values(n)))
    opt = getattr(lib.optim, name)([p], **settings)
    for k in range(steps):
        p.grad = lib.tensor(gradient(p.detach().numpy(), k))
        opt.step()
    return p.detach().numpy().copy()


def digest(values: np.ndarray) -> str:
    """A short fingerprint of an array's bytes."""
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


SCHEDULES: dict[str, Any] = {
    "StepLR": lambda S, o: S.StepLR(o, 7, gamma=0.3),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, [5, 20, 20, 60], gamma=0.7),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, 0.97),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 17, eta_min=0.001),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda e: 0.95**e),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.99),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=30),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.3, total_iters=10),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=50, power=1.7),
    "OneCycleLR cos": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=100),
    "OneCycleLR linear three_phase": lambda S, o: S.OneCycleLR(
        o, max_lr=0.5, total_steps=100, anneal_strategy="linear", three_phase=True),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=10), S.CosineAnnealingLR(o, 40),
            S.ExponentialLR(o, 0.9)], milestones=[10, 50]),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=4), S.ExponentialLR(o, 0.9)]),
    "ReduceLROnPlateau": lambda S, o: S.ReduceLROnPlateau(o, patience=2),
    "ReduceLROnPlateau max abs": lambda S, o: S.ReduceLROnPlateau(
        o, mode="max", factor=0.5, patience=1, threshold=0.01, threshold_mode="abs",
        cooldown=2, min_lr=[0.01, 0.05]),
}


def plateau_metric(k: int) -> float:
    """A metric that improves now and then, so that plateaus come and go."""
    return [5, 4, 4, 4, 4, 3.9999, 4, 4, 4, 4, 4, 4][k % 12] + (k // 12) * 0.001


def run_schedule(lib: Any, name: str, optimizer: str = "SGD",
                 steps: int = 100) -> list[list[float]]:
    """Each step's rates (and momentum or beta1) of a two-group optimizer."""
    ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(2)]
    settings = dict(momentum=0.9) if optimizer == "SGD" else {}
    opt = getattr(lib.optim, optimizer)(
        [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)], **settings)
    scheduler = SCHEDULES[name](lib.optim.lr_scheduler, opt)
    out = [list(scheduler.get_last_lr())]
    for k in range(steps):
        opt.step()
        if name.startswith("ReduceLROnPlateau"):
            scheduler.step(plateau_metric(k))
        else:
            scheduler.step()
        momenta = [g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups]
        out.append(list(scheduler.get_last_lr()) + momenta)
    return out
