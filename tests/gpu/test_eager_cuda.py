"""Issue 15: the eager runtime on a real GPU (CuPy), against the host and PyTorch CUDA.

Every case of ``eager_cases.py`` runs with ``device="cuda"`` (CuPy arrays) and on the
host; the two must agree to float64 rounding.  Where ``torch`` with CUDA imports, the same
case runs on PyTorch CUDA too and must agree with ours.  Run on a lent device with
``python -m pytest -q tests/gpu``; skips without a GPU (see ``conftest.py``).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import st_autodiff as st

from .eager_cases import CASES


def _real_torch() -> object | None:
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


REAL = _real_torch()


def _close(got: dict, want: dict, what: str, rtol: float) -> None:
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=rtol, atol=rtol * 1e-3,
                                   err_msg=f"{what}: {key}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_cupy_matches_the_host(name: str) -> None:
    dev = CASES[name](st, "cuda")
    _close(dev, CASES[name](st, "cpu"), f"{name} cuda vs cpu", 1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cupy_matches_torch_cuda(name: str) -> None:
    if REAL is None:
        pytest.skip("torch with CUDA is not importable here")
    _close(CASES[name](st, "cuda"), CASES[name](REAL, "cuda"), f"{name} ours vs torch",
           1e-7)


def test_data_stays_on_the_gpu() -> None:
    import cupy

    x = st.randn(4, 3, device="cuda", requires_grad=True)
    y = (x.relu() @ x.T).softmax(1).sum()
    y.backward()
    assert type(x._data) is cupy.ndarray and type(x.grad._data) is cupy.ndarray
    assert type(y._data) is cupy.ndarray and y.device == st.device("cuda", 0)
    assert "device='cuda:0'" in repr(y)
    with pytest.raises(TypeError, match="^can't convert cuda:0 device type tensor to numpy"):
        x.detach().numpy()
    z = x.detach().cpu()
    assert type(z._data) is np.ndarray and z.tolist() == x.tolist()
