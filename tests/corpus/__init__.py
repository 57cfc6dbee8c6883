"""The test corpus: functions checked three ways by ``tests/test_corpus.py``.

Importing the package registers every corpus function; ``CORPUS`` lists them in
definition order.  See ``registry`` for what an entry holds.
"""

from __future__ import annotations

from . import control, functions, models  # noqa: F401  (importing registers the functions)
from .registry import CATEGORIES, CHECKS, CORPUS, Entry

__all__ = ["CATEGORIES", "CHECKS", "CORPUS", "Entry"]
