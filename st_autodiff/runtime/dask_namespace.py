"""The namespace generated code runs on for Dask arrays: ``dask.array``, then NumPy.

Generated code calls its ``xp`` global as it would call NumPy.  For Dask inputs ``xp`` is
``dask.array`` first: its functions build lazy graphs (``numpy.asarray`` of a Dask array
would compute it).  A function ``dask.array`` lacks (``split``, ``take_along_axis``, some
of ``linalg``) falls back to NumPy's, which hands Dask arrays to Dask's
``__array_function__``: Dask then computes its inputs and says so in a ``FutureWarning``.
The result is right either way; only these functions are not lazy.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

import numpy as np


class FallbackNamespace(types.ModuleType):
    """Attributes of ``first``, else of ``second``; submodules both have are merged too."""

    def __init__(self, first: Any, second: Any) -> None:
        super().__init__(first.__name__)
        self._first = first
        self._second = second

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        got = getattr(self._first, name, None)
        other = getattr(self._second, name, None)
        if got is None:
            if other is None:
                raise AttributeError(f"neither {self._first.__name__} nor "
                                     f"{self._second.__name__} has {name!r}")
            got = other
        elif isinstance(got, types.ModuleType) and isinstance(other, types.ModuleType):
            got = FallbackNamespace(got, other)
        setattr(self, name, got)  # (once: later reads are plain attribute reads)
        return got


_DASK: FallbackNamespace | None = None


def dask_namespace() -> FallbackNamespace:
    """``dask.array`` with NumPy behind it (one shared instance)."""
    global _DASK
    if _DASK is None:
        _DASK = FallbackNamespace(importlib.import_module("dask.array"), np)
    return _DASK
