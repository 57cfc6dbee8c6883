"""Train a logistic regression on 10**7 rows with ``st.grad`` on a Dask cluster.

Run it with ``python examples/dask_logistic.py`` (``--rows 20000`` for a quick run).

The data set is never held whole anywhere: its rows are a ``dask.array`` drawn from a
seeded generator chunk by chunk (row chunks of ``--chunk`` rows), so each step draws
them again, on the workers, one chunk at a time.  With the defaults it is 10**7 rows of
32 float64 features, 2.6 GB, on a ``LocalCluster`` of two workers with 1 GiB each: more
than the cluster's memory, which is the point.

``st.value_and_grad(loss)`` is compiled once, on the arguments' types (no chunk is read
while compiling).  Called on Dask arrays, the generated code builds a Dask graph: every
chunk's contribution to the loss and the gradient is a task, and the sums over chunks
(``mean``, ``x.T @ r``) are Dask's own tree reductions.  ``dask.compute`` runs that graph
on whatever cluster the ``Client`` is connected to: to use another cluster, change
``ADDRESS`` below (or pass ``--address tcp://host:8786``); nothing else changes.

Two checks: on a sample of rows small enough for NumPy, the Dask gradient equals the
NumPy gradient of the same compiled function; and on all rows it equals the gradient
written out by hand (``x.T @ (sigmoid(z) - y) / n``), computed by Dask directly.
"""

from __future__ import annotations

import argparse
import time

import dask
import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

import st_autodiff as st

#: the one line to change to run on another Dask cluster: its scheduler's address
#: (None: start a LocalCluster on this machine)
ADDRESS: str | None = None


def loss(params, x, y):
    """Mean logistic loss of a linear model (``y`` in {0, 1}), written with logits."""
    z = x @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - y * z)


def make_data(rows: int, features: int, chunk: int, seed: int = 0):
    """``(x, y)``: lazy, row-chunked Dask arrays drawn chunk by chunk (nothing computed)."""
    rng = da.random.default_rng(seed)
    x = rng.standard_normal((rows, features), chunks=(chunk, features))
    w_true = np.linspace(-1.0, 1.0, features)
    noise = rng.logistic(size=rows, chunks=chunk)
    y = (x @ w_true + 0.5 + noise > 0).astype(np.float64)
    return x, y


def connect(address: str | None, workers: int, memory: str) -> Client:
    """A client of the cluster at ``address``, or of a new LocalCluster of ``workers``
    single-threaded processes with ``memory`` each."""
    if address:
        return Client(address)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, memory_limit=memory,
                           dashboard_address=":0")
    return Client(cluster)


def hand_gradient(params, x, y):
    """The gradient of ``loss`` written out, as a Dask expression (an independent check)."""
    z = x @ params["w"] + params["b"]
    r = 1.0 / (1.0 + np.exp(-z)) - y
    n = x.shape[0]
    return {"w": x.T @ r / n, "b": r.sum() / n}


def check_sample(step_fn, params, x, y, rows: int) -> float:
    """Largest difference between the Dask and NumPy gradients on ``rows`` rows, relative
    to the largest gradient entry of each parameter."""
    xs, ys = x[:rows], y[:rows]
    _, lazy = step_fn(params, xs, ys)
    xn, yn = dask.compute(xs, ys)
    _, eager = step_fn(params, xn, yn)
    (lazy,) = dask.compute(lazy)
    return max(float(np.max(np.abs(lazy[k] - eager[k])) / max(np.max(np.abs(eager[k])),
                                                                1e-300)) for k in eager)


def train(rows: int, features: int, chunk: int, steps: int, lr: float,
          client: Client) -> dict[str, np.ndarray]:
    """Gradient descent on the lazy data set; prints the loss of each step."""
    x, y = make_data(rows, features, chunk)
    params = {"w": np.zeros(features), "b": np.zeros(())}
    step_fn = st.value_and_grad(loss)
    print(f"{rows:,} rows x {features} features ({x.nbytes / 1e9:.2f} GB as float64), "
          f"{x.numblocks[0]} row chunks, on {len(client.scheduler_info()['workers'])} "
          "worker(s)")
    for step in range(steps):
        t0 = time.perf_counter()
        value, grad = step_fn(params, x, y)  # a Dask graph; nothing has run yet
        value, grad = dask.compute(value, grad)  # runs on the cluster
        params = {k: params[k] - lr * grad[k] for k in params}
        rate = rows / (time.perf_counter() - t0)
        print(f"step {step}: loss {float(value):.6f}  ({rate / 1e6:.2f} M rows/s)")
    diff = check_sample(step_fn, params, x, y, min(rows, 2 * chunk))
    print(f"sample of {min(rows, 2 * chunk)} rows: Dask vs NumPy gradient, max rel. diff "
          f"{diff:.1e}")
    assert diff < 1e-12, diff
    _, grad = step_fn(params, x, y)
    grad, hand = dask.compute(grad, hand_gradient(params, x, y))
    diff = max(float(np.max(np.abs(grad[k] - hand[k]))) for k in grad)
    print(f"all rows: st.grad vs the gradient written by hand, max abs. diff {diff:.1e}")
    assert diff < 1e-10, diff
    return params


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--chunk", type=int, default=250_000, help="rows per chunk")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--lr", type=float, default=2.0)
    p.add_argument("--workers", type=int, default=2, help="LocalCluster workers")
    p.add_argument("--worker-memory", default="1GiB", help="LocalCluster memory per worker")
    p.add_argument("--address", default=ADDRESS, help="a Dask scheduler to use instead")
    a = p.parse_args(argv)
    with connect(a.address, a.workers, a.worker_memory) as client:
        train(a.rows, a.features, min(a.chunk, a.rows), a.steps, a.lr, client)


if __name__ == "__main__":
    main()
