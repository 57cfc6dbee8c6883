"""The eager runtime on a GPU (CuPy) next to PyTorch CUDA eager: three training steps.

Each workload is one full training step (``zero_grad``, forward, loss, ``backward``,
optimizer ``step``) on float32 data made once on the device, timed for st_autodiff
(``device="cuda"``: CuPy arrays) and for torch CUDA in the same process, with a device
synchronisation closing every timed block.  Reported: milliseconds per step for each and
the ratio st_autodiff / torch (lower is better; the issue's target is <= 1.2):

* ``mlp``: batch 512, 1024 -> Linear(1024, 1024) -> ReLU -> Linear(1024, 1024) -> ReLU ->
  Linear(1024, 10), cross-entropy, Adam;
* ``cnn``: batch 64 of 3x32x32, Conv2d(3, 32, 3, padding=1) -> ReLU -> MaxPool2d(2) ->
  Conv2d(32, 64, 3, padding=1) -> ReLU -> MaxPool2d(2) -> Linear(4096, 10), SGD momentum;
* ``lstm``: batch 32, 50 steps of 128 features, LSTM(128, 256) -> Linear(256, 1) on the
  last step, MSE, Adam.

Without a GPU (or without torch CUDA) it says so and exits with status 0: it is a
measurement, never a test::

    python benchmarks/gpu_eager.py            # under a minute on an H100
    python benchmarks/gpu_eager.py --quick
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _workloads(T: Any) -> dict[str, Callable[[], Callable[[], None]]]:  # noqa: N803
    """Per workload, a builder that makes the model and data and returns one step."""
    nn = T.nn
    rng = np.random.default_rng(0)

    def data(*shape: int) -> Any:
        return T.tensor(rng.standard_normal(shape).astype(np.float32)).to("cuda")

    def labels(n: int, k: int) -> Any:
        return T.tensor(rng.integers(0, k, n)).to("cuda")

    def step(model: Any, opt: Any, loss: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            opt.zero_grad()
            loss().backward()
            opt.step()

        return run

    def mlp() -> Callable[[], None]:
        model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                              nn.ReLU(), nn.Linear(1024, 10)).to("cuda")
        x, y = data(512, 1024), labels(512, 10)
        opt = T.optim.Adam(model.parameters(), lr=1e-3)
        return step(model, opt, lambda: nn.functional.cross_entropy(model(x), y))

    def cnn() -> Callable[[], None]:
        model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(4096, 10)).to("cuda")
        x, y = data(64, 3, 32, 32), labels(64, 10)
        opt = T.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
        return step(model, opt, lambda: nn.functional.cross_entropy(model(x), y))

    def lstm() -> Callable[[], None]:
        rnn, head = nn.LSTM(128, 256, batch_first=True).to("cuda"), nn.Linear(256, 1).to("cuda")
        x, y = data(32, 50, 128), data(32, 1)
        opt = T.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)

        def loss() -> Any:
            out, _state = rnn(x)
            return nn.functional.mse_loss(head(out[:, -1]), y)

        return step(rnn, opt, loss)

    return {"mlp": mlp, "cnn": cnn, "lstm": lstm}


def _time(run: Callable[[], None], sync: Callable[[], None], repeats: int) -> float:
    """Seconds per step: the best of five blocks of ``repeats`` steps (after a warm-up)."""
    for _ in range(3):
        run()
    sync()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(repeats):
            run()
        sync()
        best = min(best, (time.perf_counter() - t0) / repeats)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args(argv)
    from st_autodiff.runtime.backend import gpu_available

    if not gpu_available():
        print("gpu_eager: no GPU (CuPy sees no CUDA device); nothing to measure")
        return 0
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        print("gpu_eager: torch with CUDA is not importable; nothing to compare against")
        return 0
    import cupy

    import st_autodiff as st

    repeats = 5 if args.quick else 20
    st_steps, torch_steps = _workloads(st), _workloads(torch)
    print(f"{'workload':<8} {'st_autodiff ms':>15} {'torch ms':>10} {'ratio':>7}")
    for name in st_steps:
        ours = _time(st_steps[name](), cupy.cuda.Device().synchronize, repeats)
        theirs = _time(torch_steps[name](), torch.cuda.synchronize, repeats)
        print(f"{name:<8} {ours * 1e3:>15.3f} {theirs * 1e3:>10.3f} {ours / theirs:>7.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
