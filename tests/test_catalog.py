"""The catalogue of differentiable functions (``st_autodiff.catalog``), its page
``docs/rules.md`` and the differential specs that exercise each entry."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from st_autodiff import catalog
from st_autodiff.cli import main
from st_autodiff.library_callers import known

scipy = pytest.importorskip("scipy")

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
ITEMS = catalog.entries(import_missing=True)


def _resolve(name: str) -> object | None:
    """The installed object a catalogue name (``numpy.linalg.svd``, ``ndarray.sum``)
    stands for, or None where this installation lacks it."""
    if name.startswith("ndarray."):
        return getattr(np.ndarray, name.split(".", 1)[1], None)
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is not None:
            obj: object | None = module
            for part in parts[cut:]:
                obj = getattr(obj, part, None)
            return obj
    return None


def test_every_entry_is_an_installed_function_the_compiler_knows() -> None:
    assert len({e.name for e in ITEMS}) == len(ITEMS)
    for e in ITEMS:
        obj = _resolve(e.name)
        assert obj is not None, e.name
        if e.how in ("op", "decomposition") and not e.name.startswith("ndarray."):
            assert known(obj), e.name


def test_the_page_lists_what_this_installation_supports() -> None:
    """docs/rules.md is generated; regenerate it with
    ``st-autodiff rules --markdown > docs/rules.md``.  With other library versions than
    the page was made with, the names this installation has must still agree."""
    text = DOC.read_text()
    generated = catalog.markdown(ITEMS)
    header = re.search(r"NumPy ([\w.]+), SciPy ([\w.]+)", text)
    assert header is not None
    if header.groups() == (np.__version__, scipy.__version__):
        assert text == generated
    documented = set(re.findall(r"^\| `([\w.]+)` \|", text, re.M))
    supported = {e.name for e in ITEMS}
    assert supported - documented == set()
    stale = {n for n in documented - supported if _resolve(n) is not None}
    assert stale == set()


def test_the_rules_command_prints_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^numpy\.sin\s+op\s+sin$", out, re.M)
    assert out.rstrip().splitlines()[-1].startswith(f"{len(ITEMS)} functions and methods")
