"""Per-op overhead of the eager runtime next to PyTorch's (never a CI gate).

Two measurements, each the best of several repeats, run with the same code on both
engines (``st_autodiff`` as ``torch``, and PyTorch when installed):

* ``chain``: forward and backward of a chain of 200 scalar ops (multiply and add with
  Python numbers, ``sin``, multiply by a tensor), reported in microseconds per op;
* ``mlp``: one training step (forward, loss, backward, SGD update) of a 64x32 -> 64 -> 10
  MLP, when ``nn`` and ``optim`` are available.

    python benchmarks/eager_overhead.py
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

N_OPS = 200


def chain(torch: Any) -> Callable[[], None]:
    x = torch.tensor(0.5, requires_grad=True)
    w = torch.tensor(1.0001, requires_grad=True)

    def run() -> None:
        y = x
        for i in range(N_OPS // 4):
            y = y * 1.001
            y = y + 0.001
            y = y.sin()
            y = y * w
            del i
        y.backward()

    return run


def mlp(torch: Any) -> Callable[[], None] | None:
    nn = getattr(torch, "nn", None)
    optim = getattr(torch, "optim", None)
    if nn is None or optim is None:
        return None
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(64, 32)
    y = torch.randint(0, 10, (64,))

    def run() -> None:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return run


def best(fn: Callable[[], None], repeats: int = 30, warmup: int = 10) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    engines = {"st_autodiff": importlib.import_module("st_autodiff")}
    try:
        engines["torch"] = importlib.import_module("torch")
    except ImportError:
        pass
    results: dict[str, dict[str, float]] = {}
    for name, torch in engines.items():
        results[name] = {"chain": best(chain(torch)) / N_OPS * 1e6}
        step = mlp(torch)
        if step is not None:
            results[name]["mlp"] = best(step) * 1e6
    for what, unit in (("chain", "us/op"), ("mlp", "us/step")):
        row = {n: r[what] for n, r in results.items() if what in r}
        if not row:
            continue
        text = ", ".join(f"{n} {v:.2f} {unit}" for n, v in row.items())
        if len(row) == 2:
            text += f"; ratio st_autodiff/torch = {row['st_autodiff'] / row['torch']:.2f}"
        print(f"{what}: {text}")


if __name__ == "__main__":
    main()
