"""Whole-program timings: the corpus of ``tests/programs`` under PyTorch and st_autodiff.

``python benchmarks/programs.py [--repeat N] [--clock cpu|wall] [NAME ...]`` starts one
server per engine (``tests/programs/runner.py ENGINE --serve``: st_autodiff standing in for
``torch`` in this interpreter, real PyTorch in the interpreter ``tests.programs.harness``
finds), both pinned to one thread (OMP/MKL threads 1, ``torch.set_num_threads(1)``). Each
round runs every program once in each engine, interleaved and alternating which goes first,
so that load on the machine falls on both alike; a program's time is its minimum over the
rounds. Prints a per-program table and the summed ratio st_autodiff / PyTorch over the
programs whose st_autodiff output matches PyTorch's stored output (``tests/programs/
expected``; a program that stops early or computes something else is not comparable) and
that run to the end under PyTorch. Where no PyTorch is found the torch column is left out.
A measurement, never a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.programs.compare import first_difference  # noqa: E402
from tests.programs.harness import (  # noqa: E402
    RUNNER,
    engine_env,
    expected_output,
    program_paths,
    torch_python,
)


class Server:
    """One engine's runner process, answering program paths with run times."""

    def __init__(self, engine: str, python: str, clock: str) -> None:
        self.engine = engine
        self.proc = subprocess.Popen([python, str(RUNNER), engine, "--serve", clock],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=str(ROOT),
                                     env=engine_env())

    def run(self, path: Path) -> tuple[float, bool, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.engine} server stopped")
        reply = json.loads(line)
        return float(reply["seconds"]), bool(reply["ok"]), str(reply["out"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(paths: list[Path], repeat: int, clock: str,
            with_torch: bool) -> dict[str, dict[str, object]]:
    """Minimum time and completion of every program in each engine."""
    servers = {"st": Server("st", sys.executable, clock)}
    if with_torch:
        servers["torch"] = Server("torch", torch_python() or "", clock)
    best: dict[str, dict[str, object]] = {
        p.stem: {f"{e}_{k}": v for e in servers for k, v in (("s", float("inf")), ("ok", True))}
        for p in paths}
    try:
        for round_ in range(repeat):
            order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
            for path in paths:
                for engine in order:
                    seconds, ok, out = servers[engine].run(path)
                    row = best[path.stem]
                    if engine == "st":  # only a program that prints PyTorch's output counts
                        reference = expected_output(path.stem)
                        ok = ok and reference is not None and not first_difference(reference,
                                                                                   out)
                    row[f"{engine}_s"] = min(float(row[f"{engine}_s"]), seconds)
                    row[f"{engine}_ok"] = bool(row[f"{engine}_ok"]) and ok
    finally:
        for server in servers.values():
            server.close()
    return best


def report(best: dict[str, dict[str, object]], with_torch: bool) -> None:
    width = max(len(name) for name in best)
    if not with_torch:
        print(f"{'program':<{width}}  {'st ms':>9}")
        for name, row in best.items():
            flag = "" if row["st_ok"] else "  (output differs)"
            print(f"{name:<{width}}  {1e3 * float(row['st_s']):9.2f}{flag}")
        return
    print(f"{'program':<{width}}  {'torch ms':>9}  {'st ms':>9}  {'st/torch':>8}")
    sum_torch = sum_st = 0.0
    compared = 0
    for name, row in best.items():
        t, s = float(row["torch_s"]), float(row["st_s"])
        if row["st_ok"] and row["torch_ok"]:
            sum_torch += t
            sum_st += s
            compared += 1
            note = ""
        else:
            note = "  not compared: " + ("st output differs" if not row["st_ok"]
                                         else "torch stopped early")
        print(f"{name:<{width}}  {1e3 * t:9.2f}  {1e3 * s:9.2f}  {s / t:8.2f}{note}")
    if compared:
        print(f"summed over {compared} of {len(best)} programs: torch {1e3 * sum_torch:.1f} ms,"
              f" st_autodiff {1e3 * sum_st:.1f} ms, ratio {sum_st / sum_torch:.2f}")
    else:
        print("no program ran to the end under both engines")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="program stems (default: all)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="process CPU time (default; robust on a shared machine) or wall")
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    paths = [p for p in program_paths() if not args.names or p.stem in args.names]
    with_torch = not args.no_torch and torch_python() is not None
    print(f"{len(paths)} programs, {args.repeat} rounds, {args.clock} clock, one thread"
          + ("" if with_torch else ", no PyTorch found"))
    report(measure(paths, args.repeat, args.clock, with_torch), with_torch)


if __name__ == "__main__":
    main()
