"""The documentation runs: every block of README.md and docs/ (``tests/docs_runner.py``
has the conventions), the README's set-up commands are what CI runs, and the site builds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_runner import blocks, matches

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.fixture(scope="module")
def page_report() -> dict[str, list[str]]:
    """Every page run once, in one child process (each page in a fresh namespace)."""
    run = subprocess.run([sys.executable, "-m", "tests.docs_runner", *map(str, PAGES)],
                         cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_runs_as_shown(page: Path, page_report: dict[str, list[str]]) -> None:
    failures = page_report[page.name]
    assert not failures, "\n\n".join(failures)


def test_readme_setup_commands_are_what_ci_runs() -> None:
    """Exactly two set-up commands; .ci/run runs the second (the test command) verbatim."""
    sh = [b.text.strip() for b in blocks((ROOT / "README.md").read_text()) if b.lang == "sh"]
    assert len(sh) == 2, sh
    demo, tests = sh
    assert demo.startswith("python -m pip install -e . && python examples/")
    assert tests == 'python -m pip install -e ".[test]" && python -m pytest -q -n auto'
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()
    script = demo.split("&& python ", 1)[1]
    assert (ROOT / script).is_file()


def test_output_matching_rules() -> None:
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n")
    assert matches("a\n...\n", "a\n")
    assert not matches("a\nd\n", "a\nb\nd\n")
    assert not matches("a\n", "a\nb\n")


def test_no_internal_references_in_docs() -> None:
    """Users cannot read our issue tracker or design folder: pages do not point there."""
    for page in PAGES:
        text = page.read_text()
        assert not re.search(r"\bissue \d+|\bissues? \d|shared/|DESIGN\.md", text), page.name


def test_site_builds(tmp_path: Path) -> None:
    """The documentation site (MkDocs, API pages from the docstrings) builds with warnings
    as errors: every page is in the navigation, every link and reference resolves."""
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                          str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                         check=False, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "The gradient of a scalar function" in api  # grad's docstring was rendered
