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
        if e.how in ("op", "decomposition") and not e.name.startswith("ndarray.") and (
                e.name not in catalog.HANDLED):
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


#: how spec expressions spell each family's module
_SPELLINGS = {"np": "numpy", "math": "math", "sl": "scipy.linalg", "sp": "scipy.special",
              "ss": "scipy.stats", "sfft": "scipy.fft"}


def _exercised() -> tuple[set[str], set[str]]:
    """The catalogue names the differential specs call, and the ops they reach."""
    from differential.specs import SPECS  # (tests/ is on sys.path, as for every test)

    from st_autodiff.ir.kernels_special import SCIPY_NAMES

    names: set[str] = set()
    for spec in SPECS:
        expr = spec.expr
        for module, attr in re.findall(
                r"\b((?:scipy\.)?[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)\.(\w+)\(", expr):
            head, _, rest = module.partition(".")
            family = ".".join(p for p in (_SPELLINGS.get(head, head), rest) if p)
            names.add(f"{family}.{attr}")
            if module == "rt" and attr in SCIPY_NAMES:
                names.add(f"scipy.special.{attr}")
        for module, imported in re.findall(r"from ((?:numpy|scipy)[\w.]*) import ([\w, ]+)",
                                           expr):  # `from scipy.integrate import odeint`
            for name in (n.strip() for n in imported.split(",")):
                if re.search(rf"\b{name}\(", expr):
                    names.add(f"{module}.{name}")
        names.update(f"ndarray.{m}" for m in re.findall(r"\.(\w+)\(", expr))
    ops = {op.value for spec in SPECS for op in spec.ops}
    return names, ops


def test_every_entry_is_exercised_by_the_differential_harness() -> None:
    """Each catalogued function is called by a differential spec (compiler vs eager vs
    central differences vs JAX), or is an alias of an op a spec reaches (``np.absolute``
    is ``np.abs``'s op).  ``zero`` entries are checked by tests/test_zero_derivatives.py."""
    from test_zero_derivatives import CASES as ZERO_CASES

    names, ops = _exercised()
    names |= {n for case in ZERO_CASES for n in case.names}  # (searchsorted: integer-valued)
    missing = [e.name for e in ITEMS if e.how != "zero" and e.name not in names
               and not (e.how == "op" and e.detail in ops)]
    assert missing == []
