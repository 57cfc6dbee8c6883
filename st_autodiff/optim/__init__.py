"""``st_autodiff.optim``: the public face of ``runtime/optim`` (spelled like ``torch.optim``)."""

from __future__ import annotations

from ..runtime.optim import SGD, Adam, Optimizer

__all__ = ["SGD", "Adam", "Optimizer"]
