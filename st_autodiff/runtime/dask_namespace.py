"""The namespace generated code runs on for Dask arrays: ``dask.array``, then NumPy.

Generated code calls its ``xp`` global as it would call NumPy.  For Dask inputs ``xp`` is
this namespace: its functions are ``dask.array``'s, which build lazy graphs
(``numpy.asarray`` of a Dask array would compute it) and make buffers (``zeros``) that
lazy values can be written into.  Where one of them fails on arguments that hold no Dask
array (``da.reshape`` of the Python float seed ``out_bar``), NumPy's runs instead.

A function ``dask.array`` lacks (``split``, ``take_along_axis``, some of ``linalg``) is
NumPy's in every case: NumPy hands Dask arrays to Dask's ``__array_function__``, which
computes them and says so in a ``FutureWarning``.  The result is right either way; only
those functions are not lazy.
"""

from __future__ import annotations

import functools
import importlib
import types
from collections.abc import Callable
from typing import Any

import numpy as np


def _holds_dask(values: Any) -> bool:
    for v in values:
        if hasattr(type(v), "__dask_graph__"):
            return True
        if isinstance(v, (list, tuple)) and _holds_dask(v):
            return True
    return False


def _dispatch(lazy: Callable[..., Any], eager: Callable[..., Any]) -> Callable[..., Any]:
    """``lazy``; where it fails on arguments that hold no Dask array (``da.reshape`` of a
    Python float), ``eager``."""
    @functools.wraps(eager)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return lazy(*args, **kwargs)
        except (TypeError, AttributeError, ValueError, NotImplementedError):
            if _holds_dask(args) or _holds_dask(kwargs.values()):
                raise
            return eager(*args, **kwargs)

    return call


class FallbackNamespace(types.ModuleType):
    """Functions of ``lazy``, falling back to ``eager``'s on arguments ``lazy`` refuses
    (``_dispatch``); other attributes (dtypes, constants) and functions ``lazy`` lacks
    are ``eager``'s; submodules both have are merged the same way."""

    def __init__(self, lazy: Any, eager: Any) -> None:
        super().__init__(lazy.__name__)
        self._lazy = lazy
        self._eager = eager

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        lazy = getattr(self._lazy, name, None)
        eager = getattr(self._eager, name, None)
        if eager is None:
            if lazy is None:
                raise AttributeError(f"neither {self._lazy.__name__} nor "
                                     f"{self._eager.__name__} has {name!r}")
            got = lazy
        elif lazy is None:
            got = eager
        elif isinstance(lazy, types.ModuleType) and isinstance(eager, types.ModuleType):
            got = FallbackNamespace(lazy, eager)
        elif callable(lazy) and callable(eager) and not isinstance(eager, type):
            got = _dispatch(lazy, eager)
        else:
            got = eager  # a dtype, a constant
        setattr(self, name, got)  # (once: later reads are plain attribute reads)
        return got


_DASK: FallbackNamespace | None = None


def dask_namespace() -> FallbackNamespace:
    """``dask.array`` with NumPy for eager arguments and what Dask lacks (one instance)."""
    global _DASK
    if _DASK is None:
        _DASK = FallbackNamespace(importlib.import_module("dask.array"), np)
    return _DASK
