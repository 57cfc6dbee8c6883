"""Issue 12's acceptance corpus: complete PyTorch programs run with st_autodiff as ``torch``.

Every program runs once under st_autodiff (one interpreter, a forked child per program) and
its output is compared line by line (``compare.py``: numbers within float32 tolerance, text
exact) with the output real PyTorch 2.13 printed, stored in ``expected/NAME.out`` by
``make_expected.py``. Where torch is installed the programs also run live under torch.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.programs.compare import first_difference, lines_match, tokens
from tests.programs.harness import (
    ROOT,
    engine_env,
    expected_output,
    program_paths,
    run_programs,
)

STEMS = [p.stem for p in program_paths()]


@pytest.fixture(scope="module")
def st_results() -> dict[str, dict[str, object]]:
    return run_programs("st")


@pytest.fixture(scope="module")
def torch_results() -> dict[str, dict[str, object]]:
    pytest.importorskip("torch")
    return run_programs("torch")


def _explain(result: dict[str, object], difference: str) -> str:
    where = f" (raised at {result['where']})" if result.get("where") else ""
    return f"{difference}{where}"


def test_corpus_size() -> None:
    assert len(STEMS) >= 40
    assert all(expected_output(stem) is not None for stem in STEMS), "run make_expected"


@pytest.mark.parametrize("stem", STEMS)
def test_program_matches_stored_torch_output(stem: str, st_results) -> None:  # noqa: ANN001
    expected = expected_output(stem)
    assert expected is not None, f"no expected/{stem}.out: run tests.programs.make_expected"
    result = st_results[stem]
    difference = first_difference(expected, str(result["out"]))
    assert difference is None, _explain(result, difference)


@pytest.mark.torch
@pytest.mark.parametrize("stem", STEMS)
def test_program_matches_live_torch(stem: str, st_results, torch_results) -> None:  # noqa: ANN001
    result = st_results[stem]
    difference = first_difference(str(torch_results[stem]["out"]), str(result["out"]))
    assert difference is None, _explain(result, difference)


def test_comparison_tolerates_float_noise_only() -> None:
    assert tokens("loss 0.1234 x") == ["loss ", "0.1234", " x"]
    assert tokens("AddBackward0 conv1.weight") == ["AddBackward0 conv1.weight"]
    assert lines_match("loss 0.12345", "loss 0.12346")
    assert lines_match("tensor([1.0000, 2.5000])", "tensor([1.0001, 2.5000])")
    assert lines_match("v 1.0000e-05", "v 1.0001e-05")
    assert not lines_match("loss 0.1234", "loss 0.1250")
    assert not lines_match("torch.Size([3, 4])", "torch.Size([3, 5])")
    assert not lines_match("tensor([1., 2.])", "tensor([1., 3.])")
    assert not lines_match("<MulBackward0>", "<MulBackward1>")
    assert not lines_match("step 10", "step 10.0")
    assert first_difference("a\nb", "a") == "line 2: expected 'b', got '<end of output>'"


def test_shim_resolves_torch_submodules() -> None:
    """``import torch.x`` names st_autodiff's module; a missing one is ModuleNotFoundError."""
    code = (
        "import sys\n"
        "from tests.programs import shim\n"
        "st = shim.install()\n"
        "import torch, torch.nn as nn\n"
        "from torch.nn import functional as F\n"
        "import torch.distributions.constraints as c\n"
        "assert torch is st and nn is st.nn and F is st.nn.functional\n"
        "assert sys.modules['torch.nn.functional'] is st.nn.functional\n"
        "assert c is st.distributions.constraints\n"
        "assert st.nn.functional.__spec__.name == 'st_autodiff.nn.functional'\n"
        "try:\n"
        "    import torch.no_such_module\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(ROOT), env=engine_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "No module named 'torch.no_such_module'\n"
