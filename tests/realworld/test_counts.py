"""The number of corpus entries that give the right value and gradient never drops below
the documented baseline (``baseline.PASS_BASELINE``); known wrong results stay exactly
the entries marked as such.  Outcomes are cached, so after the per-package tests this
costs nothing."""

from __future__ import annotations

import pytest

for _pkg in ("scipy", "sklearn", "statsmodels"):  # the baseline counts every package
    pytest.importorskip(_pkg)

from .baseline import PASS_BASELINE  # noqa: E402
from .collect import all_entries  # noqa: E402
from .entry import outcome  # noqa: E402


def test_pass_count_at_least_baseline() -> None:
    entries = all_entries()
    passed = [e.name for e in entries if outcome(e).status == "pass"]
    assert len(passed) >= PASS_BASELINE, (
        f"{len(passed)} of {len(entries)} entries pass, baseline is {PASS_BASELINE}")


def test_corpus_size() -> None:
    entries = all_entries()
    library = [e for e in entries if e.package != "programs"]
    assert len(library) >= 150 and len(entries) - len(library) >= 30
