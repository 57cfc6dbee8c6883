"""``st_autodiff.cuda``: whether a GPU (through CuPy) is available, like ``torch.cuda``."""

from __future__ import annotations

from .backend import gpu_available
from .device import cuda_available, standin_active

__all__ = ["device_count", "is_available", "manual_seed", "manual_seed_all", "synchronize"]


def is_available() -> bool:
    """True when CuPy imports and sees a CUDA device (or the CPU stand-in is selected)."""
    return cuda_available()


def device_count() -> int:
    if standin_active():
        return 1
    if not gpu_available():
        return 0
    from .backend import get_backend

    return int(get_backend("cupy").cuda.runtime.getDeviceCount())


def synchronize(device: object = None) -> None:
    if not standin_active() and gpu_available():
        from .backend import get_backend

        get_backend("cupy").cuda.Device().synchronize()


def manual_seed(seed: int) -> None:
    """GPU tensors are drawn on the host generator here, so there is nothing to seed."""


manual_seed_all = manual_seed
