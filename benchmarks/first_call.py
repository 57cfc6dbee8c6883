#!/usr/bin/env python
"""First-call (compile) cost of st_autodiff at a small and a large size (issue 10).

    python benchmarks/first_call.py [--quick] [--workloads chain,mlp] [--json out.json]
                                    [--markdown out.md] [--timeout 120] [--src DIR]

Every measurement runs in a FRESH process (this interpreter, one BLAS/OpenMP/XLA thread),
so nothing is cached: not st_autodiff's parse cache, not linecache, not JAX's.  Per
workload (``fc_workloads.py``) and size, three child processes:

* **time**: ``g = st.grad(f)``, then ``g(*args)`` once (*first call*), then the median of
  several more calls (*steady*); *compile overhead* = first − steady.  The gradient is
  then checked by a directional central difference (``<grad, v>`` against
  ``(f(x + εv) − f(x − εv)) / 2ε``, not timed);
* **memory**: the same first call and one steady call under ``tracemalloc`` (NumPy
  reports its data buffers to it, Python objects are traced too); *compile peak* = peak
  above the pre-call baseline during the first call − the same during a steady call.
  ``tracemalloc`` slows Python code, so it has its own process and no timing;
* **jax**: ``jax.jit(jax.grad(f)).lower(*args).compile()`` (trace + XLA compile), when
  jax is installed.  JAX's loops are ``lax.fori_loop`` (²).

Times are process CPU time (``time.process_time``; wall time is in the JSON).  Each child
has a timeout; a workload that does not finish is reported as such.  *Growth* is compile
overhead at the large size / at the small one.  Targets (issue 10): overhead ≤ 60 ms,
growth ≤ 1.5×.  This is a benchmark, never a test: the exit status is 1 only when a
gradient is wrong or a child crashed in an unexpected way.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OVERHEAD_TARGET_S = 0.060
GROWTH_TARGET = 1.5
TRACEMALLOC_SLOWDOWN = 25  # skip the tracemalloc child when it would take longer than this
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# --------------------------------------------------------------------------------------
# Child side: one measurement in a fresh process; prints one JSON line
# --------------------------------------------------------------------------------------


def _clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def _since(t: tuple[float, float]) -> tuple[float, float]:
    c, w = _clocks()
    return c - t[0], w - t[1]


def _rss() -> tuple[int, int] | None:
    """(resident set, its high-water mark) in bytes, from /proc (Linux), else None."""
    try:
        with open("/proc/self/status") as fh:
            kb = {k: int(v.split()[0]) for k, v in (ln.split(":", 1) for ln in fh)
                  if k in ("VmRSS", "VmHWM")}
        return kb["VmRSS"] * 1024, kb["VmHWM"] * 1024
    except (OSError, KeyError, ValueError):
        return None


def _reset_hwm() -> int | None:
    """Reset the high-water mark (``clear_refs`` 5, Linux 4.0+); the resident set now."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return None
    now = _rss()
    return None if now is None else now[0]


def _rss_peak(base: int | None) -> int | None:
    now = _rss()
    return None if base is None or now is None else now[1] - base


def _directional_check(f: Any, args: tuple, wrt: tuple[int, ...], grads: Any) -> dict:
    """``<grad, v>`` against a central difference of ``f`` along a random ``v``."""
    import numpy as np  # noqa: PLC0415

    grads = grads if len(wrt) > 1 else (grads,)
    rng = np.random.default_rng(7)
    vs = [rng.standard_normal(np.shape(args[i])) for i in wrt]
    eps = 1e-6

    def shifted(s: float) -> float:
        a = list(args)
        for i, v in zip(wrt, vs):
            a[i] = args[i] + s * eps * (v if np.ndim(v) else float(v))
        return float(f(*a))

    fd = (shifted(1.0) - shifted(-1.0)) / (2 * eps)
    ad = float(sum(np.sum(np.asarray(g) * v) for g, v in zip(grads, vs)))
    rel = abs(ad - fd) / max(1.0, abs(fd))
    return {"ad": ad, "fd": fd, "rel_err": rel, "ok": bool(rel < 1e-4)}


def child(mode: str, name: str, size: int, repeats: int) -> dict[str, Any]:
    import fc_workloads  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    w = fc_workloads.BY_NAME[name]
    args = w.make(size, np.random.default_rng(0))
    out: dict[str, Any] = {"mode": mode, "workload": name, "size": size}
    if mode == "jax":
        import jax  # noqa: PLC0415

        jax.config.update("jax_enable_x64", True)
        fn, static = fc_workloads.jax_form(name, size)
        jargs = tuple(a if i in static else jax.numpy.asarray(a) for i, a in enumerate(args))
        t = _clocks()
        jitted = jax.jit(jax.grad(fn, argnums=w.wrt), static_argnums=static)
        compiled = jitted.lower(*jargs).compile()
        out["compile_cpu_s"], out["compile_wall_s"] = _since(t)
        jax.block_until_ready(compiled(*[a for i, a in enumerate(jargs) if i not in static]))
        out["jax_version"] = jax.__version__
        return out

    import st_autodiff as st  # noqa: PLC0415

    out["st_autodiff_file"] = st.__file__
    f = w.function(size)
    if mode == "compile":  # compiling alone: g.compile types the call, runs nothing
        f(*args)
        t = _clocks()
        g = st.grad(f, wrt=w.wrt)
        if not hasattr(g, "compile"):
            out["error"] = "this st_autodiff has no GradFunction.compile"
            return out
        g.compile(*args)
        out["compile_cpu_s"], out["compile_wall_s"] = _since(t)
        return out
    if mode == "memory":
        import tracemalloc  # noqa: PLC0415

        tracemalloc.start()
        peaks = []
        g = None
        for _ in range(2):  # the first call (st.grad included), then a steady one
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            g = g or st.grad(f, wrt=w.wrt)
            res = g(*args)
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
            del res
        tracemalloc.stop()
        out["first_peak_bytes"], out["steady_peak_bytes"] = peaks
        out["compile_peak_bytes"] = peaks[0] - peaks[1]
        return out
    for _ in range(2):
        # the process first runs f itself, as a program does before it asks for a
        # gradient: the allocator then holds pages of this size, and the first call
        # measures compiling, not the OS's first touch of fresh memory (which a
        # hand-written gradient's first call pays too: about 1 s at 1e7 elements here)
        f(*args)
    base = _reset_hwm()
    t = _clocks()
    g = st.grad(f, wrt=w.wrt)
    first = g(*args)
    out["first_cpu_s"], out["first_wall_s"] = _since(t)
    out["first_rss_peak_bytes"] = _rss_peak(base)
    steady = []
    for k in range(repeats):
        base = _reset_hwm() if k == 0 else None
        t = _clocks()
        g(*args)
        steady.append(_since(t))
        if k == 0:
            out["steady_rss_peak_bytes"] = _rss_peak(base)
    if out["first_rss_peak_bytes"] is not None and out["steady_rss_peak_bytes"] is not None:
        out["compile_rss_peak_bytes"] = (out["first_rss_peak_bytes"]
                                         - out["steady_rss_peak_bytes"])
    out["steady_cpu_s"] = statistics.median(c for c, _ in steady)
    out["steady_wall_s"] = statistics.median(w_ for _, w_ in steady)
    out["steady_n"] = repeats
    out["check"] = _directional_check(f, args, w.wrt, first)
    return out


def child_main(argv: list[str]) -> int:
    mode, name, size, repeats = argv[0], argv[1], int(argv[2]), int(argv[3])
    sys.path.insert(0, HERE)
    try:
        res = child(mode, name, size, repeats)
    except Exception as exc:  # reported, not raised: a compile failure is a result
        text = str(exc).strip().splitlines()
        res = {"mode": mode, "workload": name, "size": size,
               "error": f"{type(exc).__name__}: {text[0] if text else ''}"[:300],
               "compile_error": type(exc).__name__ != "RecursionError" and any(
                   c.__name__ == "CompileError" for c in type(exc).__mro__),
               "traceback": traceback.format_exc(limit=-6)[-2000:]}
    print("@@RESULT " + json.dumps(res))
    return 0


# --------------------------------------------------------------------------------------
# Parent side: run the children, tabulate
# --------------------------------------------------------------------------------------


def run_child(mode: str, name: str, size: int, repeats: int, timeout: float,
              src: str) -> dict[str, Any]:
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = "1"
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false "
                        "intra_op_parallelism_threads=1").strip()
    env["PYTHONPATH"] = os.pathsep.join([src, HERE] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    cmd = [sys.executable, os.path.abspath(__file__), "--child", mode, name, str(size),
           str(repeats)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "workload": name, "size": size, "timeout_s": timeout}
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT "):
            res = json.loads(line[len("@@RESULT "):])
            res["process_wall_s"] = time.perf_counter() - t0
            return res
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"mode": mode, "workload": name, "size": size,
            "error": f"child exited {proc.returncode}: {' | '.join(tail)}"[:300],
            "crash": True}


def measure(name: str, repeats: int, timeout: float, src: str, use_jax: bool,
            log: Any) -> dict[str, Any]:
    import fc_workloads  # noqa: PLC0415

    w = fc_workloads.BY_NAME[name]
    out: dict[str, Any] = {"workload": name, "description": w.description,
                           "jax_mark": w.jax_mark, "sizes": []}
    for size in w.sizes:
        row: dict[str, Any] = {"size": size, "label": w.size_label(size)}
        row["time"] = run_child("time", name, size, repeats, timeout, src)
        t = row["time"]
        if "first_cpu_s" in t:
            row["overhead_s"] = t["first_cpu_s"] - t["steady_cpu_s"]
            if t["first_cpu_s"] * TRACEMALLOC_SLOWDOWN < timeout:
                row["memory"] = run_child("memory", name, size, 1, timeout, src)
            else:  # tracemalloc slows the compiler's Python ~10-30x: it would time out
                row["memory"] = {"skipped": f"first call {t['first_cpu_s']:.0f} s"}
        row["compile"] = run_child("compile", name, size, 1, timeout, src)
        if use_jax:
            row["jax"] = run_child("jax", name, size, 1, timeout, src)
        log(f"  {name} {row['label']}: {_cell_first(row)} first, "
            f"{_cell_overhead(row)} overhead, jax {_cell_jax(row)}")
        out["sizes"].append(row)
    small, large = (r.get("overhead_s") for r in out["sizes"])
    if small and large is not None and small > 0:
        out["growth"] = large / small
    return out


# --- cells ----------------------------------------------------------------------------


def fmt_s(s: float | None) -> str:
    if s is None:
        return "–"
    if abs(s) >= 1:
        return f"{s:.2f} s"
    if abs(s) >= 1e-3:
        return f"{s * 1e3:.1f} ms" if abs(s) < 0.1 else f"{s * 1e3:.0f} ms"
    return f"{s * 1e6:.0f} µs"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "–"
    for unit, k in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if abs(n) >= k:
            return f"{n / k:.1f} {unit}"
    return f"{n:.0f} B"


def _failure(res: dict[str, Any]) -> str | None:
    if "timeout_s" in res:
        return f"timeout (> {res['timeout_s']:.0f} s)"
    if "error" in res:
        return res["error"].replace("|", "\\|")[:90]
    return None


def _cell_first(row: dict[str, Any]) -> str:
    return _failure(row["time"]) or fmt_s(row["time"]["first_cpu_s"])


def _cell_overhead(row: dict[str, Any]) -> str:
    o = row.get("overhead_s")
    if o is None:
        return "–"
    return fmt_s(o) if o <= OVERHEAD_TARGET_S else f"**{fmt_s(o)}**"


def _cell_compile(row: dict[str, Any]) -> str:
    c = row.get("compile")
    if c is None:
        return "–"
    return _failure(c) or c.get("error") or fmt_s(c["compile_cpu_s"])


def _cell_jax(row: dict[str, Any]) -> str:
    j = row.get("jax")
    if j is None:
        return "–"
    return _failure(j) or fmt_s(j["compile_cpu_s"])


def _cell_check(row: dict[str, Any]) -> str:
    c = row["time"].get("check")
    if c is None:
        return "–"
    return f"ok ({c['rel_err']:.0e})" if c["ok"] else f"**WRONG** ({c['rel_err']:.1e})"


def _cell_memory(row: dict[str, Any], which: str) -> str:
    """``traced / RSS`` for ``which`` ("compile" or "steady")."""
    m = row.get("memory") or {}
    traced = _failure(m) or ("–" if "skipped" in m or not m
                             else fmt_bytes(m[f"{which}_peak_bytes"]))
    rss = row["time"].get(f"{which}_rss_peak_bytes")
    return f"{traced} / {fmt_bytes(rss)}"


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"Run: `python benchmarks/first_call.py{report['argv']}` on {report['date']}, "
             f"st_autodiff {report['st_autodiff']}, total {report['total_s']:.0f} s; "
             f"{report['cpu']}, {report['cores']} cores, Python {report['python']}, "
             f"one BLAS/XLA thread, process CPU time.", "",
             f"Targets: compile overhead ≤ {OVERHEAD_TARGET_S * 1e3:.0f} ms (**bold**: "
             f"missed), growth small → large ≤ {GROWTH_TARGET}×.", "",
             "| workload | size | first call | steady call | compile overhead | growth | "
             "compile alone | compile peak memory (traced / RSS) | steady peak (traced / RSS) | "
             "jax.jit compile | gradient |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for w in report["workloads"]:
        growth = w.get("growth")
        g = "–" if growth is None else (f"{growth:.1f}×" if growth <= GROWTH_TARGET
                                        else f"**{growth:.1f}×**")
        for k, row in enumerate(w["sizes"]):
            t = row["time"]
            steady = fmt_s(t.get("steady_cpu_s")) if "steady_cpu_s" in t else "–"
            lines.append(
                f"| {w['workload'] if k == 0 else ''} | {row['label']} | {_cell_first(row)} | "
                f"{steady} | {_cell_overhead(row)} | {g if k == 1 else ''} | "
                f"{_cell_compile(row)} | {_cell_memory(row, 'compile')} | "
                f"{_cell_memory(row, 'steady')} | "
                f"{_cell_jax(row)}{w['jax_mark'] if row.get('jax') else ''} | "
                f"{_cell_check(row)} |")
    lines += ["", "*Compile alone*: `st.grad(f)` plus `g.compile(*args)` in a fresh process "
              "(after one call of `f`): the specialisation is built from the arguments' types "
              "and nothing runs; the first call's overhead adds the first run's extra cost (at "
              "1e7 elements mostly the OS's first touch of the gradient's temporaries, which "
              "a hand-written gradient's first call pays as well).", "",
              "Compile peak memory: the peak above the pre-call baseline during the first "
              "call (`st.grad` included) minus the same during a steady call; *traced*: "
              "`tracemalloc` (NumPy buffers and Python objects; its own process, skipped "
              "where tracemalloc would make the compile time out), *RSS*: the process's "
              "resident-set high-water mark (`VmHWM`, reset through "
              "`/proc/self/clear_refs`).", "",
              "² JAX runs the loop as `lax.fori_loop` (a Python loop of 100,000 steps "
              "takes minutes to trace; reverse mode does not go through `lax.while_loop`).",
              "", "| workload | what |", "|---|---|"]
    lines += [f"| {w['workload']} | {w['description']} |" for w in report["workloads"]]
    return "\n".join(lines) + "\n"


def _git_describe(src: str) -> str:
    try:
        head = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain",
                                "--untracked-files=no", "--", "st_autodiff"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    if not head:
        return "? (not a git checkout)"
    return f"commit {head}{' + local changes' if dirty else ''}"


def machine() -> dict[str, Any]:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh
                        if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return child_main(argv[1:])
    sys.path.insert(0, HERE)
    import fc_workloads  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 steady calls instead of 7")
    ap.add_argument("--workloads", help="comma-separated names: "
                    + ", ".join(w.name for w in fc_workloads.WORKLOADS))
    ap.add_argument("--json", help="write every measurement to this file")
    ap.add_argument("--markdown", help="write the table to this file")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per child process (default 120)")
    ap.add_argument("--src", default=ROOT,
                    help="directory holding the st_autodiff package to measure "
                         "(default: this checkout)")
    ap.add_argument("--label", help="what --src holds, for the report (default: its git "
                    "commit)")
    ap.add_argument("--no-jax", action="store_true", help="skip the jax.jit column")
    opts = ap.parse_args(argv)
    names = [w.name for w in fc_workloads.WORKLOADS]
    if opts.workloads:
        names = [n.strip() for n in opts.workloads.split(",") if n.strip()]
        unknown = [n for n in names if n not in fc_workloads.BY_NAME]
        if unknown:
            ap.error(f"unknown workloads {unknown}; known: {sorted(fc_workloads.BY_NAME)}")
    use_jax = not opts.no_jax
    if use_jax:
        import importlib.util  # noqa: PLC0415

        use_jax = importlib.util.find_spec("jax") is not None
    src = os.path.abspath(opts.src)
    report: dict[str, Any] = machine()
    report.update({"st_autodiff": opts.label or _git_describe(src), "src": src,
                   "argv": "".join(f" {shlex.quote(a)}" for a in argv), "timeout_s": opts.timeout,
                   "targets": {"overhead_s": OVERHEAD_TARGET_S, "growth": GROWTH_TARGET},
                   "workloads": []})
    t0 = time.perf_counter()
    repeats = 3 if opts.quick else 7
    for name in names:
        print(f"{name} ...", file=sys.stderr, flush=True)
        report["workloads"].append(measure(name, repeats, opts.timeout, src, use_jax,
                                           lambda m: print(m, file=sys.stderr, flush=True)))
    report["total_s"] = time.perf_counter() - t0
    md = render_markdown(report)
    print(md)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(report, fh, indent=1)
    if opts.markdown:
        with open(opts.markdown, "w") as fh:
            fh.write(md)
    bad = False
    for w in report["workloads"]:
        for row in w["sizes"]:
            c = row["time"].get("check")
            bad |= bool(c is not None and not c["ok"])
            bad |= any(row.get(m, {}).get("crash") for m in ("time", "memory", "jax"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
