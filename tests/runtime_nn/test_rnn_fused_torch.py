"""The fused float32 LSTM layer node against PyTorch's ``MkldnnRnnLayerBackward0``.

The same code runs on both libraries from the same seed; compared: the graph around each
layer node (names and output numbers of its edges and of ``h_n``/``c_n``), the settings it
shows as saved, and the gradients of a loss through it (float32 tolerance).  Skipped where
torch is not installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_SETTINGS = ["batch_first", "batch_sizes", "bidirectional", "has_biases", "hidden_size", "mode",
             "num_layers", "reverse", "train"]


def _layer_nodes(t: Any) -> list:
    """The ``MkldnnRnnLayerBackward0`` nodes reachable from ``t``, breadth first."""
    seen, found, queue = set(), [], [t.grad_fn]
    while queue:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if fn.name() == "MkldnnRnnLayerBackward0":
            found.append(fn)
        queue.extend(f for f, _ in fn.next_functions)
    return found


def _edges(fn: Any) -> list:
    return [(None if f is None else f.name(), k) for f, k in fn.next_functions]


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True},
                                {"batch_first": True, "bias": False}, {"num_layers": 2}])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("training", [True, False])
def test_fused_lstm_node_matches_torch(kw: dict, with_state: bool, training: bool) -> None:
    def run(lib: Any) -> tuple:
        lib.manual_seed(0)
        m = lib.nn.LSTM(3, 4, **kw)
        m.train(training)
        layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
        x = lib.randn(*((2, 5, 3) if kw.get("batch_first") else (5, 2, 3)), requires_grad=True)
        state = None
        if with_state:
            state = (lib.randn(layers, 2, 4, requires_grad=True),
                     lib.randn(layers, 2, 4, requires_grad=True))
        out, (h, c) = m(x, state)
        nodes = _layer_nodes(out)
        shown = [[getattr(n, "_saved_" + s) for s in _SETTINGS] for n in nodes]
        graph = ([_edges(n) for n in nodes], shown, _edges(h.grad_fn), _edges(c.grad_fn))
        (out.tanh().sum() + (h * h).sum() + c.sin().sum()).backward()
        leaves = [x, *m.parameters(), *(state or ())]
        return graph, [t.grad.numpy() for t in leaves if t.grad is not None]

    ours, theirs = run(st_autodiff), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
