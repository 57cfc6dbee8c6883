"""The code examples of the user's seed documents, run with ``import st_autodiff as torch``.

The examples are copied into ``seed_examples/`` (one file per example; notebook cells
that share state stay together).  Each must print exactly what PyTorch prints: the live
PyTorch output when PyTorch is installed, else the output recorded from PyTorch 2.13 in
``<example>.out`` (``python -m tests.runtime.seed_harness`` re-records it).

Fragments of the documents that cannot run anywhere (a signature listing, code that uses
an undefined ``model`` or ``self``) are not copied.  Seed 000 is a rendering of seed 001
and holds the same code.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest

import st_autodiff

from .seed_harness import examples, run_examples

NEEDS_NN = {
    "s001_full_example", "s001_nonleaf_requires_grad", "s001_requires_grad_flags",
    "s002_register_hook", "s004_one_layer_network",
}
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _params() -> list:
    out = []
    for path in examples():
        marks = []
        if path.stem in NEEDS_NN and not hasattr(st_autodiff, "nn"):
            marks.append(pytest.mark.xfail(strict=True, reason="needs nn (built next)"))
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _params())
def test_seed_example_prints_what_pytorch_prints(path: Path) -> None:
    if path.stem == "s001_full_example" and st_autodiff.cuda.is_available():
        pytest.skip("the recorded output is PyTorch's on a machine without CUDA")
    if HAS_TORCH:
        expected = _outputs("torch")[path.stem]
    else:
        expected = path.with_suffix(".out").read_text()
    assert _outputs("st")[path.stem] == expected


@functools.cache
def _outputs(engine: str) -> dict[str, str]:
    return run_examples(examples(), engine)


def test_every_example_has_a_recorded_output() -> None:
    for path in examples():
        assert path.with_suffix(".out").exists(), f"record {path.name}: python -m " \
            "tests.runtime.seed_harness"
