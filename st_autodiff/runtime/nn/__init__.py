"""Neural-network building blocks for the eager runtime, spelled like ``torch.nn``.

``Parameter`` and ``Module`` (``module.py``; loading state in ``state.py``), layers
(``layers.py``), containers (``containers.py``), losses (``loss.py``), the functional
forms (``functional.py``, whose fused graph nodes live in ``nodes.py``) and ``init``.
The public face is ``st_autodiff.nn``.
"""

from __future__ import annotations

from . import functional, init
from .containers import ModuleList, Sequential
from .layers import Dropout, Identity, Linear, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss
from .module import Module
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleList", "Parameter", "ReLU", "Sequential",
    "Sigmoid", "Softmax", "Tanh", "functional", "init",
]

# conv (issue 12): convolution, pooling and batch normalisation layers.
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv1d, Conv2d
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)

__all__ += [  # conv (issue 12)
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "MaxPool1d",
    "MaxPool2d",
]
