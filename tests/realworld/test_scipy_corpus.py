"""SciPy functions: right value and gradient, or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

pytest.importorskip("scipy")

from . import corpus_scipy_misc, corpus_scipy_stats  # noqa: E402
from .entry import Entry, assert_ok, params  # noqa: E402

ENTRIES = corpus_scipy_stats.REG.entries + corpus_scipy_misc.REG.entries


@pytest.mark.parametrize("entry", params(ENTRIES))
def test_scipy_entry(entry: Entry) -> None:
    assert_ok(entry)
