"""``st_autodiff.utils``: spelled like ``torch.utils`` (``utils.data`` for now)."""

from __future__ import annotations

from . import data

__all__ = ["data"]
