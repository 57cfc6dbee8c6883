"""Fused backward of recorded GRU / tanh-RNN steps (``rnn_step_fused.py``).

The engine may run a whole recorded step's nodes in one call.  Every check here runs the
same program with the fused runners on and off (``engine.FUSED`` emptied) and asserts the
same gradients bit for bit, the same errors and hook calls, and that the fused runner did
run (or stepped aside) where expected.  No torch needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime import engine
from st_autodiff.runtime.nn import rnn_steps

assert rnn_steps.gru_step  # importing it registers the fused step classes


@contextmanager
def _fused(on: bool) -> Iterator[list]:
    """The runners on (counting the steps they ran) or off."""
    saved = dict(engine.FUSED)
    ran: list = []

    def counting(run: Callable[..., bool]) -> Callable[..., bool]:
        def wrapped(*args: Any) -> bool:
            done = run(*args)
            ran.append(done)
            return done
        return wrapped

    if on:
        engine.FUSED.update({cls: counting(run) for cls, run in saved.items()})
    else:
        engine.FUSED.clear()
    try:
        yield ran
    finally:
        engine.FUSED.clear()
        engine.FUSED.update(saved)


def _model(kind: str, dtype: Any) -> Any:
    torch.manual_seed(3)
    if kind == "gru_cell":
        return torch.nn.GRUCell(3, 4).to(dtype)
    cls = torch.nn.GRU if kind == "gru" else torch.nn.RNN
    return cls(3, 4, num_layers=2, bidirectional=True).to(dtype)


def _forward(kind: str, dtype: Any) -> tuple:
    """Model, its inputs (all requiring grad) and a scalar loss over every output."""
    m = _model(kind, dtype)
    x = torch.randn(5, 2, 3, dtype=dtype, requires_grad=True)
    if kind.endswith("cell"):
        h0 = torch.randn(2, 4, dtype=dtype, requires_grad=True)
        h, loss = h0, 0
        for t in range(5):
            h = m(x[t], h)
            loss = loss + (h * (t + 1)).sum()
    else:
        h0 = torch.randn(4, 2, 4, dtype=dtype, requires_grad=True)
        out, h = m(x, h0)
        loss = (out * out.detach().cos()).sum() + (h ** 2).sum()
    return m, [x, h0], loss


def _grads(m: Any, inputs: list) -> list:
    return [p.grad.numpy().copy() for p in [*m.parameters(), *inputs]]


def _same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for u, v in zip(a, b, strict=True):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(u, v)


KINDS = ["gru", "rnn", "gru_cell"]  # (RNNCell records no step: its nodes are plain ops)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_fused_gradients_are_bit_for_bit_those_of_the_nodes(kind: str, dtype: Any) -> None:
    results = []
    for on in (True, False):
        with _fused(on) as ran:
            m, inputs, loss = _forward(kind, dtype)
            loss.backward()
            results.append(_grads(m, inputs))
        assert (len(ran) > 0 and all(ran)) if on else not ran
    _same(*results)


@pytest.mark.parametrize("kind", KINDS)
def test_double_backward_through_the_steps_matches(kind: str) -> None:
    """A gradient made with create_graph uses the steps' values: its backward feeds the
    steps' inner nodes from outside, and the runner must step aside for those steps."""
    results = []
    for on in (True, False):
        with _fused(on):
            m, inputs, loss = _forward(kind, torch.float64)
            params = list(m.parameters())
            gs = torch.autograd.grad(loss, params[:2], create_graph=True)
            (gs[0].pow(2).sum() + gs[1].sin().sum()).backward()
            results.append(_grads(m, inputs))
    _same(*results)


def _inner_node(kind: str, loss: Any) -> Any:
    """A node inside the steps (a SigmoidBackward0, or the AddBackward0 of an Addmm)."""
    want = "AddBackward0" if kind == "rnn" else "SigmoidBackward0"
    stack, seen = [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == want and (want != "AddBackward0"
                                    or node.next_functions[0][0].name() == "AddmmBackward0"):
            return node
        stack.extend(fn for fn, _ in node.next_functions)
    raise AssertionError(f"no {want} in the graph")


@pytest.mark.parametrize("kind", KINDS)
def test_hooks_on_inner_nodes_run_and_agree(kind: str) -> None:
    results, calls = [], []
    for on in (True, False):
        with _fused(on) as ran:
            m, inputs, loss = _forward(kind, torch.float32)
            node = _inner_node(kind, loss)
            seen: list = []
            node.register_prehook(lambda g, seen=seen: seen.append(g[0].clone()))
            node.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
            loss.backward()
            results.append(_grads(m, inputs))
            calls.append(seen)
        if on:
            assert False in ran  # the step with hooks ran node by node
    _same(*results)
    assert len(calls[0]) == len(calls[1]) == 1
    np.testing.assert_array_equal(calls[0][0].numpy(), calls[1][0].numpy())


@pytest.mark.parametrize("kind", KINDS)
def test_retain_graph_and_freed_graph_behave_the_same(kind: str) -> None:
    results, errors = [], []
    for on in (True, False):
        with _fused(on):
            m, inputs, loss = _forward(kind, torch.float32)
            loss.backward(retain_graph=True)
            loss.backward()
            results.append(_grads(m, inputs))
            with pytest.raises(RuntimeError) as info:
                loss.backward()
            errors.append(str(info.value))
    _same(*results)
    assert errors[0] == errors[1]


@pytest.mark.parametrize("kind", KINDS)
def test_weights_modified_in_place_raise_the_same_error(kind: str) -> None:
    errors = []
    for on in (True, False):
        with _fused(on):
            m, _inputs, loss = _forward(kind, torch.float32)
            with torch.no_grad():
                next(p for n, p in m.named_parameters() if "weight_hh" in n).mul_(1.5)
            with pytest.raises(RuntimeError) as info:
                loss.backward()
            errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert "modified by an inplace operation" in errors[0]


def test_anomaly_mode_and_profiler_run_node_by_node() -> None:
    results = []
    for on in (True, False):
        with _fused(on) as ran:
            m, inputs, loss = _forward("gru", torch.float64)
            with pytest.warns(UserWarning, match="Anomaly"), torch.autograd.detect_anomaly():
                loss.backward(retain_graph=True)
            with torch.autograd.profiler.profile() as prof:
                loss.backward()
            results.append(_grads(m, inputs))
        assert not ran
        names = {e.key for e in prof.key_averages()}
        assert "SigmoidBackward0" in names or "autograd::engine::evaluate_function: "\
            "SigmoidBackward0" in names
    _same(*results)


@pytest.mark.parametrize("kind", KINDS)
def test_leaf_hooks_fire_in_the_same_order_with_the_same_values(kind: str) -> None:
    orders = []
    for on in (True, False):
        with _fused(on) as ran:
            m, inputs, loss = _forward(kind, torch.float32)
            order: list = []
            named = [*m.named_parameters(), ("x", inputs[0]), ("h0", inputs[1])]
            for name, p in named:
                p.register_hook(lambda g, name=name, order=order: order.append(
                    (name, g.numpy().tobytes())))
                p.register_post_accumulate_grad_hook(
                    lambda t, name=name, order=order: order.append(("post", name)))
            loss.backward()
            orders.append(order)
        assert all(ran) and len(ran) > 0 if on else not ran
    assert orders[0] == orders[1]
