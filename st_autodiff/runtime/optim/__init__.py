"""Optimizers for the eager runtime, spelled like ``torch.optim``: ``SGD``, ``Adam``,
``AdamW``, ``RMSprop``, ``Adagrad``, ``LBFGS``, and the schedules of ``lr_scheduler``."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop", "lr_scheduler"]
