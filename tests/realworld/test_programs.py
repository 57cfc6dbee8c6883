"""User-style programs: right value and gradient, or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

from .entry import Entry, assert_ok, params
from .programs import REG


@pytest.mark.parametrize("entry", params(REG.entries))
def test_program(entry: Entry) -> None:
    assert_ok(entry)
