"""Learning-rate schedules for the eager runtime, spelled like ``torch.optim.lr_scheduler``.

The base class and its step/warning machinery are in ``base.py``; epoch-rule schedules in
``simple.py``; ``OneCycleLR`` in ``onecycle.py``; ``ReduceLROnPlateau`` in ``plateau.py``;
``SequentialLR`` and ``ChainedScheduler`` in ``composite.py``.
"""

from __future__ import annotations

from .base import LRScheduler
from .composite import ChainedScheduler, SequentialLR
from .onecycle import OneCycleLR
from .plateau import ReduceLROnPlateau
from .simple import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)

_LRScheduler = LRScheduler

__all__ = [
    "ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "ExponentialLR", "LRScheduler",
    "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "PolynomialLR",
    "ReduceLROnPlateau", "SequentialLR", "StepLR",
]
