"""Recurrent steps built directly (``runtime/nn/rnn_step_build.py``) against the general path.

The builder must leave exactly the graph ``rnn_steps.gru_step`` / ``tanh_step`` record: every
check runs the same seeded program with the builder on and off (``make`` answering None)
and compares the two graphs field by field (node classes, creation order, edges, saved
triples, parameters, kept arrays bit for bit, the tensors they hold and which of them are
shared), then gradients bit for bit, hooks, ``retain_grad``, version errors and
``create_graph``; gradients are also checked against central differences in float64.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime.function import AccumulateGrad, RuleNode
from st_autodiff.runtime.nn import rnn_step_build
from st_autodiff.runtime.nn.rnn_step_build import GruSteps, TanhSteps


@contextmanager
def _builder(on: bool) -> Iterator[list]:
    """The builder on (noting each run of steps it took) or off."""
    taken: list = []
    originals = {cls: cls.__dict__["make"] for cls in (GruSteps, TanhSteps)}

    def wrap(cls: Any) -> Any:
        make = originals[cls].__func__

        def counted(c: Any, *args: Any) -> Any:
            built = make(c, *args) if on else None
            taken.append(built is not None)
            return built
        return classmethod(counted)

    for cls in originals:
        cls.make = wrap(cls)
    try:
        yield taken
    finally:
        for cls, make in originals.items():
            cls.make = make


def _run(kind: str, dtype: Any, h0_grad: bool, on: bool) -> tuple[Any, list, list]:
    """A seeded model's outputs (built with the builder on or off), its parameters and
    inputs."""
    torch.manual_seed(7)
    if kind == "gru_cell":
        m = torch.nn.GRUCell(3, 4).to(dtype)
    elif kind == "gru":
        m = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True).to(dtype)
    else:
        m = torch.nn.RNN(3, 4, num_layers=2, bidirectional=True).to(dtype)
    x = torch.randn(5, 2, 3, dtype=dtype, requires_grad=True)
    with _builder(on) as taken:
        if kind == "gru_cell":
            h0 = torch.randn(2, 4, dtype=dtype, requires_grad=h0_grad)
            h, outs = h0, []
            for t in range(5):
                h = m(x[t], h)
                outs.append(h)
        else:
            h0 = torch.randn(4, 2, 4, dtype=dtype, requires_grad=h0_grad)
            outs = list(m(x, h0))
    assert taken and all(taken) == on
    return outs, list(m.parameters()), [x, h0]


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
                and a.strides == b.strides and np.array_equal(a, b, equal_nan=True)
                and a.tobytes() == b.tobytes())
    if isinstance(a, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same_value(u, v) for u, v in zip(a, b, strict=True)))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return bool(a == b) and type(a) is type(b)


class _Pairing:
    """Walks two graphs side by side, asserting that they are the same graph: each object
    of one is paired with one of the other, and a pairing never changes."""

    def __init__(self) -> None:
        self.pairs: dict[int, Any] = {}
        self.keep: list[Any] = []
        self.nodes: list[tuple[Any, Any]] = []

    def pair(self, a: Any, b: Any) -> bool:
        """Pair ``a`` with ``b``; True if they were new."""
        if a is None or b is None:
            assert a is None and b is None
            return False
        seen = self.pairs.get(id(a))
        if seen is not None:
            assert seen is b, f"{a!r} paired with two objects"
            return False
        self.pairs[id(a)] = b
        self.keep += [a, b]
        return True

    def tensor(self, a: Any, b: Any) -> None:
        if not self.pair(a, b):
            return
        assert type(a) is type(b)
        assert _same_value(a._data, b._data)
        for f in ("_requires_grad", "_grad", "_output_nr"):
            assert getattr(a, f) == getattr(b, f), f
        self.pair_counter(a._vc, b._vc)
        if a._base is not None or b._base is not None:
            self.tensor(a._base, b._base)
        ea, eb = a._extra, b._extra
        assert (ea is None) == (eb is None)
        if ea is not None:
            assert _same_value(ea.view, eb.view)
            assert (ea.hooks, ea.post, ea.retains) == (eb.hooks, eb.post, eb.retains)
        self.node(a._grad_fn, b._grad_fn)

    def pair_counter(self, a: Any, b: Any) -> None:
        self.pair(a, b)
        assert a == b

    def node(self, a: Any, b: Any) -> None:
        if not self.pair(a, b):
            return
        assert type(a) is type(b), (type(a), type(b))
        self.nodes.append((a, b))
        assert a._hooks is None and b._hooks is None
        if isinstance(a, AccumulateGrad):
            self.tensor(a.variable, b.variable)  # AccumulateGrad
            return
        assert len(a.next_functions) == len(b.next_functions)
        for (fa, na), (fb, nb) in zip(a.next_functions, b.next_functions, strict=True):
            assert na == nb
            self.node(fa, fb)
        for f in ("_params", "_out"):
            assert _same_value(getattr(a, f), getattr(b, f)), (type(a).__name__, f)
        assert len(a._args) == len(b._args)
        for u, v in zip(a._args, b._args, strict=True):
            if isinstance(u, torch.Tensor):
                self.tensor(u, v)
            else:
                assert u == v
        assert len(a._saved) == len(b._saved)
        for (ta, ca, va), (tb, cb, vb) in zip(a._saved, b._saved, strict=True):
            assert va == vb
            if ta is not None:
                self.tensor(ta, tb)
            self.pair_counter(ca, cb)
        if hasattr(a, "_step"):
            assert len(a._step) == len(b._step)
            for u, v in zip(a._step, b._step, strict=True):
                self.node(u, v)


@pytest.mark.parametrize("kind", ["gru", "rnn", "gru_cell"])
@pytest.mark.parametrize(("dtype", "h0_grad"), [(torch.float64, True), (torch.float32, False)])
def test_same_graph(kind: str, dtype: Any, h0_grad: bool) -> None:
    """Node for node, field for field, the general path's graph; creation order too."""
    built, params_a, ins_a = _run(kind, dtype, h0_grad, True)
    plain, params_b, ins_b = _run(kind, dtype, h0_grad, False)
    walk = _Pairing()
    for p, q in zip(params_a + ins_a, params_b + ins_b, strict=True):
        walk.tensor(p, q)
    for a, b in zip(built, plain, strict=True):
        walk.tensor(a, b)
    nodes = [(a, b) for a, b in walk.nodes if not isinstance(a, AccumulateGrad)]
    fused = [a for a, _ in nodes if hasattr(a, "_step")]
    assert len(fused) == (5 if kind == "gru_cell" else 20)  # every step's last node
    for last in fused:  # the fused runner releases them with ``RuleNode._release`` inlined
        assert all(type(n)._release is RuleNode._release for n in (last, *last._step))
    order_a = sorted(range(len(nodes)), key=lambda i: nodes[i][0]._seq)
    order_b = sorted(range(len(nodes)), key=lambda i: nodes[i][1]._seq)
    assert order_a == order_b
    # the graph a user walks: names, edges, saved values
    a_last = built[-1].grad_fn
    assert a_last.name() == plain[-1].grad_fn.name()


def _loss(outs: list) -> Any:
    total = 0
    for k, o in enumerate(outs):
        total = total + (o * (k + 1)).sin().sum()
    return total


@pytest.mark.parametrize("kind", ["gru", "rnn", "gru_cell"])
def test_same_gradients_and_double_backward(kind: str) -> None:
    """First and second derivatives bit for bit those of the general path."""
    results = []
    for on in (True, False):
        outs, params, ins = _run(kind, torch.float64, True, on)
        loss = _loss(outs)
        grads = torch.autograd.grad(loss, params + ins, create_graph=True)
        second = torch.autograd.grad(sum((g * g).sum() for g in grads), params + ins)
        results.append([g.detach().numpy().copy() for g in grads + second])
    for a, b in zip(*results, strict=True):
        assert a.tobytes() == b.tobytes()


def _numeric(f: Any, t: Any, eps: float = 1e-6) -> np.ndarray:
    """Central differences of scalar ``f()`` in every entry of leaf ``t``."""
    data = t.detach().numpy()  # shares t's storage
    out = np.empty(data.shape)
    for i in np.ndindex(*data.shape):
        keep = data[i]
        data[i] = keep + eps
        up = f()
        data[i] = keep - eps
        down = f()
        data[i] = keep
        out[i] = (up - down) / (2 * eps)
    return out


@pytest.mark.parametrize("kind", ["gru", "rnn"])
def test_gradients_match_central_differences(kind: str) -> None:
    torch.manual_seed(2)
    cls = torch.nn.GRU if kind == "gru" else torch.nn.RNN
    m = cls(2, 3, bidirectional=True).double()
    x = torch.randn(4, 2, 2, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(2, 2, 3, dtype=torch.float64, requires_grad=True)

    def value() -> float:
        with torch.no_grad():
            return float(_loss(list(m(x, h0))))

    with _builder(True) as taken:
        loss = _loss(list(m(x, h0)))
    assert all(taken)
    wrt = [m.weight_hh_l0, m.bias_hh_l0_reverse, m.weight_ih_l0, x, h0]
    for t, g in zip(wrt, torch.autograd.grad(loss, wrt), strict=True):
        np.testing.assert_allclose(g.numpy(), _numeric(value, t), rtol=1e-6, atol=1e-8)


def _inner(out: Any) -> Any:
    """The ``TanhBackward0`` inside the last GRU step that made ``out``'s value."""
    node = out.grad_fn  # StackBackward0 of h_n
    step = node.next_functions[0][0]  # the step's AddBackward0
    return step.next_functions[1][0]


def _hooked_run(on: bool) -> list:
    """What hooks on an inner node and on an output see, ``retain_grad``'s gradient, and
    the error for a weight changed in place after the forward."""
    torch.manual_seed(5)
    m = torch.nn.GRU(3, 4)
    x = torch.randn(6, 2, 3)
    calls: list = []
    with _builder(on):
        out, h = m(x)
    node = _inner(h)
    assert node.name() == "TanhBackward0"
    node.register_hook(lambda gi, go: calls.append(("post", gi[0].numpy().copy())))
    node.register_prehook(lambda go: calls.append(("pre", go[0].numpy().copy())))
    out.retain_grad()
    out.register_hook(lambda g: calls.append(("out", g.numpy().copy())))
    (out.sum() + (h * h).sum()).backward(retain_graph=True)
    calls.append(("grad", out.grad.numpy().copy(), m.weight_hh_l0.grad.numpy().copy()))
    with torch.no_grad():
        m.weight_hh_l0.mul_(1.0)  # a new version of a saved tensor
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
        out.sum().backward()
    calls.append(("error", str(err.value)))
    return calls


def test_hooks_retain_grad_and_versions() -> None:
    """Hooks on an inner node and on a step's output, ``retain_grad``, and the error for a
    weight changed in place, all as on the general path."""
    seen = {on: _hooked_run(on) for on in (True, False)}
    kinds = [c[0] for c in seen[True]]
    assert kinds[:4] == ["out", "pre", "post", "grad"] and kinds[-1] == "error"
    assert len(seen[True]) == len(seen[False])
    for a, b in zip(seen[True], seen[False], strict=True):
        assert a[0] == b[0]
        for u, v in zip(a[1:], b[1:], strict=True):
            assert (u.tobytes() == v.tobytes()) if isinstance(u, np.ndarray) else u == v


def test_steps_aside() -> None:
    """No grad, a frozen ``W_hh``, no bias, the profiler and anomaly mode: the general
    path (``make`` answers None)."""
    m = torch.nn.GRU(3, 4)
    h = torch.zeros(2, 4)
    gi = torch.randn(2, 12, requires_grad=True) * 1
    assert GruSteps.make(h, m.weight_hh_l0, m.bias_hh_l0, (gi,)) is not None
    with torch.no_grad():
        assert GruSteps.make(h, m.weight_hh_l0, m.bias_hh_l0, (gi,)) is None
    assert GruSteps.make(h, m.weight_hh_l0, None, (gi,)) is None
    assert GruSteps.make(h, m.weight_hh_l0.detach(), m.bias_hh_l0, (gi,)) is None
    assert GruSteps.make(h.double(), m.weight_hh_l0, m.bias_hh_l0, (gi,)) is None
    with pytest.warns(UserWarning, match="Anomaly"), torch.autograd.detect_anomaly():
        assert GruSteps.make(h, m.weight_hh_l0, m.bias_hh_l0, (gi,)) is None
    with torch.autograd.profiler.profile():
        assert rnn_step_build._plain_path() is False
    assert rnn_step_build._plain_path() is True
