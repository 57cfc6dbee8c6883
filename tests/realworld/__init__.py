"""A corpus of real-world functions nobody on this project wrote (SciPy, scikit-learn,
statsmodels, NumPy), plus user-style programs, each checked for a right gradient or a
located refusal.  See ``docs/realworld.md`` and ``tests/realworld/report.py``."""
