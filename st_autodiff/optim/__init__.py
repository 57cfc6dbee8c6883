"""``st_autodiff.optim``: the public face of ``runtime/optim`` (spelled like ``torch.optim``)."""

from __future__ import annotations

from ..runtime.optim import LBFGS, SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from . import lr_scheduler

__all__ = ["LBFGS", "SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
