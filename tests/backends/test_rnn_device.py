"""Issue 15: the fused RNN layer and step nodes on device arrays (the CPU stand-in).

On ``cuda`` the recurrent modules and cells record the host's graph node for node (one
``MkldnnRnnLayerBackward0`` per float32 LSTM layer and direction, the GRU's and tanh RNN's
steps ending in the engine's fused classes), compute on the device library through the
arrays' namespace, agree with the host to rounding and never read a device value on the
host.  Values and gradients of whole training runs are in ``tests/gpu/eager_cases.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime import device_standin, engine

nn = torch.nn


def _graph(root: Any) -> list[tuple[str, type]]:
    """Every node reachable from ``root``, in creation order: (name, class)."""
    seen: dict[Any, None] = {}
    todo = [root.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen[fn] = None
        todo.extend(f for f, _ in fn.next_functions)
    return [(fn.name(), type(fn)) for fn in sorted(seen, key=lambda f: f._seq)]


def _lstm32() -> Any:
    return nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)


_MODELS: dict[str, tuple[Callable[[], Any], Any]] = {
    "lstm_float32": (_lstm32, torch.float32),
    "lstm_float64": (lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True), torch.float64),
    "gru": (lambda: nn.GRU(3, 4, num_layers=2, batch_first=True), torch.float64),
    "rnn": (lambda: nn.RNN(3, 4, num_layers=2), torch.float32),
    "lstm_cell": (lambda: nn.LSTMCell(3, 4), torch.float64),
    "gru_cell": (lambda: nn.GRUCell(3, 4), torch.float32),
}


def _run(name: str, dev: str) -> tuple[Any, Any, dict[str, Any]]:
    """The model on ``dev`` (seeded weights), its loss over a fixed input, and the input."""
    make, dtype = _MODELS[name]
    torch.manual_seed(0)
    model = make().to(dtype=dtype).to(dev)
    rng = np.random.default_rng(1)
    shape = (4, 2, 3) if name.endswith("cell") else (2, 5, 3)
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, device=dev, requires_grad=True)
    if name.endswith("cell"):
        h: Any = None
        total = 0
        for t in range(shape[0]):
            h = model(x[t], h)
            y = h[0] * h[1] if name == "lstm_cell" else h
            total = total + (y ** 2).sum()
        loss = total
    else:
        out, state = model(x)
        hn = state[0] * state[1] if name.startswith("lstm") else state
        loss = (out ** 2).sum() + hn.sum()
    return model, loss, {"x": x}


@pytest.mark.parametrize("name", sorted(_MODELS))
def test_device_graph_is_the_host_graph_and_reads_nothing(name: str, standin: None) -> None:
    """Node for node the host's graph (names and node classes, so the same fused paths),
    the host's values and gradients to rounding, and no host synchronisation in a step."""
    host_model, host_loss, host_in = _run(name, "cpu")
    device_standin.SYNCS.clear()
    model, loss, ins = _run(name, "cuda")
    assert _graph(loss) == _graph(host_loss)
    host_loss.backward()
    loss.backward()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.step()
    assert device_standin.SYNCS == {}
    tol = {"rtol": 1e-5, "atol": 1e-6} if loss.dtype == torch.float32 else {"rtol": 1e-12,
                                                                            "atol": 1e-13}
    np.testing.assert_allclose(loss.item(), host_loss.item(), **tol)
    np.testing.assert_allclose(ins["x"].grad.cpu().numpy(), host_in["x"].grad.numpy(), **tol)
    for (pname, p), (_, q) in zip(model.named_parameters(), host_model.named_parameters()):
        assert p.grad.is_cuda
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), err_msg=pname, **tol)


def test_float32_lstm_is_one_device_node_per_layer_and_direction(standin: None) -> None:
    _, loss, _ = _run("lstm_float32", "cuda")
    names = [n for n, _ in _graph(loss)]
    assert names.count("MkldnnRnnLayerBackward0") == 4
    assert len(names) < 40  # (the unrolled layers would record hundreds)


@pytest.mark.parametrize("name", ["gru", "rnn", "gru_cell"])
def test_device_steps_backward_runs_fused(name: str, standin: None,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's fused runner takes the device steps (it returns False, and the nodes run
    one by one, only where the difference could show)."""
    ran: dict[str, list[bool]] = {"cpu": [], "cuda": []}
    where = ["cpu"]
    for cls, run in list(engine.FUSED.items()):
        def counting(*args: Any, run: Any = run) -> bool:
            done = bool(run(*args))
            ran[where[0]].append(done)
            return done

        monkeypatch.setitem(engine.FUSED, cls, counting)
    for dev in ("cpu", "cuda"):
        where[0] = dev
        _run(name, dev)[1].backward()
    assert ran["cuda"] == ran["cpu"] and ran["cuda"].count(True) >= 4
