"""Throughput of the Dask example's gradient: NumPy in one process vs LocalClusters.

Run it with ``python benchmarks/dask_scale.py`` (1e6 rows, a minute or two), or with
``--rows 100000000`` for a data set (25.6 GB) larger than this machine's memory: the
columns that need the data in memory are then left out, and the Dask columns draw it
chunk by chunk.

The gradient is ``st.value_and_grad`` of ``examples/dask_logistic.py``'s loss (the
logistic loss of a linear model, a dict of parameters ``w``, ``b``), in rows per second
of one evaluation of loss and gradient over all rows, best of ``--repeat``.  Two ways:

* *in memory*: the rows are already there (NumPy: one array in this process; Dask: the
  chunks persisted in the workers' memory), so only the gradient is timed;
* *drawn*: each evaluation draws the rows again chunk by chunk from the seeded generator
  and drops them after use (what the example does, what lets it exceed memory); NumPy
  draws the whole array in this process first, with the same kernels.

Columns: NumPy in this process, a LocalCluster of 1 worker process, of 2 workers (one
thread each; BLAS limited to one thread everywhere).  On one machine the workers share its
cores and memory bandwidth with each other and with whatever else runs, so the point is
that the same gradient runs out of core and scales by configuration, not a speed-up here.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # (before NumPy loads; workers inherit it)

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import dask  # noqa: E402
import numpy as np  # noqa: E402
from dask.distributed import Client, LocalCluster, wait  # noqa: E402

import st_autodiff as st  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("dask_logistic",
                                                  ROOT / "examples" / "dask_logistic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _available_bytes() -> int:
    """MemAvailable of /proc/meminfo (0 where unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(rows: int, features: int, chunk: int, repeat: int, workers: list[int],
            worker_memory: str) -> dict[str, Any]:
    """Seconds per evaluation for each column and way (None: left out, with why)."""
    ex = _example()
    grad = st.value_and_grad(ex.loss)
    params = {"w": np.full(features, 0.01), "b": np.zeros(())}
    x, y = ex.make_data(rows, features, chunk)
    nbytes = int(x.nbytes + y.nbytes)
    out: dict[str, Any] = {"bytes": nbytes, "times": {}, "notes": {}}
    fits = nbytes < _available_bytes() / 3  # room for the data and the gradient's temporaries
    if fits:
        with dask.config.set(scheduler="sync"):
            def drawn() -> Any:
                xn, yn = dask.compute(x, y)
                return grad(params, xn, yn)
            out["times"]["numpy", "drawn"] = _best(drawn, repeat)
            xn, yn = dask.compute(x, y)
        grad(params, xn, yn)  # (compiled for NumPy arrays: not timed)
        out["times"]["numpy", "in memory"] = _best(lambda: grad(params, xn, yn), repeat)
        del xn, yn
    else:
        out["notes"]["numpy"] = "does not fit in memory"
    for k in workers:
        name = f"dask, {k} worker{'s' if k > 1 else ''}"
        cluster = LocalCluster(n_workers=k, threads_per_worker=1, memory_limit=worker_memory,
                               dashboard_address=":0")
        with Client(cluster) as client:
            dask.compute(*grad(params, x[:chunk], y[:chunk]))  # workers warm (imports)
            grad(params, x, y)  # (compiled for these Dask arrays: not timed)
            out["times"][name, "drawn"] = _best(lambda: dask.compute(*grad(params, x, y)),
                                                repeat)
            room = k * dask.utils.parse_bytes(worker_memory)
            if nbytes < room / 3:
                xp_, yp_ = client.persist([x, y])
                wait([xp_, yp_])
                out["times"][name, "in memory"] = _best(
                    lambda xp_=xp_, yp_=yp_: dask.compute(*grad(params, xp_, yp_)), repeat)
                del xp_, yp_
            else:
                out["notes"][name] = "in memory: does not fit in the workers' memory"
        cluster.close()
    return out


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def markdown(meta: dict[str, Any], result: dict[str, Any], columns: list[str]) -> str:
    """The run line and the table (M rows/s; – where left out)."""
    lines = [f"Run: `{meta['argv']}` on {meta['date']}, st_autodiff commit {meta['commit']},"
             f" total {meta['total_s']:.0f} s; {meta['cpu']}, {meta['cores']} cores, Python "
             f"{meta['python']}, load average before {meta['load_before']}, after "
             f"{meta['load_after']}.", "",
             f"{meta['rows']:,} rows × {meta['features']} features "
             f"({result['bytes'] / 1e9:.2f} GB), chunks of {meta['chunk']:,} rows, workers "
             f"of {meta['worker_memory']}; million rows per second of loss + gradient, "
             f"best of {meta['repeat']}.", "",
             "| rows | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for way in ("in memory", "drawn"):
        cells = []
        for c in columns:
            t = result["times"].get((c, way))
            cells.append(f"{meta['rows'] / t / 1e6:.2f}" if t else "–")
        lines.append(f"| {way} | " + " | ".join(cells) + " |")
    for c, why in result["notes"].items():
        lines.append(f"\n{c}: {why}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--chunk", type=int, default=125_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--worker-memory", default="2GiB")
    p.add_argument("--json", type=Path, help="write the numbers here")
    p.add_argument("--markdown", type=Path, help="write the table here")
    a = p.parse_args(argv)
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    result = measure(a.rows, a.features, min(a.chunk, a.rows), a.repeat, [1, 2],
                     a.worker_memory)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": _commit(), "cpu": _cpu(), "cores": os.cpu_count(),
            "python": platform.python_version(), "dask": dask.__version__,
            "argv": "python benchmarks/dask_scale.py " + " ".join(sys.argv[1:] if argv is None
                                                                  else argv),
            "rows": a.rows, "features": a.features, "chunk": min(a.chunk, a.rows),
            "repeat": a.repeat, "worker_memory": a.worker_memory,
            "load_before": f"{load_before:.1f}", "load_after": f"{os.getloadavg()[0]:.1f}",
            "total_s": time.perf_counter() - t0}
    columns = ["numpy", "dask, 1 worker", "dask, 2 workers"]
    text = markdown(meta, result, columns)
    print(text)
    if a.json:
        rows = {f"{c} / {w}": {"seconds": t, "rows_per_s": a.rows / t}
                for (c, w), t in result["times"].items()}
        a.json.write_text(json.dumps({**meta, "bytes": result["bytes"], "results": rows,
                                      "notes": result["notes"]}, indent=1) + "\n")
    if a.markdown:
        a.markdown.write_text(text)


if __name__ == "__main__":
    main()
