"""The documented baseline of the real-world corpus: the one place its number lives.

``test_counts.py`` fails when fewer entries than this give the right value and gradient
(a regression).  Raise it when work makes more entries pass; ``python -m
tests.realworld.report`` prints the current count.
"""

#: Entries (all packages installed) that must give the right value and gradient.
#: 2026-11-27: 345 with SciPy 1.17 (3.11) and with SciPy 1.18 (3.12; its array-API
#: simpson compiles since array_api_compat's queries are answered on stand-ins)
PASS_BASELINE = 345
