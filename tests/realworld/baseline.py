"""The documented baseline of the real-world corpus: the one place its number lives.

``test_counts.py`` fails when fewer entries than this give the right value and gradient
(a regression).  Raise it when work makes more entries pass; ``python -m
tests.realworld.report`` prints the current count.
"""

#: Entries (all packages installed) that must give the right value and gradient.
PASS_BASELINE = 340  # 3.11: 341 (2026-11-27); 3.13 was one below 3.10 and 3.11
