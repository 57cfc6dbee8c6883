"""The documented baseline of the real-world corpus: the one place its number lives.

``test_counts.py`` fails when fewer entries than this give the right value and gradient
(a regression).  Raise it when work makes more entries pass; ``python -m
tests.realworld.report`` prints the current count.
"""

#: Entries (all packages installed) that must give the right value and gradient.
PASS_BASELINE = 338  # 2026-11-27: 341 with SciPy 1.17 (3.11); 338 with SciPy 1.18
#: (3.12/3.13), whose array-API simpson is refused (located) for 3 entries
