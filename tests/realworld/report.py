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
    "### Refusals that are themselves bugs (located, so not failures)",
    "",
    "* What stops library code first (see the counts below): `raise` and `assert` in",
    "  validation branches that are not taken, `*args`/`**kwargs` (decorators such as",
    "  scikit-learn's `validate_params`, SciPy's `array_namespace(*arrays)`), `x is None`",
    "  checks of optional arguments, `with np.errstate(...)`, `x.dtype.char in '...'`.",
    "  Each is valid code whose value and gradient do not depend on the refused construct.",
    "* A dict argument read with a constant key (`def f(x, p): return np.sum(x * p['w'])`,",
    "  `p` not differentiated) is refused with `EvaluationError: getitem failed on the",
    "  example arguments: KeyError: ('w',)` and the hint \"the function itself fails for these",
    "  inputs\", which is false (`dict_argument_loss`).",
    "* A 2-d array literal holding differentiated scalars (`np.array([[1.0, t[1]], [t[1],",
    "  1.0]])`) is refused with `EvaluationError: add failed on the example arguments:",
    "  TypeError: unsupported operand type(s) for +: 'float' and 'Node'`: a compiler",
    "  internal leaks into the message and the hint blames the user",
    "  (`gaussian_cholesky_loglik`); the 1-d literal works.",
    "* Calls that need no derivative are refused as if they did: `np.finfo(x.dtype).eps`,",
    "  `isinstance`, `hasattr`, `warnings.warn`, `logger.debug(...)`, `np.asanyarray`: most",
    "  library code validates its inputs this way before any arithmetic.",
    "* `np.linalg.det` of a singular matrix is refused (\"the adjoint of det failed on the",
    "  example arguments: LinAlgError: Singular matrix\") although its gradient, the",
    "  transposed adjugate, is finite (`det_singular_loss`).",
    "* A `np.random.Generator` argument is taken for an array: `rng.normal(...)` is",
    "  refused with \"arrays have no supported attribute 'normal'\" (`rng_argument_loss`).",
    "* `print(f\"...\")` is refused (f-strings) although printing is not differentiated.",
    "* `np.linalg.cholesky` reads one triangle; st_autodiff returns the symmetrised gradient",
    "  (JAX's convention), which differs from central differences on a non-symmetric",
    "  perturbation.  `cholesky_loss` builds its symmetric input so both agree; this is a",
    "  convention, not counted as a bug.",
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
        lines += [f"### {cause} ({len(items)})", "", f"Entries: {names}.", "", where, "```",
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
