"""Where a tensor's data lives, for the eager runtime: the host (NumPy) or ``cuda``.

``cuda`` tensors hold CuPy arrays on a GPU, or, when ``ST_AUTODIFF_CUDA=standin`` is set
(or ``use_standin(True)`` was called), arrays of ``device_standin``: a CPU double that
refuses every silent host conversion as CuPy does, so the device paths run in CPU tests.

Every place in the runtime that must choose between NumPy and the device library asks
``xp_of(data)`` here instead of testing module names, and moves data only through
``to_device``/``to_host``: one place to change for another device library.  CuPy itself
is reached through ``backend.get_backend`` (the one module that imports it).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["SEEN", "add_at", "asarray", "ascontiguous", "copy", "cuda_available",
           "cuda_namespace", "is_device", "same_device", "sparse_grids", "standin_active",
           "to_device", "to_host", "use_standin", "xp_of", "zeros"]

_STATE = {"standin": os.environ.get("ST_AUTODIFF_CUDA", "").lower() == "standin"}

# ``SEEN[0]`` turns True the first time this process meets a device array (``is_device``
# answered yes).  Until then no graph can cross devices, so the backward engine skips its
# per-node choice of the device (a host-only program never pays for it).
SEEN = [False]


def use_standin(on: bool = True) -> None:
    """Back ``cuda`` tensors by the CPU stand-in (``True``) or by CuPy (``False``)."""
    _STATE["standin"] = bool(on)


def standin_active() -> bool:
    """True when ``cuda`` means the CPU stand-in."""
    return _STATE["standin"]


def cuda_available() -> bool:
    """True when ``cuda`` tensors can be made: the stand-in is on, or CuPy sees a GPU."""
    if _STATE["standin"]:
        return True
    from .backend import gpu_available

    return gpu_available()


def cuda_namespace() -> Any:
    """The array library behind ``cuda`` tensors (PyTorch's error when there is none)."""
    SEEN[0] = True
    if _STATE["standin"]:
        from .device_standin import xp

        return xp
    if not cuda_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    from .backend import get_backend

    return get_backend("cupy")


def is_device(data: Any) -> bool:
    """True for device arrays (CuPy or stand-in), False for NumPy arrays and scalars."""
    if isinstance(data, (np.ndarray, np.generic)):
        return False
    mod = type(data).__module__
    if mod.startswith("cupy") or mod.endswith("device_standin"):
        SEEN[0] = True
        return True
    return False


def xp_of(*datas: Any) -> Any:
    """The namespace of the data: the device library if any value is on it, else NumPy."""
    for d in datas:
        if not isinstance(d, (np.ndarray, np.generic, int, float, bool)) and is_device(d):
            if type(d).__module__.startswith("cupy"):
                from .backend import get_backend

                return get_backend("cupy")
            from .device_standin import xp

            return xp
    return np


def to_device(data: Any) -> Any:
    """``data`` (host array, scalar or device array) as an array of the device library."""
    return cuda_namespace().asarray(data) if not is_device(data) else data


def to_host(data: Any) -> Any:
    """``data`` as host NumPy data: an explicit copy for device arrays, else unchanged."""
    return data.get() if is_device(data) else data


def add_at(out: Any, index: Any, values: Any) -> None:
    """``out[index] += values`` in place with repeated indices accumulating (``np.add.at``;
    ``cupy.add.at`` on CuPy)."""
    from ..ir.kernels import index_add_

    index_add_(out, index if isinstance(index, tuple) else (index,), values)


# --- NumPy's array constructors, following the data's device -----------------------------
# (for host data each is exactly the NumPy call it replaces)

def asarray(x: Any, dtype: Any = None) -> Any:
    """``np.asarray(x, dtype)`` for host data; the device library's ``asarray`` for device
    data (which stays on the device)."""
    if is_device(x):
        return xp_of(x).asarray(x, dtype=dtype)
    return np.asarray(x, dtype=dtype)


def copy(x: Any) -> Any:
    """``np.array(x, copy=True)``: a fresh array on ``x``'s device."""
    return x.copy() if is_device(x) else np.array(x, copy=True)


def zeros(shape: Any, dtype: Any, like: Any) -> Any:
    """Zeros on the device of ``like``."""
    return xp_of(like).zeros(shape, dtype)


def sparse_grids(shape: tuple[Any, ...], like: Any) -> list[Any]:
    """``np.indices(shape, sparse=True)`` on the device of ``like`` (CuPy's ``indices``
    has no ``sparse``): one ``arange`` per axis, shaped to broadcast."""
    xp = xp_of(like)
    nd = len(shape)
    return [xp.arange(n).reshape((1,) * k + (n,) + (1,) * (nd - k - 1))
            for k, n in enumerate(shape)]


def same_device(a: Any, b: Any) -> tuple[Any, Any]:
    """A host and a device operand made combinable as PyTorch combines them: a 0-d host
    operand joins the device one as a scalar; a host array with a device array is an
    error (PyTorch's words)."""
    da = is_device(a)
    host = b if da else a
    if getattr(host, "ndim", 0) == 0:
        scalar = np.asarray(host)[()]
        return (a, scalar) if da else (scalar, b)
    raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                       "devices, cuda:0 and cpu!")


def ascontiguous(x: Any) -> Any:
    """``np.ascontiguousarray(x)`` on ``x``'s device."""
    return xp_of(x).ascontiguousarray(x) if is_device(x) else np.ascontiguousarray(x)
