"""Test-wide settings: property tests are deterministic unless asked otherwise.

Hypothesis draws a fresh random sample on every run by default, so a CI run could fail
on an input no earlier run saw.  The default profile ("ci") derandomizes: the same
examples every run.  ``HYPOTHESIS_PROFILE=explore pytest ...`` searches new ones (and
more of them); a failure found that way becomes a fixed regression test.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="module")
def _freeze_what_survives_a_module() -> Iterator[None]:
    """After each test module, move the objects that survive it (compiled functions kept
    by module-level gradients, parse caches) to the permanent generation: later cyclic
    collections stop re-scanning them.  Without this, a suite-long heap of millions of
    objects made each full collection take seconds, and allocation-heavy tests late in
    the run tens of times slower than alone."""
    yield
    gc.collect()
    gc.freeze()
