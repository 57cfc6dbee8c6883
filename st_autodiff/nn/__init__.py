"""``st_autodiff.nn``: the public face of ``runtime/nn`` (spelled like ``torch.nn``).

>>> import st_autodiff.nn as nn
>>> nn.Linear(3, 5)
Linear(in_features=3, out_features=5, bias=True)
"""

from __future__ import annotations

from ..runtime.nn import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Identity,
    L1Loss,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from . import functional, init

__all__ = [
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleList", "Parameter", "ReLU", "Sequential",
    "Sigmoid", "Softmax", "Tanh", "functional", "init",
]

# --- optim part (issue 12): torch.nn.utils ---
from . import utils  # noqa: E402

__all__ += ["utils"]
