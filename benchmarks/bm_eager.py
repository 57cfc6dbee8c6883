"""The eager runtime next to PyTorch eager on the CPU: a training step and per-op overhead.

Two measurements, each timed for st_autodiff and for torch in the same process with
interleaved repeats (``bm_timing``), reported as time per call and the ratio
st_autodiff / torch (lower is better; the targets are <= 1.2 for the step and <= 1.0
for the per-op cost):

* ``mlp step``: one training step of a 64x32 -> Linear(32, 64) -> ReLU -> Linear(64, 10)
  MLP with cross-entropy: ``zero_grad``, forward, loss, ``backward``, ``SGD.step``, on
  float32 data made once outside the timing;
* ``chain``: forward and backward through a chain of 200 scalar ops (alternating
  ``z * 1.0001`` and ``z + 0.5`` on a 0-d tensor that requires grad), divided by 200:
  the fixed cost of recording one op and running its node.

Both libraries run on one thread unless ``--threads N`` says otherwise.  Like the other
benchmarks, this is a measurement, never a test::

    python benchmarks/bm_eager.py            # about half a minute
    python benchmarks/bm_eager.py --quick
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _threads(argv: list[str]) -> int:
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
    return 1


THREADS = _threads(sys.argv[1:])
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)

from bm_timing import Settings, fmt_seconds, time_many  # noqa: E402

import st_autodiff  # noqa: E402

CHAIN = 200


def mlp_step(lib: Any) -> Callable[[], None]:
    """One SGD training step of the 64x32 -> 64 -> 10 MLP written against ``lib``."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = lib.randn(64, 32)
    y = lib.randint(0, 10, (64,))

    def step() -> None:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step


def scalar_chain(lib: Any) -> Callable[[], None]:
    """Forward and backward through ``CHAIN`` scalar ops on a 0-d leaf."""
    start = lib.tensor(1.0, requires_grad=True)

    def run() -> None:
        z = start
        for i in range(CHAIN):
            z = z * 1.0001 if i % 2 else z + 0.5
        z.backward()
        start.grad = None

    return run


def _check_same_step(torch: Any) -> None:
    """Both MLPs start from the same weights and reach the same loss after a step."""
    losses = []
    for lib in (st_autodiff, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(32, 64), lib.nn.ReLU(), lib.nn.Linear(64, 10))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x, y = lib.randn(64, 32), lib.randint(0, 10, (64,))
        for _ in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        losses.append(loss.item())
    if abs(losses[0] - losses[1]) > 1e-4 * abs(losses[1]):
        raise SystemExit(f"the two MLPs disagree: losses {losses[0]} vs {losses[1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings")
    parser.add_argument("--threads", type=int, default=1, help="threads for both libraries")
    args = parser.parse_args(argv)
    settings = Settings.quick() if args.quick else Settings(target_s=0.05, repeats=15)
    try:
        import torch
    except ImportError:
        torch = None
        print("torch is not installed: st_autodiff timings only")
    if torch is not None:
        torch.set_num_threads(args.threads)
        _check_same_step(torch)
    rows = []
    for name, make, per in (("mlp step", mlp_step, 1), ("chain (per op)", scalar_chain, CHAIN)):
        thunks = [make(st_autodiff)] + ([make(torch)] if torch is not None else [])
        for thunk in thunks:
            thunk()  # warm caches outside the timing
        times = [t.best / per for t in time_many(thunks, settings)]
        rows.append((name, times))
    print(f"{'':16s} {'st_autodiff':>12s} {'torch':>12s} {'ratio':>7s}")
    for name, times in rows:
        ours = fmt_seconds(times[0])
        theirs = fmt_seconds(times[1]) if len(times) > 1 else "—"
        ratio = f"{times[0] / times[1]:.2f}" if len(times) > 1 else "—"
        print(f"{name:16s} {ours:>12s} {theirs:>12s} {ratio:>7s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
