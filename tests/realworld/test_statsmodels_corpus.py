"""statsmodels functions: right value and gradient (also against the models' own score),
or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

pytest.importorskip("statsmodels")

from .corpus_statsmodels import REG  # noqa: E402
from .entry import Entry, assert_ok, params  # noqa: E402


@pytest.mark.parametrize("entry", params(REG.entries))
def test_statsmodels_entry(entry: Entry) -> None:
    assert_ok(entry)
