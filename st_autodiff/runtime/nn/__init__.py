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

# --- optim part (issue 12): torch.nn.utils (gradient clipping, parameter vectors) ---
from . import utils  # noqa: E402

__all__ += ["utils"]
