"""Typing of the public API: gradient functions keep their function's parameters, and
``Tensor`` declares the methods the runtime installs, so ``mypy --strict`` checks a
program that uses both (``examples/typed_usage.py``) and catches a wrong call."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest

from tests.tensor_api_gen import TARGET, render

ROOT = Path(__file__).resolve().parents[1]


def test_installed_method_declarations_are_current() -> None:
    assert TARGET.read_text() == render(), "run: python -m tests.tensor_api_gen"


def test_multi_output_overload_lists_every_multi_op() -> None:
    """``apply_op`` is typed to return a tuple exactly for the ops whose result is one."""
    from st_autodiff.ir.ops import OP_INFO
    from st_autodiff.runtime.tensor_ops import MultiOp

    assert set(typing.get_args(MultiOp)) == {op for op, info in OP_INFO.items() if info.multi}


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for the module: the second run re-checks only what changed."""
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy(paths: list[Path], cache: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")  # a test extra; only its absence skips
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache),
                           *map(str, paths)], cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=900)


def test_package_and_typed_example_pass_mypy_strict(mypy_cache: Path) -> None:
    """The whole package is ``mypy --strict`` clean, and so is code that uses it."""
    run = _mypy([ROOT / "st_autodiff", ROOT / "examples" / "typed_usage.py"], mypy_cache)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_sees_wrong_calls(tmp_path: Path, mypy_cache: Path) -> None:
    bad = tmp_path / "bad_usage.py"
    bad.write_text(
        "import numpy as np\n"
        "import numpy.typing as npt\n"
        "import st_autodiff as st\n\n\n"
        "def loss(w: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> float:\n"
        "    return float(np.sum(w * x))\n\n\n"
        "g = st.grad(loss)\n"
        "g(np.ones(3))\n"                      # a missing argument
        "t = st.tensor([1.0, 2.0])\n"
        "t.sum(keepdim=True, nonsense=1)\n")   # no such keyword
    run = _mypy([bad], mypy_cache)
    assert run.returncode == 1
    assert 'Missing positional argument "x"' in run.stdout, run.stdout
    assert 'Unexpected keyword argument "nonsense"' in run.stdout, run.stdout
