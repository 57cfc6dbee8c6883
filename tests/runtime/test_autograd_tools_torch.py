"""The autograd tools against real PyTorch (skipped without it).

Each script runs twice, with ``torch`` bound to PyTorch and to ``st_autodiff``; the
printed output (values, structures, node names, error and warning messages) must be
identical once object addresses are masked.  Profiler tables are compared by layout
(header, separators, column widths), not by timings.
"""

from __future__ import annotations

from typing import Any

import pytest

import st_autodiff

from .autograd_tools_scripts import SCRIPTS, reference, run

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_output(name: str) -> None:
    theirs = run(SCRIPTS[name], torch)
    ours = run(SCRIPTS[name], st_autodiff)
    assert ours.splitlines() == theirs.splitlines()


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_stored_reference_is_torchs_output(name: str) -> None:
    """The file the tests without torch use is what torch prints today."""
    assert reference()[name].splitlines() == run(SCRIPTS[name], torch).splitlines()


PROFILED = '''
x = torch.randn(20, 20, requires_grad=True)
with torch.autograd.profiler.profile(record_shapes=True) as prof:
    with torch.autograd.profiler.record_function("my_block"):
        y = (x * 2 + 1).relu().sum()
    y.backward()
'''


def _layout(table: str) -> tuple[list[str], list[int]]:
    lines = table.splitlines()
    return lines[1].split("  "), [len(c) for c in lines[0].split("  ")]


def _profile(lib: Any, **table_kwargs: Any) -> tuple[Any, str]:
    env = {"torch": lib}
    exec(PROFILED, env)
    prof = env["prof"]
    return prof, prof.key_averages().table(**table_kwargs)


def test_profiler_table_layout() -> None:
    tprof, ttab = _profile(torch, sort_by="self_cpu_time_total", row_limit=5)
    sprof, stab = _profile(st_autodiff, sort_by="self_cpu_time_total", row_limit=5)
    (theads, twidths), (sheads, swidths) = _layout(ttab), _layout(stab)
    assert [h.strip() for h in sheads if h.strip()] == [h.strip() for h in theads if h.strip()]
    assert swidths[1:] == twidths[1:]  # the name column follows the longest key
    assert stab.splitlines()[-1].startswith("Self CPU time total: ")
    assert len(stab.splitlines()) == len(ttab.splitlines())
    ours = {e.key for e in sprof.key_averages()}
    theirs = {e.key for e in tprof.key_averages()}
    shared = {"my_block", "aten::mul", "aten::add", "aten::relu", "aten::sum",
              "MulBackward0", "ReluBackward0", "SumBackward0", "AddBackward0",
              "torch::autograd::AccumulateGrad",
              "autograd::engine::evaluate_function: MulBackward0"}
    assert shared <= ours and shared <= theirs
    shapes_t = tprof.key_averages(group_by_input_shape=True).table(row_limit=3)
    shapes_s = sprof.key_averages(group_by_input_shape=True).table(row_limit=3)
    assert "Input Shapes" in shapes_t.splitlines()[1] and "Input Shapes" in shapes_s.splitlines()[1]
    mul_t = [e for e in tprof.key_averages(group_by_input_shape=True) if e.key == "aten::mul"]
    mul_s = [e for e in sprof.key_averages(group_by_input_shape=True) if e.key == "aten::mul"]
    assert [[20, 20], []] in [e.input_shapes for e in mul_t]
    assert [[20, 20], []] in [e.input_shapes for e in mul_s]
