"""Generated gradients on Dask arrays: lazy graphs that run on a dask.distributed cluster.

Every input here is built from blocks that record when they are computed (``Marked``),
so a test can tell "compiled and called, nothing computed" from "computed on the
cluster".  The cluster is an in-process ``LocalCluster`` of two single-threaded workers
(``processes=False``: quick to start, and the blocks' records are visible here).  Values
are compared with the same compiled function on the NumPy arrays the blocks hold, and
with central differences in float64.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import dask
import dask.array as da
import dask.distributed as distributed
import numpy as np
import pytest

import st_autodiff as st
from st_autodiff import LazyConditionError

ROOT = Path(__file__).resolve().parents[2]


#: what each ``Marked`` recorded (a module global: tasks are pickled on their way to a
#: worker, so a closure's list would be a copy; a module-level function is sent by name)
_RAN: dict[int, list[str]] = {}
_KEYS = itertools.count()  # not id(): a new Marked may reuse a collected one's id, and
# blocks of an earlier test's graph may still be running on the cluster


def _mark(key: int, block: np.ndarray) -> np.ndarray:
    try:
        _RAN[key].append(distributed.get_worker().address)
    except ValueError:  # not on a worker (the local scheduler)
        _RAN[key].append("local")
    return block


class Marked:
    """Row-chunked Dask arrays whose blocks record, on compute, the worker they ran on."""

    def __init__(self) -> None:
        self._key = next(_KEYS)
        self.ran: list[str] = _RAN.setdefault(self._key, [])

    def __call__(self, a: np.ndarray, chunk: int) -> da.Array:
        lazy = da.from_array(a, chunks=(chunk,) + a.shape[1:])
        return lazy.map_blocks(functools.partial(_mark, self._key),
                               meta=np.empty((0,) * a.ndim, a.dtype))  # (meta: not run)


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def data(rows: int = 400, features: int = 3, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, features))
    y = (x @ np.linspace(-1, 1, features) + rng.normal(size=rows) > 0).astype(float)
    return x, y


def tanh_loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


def logistic_loss(params, x, y):
    z = x @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - y * z)


def mlp_loss(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["w2"] + params["b2"]
    return np.mean(np.logaddexp(0.0, z) - y * z)


def central(f, tree: dict, h: float = 1e-6) -> dict:
    """Central differences of a scalar ``f`` of a dict of float64 arrays."""
    out = {}
    for k, v in tree.items():
        g = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            hi, lo = v.copy(), v.copy()
            hi[i] += h
            lo[i] -= h
            g[i] = (f({**tree, k: hi}) - f({**tree, k: lo})) / (2 * h)
        out[k] = g
    return out


def close(a, b, tol: float = 1e-12) -> bool:
    return bool(np.allclose(a, b, rtol=tol, atol=tol))


def test_grad_is_a_lazy_graph_equal_to_numpy(client: distributed.Client) -> None:
    x, y = data()
    w = np.array([0.3, -0.2, 0.5])
    marked = Marked()
    xl, yl = marked(x, 100), marked(y, 100)
    g = st.grad(tanh_loss)(w, xl, yl)
    assert isinstance(g, da.Array)  # a graph: compiling and calling computed nothing
    assert marked.ran == []
    got = client.compute(g).result()
    workers = set(client.scheduler_info()["workers"])
    assert marked.ran and set(marked.ran) <= workers  # the blocks ran on the cluster
    want = st.grad(tanh_loss)(w, x, y)
    assert close(got, want)
    fd = central(lambda t: tanh_loss(t["w"], x, y), {"w": w})["w"]
    assert np.allclose(got, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss, params", [
    (logistic_loss, {"w": np.array([0.1, -0.3, 0.2]), "b": np.array(0.05)}),
    (mlp_loss, {"W1": np.linspace(-0.5, 0.5, 12).reshape(3, 4), "b1": np.full(4, 0.1),
                "w2": np.array([0.3, -0.1, 0.2, 0.4]), "b2": np.array(-0.2)}),
], ids=["logistic", "mlp"])
def test_value_and_grad_of_a_dict_of_params(client: distributed.Client, loss,
                                            params: dict) -> None:
    x, y = data(seed=1)
    marked = Marked()
    value, grad = st.value_and_grad(loss)(params, marked(x, 150), marked(y, 150))
    assert isinstance(value, da.Array)
    assert set(grad) == set(params)
    assert all(isinstance(g, da.Array) for g in grad.values())
    assert marked.ran == []
    value, grad = dask.compute(value, grad)
    want_value, want_grad = st.value_and_grad(loss)(params, x, y)
    assert close(value, want_value)
    for k in params:
        assert grad[k].shape == params[k].shape
        assert close(grad[k], want_grad[k]), k
    fd = central(lambda p: loss(p, x, y), params)
    for k in params:
        assert np.allclose(grad[k], fd[k], rtol=1e-6, atol=1e-8), k


def test_the_example_trains_on_the_cluster(client: distributed.Client,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("dask_logistic",
                                                  ROOT / "examples" / "dask_logistic.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules["dask_logistic"] = example
    spec.loader.exec_module(example)
    def no_local_cluster(*args: object, **kwargs: object) -> None:
        raise AssertionError("the example started a LocalCluster although given an address")

    example.LocalCluster = no_local_cluster
    # the one line that picks the cluster: here the test's cluster, by its address
    example.main(["--address", client.scheduler.address, "--rows", "20000", "--chunk", "5000",
                  "--features", "4", "--steps", "3"])
    out = capsys.readouterr().out
    losses = [float(line.split()[3]) for line in out.splitlines() if line.startswith("step")]
    assert len(losses) == 3 and losses[0] == pytest.approx(np.log(2.0))
    assert losses[2] < losses[1] < losses[0]  # it learns
    assert "Dask vs NumPy gradient" in out and "written by hand" in out


# --- branches on lazy data ------------------------------------------------------------

def branch_if(w, x):
    s = np.sum(x @ w)
    if s > 0:  # LINE-IF
        return s * 2.0
    return s * 3.0


def branch_while(w, x):
    s = np.sum(x @ w)
    while s > 1.0:  # LINE-WHILE
        s = s / 2.0
    return s


def branch_ifexp(w, x):
    return np.sum(x @ w) if np.sum(x) > 0 else np.sum(w)  # LINE-IFEXP


def branch_break(w, x):
    s = np.sum(x @ w)
    for _ in range(5):
        s = s * 0.5
        if s < 0.1:  # LINE-BREAK
            break
    return s


def branch_assert(w, x):
    s = np.sum(x @ w)
    assert s > -100.0, "too small"  # LINE-ASSERT
    return s


def _line(tag: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(tag))


@pytest.mark.parametrize("fn, tag, col, word", [
    (branch_if, "LINE-IF", 5, "`if`"), (branch_while, "LINE-WHILE", 5, "`while`"),
    (branch_ifexp, "LINE-IFEXP", 12, "`if`"), (branch_break, "LINE-BREAK", 9, "`if`"),
    (branch_assert, "LINE-ASSERT", 5, "`assert`"),
], ids=["if", "while", "ifexp", "break", "assert"])
def test_a_branch_on_lazy_data_is_a_located_error(fn, tag: str, col: int, word: str) -> None:
    marked = Marked()
    x = marked(np.ones((8, 2)), 4)
    with pytest.raises(LazyConditionError) as info:
        st.grad(fn)(np.ones(2), x)
    text = str(info.value)
    assert text.startswith(f"{__file__}:{_line(tag)}:{col}: error: ")
    assert word in text and "lazy (Dask)" in text
    assert ("np.where" in text and "compute the condition first" in text) if word != (
        "`assert`") else "check the data before the call" in text
    assert marked.ran == []  # refusing it computed nothing
    # the same function on NumPy data: Python decides the branch, as before
    xn = np.full((8, 2), 0.9)
    fd = central(lambda t: fn(t["w"], xn), {"w": np.ones(2)})["w"]
    np.testing.assert_allclose(st.grad(fn)(np.ones(2), xn), fd, rtol=1e-6)


def branch_on_params(w, x):
    if np.sum(w) > 0:  # a NumPy parameter: no Dask graph runs to decide it
        w = w * 2.0
    s = np.sum(w)
    while s > 1.0:
        s = s / 2.0
    return s * np.sum(x @ w)


def selected(w, x):
    s = np.sum(x @ w)
    return np.where(s > 0, s * 2.0, s * 3.0)  # both sides, chosen lazily


def given(w, x, positive):
    s = np.sum(x @ w)
    if positive:  # computed first and passed in
        return s * 2.0
    return s * 3.0


def test_branches_that_need_no_lazy_value_stay_lazy() -> None:
    x = np.arange(16.0).reshape(8, 2) / 10
    w = np.array([0.5, -0.25])
    marked = Marked()
    xl = marked(x, 4)
    for fn in (branch_on_params, selected):
        marked.ran.clear()
        g = st.grad(fn)(w, xl)
        assert isinstance(g, da.Array) and marked.ran == []
        with dask.config.set(scheduler="sync"):
            assert close(g.compute(), st.grad(fn)(w, x)), fn.__name__
    with dask.config.set(scheduler="sync"):
        positive = bool((xl @ w).sum().compute() > 0)
    marked.ran.clear()
    g = st.grad(given)(w, xl, positive)
    assert isinstance(g, da.Array) and marked.ran == []
    with dask.config.set(scheduler="sync"):
        assert close(g.compute(), st.grad(selected)(w, x))


# --- generated code's own steps stay lazy ----------------------------------------------

def prod_of_rows(x):
    return np.sum(np.prod(x, axis=1)) + x.prod()  # the seed reshaped: a Python float


def filled_buffer(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sin(x[i, 0]) * (i + 1.0)  # writes into a buffer the code allocates
    return np.sum(out * x[:, 1])


def softmax_rows(x):
    z = x - np.max(x, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.mean(np.log(p[:, 0]))


@pytest.mark.parametrize("fn", [prod_of_rows, filled_buffer, softmax_rows],
                         ids=lambda f: f.__name__)
def test_generated_steps_stay_lazy(fn) -> None:
    x = np.random.default_rng(3).uniform(0.5, 1.5, size=(6, 3))
    marked = Marked()
    g = st.grad(fn)(marked(x, 3))
    assert isinstance(g, da.Array) and marked.ran == []
    with dask.config.set(scheduler="sync"):
        got = g.compute()
    assert close(got, st.grad(fn)(x))
    fd = central(lambda t: fn(t["x"]), {"x": x})["x"]
    assert np.allclose(got, fd, rtol=1e-6, atol=1e-8)


def sum_of_sines(x):
    return np.sum(np.sin(x))


def test_a_lazy_argument_of_unknown_shape_is_a_located_error() -> None:
    marked = Marked()
    x = marked(np.arange(10.0), 5)
    kept = x[x > 2.5]  # a filter: Dask does not know how many rows are left
    with pytest.raises(LazyConditionError) as info:
        st.grad(sum_of_sines)(kept)
    text = str(info.value)
    line = sum_of_sines.__code__.co_firstlineno
    assert text.startswith(f"{__file__}:{line}:18: error: x is a Dask array of unknown shape")
    assert "compute_chunk_sizes()" in text and "np.where" in text
    assert marked.ran == []
    with dask.config.set(scheduler="sync"):
        g = st.grad(sum_of_sines)(kept.compute_chunk_sizes())
        assert close(g.compute(), np.cos(np.arange(3.0, 10.0)))
