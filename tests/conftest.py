"""Test-wide settings: property tests are deterministic unless asked otherwise.

Hypothesis draws a fresh random sample on every run by default, so a CI run could fail
on an input no earlier run saw.  The default profile ("ci") derandomizes: the same
examples every run.  ``HYPOTHESIS_PROFILE=explore pytest ...`` searches new ones (and
more of them); a failure found that way becomes a fixed regression test.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
