"""All corpus entries, by package, importing each optional package's corpus only when
the package is installed."""

from __future__ import annotations

import importlib
import importlib.util

from .entry import Entry

#: (package needed, corpus modules) in report order.
CORPORA: list[tuple[str, tuple[str, ...]]] = [
    ("numpy", ("corpus_numpy",)),
    ("scipy", ("corpus_scipy_stats", "corpus_scipy_misc")),
    ("sklearn", ("corpus_sklearn",)),
    ("statsmodels", ("corpus_statsmodels",)),
    ("numpy", ("programs", "programs_numerical")),
]


def missing() -> list[str]:
    """The packages of ``CORPORA`` that are not installed."""
    return [pkg for pkg, _ in CORPORA if importlib.util.find_spec(pkg) is None]


def all_entries() -> list[Entry]:
    """Every entry whose package is installed."""
    entries: list[Entry] = []
    for pkg, modules in CORPORA:
        if importlib.util.find_spec(pkg) is None:
            continue
        for name in modules:
            entries += importlib.import_module(f"{__package__}.{name}").REG.entries
    return entries
