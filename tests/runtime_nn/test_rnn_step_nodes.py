"""The cheaper step nodes of ``rnn_step_nodes.py``: same gradients as the generic nodes.

The GRU/LSTM/RNN steps record subclasses of the runtime's node classes (same names) whose
backward skips the generic machinery for NumPy arrays.  These tests check that every case
the fast backward does not handle (create_graph, a second backward, an input modified in
place, hooks) behaves as the op-by-op composition does, and that values and gradients agree
bit for bit.  No torch needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime import functional as RF
from st_autodiff.runtime.nn import functional as F
from st_autodiff.runtime.nn.rnn_steps import gru_step, tanh_step, unsafe_chunk

_rng = np.random.default_rng(7)


def _gru_by_ops(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    ir, iz, i_n = unsafe_chunk(gi, 3)
    hr, hz, h_n = unsafe_chunk(F.linear(h, w_hh, b_hh), 3)
    r = RF.sigmoid(RF.add(hr, ir))
    z = RF.sigmoid(RF.add(hz, iz))
    n = RF.tanh(RF.add(i_n, RF.mul(h_n, r)))
    return RF.add(RF.mul(RF.sub(h, n), z), n)


def _tanh_by_ops(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    return RF.tanh(RF.add(F.linear(h, w_hh, b_hh), gi))


_STEPS = {"gru": (gru_step, _gru_by_ops, 3), "tanh": (tanh_step, _tanh_by_ops, 1)}


def _inputs(chunks: int, dtype: Any) -> list:
    shapes = [(2, chunks * 3), (2, 3), (chunks * 3, 3), (chunks * 3,)]
    return [torch.tensor(_rng.standard_normal(s) * 2, dtype=dtype, requires_grad=True)
            for s in shapes]


@pytest.mark.parametrize("kind", ["gru", "tanh"])
def test_second_order_gradients_equal_the_op_by_op_composition(kind: str) -> None:
    """create_graph runs the generic backward: the double backward is that of the ops."""
    fast, slow, chunks = _STEPS[kind]
    arrays = [t.detach() for t in _inputs(chunks, torch.float64)]
    results = []
    for step in (fast, slow):
        ts = [a.clone().requires_grad_() for a in arrays]
        out = step(*ts)
        (g,) = torch.autograd.grad((out * out).sum(), ts[1], create_graph=True)
        g.pow(2).sum().backward()
        results.append([g.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["gru", "tanh"])
def test_first_order_values_and_names_equal_the_op_by_op_composition(kind: str) -> None:
    fast, slow, chunks = _STEPS[kind]
    arrays = [t.detach() for t in _inputs(chunks, torch.float32)]
    results = []
    for step in (fast, slow):
        ts = [a.clone().requires_grad_() for a in arrays]
        h2 = step(ts[0], step(*ts), *ts[2:])  # two steps: the state's gradient flows on
        h2.sin().sum().backward()
        names = []
        fn = h2.grad_fn
        while fn is not None:
            names.append(fn.name())
            fn = next((f for f, _ in fn.next_functions if f is not None and f.name() !=
                       "torch::autograd::AccumulateGrad"), None)
        results.append(([h2.detach().numpy()] + [t.grad.numpy() for t in ts], names))
    (va, na), (vb, nb) = results
    assert na == nb
    for a, b in zip(va, vb, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_second_backward_and_an_inplace_change_fail_as_for_the_ops() -> None:
    gi, h, w, b = _inputs(3, torch.float32)
    loss = gru_step(gi, h, w, b).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    messages = []
    for step in (gru_step, _gru_by_ops):
        hh = h.detach().clone().requires_grad_()
        state = hh * 1.0
        out = step(gi, state, w, b)
        state.add_(1.0)  # the step saved ``state`` (SubBackward0 does not, MulBackward0 ...)
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        messages.append(str(err.value).split(" at 0x")[0])
    assert messages[0] == messages[1]
    assert "modified by an inplace operation" in messages[0]


def test_hooks_on_step_nodes_see_and_replace_gradients() -> None:
    gi, h, w, b = _inputs(3, torch.float32)
    results = []
    for step in (gru_step, _gru_by_ops):
        seen = []
        out = step(gi, h, w, b)
        out.grad_fn.register_hook(lambda gin, gout: tuple(g * 2 for g in gin))
        out.register_hook(lambda g, seen=seen: seen.append(g.clone()))
        for t in (gi, h, w, b):
            t.grad = None
        out.sum().backward()
        results.append([s.numpy() for s in seen] + [t.grad.numpy() for t in (gi, h, w, b)])
    for a, c in zip(*results, strict=True):
        np.testing.assert_array_equal(a, c)


def test_the_profiler_sees_every_step_op_and_node() -> None:
    """Under a profiler the steps record through its noted ``record`` and the fast nodes'
    backward is timed: one ``aten::sigmoid`` and one SigmoidBackward0 per gate and step."""
    gru = torch.nn.GRU(2, 3, bidirectional=True)
    x = torch.randn(4, 2, 2)
    with torch.profiler.profile() as prof:
        gru(x)[0].sum().backward()
    names = [e.name for e in prof.events()]
    gates = 2 * 4 * 2  # r and z, 4 steps, 2 directions
    assert names.count("aten::sigmoid") == gates
    assert names.count("autograd::engine::evaluate_function: SigmoidBackward0") == gates
    assert names.count("autograd::engine::evaluate_function: SubBackward0") == gates // 2
