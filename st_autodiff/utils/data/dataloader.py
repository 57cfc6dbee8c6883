"""``torch.utils.data.dataloader``: the loader and its helpers, for code importing them
from here."""

from __future__ import annotations

from ...runtime.data import DataLoader, default_collate, default_convert, get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]
