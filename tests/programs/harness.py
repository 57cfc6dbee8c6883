"""Find the corpus programs and run them under an engine in a fresh interpreter."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXPECTED = HERE / "expected"
RUNNER = HERE / "runner.py"
DEFAULT_TORCH_PYTHON = "/tmp/torchvenv/bin/python"


def program_paths() -> list[Path]:
    """Every program of the corpus (``pNN_name.py``), in order."""
    return sorted(HERE.glob("p[0-9][0-9]_*.py"))


def torch_python() -> str | None:
    """An interpreter that has PyTorch: this one, ``$ST_TORCH_PYTHON`` or the default venv."""
    if importlib.util.find_spec("torch") is not None:
        return sys.executable
    for candidate in (os.environ.get("ST_TORCH_PYTHON"), DEFAULT_TORCH_PYTHON):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def engine_env() -> dict[str, str]:
    """The environment of a runner: this tree importable, one thread, no warnings."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def run_programs(engine: str, paths: list[Path] | None = None,
                 python: str | None = None) -> dict[str, dict[str, object]]:
    """Each program's result (by stem) under ``engine`` (``st`` or ``torch``)."""
    paths = program_paths() if paths is None else paths
    python = python or (sys.executable if engine == "st" else torch_python())
    if python is None:
        raise RuntimeError("no interpreter with torch found")
    proc = subprocess.run([python, str(RUNNER), engine, *map(str, paths)], capture_output=True,
                          text=True, cwd=str(ROOT), env=engine_env(), timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"the {engine} runner failed:\n{proc.stderr}")
    return {Path(k).stem: v for k, v in json.loads(proc.stdout).items()}


def expected_output(stem: str) -> str | None:
    """The stored output of a program as real PyTorch 2.13 printed it, if recorded."""
    path = EXPECTED / f"{stem}.out"
    return path.read_text() if path.exists() else None
