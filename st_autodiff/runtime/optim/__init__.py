"""Optimizers for the eager runtime, spelled like ``torch.optim``: ``SGD`` and ``Adam``."""

from __future__ import annotations

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
