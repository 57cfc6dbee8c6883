"""NumPy's own functions: right value and gradient, or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

from .corpus_numpy import REG
from .entry import Entry, assert_ok, params


@pytest.mark.parametrize("entry", params(REG.entries))
def test_numpy_entry(entry: Entry) -> None:
    assert_ok(entry)
