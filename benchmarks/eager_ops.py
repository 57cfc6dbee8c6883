"""Per-op time of the eager runtime next to PyTorch's, op by op (never a CI gate).

Each op runs on small tensors (2000-element vectors, 16x16 matrices) with
``requires_grad`` False and True.  Both libraries are timed in the same process,
interleaved (one repeat of st_autodiff, one of torch, ...), and the best repeat counts,
so machine noise hits both alike.  Prints microseconds per call and the ratio
st_autodiff/torch; without PyTorch only the st_autodiff column is printed.

    python benchmarks/eager_ops.py [--repeats 7] [--number 2000] [--filter NAME]
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from typing import Any


def cases(T: Any, rg: bool) -> dict[str, Callable[[], Any]]:  # noqa: N803
    """The ops to time for library ``T``; inputs require grad when ``rg``."""
    T.manual_seed(0)
    x = T.randn(2000, requires_grad=rg)
    y = T.randn(2000, requires_grad=rg)
    a = T.randn(16, 16, requires_grad=rg)
    b = T.randn(16, 16, requires_grad=rg)
    idx = T.tensor([1, 3, 5])
    c: dict[str, Callable[[], Any]] = {
        "add": lambda: x + y, "mul": lambda: x * y, "sub scalar": lambda: x - 1.5,
        "mul scalar": lambda: x * 2.0, "div": lambda: x / y, "pow 2": lambda: x ** 2,
        "pow 3": lambda: x ** 3, "matmul": lambda: a @ b, "sum": lambda: x.sum(),
        "mean": lambda: x.mean(), "sum dim": lambda: a.sum(1), "relu": lambda: T.relu(x),
        "sigmoid": lambda: T.sigmoid(x), "tanh": lambda: x.tanh(), "exp": lambda: x.exp(),
        "index int": lambda: a[3], "slice": lambda: a[:, 2:5], "index tensor": lambda: a[idx],
        "view": lambda: a.view(256), "reshape": lambda: a.reshape(4, 64),
        "transpose": lambda: a.t(), "unsqueeze": lambda: x.unsqueeze(0),
        "zeros": lambda: T.zeros(16, 16), "ones_like": lambda: T.ones_like(a),
        "tensor()": lambda: T.tensor([1.0, 2.0, 3.0]), "dtype": lambda: x.dtype,
        "shape": lambda: x.shape,
    }
    if rg:
        c["mul+sum+backward"] = lambda: (x * y).sum().backward()
    return c


def mlp_step(T: Any) -> Callable[[], Any] | None:  # noqa: N803
    """One SGD step of a small MLP (forward, loss, backward, update)."""
    nn, optim = getattr(T, "nn", None), getattr(T, "optim", None)
    if nn is None or optim is None:
        return None
    T.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = optim.SGD(model.parameters(), lr=0.01)
    xs, ys = T.randn(16, 20), T.randn(16, 1)

    def step() -> None:
        opt.zero_grad()
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()

    return step


def _time(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number * 1e6


def measure(libs: dict[str, Any], table: dict[str, dict[str, Callable[[], Any]]],
            repeats: int, number: int) -> dict[str, dict[str, float]]:
    """Best microseconds per call of every op, libraries interleaved repeat by repeat."""
    best: dict[str, dict[str, float]] = {name: {} for name in libs}
    for op in table[next(iter(libs))]:
        for name in libs:
            table[name][op]()  # warm up
        for _ in range(repeats):
            for name in libs:
                t = _time(table[name][op], number)
                best[name][op] = min(best[name].get(op, t), t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    libs = {"st": importlib.import_module("st_autodiff")}
    try:
        libs["torch"] = importlib.import_module("torch")
    except ImportError:
        pass
    head = f"{'op':24} {'st us':>8}" + (f" {'torch us':>9} {'ratio':>6}" if "torch" in libs
                                         else "")
    print(head)
    ratios = []
    for rg in (False, True):
        table = {n: {k: v for k, v in cases(T, rg).items() if args.filter in k}
                 for n, T in libs.items()}
        if rg:
            steps = {n: mlp_step(T) for n, T in libs.items()}
            if all(s is not None for s in steps.values()) and "mlp step".find(args.filter) >= 0:
                for n in libs:
                    table[n]["mlp step"] = steps[n]  # type: ignore[assignment]
        best = measure(libs, table, args.repeats, args.number if not rg else args.number // 2)
        for op, t in best["st"].items():
            line = f"{op + (' (grad)' if rg else ''):24} {t:8.2f}"
            if "torch" in best:
                r = t / best["torch"][op]
                ratios.append(r)
                line += f" {best['torch'][op]:9.2f} {r:6.2f}"
            print(line)
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        print(f"geometric mean ratio st/torch over {len(ratios)} rows: "
              f"{geo ** (1 / len(ratios)):.2f}")


if __name__ == "__main__":
    main()
