"""``st_autodiff.optim.lr_scheduler``: the public face of ``runtime/optim/lr_scheduler``."""

from __future__ import annotations

from ..runtime.optim.lr_scheduler import *  # noqa: F403
from ..runtime.optim.lr_scheduler import LRScheduler, __all__  # noqa: F401

_LRScheduler = LRScheduler
