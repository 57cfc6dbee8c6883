"""Fixtures shared by the backend tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from st_autodiff.runtime import device


@pytest.fixture
def standin() -> Iterator[None]:
    """``device='cuda'`` tensors on the CuPy-shaped CPU stand-in for one test."""
    old = device.standin_active()
    device.use_standin(True)
    yield
    device.use_standin(old)
