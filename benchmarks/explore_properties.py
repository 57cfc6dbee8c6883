"""Run every property test with fresh random examples and a large budget, and report how
many programs each generated, how many it saw refused, and the failures.

CI runs the property tests derandomized (``tests/conftest.py``, profile "ci"): the same
few examples every run.  This script searches new ones::

    python benchmarks/explore_properties.py                  # 300 examples per test
    python benchmarks/explore_properties.py --examples 2000 --shrink
    python benchmarks/explore_properties.py -k aliasing tests/test_properties_alias.py

It runs pytest with ``HYPOTHESIS_PROFILE=explore`` and ``PROGEN_EXAMPLES`` (the budget
of every property test), and ``--runxfail``, so that the tests marked with a known bug
(``tests/progen.py``, ``KNOWN_BUGS``) count their failures too.  Program counts come
from ``tests/progen.py`` (every generated module it loads, per test) and from
Hypothesis' statistics for the older generators (``test_properties.py``,
``test_properties_loops.py``).  Shrinking is off unless ``--shrink`` (a failure's first
example is printed either way; minimise it by hand or rerun with ``--shrink``).
A failure found here becomes a reproduction in ``tests/test_properties_repros.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob(
    "test_properties*.py"))


def _hypothesis_counts(output: str) -> dict[str, int]:
    """Examples run per test, from ``--hypothesis-show-statistics`` (tests with @given at
    the top level only)."""
    counts: dict[str, int] = {}
    test = None
    for line in output.splitlines():
        head = re.match(r"^(tests/\S+::\S+):$", line)
        if head:
            test = head.group(1)
        found = re.search(r"- (\d+) passing examples, (\d+) failing examples", line)
        if found and test is not None:
            counts[test] = counts.get(test, 0) + int(found.group(1)) + int(found.group(2))
    return counts


def _failures(output: str) -> list[tuple[str, str]]:
    """(test, first lines of its error) of each failed test."""
    why: dict[str, str] = {}
    name = None
    for line in output.splitlines():
        head = re.match(r"^_{3,} (\S+) _{3,}$", line)
        if head:
            name = head.group(1)
            continue
        text = line[1:].strip() if line.startswith("E ") else ""
        if name is not None and text and text not in ("AssertionError:",) and \
                len(why.get(name, "")) < 200:
            why[name] = (why.get(name, "") + " | " + text).strip(" |")
    out = []
    for line in output.splitlines():
        m = re.match(r"^FAILED (\S+)", line)
        if m:
            out.append((m.group(1), why.get(m.group(1).split("::")[-1], "")))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    parser.add_argument("--examples", type=int, default=300,
                        help="examples per property test (default 300)")
    parser.add_argument("-k", default=None, help="pytest -k expression")
    parser.add_argument("--shrink", action="store_true", help="shrink failing examples")
    parser.add_argument("--log", default=None, help="write pytest's full output here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        stats_file = Path(tmp) / "progen_stats.json"
        env = dict(os.environ, HYPOTHESIS_PROFILE="explore",
                   PROGEN_EXAMPLES=str(args.examples), PROGEN_STATS=str(stats_file))
        if not args.shrink:
            env["PROGEN_NO_SHRINK"] = "1"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--runxfail",
               "--hypothesis-show-statistics", "-rf", *args.files]
        if args.k:
            cmd += ["-k", args.k]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        output = proc.stdout + proc.stderr
        stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    if args.log:
        Path(args.log).write_text(output)

    programs = {test: c.get("programs", 0) for test, c in stats.items()}
    refusals = {test: c.get("refusals", 0) for test, c in stats.items()}
    for test, n in _hypothesis_counts(output).items():
        programs.setdefault(test, n)
    failures = _failures(output)
    failed = {t for t, _ in failures}
    print(f"explore: {args.examples} examples per test, {seconds:.0f} s, "
          f"pytest exit code {proc.returncode}")
    print(f"{'test':<78} {'programs':>8} {'refused':>8}  result")
    for test in sorted(programs):
        print(f"{test:<78} {programs[test]:>8} {refusals.get(test, 0):>8}  "
              f"{'FAILED' if test in failed else 'ok'}")
    print(f"total programs: {sum(programs.values())}, failed tests: {len(failures)}")
    for test, why in failures:
        print(f"  FAILED {test}:\n      {why[:240]}")
    summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    print(summary[-1] if summary else output[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
