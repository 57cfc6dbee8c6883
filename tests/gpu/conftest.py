"""The GPU suite: runs only where CuPy sees a CUDA device (``gpu_available()``).

On a GPU ``cuda`` must mean CuPy, never the CPU stand-in, whatever the environment says;
without one every test here skips (the only reason a GPU test may skip).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from st_autodiff.runtime import device
from st_autodiff.runtime.backend import gpu_available

GPU = gpu_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if GPU:
        return
    skip = pytest.mark.skip(reason="no GPU: CuPy sees no CUDA device")
    for item in items:
        if "tests/gpu/" in str(item.path).replace("\\", "/"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _cuda_is_cupy() -> Iterator[None]:
    old = device.standin_active()
    device.use_standin(False)
    yield
    device.use_standin(old)
