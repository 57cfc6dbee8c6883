"""User-style programs: right value and gradient, or a located refusal (``entry.py``)."""

from __future__ import annotations

import pytest

from . import programs, programs_numerical
from .entry import Entry, assert_ok, params


@pytest.mark.parametrize("entry", params(programs.REG.entries + programs_numerical.REG.entries))
def test_program(entry: Entry) -> None:
    assert_ok(entry)
