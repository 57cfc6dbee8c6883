"""The example scripts run as a user runs them, and the nn/optim docstring examples hold.

``train_mlp.py`` must reach its stated test accuracy within its time budget; the other
scripts check themselves with asserts and must exit cleanly.
"""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run_script(name: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


@pytest.mark.parametrize("name", ["autograd_basics.py", "hooks_and_modes.py",
                                  "higher_order.py"])
def test_example_runs(name):
    result = run_script(name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("done")


def test_train_mlp_reaches_its_accuracy_quickly():
    started = time.perf_counter()
    result = run_script("train_mlp.py")
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("final test accuracy:")
    assert float(last.split(":")[1].split()[0]) >= 0.95
    assert elapsed < 10.0, f"train_mlp.py took {elapsed:.1f} s"


def test_train_mlp_is_deterministic():
    sys.path.insert(0, str(EXAMPLES))
    try:
        train_mlp = importlib.import_module("train_mlp")
        first = train_mlp.main(epochs=3, verbose=False)
        assert train_mlp.main(epochs=3, verbose=False) == first
    finally:
        sys.path.remove(str(EXAMPLES))


MODULES = ["st_autodiff.runtime.nn.functional", "st_autodiff.runtime.nn.module",
           "st_autodiff.runtime.nn.parameter", "st_autodiff.runtime.nn.layers",
           "st_autodiff.runtime.nn.containers", "st_autodiff.runtime.nn.loss",
           "st_autodiff.runtime.nn.init", "st_autodiff.runtime.optim.sgd", "st_autodiff.nn",
           "st_autodiff.nn.functional"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
