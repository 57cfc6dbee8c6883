"""The array backend: NumPy by default, CuPy when the inputs live on a GPU.

Only this module imports CuPy, and only when a CuPy array is seen or asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


def namespace_for(*values: Any) -> Any:
    """The array module of the values: ``cupy`` if any is a CuPy array, else ``numpy``."""
    for v in values:
        if type(v).__module__.startswith("cupy"):
            return importlib.import_module("cupy")
        # [dask part, issue 15] Dask arrays: dask.array, then NumPy (dask_namespace.py)
        if type(v).__module__.startswith("dask."):
            from .dask_namespace import dask_namespace  # noqa: PLC0415
            return dask_namespace()
    return np


def get_backend(name: str) -> Any:
    """``numpy`` or ``cupy`` by name (``cuda``/``gpu`` mean CuPy)."""
    if name in ("numpy", "cpu"):
        return np
    if name in ("cupy", "cuda", "gpu"):
        try:
            return importlib.import_module("cupy")
        except ImportError as exc:
            raise RuntimeError("the CuPy backend needs cupy: pip install "
                               "'st-autodiff[cuda12]' (or [cuda13])") from exc
    raise ValueError(f"unknown backend {name!r}; use 'numpy' or 'cupy'")


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        cupy = importlib.import_module("cupy")
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # any failure (no module, no driver, no device) means no GPU
        return False
