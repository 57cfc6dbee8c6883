"""Runs the code blocks of a Markdown page and compares what they print with what it shows.

The conventions every page of README.md and docs/ follows (tests/test_docs.py checks them):

* ```` ```python ```` blocks run in order, in one namespace per page, each written to its
  own file first (so ``st.grad`` can read the source); ```` ```python file=loss.py ````
  names that file (the generated code's ``# loss.py:5`` comments then read as shown).
  A block whose first line starts with ``>>>`` is a doctest session in the same namespace.
* An ```` ```output ```` block right after a python block is what that block prints;
  a line ``...`` stands for any number of lines.
* ```` ```console ```` blocks hold ``$ command`` lines (``st-autodiff`` or ``python``) run in
  the page's directory, each followed by its output.
* ```` ```sh ```` blocks are set-up commands that CI runs itself (``.ci/run``);
  ```` ```text ````/```` ```ir ```` blocks are not code (diagrams, excerpts, grammars).

``python -m tests.docs_runner PAGE.md ...`` prints one JSON report: page -> failures (the
pages run one after another in this process, each in a fresh namespace and directory).
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\S*)(.*)$")
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Block:
    """One fenced block: its language, options (``file=x.py``), text and first line."""

    lang: str
    options: dict[str, str]
    text: str
    line: int


def blocks(markdown: str) -> list[Block]:
    """The fenced blocks of a page, in order."""
    out: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        opts = dict(o.split("=", 1) for o in m.group(2).split() if "=" in o)
        start = i + 1
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            i += 1
        out.append(Block(m.group(1), opts, "\n".join(lines[start:i]) + "\n", start))
        i += 1
    return out


def matches(shown: str, got: str) -> bool:
    """``got`` equals ``shown`` line by line (trailing spaces ignored). A line ``...``
    stands for any lines, ``...`` inside a line for any text (a temporary path)."""
    want = [s.rstrip() for s in shown.rstrip("\n").splitlines()]
    have = [s.rstrip() for s in got.rstrip("\n").splitlines()]
    pats = [re.compile(".*".join(map(re.escape, w.split("..."))) + r"\Z") for w in want]

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(have)
        if want[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(have) + 1))
        return j < len(have) and pats[i].match(have[j]) is not None and match(i + 1, j + 1)

    return match(0, 0)


def run_page(page: Path) -> list[str]:
    """Run every block of ``page``; the failures, as located messages."""
    failures: list[str] = []
    items = blocks(page.read_text())
    ns: dict = {"__name__": "__main__"}
    home = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        sys.path.insert(0, tmp)
        try:
            _run_blocks(page, items, tmp, ns, failures)
        finally:
            os.chdir(home)
            sys.path.remove(tmp)
    return failures


def _run_blocks(page: Path, items: list[Block], tmp: str, ns: dict,
                failures: list[str]) -> None:
    """Run a page's blocks in order (``run_page``'s loop), appending failures."""
    last_output: str | None = None
    for k, b in enumerate(items):
        where = f"{page.name}:{b.line}"
        if b.lang == "python":
            name = b.options.get("file", f"doc_block_{k}.py")
            Path(tmp, name).write_text(b.text)
            last_output, err = _run_python(b.text, str(Path(tmp, name)), ns)
            if err:
                failures.append(f"{where}: {err}")
                last_output = None
        elif b.lang == "output":
            if last_output is None:
                failures.append(f"{where}: an output block with no python block run "
                                "before it")
            elif not matches(b.text, last_output):
                failures.append(f"{where}: the code printed\n{last_output}\nnot\n{b.text}")
            last_output = None
        elif b.lang == "console":
            failures.extend(f"{where}: {f}" for f in _run_console(b.text, tmp))
        elif b.lang in ("sh", "text", "ir"):
            continue
        else:
            failures.append(f"{where}: a block must say its kind (python, output, "
                            f"console, sh, text or ir), not {b.lang!r}")


def _run_python(text: str, path: str, ns: dict) -> tuple[str, str | None]:
    """Run one python block (a doctest session when it starts with ``>>>``)."""
    buf = io.StringIO()
    if text.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(text, ns, path, path, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        with contextlib.redirect_stdout(buf):
            result = runner.run(test, out=buf.write, clear_globs=False)
        ns.update(test.globs)
        return "", (buf.getvalue() if result.failed else None)
    try:
        code = compile(text, path, "exec")
        with contextlib.redirect_stdout(buf):
            exec(code, ns)  # noqa: S102  (the documentation's own code)
    except Exception:  # noqa: BLE001  (reported as the page's failure)
        return buf.getvalue(), traceback.format_exc(limit=-3)
    return buf.getvalue(), None


def _run_console(text: str, cwd: str) -> list[str]:
    """Run the ``$ command`` lines of a console block, comparing each one's output."""
    failures = []
    cmds: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            cmds.append((line[2:], []))
        elif cmds:
            cmds[-1][1].append(line)
        else:
            failures.append(f"console text before any $ command: {line!r}")
    for cmd, shown in cmds:
        argv = shlex.split(cmd)
        if argv[0] == "st-autodiff":
            argv = [sys.executable, "-m", "st_autodiff", *argv[1:]]
        elif argv[0] == "python":
            argv = [sys.executable, *argv[1:]]
        else:
            failures.append(f"only st-autodiff and python commands run in docs: {cmd}")
            continue
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), cwd]), NO_COLOR="1")
        run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env,
                             check=False, timeout=300)
        got = run.stdout + run.stderr
        if not matches("\n".join(shown), got):
            failures.append(f"$ {cmd} printed\n{got}\nnot\n" + "\n".join(shown))
    return failures


if __name__ == "__main__":
    report = {}
    for arg in sys.argv[1:]:
        report[Path(arg).name] = run_page(Path(arg).resolve())
    print(json.dumps(report))
