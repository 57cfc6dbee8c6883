"""scikit-learn functions: right value and gradient, or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from .corpus_sklearn import REG  # noqa: E402
from .entry import Entry, assert_ok, params  # noqa: E402


@pytest.mark.parametrize("entry", params(REG.entries))
def test_sklearn_entry(entry: Entry) -> None:
    assert_ok(entry)
