"""Differential tests: every snippet of ``vs_torch_cases`` against real PyTorch.

PyTorch is an optional oracle: the module is skipped where it is not installed.  Both
engines run each snippet in this process, after ``manual_seed(0)``; printed text,
warnings and the final exception must match after normalising object addresses and
dropping PyTorch's "(Triggered internally at ...)" build paths.
``python -m tests.runtime.test_vs_torch [name ...]`` prints the differences.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import sys
import warnings
from typing import Any

import pytest

import st_autodiff

from .vs_torch_cases import CASES, PRELUDE

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

#: Snippets whose output legitimately differs (documented differences), with the reason.
KNOWN_DIFFERENCES: dict[str, str] = {}


def _clean(text: str) -> str:
    text = re.sub(r"0x[0-9a-fA-F]+", "0x...", text)
    return re.sub(r" \(Triggered internally at [^)]*\.\)", "", text)


def run_snippet(engine: Any, code: str) -> str:
    """Everything a snippet shows: its prints, its warnings, its final exception."""
    out = io.StringIO()
    env: dict[str, Any] = {"torch": engine, "__name__": "__snippet__"}
    engine.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(PRELUDE, env)
            exec(compile(code, "<snippet>", "exec"), env)
        except Exception as exc:  # the snippet's own error is part of its output
            print(f"{type(exc).__name__}: {exc}")
        finally:
            engine.set_grad_enabled(True)
    shown = [out.getvalue()]
    # the create_graph cycle warning is once per process in both: its place depends on order
    shown += [f"{w.category.__name__}: {w.message}" for w in caught
              if issubclass(w.category, UserWarning)
              and not str(w.message).startswith("Using backward() with create_graph=True")]
    return _clean("\n".join(shown))


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name: str) -> None:
    if name in KNOWN_DIFFERENCES:
        pytest.xfail(KNOWN_DIFFERENCES[name])
    expected = run_snippet(torch, CASES[name])
    got = run_snippet(st_autodiff, CASES[name])
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                            "pytorch", "st_autodiff"))
        pytest.fail(f"output differs from PyTorch:\n{diff}")


def main(names: list[str]) -> None:
    """Print the differences for the named snippets (all when none are named)."""
    bad = 0
    for name in names or sorted(CASES):
        expected = run_snippet(torch, CASES[name])
        got = run_snippet(st_autodiff, CASES[name])
        if got != expected:
            bad += 1
            print(f"===== {name}")
            print("".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                               "pytorch", "st_autodiff")))
    print(f"{bad} of {len(names or CASES)} differ")


if __name__ == "__main__":
    main(sys.argv[1:])
