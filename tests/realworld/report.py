"""Write ``docs/realworld.md``: the pass count, the known wrong results and the refusals of
the real-world corpus grouped by cause.

Run from the repository root::

    python -m tests.realworld.report            # rewrites docs/realworld.md
    python -m tests.realworld.report --print    # prints it instead
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from collections import defaultdict
from importlib import metadata
from pathlib import Path

from .baseline import PASS_BASELINE
from .bugs import REPRODUCTIONS
from .collect import CORPORA, all_entries, missing
from .entry import NO_RULE, Entry, Outcome, outcome

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "realworld.md"
DISTRIBUTIONS = ("numpy", "scipy", "scikit-learn", "statsmodels")


#: Refusals of valid code worth fixing first (they are located, so they do not fail).
NOTES = [
    "### What still stops library code (located, so not failures)",
    "",
    "* Shapes known only in part: after a data-dependent selection the compiler knows a",
    "  shape wholly or not at all (`x.size` in lagrange's `trim_zeros`); a rank-only shape",
    "  type would lift this. (Short static loops that change a carried shape, as polyder",
    "  and detrend do, are unrolled.)",
    "* Element writes into a name bound to an expression (barycentric_interpolate):",
    "  refused as aliasing writes rather than guessed.",
    "* Layout queries on values whose layout is not inferred (a branch or loop output, a",
    "  basic slice): savgol_filter, pearsonr; `x.flags.owndata`/`x.base` are not answered.",
    "* A write into an array that a calling function also holds, inside a runtime `if`",
    "  (variation's `at(out, cond).set(...)` under the NaN-policy check).",
    "* sklearn's label checks: `log_loss` decides on the values of `y_true`",
    "  (`type_of_target`), which are run-time data here; `brier_score_loss` converts",
    "  through `np.from_dlpack`; `hinge_loss` views a label array made while compiling",
    "  with a dtype carrying metadata (`y.view(dtype=...)`).",
    "* Compiled kernels without a rule: `qr(pivoting=True)`, `int.bit_length` of a runtime",
    "  int (acf).  Every function with a rule is listed in docs/rules.md",
    "  (`st-autodiff rules`): scipy.stats distributions, scipy.special, FFTs (spectra as",
    "  real pairs), linear algebra, filters, distances and ODE solvers among them.",
    "* `np.linalg.cholesky` reads one triangle; st_autodiff returns the symmetrised gradient",
    "  (JAX's convention), which differs from central differences on a non-symmetric",
    "  perturbation.  `cholesky_loss` builds its symmetric input so both agree; this is a",
    "  convention, not counted as a bug (`scipy.linalg.cholesky` reads the triangle exactly).",
    "",
]


def _clean(text: str) -> str:
    """Paths made machine-independent: site-packages and the repository root elided."""
    text = re.sub(r"\S*/site-packages/", "", text)
    return text.replace(str(ROOT) + "/", "")


def _group(entry: Entry) -> str:
    return "programs" if entry.package == "programs" else entry.package


def render(results: list[tuple[Entry, Outcome]]) -> str:
    """The Markdown text of the report."""
    versions = ", ".join(f"{d} {metadata.version(d)}" for d in DISTRIBUTIONS)
    groups = list(dict.fromkeys(_group(e) for e, _ in results))
    table = defaultdict(lambda: defaultdict(int))
    for e, o in results:
        status = "known wrong" if e.xfail else o.status
        table[_group(e)][status] += 1
    passed = [e for e, o in results if o.status == "pass"]
    lines = [
        "# Real-world corpus: functions nobody here wrote",
        "",
        "`tests/realworld/` imports functions from installed packages (SciPy, scikit-learn,",
        "statsmodels, NumPy) and calls each from a small user wrapper; `programs.py` and",
        "`programs_numerical.py` hold programs written the way users write them.  Each",
        "entry must give EITHER the right value and gradient (value equal to the wrapper run",
        "directly, gradient equal to float64 central differences and to the package's own",
        "analytic gradient where it ships one; entries marked `modes=True` also check",
        "`st.jvp` and `st.hessian`) OR a refusal (`st_autodiff.StAutodiffError`) whose",
        "location names a file and line.  A wrong value or gradient, or any other exception,",
        "fails the test; the wrong results known today are strict xfails naming the bug",
        "(`tests/realworld/bugs.py`).",
        "",
        "Regenerate this page with `python -m tests.realworld.report` (needs the `realworld`",
        "extra: `pip install -e \".[test]\"`).  The pass count may not drop below",
        f"the baseline in `tests/realworld/baseline.py` (now {PASS_BASELINE}): raise it there",
        "when more entries pass.",
        "",
        f"Generated with {versions}.",
        "",
        f"**{len(passed)} of {len(results)} entries pass.**",
        "",
        "| corpus | entries | pass | refused (located) | known wrong |",
        "|---|---|---|---|---|",
    ]
    for g in groups:
        row = table[g]
        lines.append(f"| {g} | {sum(row.values())} | {row['pass']} | {row['refused']} | "
                     f"{row['known wrong'] + row['wrong']} |")
    lines += ["", "## Known wrong results", ""]
    wrong = [(e, o) for e, o in results if e.xfail or o.status == "wrong"]
    by_bug: dict[str, list[tuple[Entry, Outcome]]] = defaultdict(list)
    for e, o in wrong:
        by_bug[e.xfail or "unmarked (a new wrong result)"].append((e, o))
    if not by_bug:
        lines.append("None.")
    for bug, items in sorted(by_bug.items()):
        names = ", ".join(f"`{e.name}`" for e, _ in items)
        first = _clean(items[0][1].message).strip().splitlines()[0]
        lines += [f"### {bug}", "", f"Entries: {names}.  First failure: `{first[:300]}`", ""]
        if bug in REPRODUCTIONS:
            lines += ["```python", REPRODUCTIONS[bug], "```", ""]
    lines += NOTES
    lines += ["## Refusals by cause", ""]
    causes: dict[str, list[tuple[Entry, Outcome]]] = defaultdict(list)
    for e, o in results:
        if o.status == "refused" and not e.xfail:
            causes[o.cause].append((e, o))
    for cause, items in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        e0, o0 = items[0]
        names = ", ".join(f"`{e.name}`" for e, _ in items)
        callees = sorted({m.group(1) for _, o in items
                          if (m := NO_RULE.search(o.message.splitlines()[0]))})
        where = f"Callees: {', '.join(callees)}." if callees else ""
        lines += [f"### {cause} ({len(items)})", "", f"Entries: {names}.", "", where, "```text",
                  _clean(o0.message).rstrip(), "```", ""]
    lines += ["## Entries that pass", "",
              ", ".join(f"`{e.name}`" for e in passed) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run every entry and write (or print) the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="print instead of writing")
    ns = parser.parse_args(argv)
    if missing():
        print(f"missing packages {missing()}: pip install -e '.[test]'", file=sys.stderr)
        return 2
    results = []
    for e in all_entries():
        with contextlib.redirect_stdout(io.StringIO()):  # programs that print
            results.append((e, outcome(e)))
    text = render(results)
    if ns.print:
        print(text)
    else:
        DOC.write_text(text)
        passed = sum(o.status == "pass" for _, o in results)
        print(f"wrote {DOC.relative_to(ROOT)}: {passed} of {len(results)} pass "
              f"({len(CORPORA)} corpora)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
