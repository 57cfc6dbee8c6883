#!/usr/bin/env python
"""Side-by-side gradient timings: hand-written NumPy vs st_autodiff vs the peers.

    python benchmarks/run.py [--quick] [--only NAME[,NAME...]] [--json out.json]
                             [--markdown docs/benchmarks.md] [--no-peers]

Everything runs in one process.  For each problem the runner times the NumPy forward, the
hand-written gradient (the baseline), st_autodiff's gradient (cached calls), and, when
installed, torch eager (forward+backward), jax.grad, jax.jit(jax.grad) and HIPS
autograd.  Each gradient is checked against the hand-written one before it is timed.
Then it measures st_autodiff's first-call (compile) time, its cached-call overhead and
its peak memory, and, for the loop and branch problems, checks st_autodiff against the
targets stated for them (gradient / hand-written per set of problems, gradient / forward,
peak memory / hand-written).  Ratios to the hand-written gradient are what to quote.

This is a benchmark, never a test: it asserts correctness, not speed.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import re
import sys
import time
import traceback
import warnings
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


DEFAULT_THREADS = 1


def _threads_from_argv(argv: list[str]) -> int:
    """``--threads N`` must act before NumPy (its BLAS), torch and JAX are imported."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return DEFAULT_THREADS


THREADS = _threads_from_argv(sys.argv[1:])
if THREADS:
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = str(THREADS)
    if THREADS == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_"
                                   "eigen=false intra_op_parallelism_threads=1").strip()

import bm_peers  # noqa: E402  (switches JAX to float64 before anything else uses it)
import bm_st  # noqa: E402
import bm_timing  # noqa: E402
import numpy as np  # noqa: E402
from bm_problems import PROBLEMS, Problem  # noqa: E402
from bm_timing import Settings, fmt_seconds, time_many  # noqa: E402

import st_autodiff as st  # noqa: E402

TARGETS: dict[str, float | None] = {"small": 1.3, "large": 1.1, "loops": None}
GROUP_TITLES = {"small": "small", "large": "medium/large", "loops": "loops and branches"}
# Loops and branches: st_autodiff's targets for the geomean of gradient / hand-written
# over each named set of problems, and per problem for gradient / forward and for peak
# memory / hand-written peak memory.
LOOP_GROUPS: list[tuple[str, tuple[str, ...], float]] = [
    ("scalar loops", ("recurrence_1000", "pendulum_100", "pendulum_1000", "branch_scalar"),
     1.5),
    ("RNN", ("rnn_50",), 1.15),
    ("branches, scalar", ("branch_scalar",), 1.5),
    ("branches, arrays", ("branch_array_1e5",), 1.2),
]
GRAD_OVER_FORWARD_TARGET = 3.5
MEMORY_TARGET = 1.2
FIRST_CALL_TARGET_S = 0.020
OVERHEAD_TARGET_S = 2e-6
RTOL, ATOL = 1e-6, 1e-9


# --------------------------------------------------------------------------------------
# Machine
# --------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    blas = "?"
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg["Build Dependencies"]["blas"]
        blas = f"{b.get('name', '?')} {b.get('version', '')}".strip()
    except Exception:
        pass
    info = {
        "date": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy BLAS": blas,
        "st_autodiff": st.__version__,
    }
    try:
        import subprocess
        root = os.path.dirname(os.path.dirname(os.path.abspath(st.__file__)))
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no",
                                "--", "st_autodiff"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
        if head:
            info["st_autodiff"] += f" (commit {head}{' + local changes' if dirty else ''})"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        info["load average at start"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    info.update(bm_peers.versions())
    info.update(bm_peers.threads())
    return info


# --------------------------------------------------------------------------------------
# One problem
# --------------------------------------------------------------------------------------


def _as_tuple(r: Any) -> tuple:
    return tuple(r) if isinstance(r, tuple | list) else (r,)


def _check(name: str, got: Any, want: tuple) -> str | None:
    got = _as_tuple(got)
    if len(got) != len(want):
        return f"{name}: {len(got)} gradients, expected {len(want)}"
    for i, (a, b) in enumerate(zip(got, want)):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            return f"{name}: gradient {i} has shape {a.shape}, expected {b.shape}"
        if not np.allclose(a, b, rtol=RTOL, atol=ATOL):
            err = float(np.max(np.abs(a - b) / (ATOL + RTOL * np.abs(b))))
            return f"{name}: gradient {i} differs from the hand-written one ({err:.3g}x tol)"
    return None


def run_problem(problem: Problem, settings: Settings, use_peers: bool,
                log: Any) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    args = problem.inputs(rng)
    res: dict[str, Any] = {"name": problem.name, "group": problem.group,
                           "description": problem.description, "impls": {}, "notes": [],
                           "target": problem.target}

    want = _as_tuple(problem.hand(*args))
    thunks: dict[str, Any] = {"forward": lambda: problem.forward(*args),
                              "hand": lambda: problem.hand(*args)}

    # st_autodiff
    t0 = time.perf_counter()
    chosen = bm_st.choose(problem, args)
    res["st_form"] = chosen.form
    res["jax_form"] = "lax loop" if problem.jax_forward is not None else "same code"
    res["st_setup_s"] = time.perf_counter() - t0
    if chosen.note and chosen.g is not None:  # otherwise the note is the error, below
        res["notes"].append(f"st_autodiff: {chosen.note}")
    if chosen.g is not None:
        thunk = chosen.thunk(args)
        err = _check("st_autodiff", thunk(), want)
        if err:
            res["impls"]["st_autodiff"] = {"error": err}
            log(f"  !! {err}")
        else:
            thunks["st_autodiff"] = thunk
    else:  # "unsupported: ..." (a CompileError) or "error: ..." (the compiler crashed)
        res["impls"]["st_autodiff"] = {"error": f"{chosen.form}: {chosen.note}"}
        log(f"  st_autodiff {chosen.form}: {chosen.note}")

    # peers
    if use_peers:
        for peer in bm_peers.available():
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    thunk, to_np = peer.make(problem, args)
                    got = to_np(thunk())
            except Exception as exc:  # a peer failing is a result, not a crash
                msg = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                res["impls"][peer.name] = {"error": msg}
                log(f"  !! {peer.name}: {msg}")
                continue
            setup = time.perf_counter() - t0
            err = _check(peer.name, got, want)
            if err:
                res["impls"][peer.name] = {"error": err}
                log(f"  !! {err}")
                continue
            thunks[peer.name] = thunk
            res["impls"][peer.name] = {"setup_s": setup}

    names = list(thunks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timings = time_many([thunks[n] for n in names], settings)
    hand = timings[names.index("hand")].best
    for n, t in zip(names, timings):
        entry = {"best_s": t.best, "loops": t.loops, "repeats_s": t.per_repeat,
                 "ratio": t.best / hand}
        if n in ("forward", "hand"):
            res[n] = entry
        else:
            res["impls"].setdefault(n, {}).update(entry)
    fwd = timings[names.index("forward")].best
    res["hand_over_forward"] = hand / fwd
    if "best_s" in res["impls"].get("st_autodiff", {}):
        res["st_over_forward"] = res["impls"]["st_autodiff"]["best_s"] / fwd
    res["_chosen"] = chosen
    res["_args"] = args
    return res


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------


def _ratio_cell(entry: dict[str, Any] | None, target: float | None = None) -> str:
    if entry is None:
        return "n/a"
    if "error" in entry and "ratio" not in entry:
        e = entry["error"]
        if e.startswith(("unsupported: ", "error: ")):  # st_autodiff did not compile it
            return _short(e)
        return "error"  # a wrong gradient or a failing peer: the message is in the notes
    r = entry["ratio"]
    cell = _num(r, target)
    if target is not None and r > target:
        cell = f"**{cell}**"
    return cell


def _short(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters (table cells), ``|`` escaped for markdown."""
    text = text.replace("|", "\\|")
    return text if len(text) <= width else text[:width - 1] + "…"


def _form_mark(r: dict[str, Any]) -> str:
    return " ¹" if r.get("st_form") == "unrolled" else ""


def ratio_table(results: list[dict[str, Any]], impls: list[str]) -> list[str]:
    head = ["problem", "hand-written", "forward"] + impls
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for group in GROUP_TITLES:
        rows = [r for r in results if r["group"] == group]
        if not rows:
            continue
        for r in rows:
            name = r["name"] + _form_mark(r)
            cells = [name, fmt_seconds(r["hand"]["best_s"]), f"{r['forward']['ratio']:.2f}"]
            target = r.get("target") or TARGETS.get(group)
            for impl in impls:
                cell = _ratio_cell(r["impls"].get(impl),
                                   target if impl == "st_autodiff" else None)
                if impl.startswith("jax") and r.get("jax_form") == "lax loop":
                    cell += " ²"
                cells.append(cell)
            lines.append("| " + " | ".join(cells) + " |")
        cells = [f"*geomean {GROUP_TITLES[group]}*", "", ""]
        for impl in impls:
            gm = geomean([r["impls"].get(impl, {}).get("ratio") for r in rows])
            if gm is None:
                cells.append("")
                continue
            txt = f"{gm:.2f}"
            if impl == "st_autodiff" and TARGETS.get(group) is not None:
                ok = gm <= TARGETS[group]
                txt = f"*{txt}* (target ≤ {TARGETS[group]}: {'met' if ok else 'MISSED'})"
            else:
                txt = f"*{txt}*"
            cells.append(txt)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def first_call_table(fcs: list[dict[str, Any]]) -> list[str]:
    lines = ["| function (form) | fresh function: first call | compile ≈ first − cached "
             "| same function, new st.grad: compile | cached call (small inputs) |",
             "|---|---|---|---|---|"]
    for f in fcs:
        fr, wp = f["fresh_function"], f["warm_parse_cache"]

        def c(s: float) -> str:
            txt = fmt_seconds(s)
            return f"**{txt}**" if s > FIRST_CALL_TARGET_S else txt
        lines.append(f"| {f['problem']} ({f['form']}) | {fmt_seconds(fr['first_call_min_s'])} "
                     f"| {c(fr['compile_min_s'])} (median {fmt_seconds(fr['compile_median_s'])}"
                     f", n={fr['n']}) | {c(wp['compile_min_s']) if wp else 'skipped'} "
                     f"| {fmt_seconds(f['cached_call_s'])} |")
    return lines


def overhead_table(ovs: list[dict[str, Any]]) -> list[str]:
    lines = ["| case | g(*args) | g.__wrapped__(*args) | overhead |", "|---|---|---|---|"]
    for o in ovs:
        oh = o["overhead_s"]
        txt = fmt_seconds(oh) if oh > 0 else f"{oh * 1e9:.0f} ns"
        if oh > OVERHEAD_TARGET_S:
            txt = f"**{txt}**"
        lines.append(f"| {o['case']} | {fmt_seconds(o['g_s'])} | {fmt_seconds(o['direct_s'])} "
                     f"| {txt} |")
    return lines


def fmt_bytes(n: float) -> str:
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    if n >= 2**10:
        return f"{n / 2**10:.1f} KiB"
    return f"{n:.0f} B"


def memory_ratio(m: dict[str, Any]) -> float | None:
    """st_autodiff's peak / the hand-written gradient's peak (None: not measured)."""
    h, s = m["hand_bytes"], m.get("st_bytes")
    return s / h if s is not None and h else None


def memory_table(mems: list[dict[str, Any]]) -> list[str]:
    loop_names = _loop_problem_names()
    lines = ["| problem | hand-written peak | st_autodiff peak | ratio |", "|---|---|---|---|"]
    for m in mems:
        h, s = m["hand_bytes"], m.get("st_bytes")
        r = memory_ratio(m)
        ratio = "—" if r is None else _num(r, MEMORY_TARGET)
        if r is not None and m["problem"] in loop_names and r > MEMORY_TARGET:
            ratio = f"**{ratio}**"
        st_cell = fmt_bytes(s) if s is not None else m.get("st_status", "not measured")
        lines.append(f"| {m['problem']} | {fmt_bytes(h)} | {st_cell} | {ratio} |")
    return lines


# --------------------------------------------------------------------------------------
# Loops and branches: the targets stated for them
# --------------------------------------------------------------------------------------


def _loop_problem_names() -> set[str]:
    names = {n for _, members, _ in LOOP_GROUPS for n in members}
    return names | {p.name for p in PROBLEMS if p.group == "loops"}


def _num(x: float, target: float | None = None) -> str:
    """``x`` to 2 decimals, or 3 where 2 would round it onto ``target`` from the other
    side (1.152 against 1.15 must not print as a missed 1.15)."""
    txt = f"{x:.2f}"
    if target is not None and float(txt) == target and x != target:
        txt = f"{x:.3f}"
    return txt


def _verdict(value: float | None, target: float) -> str:
    if value is None:
        return "not met (not measured)"
    return "met" if value <= target else "**not met**"


def loop_summary(report: dict[str, Any]) -> list[str]:
    """Per problem: gradient / hand-written, gradient / forward, peak memory / hand-written;
    per group: geomean of gradient / hand-written, st_autodiff and the peers; each against
    its target.  Empty when no loop problem was run."""
    names = _loop_problem_names()
    rows = [r for r in report["results"] if r["name"] in names]
    if not rows:
        return []
    mems = {m["problem"]: m for m in report.get("memory") or []}
    measured_mem = bool(report.get("memory"))
    out = ["| problem | st_autodiff form | hand-written | hand / forward "
           "| st_autodiff / hand (target) | st_autodiff / forward (≤ "
           f"{GRAD_OVER_FORWARD_TARGET}) | peak: hand-written | peak: st_autodiff / hand "
           f"(≤ {MEMORY_TARGET}) |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        st_entry = r["impls"].get("st_autodiff", {})
        target = r.get("target") or TARGETS.get(r["group"])
        if "ratio" in st_entry:
            ratio = _num(st_entry["ratio"], target)
            if target is not None:
                ratio += f" (≤ {target}: {_verdict(st_entry['ratio'], target)})"
        else:
            ratio = _ratio_cell(st_entry)
        sf = r.get("st_over_forward")
        fwd = ("—" if sf is None else
               f"{_num(sf, GRAD_OVER_FORWARD_TARGET)} "
               f"{_verdict(sf, GRAD_OVER_FORWARD_TARGET)}")
        hf = r.get("hand_over_forward")
        m = mems.get(r["name"])
        if m is None:
            hand_mem, mem = "—", "not measured" + ("" if measured_mem else " (--no-extras)")
        else:
            hand_mem = fmt_bytes(m["hand_bytes"])
            mr = memory_ratio(m)
            mem = (m.get("st_status", "—") if mr is None
                   else f"{_num(mr, MEMORY_TARGET)} {_verdict(mr, MEMORY_TARGET)}")
        out.append(f"| {r['name']}{_form_mark(r)} | {r.get('st_form', '?')} "
                   f"| {fmt_seconds(r['hand']['best_s'])} "
                   f"| {'—' if hf is None else f'{hf:.2f}'} | {ratio} | {fwd} "
                   f"| {hand_mem} | {mem} |")
    impls = report["impls"]
    by_name = {r["name"]: r for r in report["results"]}
    out += ["", "| group (geomean of gradient / hand-written) | target | "
            + " | ".join(impls) + " | st_autodiff target |",
            "|---|---|" + "---|" * len(impls) + "---|"]
    for title, members, target in LOOP_GROUPS:
        present = [by_name[n] for n in members if n in by_name]
        if not present:
            continue
        cells = [f"{title}: {', '.join(r['name'] for r in present)}", f"≤ {target}"]
        for impl in impls:
            gm = geomean([r["impls"].get(impl, {}).get("ratio") for r in present])
            cells.append("—" if gm is None else _num(gm, target))
        missing = [r["name"] for r in present
                   if "ratio" not in r["impls"].get("st_autodiff", {})]
        if missing:
            verdict = f"not met ({', '.join(missing)}: no st_autodiff timing)"
        else:
            verdict = _verdict(geomean([r["impls"]["st_autodiff"]["ratio"] for r in present]),
                               target)
        cells.append(verdict)
        out.append("| " + " | ".join(cells) + " |")
    return out


def render_markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    impls = report["impls"]
    out = [f"Run: `python benchmarks/run.py{report['flags']}` "
           f"on {m['date']}, total {report['total_s']:.0f} s.", "",
           "| machine and settings | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in m.items() if k != "date"]
    out += ["",
           "### Gradient time relative to the hand-written NumPy gradient", "",
           "Lower is better; 1.00 = as fast as the hand-written gradient.  *hand-written* is "
           "its absolute time per call; *forward* is the NumPy forward alone.  **Bold**: "
           "st_autodiff above its target (small ≤ 1.3, medium/large ≤ 1.1; loops and "
           "branches: each problem's group target, see the last section).", ""]
    out += ratio_table(report["results"], impls)
    forms = {r["name"]: r.get("st_form") for r in report["results"]}
    if any(f == "unrolled" for f in forms.values()):
        out += ["", "¹ st_autodiff does not compile loops yet (issue 3): it differentiated the "
                "*unrolled* source of the same function (one statement per iteration, "
                "generated into a module file), while the hand-written gradient and the "
                "peers run the Python loop."]
    if any(r.get("jax_form") == "lax loop" for r in report["results"]):
        out += ["", "² JAX ran the loop as `lax.fori_loop` / `lax.scan`, and a branch as "
                "`lax.cond` (the idiomatic JAX form): the 1000- and 1024-step Python loops "
                "take minutes to jit-compile and seconds per eager gradient, and a Python "
                "`if` on a traced value does not jit at all."]
    notes = [f"- {r['name']}: {n}" for r in report["results"] for n in r["notes"]]
    errors = [f"- {r['name']} / {k}: {v['error']}" for r in report["results"]
              for k, v in r["impls"].items() if "error" in v]
    if notes or errors:
        out += ["", "Notes and errors:", ""] + notes + errors
    if report.get("first_call"):
        out += ["", "### st_autodiff first call (target ≤ 20 ms)", "",
                "*Fresh function*: the module is copied to a new file and imported before "
                "every measurement, so no cache (st_autodiff's per-code-object parse cache, "
                "linecache) has seen it.  *Same function, new st.grad*: a new `st.grad` "
                "object on an already-parsed function.  Measured on small inputs of the same "
                "kinds (ranks, dtypes) so that one run of the gradient is negligible; "
                "compile = first call minus one cached call; minimum over repeats.", ""]
        out += first_call_table(report["first_call"])
    if report.get("overhead"):
        out += ["", "### st_autodiff cached-call overhead (target ≤ 2 µs)", "",
                "`g(*args)` minus the generated function called directly "
                "(`g.__wrapped__(*args)`), tiny inputs, minimum over repeats.", ""]
        out += overhead_table(report["overhead"])
    if report.get("memory"):
        out += ["", "### Peak memory of one gradient call (tracemalloc, NumPy allocations)",
                "", "Peak traced allocation during the call, above what existed before it "
                "(the returned gradients included).", ""]
        out += memory_table(report["memory"])
    summary = loop_summary(report)
    if summary:
        out += ["", "### Loops and branches: st_autodiff against its targets", "",
                "Per problem: gradient / hand-written gradient (the table above), gradient "
                f"/ NumPy forward (target ≤ {GRAD_OVER_FORWARD_TARGET}; *hand / forward* is "
                "what the hand-written gradient achieves), and the tracemalloc peak of one "
                f"gradient call / the hand-written one's (target ≤ {MEMORY_TARGET}).  Per "
                "group: geometric mean of gradient / hand-written for st_autodiff and the "
                "peers; a group is met only when st_autodiff ran every problem in it.", ""]
        out += summary
    return "\n".join(out) + "\n"


BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def write_markdown(path: str, body: str) -> None:
    """Replace the text between the result markers of ``path`` (or write a new file)."""
    block = f"{BEGIN}\n{body}{END}\n"
    if os.path.exists(path):
        with open(path) as fh:
            text = fh.read()
        if BEGIN in text and END in text:
            text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?",
                          lambda _: block, text, count=1, flags=re.S)
        else:
            text = text.rstrip("\n") + "\n\n" + block
    else:
        text = "# Benchmarks\n\n" + block
    with open(path, "w") as fh:
        fh.write(text)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items() if not k.startswith("_")}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short timings (~1.5 min in all)")
    ap.add_argument("--only", help="comma-separated problem names (or prefixes)")
    ap.add_argument("--json", help="write every measurement to this file")
    ap.add_argument("--markdown", help="write the results tables into this markdown file "
                    "(between the result markers, if it has them)")
    ap.add_argument("--no-peers", action="store_true", help="skip torch / jax / autograd")
    ap.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                    help="limit NumPy's BLAS, torch and JAX to N threads; 0 = each library's "
                    "own default (default: %(default)s, which keeps ratios stable on a "
                    "shared machine)")
    ap.add_argument("--clock", choices=sorted(bm_timing.CLOCKS), default="cpu",
                    help="cpu: process CPU time, robust to other jobs on the machine "
                    "(default); wall: perf_counter, as timeit")
    ap.add_argument("--from-json", metavar="JSON",
                    help="measure nothing: render the tables of an earlier --json file "
                    "(with --markdown to write them)")
    ap.add_argument("--no-extras", action="store_true",
                    help="skip first-call, overhead and memory measurements")
    opts = ap.parse_args(argv)

    if opts.from_json:
        with open(opts.from_json) as fh:
            md = render_markdown(json.load(fh))
        print(md)
        if opts.markdown:
            write_markdown(opts.markdown, md)
        return 0

    settings = Settings.quick() if opts.quick else Settings()
    problems = PROBLEMS
    if opts.only:
        wanted = [w.strip() for w in opts.only.split(",") if w.strip()]
        problems = [p for p in PROBLEMS if any(p.name == w or p.name.startswith(w)
                                               for w in wanted)]
        if not problems:
            print(f"no problem matches {opts.only!r}; known: "
                  + ", ".join(p.name for p in PROBLEMS), file=sys.stderr)
            return 2

    def log(msg: str) -> None:
        print(msg, flush=True)

    t_start = time.perf_counter()
    bm_timing.set_clock(opts.clock)
    if opts.threads:
        bm_peers.set_threads(opts.threads)
    machine = machine_info()
    machine["clock"] = {"cpu": "process CPU time", "wall": "wall time"}[opts.clock]
    machine["threads"] = (f"{opts.threads} (--threads: BLAS, torch, XLA)" if opts.threads
                          else "library defaults (--threads 0)")
    log("machine: " + ", ".join(f"{k}={v}" for k, v in machine.items()))
    impls = ["st_autodiff"] + ([] if opts.no_peers else [p.name for p in bm_peers.available()])

    results = []
    failed = False
    for p in problems:
        log(f"[{time.perf_counter() - t_start:6.1f}s] {p.name}: {p.description}")
        try:
            r = run_problem(p, settings, not opts.no_peers, log)
        except Exception:
            traceback.print_exc()
            failed = True
            continue
        results.append(r)
        cells = [f"hand {fmt_seconds(r['hand']['best_s'])}",
                 f"fwd {r['forward']['ratio']:.2f}"]
        for impl in impls:
            label = f"{impl}[{r['st_form']}]" if impl == "st_autodiff" else impl
            cells.append(f"{label} {_ratio_cell(r['impls'].get(impl))}")
        log("    " + "  ".join(cells))
        if "error" in r["impls"].get("st_autodiff", {}):
            failed = failed or not r["impls"]["st_autodiff"]["error"].startswith("unsupported")

    flags = "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])
                    if not a.endswith((".json", ".md")) and a not in ("--json", "--markdown"))
    report: dict[str, Any] = {"machine": machine, "quick": opts.quick, "impls": impls,
                              "flags": flags,
                              "settings": vars(settings), "results": results}

    if not opts.no_extras:
        log(f"[{time.perf_counter() - t_start:6.1f}s] st_autodiff first call")
        fcs = []
        for r in results:
            chosen = r["_chosen"]
            st_entry = r["impls"].get("st_autodiff", {})
            if chosen.g is None or "best_s" not in st_entry:
                continue
            fc = bm_st.first_call(next(p for p in problems if p.name == r["name"]), chosen,
                                  settings, opts.quick)
            if fc is None:
                continue
            fcs.append(fc.summary())
            s = fcs[-1]
            warm = s["warm_parse_cache"]
            log(f"    {r['name']}: compile {fmt_seconds(s['fresh_function']['compile_min_s'])}"
                f" (fresh), {fmt_seconds(warm['compile_min_s']) if warm else '—'} (parsed)")
        report["first_call"] = fcs

        log(f"[{time.perf_counter() - t_start:6.1f}s] st_autodiff cached-call overhead")
        ovs = []
        for o in bm_st.overheads(settings):
            ovs.append({"case": o.case, "g_s": o.g_s, "direct_s": o.direct_s,
                        "overhead_s": o.overhead_s})
            log(f"    {o.case}: {o.overhead_s * 1e9:.0f} ns")
        report["overhead"] = ovs

        log(f"[{time.perf_counter() - t_start:6.1f}s] peak memory")
        mems = []
        loop_names = _loop_problem_names()
        for r in results:
            chosen = r["_chosen"]
            st_ok = chosen.g is not None and "best_s" in r["impls"].get("st_autodiff", {})
            if not st_ok and r["name"] not in loop_names:
                continue
            p = next(p for p in problems if p.name == r["name"])
            args = r["_args"]
            m: dict[str, Any] = {"problem": r["name"],
                                 "hand_bytes": bm_st.peak_bytes(lambda p=p, a=args: p.hand(*a))}
            if st_ok:
                m["st_bytes"] = bm_st.peak_bytes(chosen.thunk(args))
            else:
                m["st_status"] = chosen.form if chosen.g is None else "error"
            mems.append(m)
            st_txt = fmt_bytes(m["st_bytes"]) if st_ok else m["st_status"]
            log(f"    {r['name']}: hand {fmt_bytes(m['hand_bytes'])}, st_autodiff {st_txt}")
        report["memory"] = mems

    report["total_s"] = time.perf_counter() - t_start
    try:
        machine["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    md = render_markdown(report)
    print()
    print(md)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(_jsonable(report), fh, indent=1)
    if opts.markdown:
        write_markdown(opts.markdown, md)
    bm_st.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
