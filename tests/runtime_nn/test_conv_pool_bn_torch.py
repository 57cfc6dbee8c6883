"""Convolution, pooling and batch normalisation against real PyTorch (skipped without it).

The same call runs on both libraries from the same NumPy inputs; compared are values,
first and second derivatives (through ``create_graph=True``), max-pool indices, node
names, running statistics, seeded initial weights (bit for bit), a few training steps of
a small CNN, reprs, ``state_dict`` keys and error messages.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

LIBS = (st_autodiff, torch)


def _run(lib: Any, fn: Callable[..., Any], arrays: tuple, dtype: str) -> tuple[list, list]:
    """Values, first and second derivatives of ``fn`` at ``arrays``, and node names."""
    dt = getattr(lib, dtype)
    xs = [lib.tensor(a, dtype=dt, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    extra = []
    if isinstance(out, tuple):
        out, extra = out[0], [out[1].numpy()]
    cot = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=dt)
    gs = lib.autograd.grad((out * cot).sum(), xs, create_graph=True, allow_unused=True,
                           materialize_grads=True)
    second = sum(((g * g) * x).sum() for g, x in zip(gs, xs))
    ggs = lib.autograd.grad(second, xs, allow_unused=True, materialize_grads=True)
    values = [out.detach().numpy(), *extra, *(g.detach().numpy() for g in gs),
              *(g.numpy() for g in ggs)]
    names = [out.grad_fn.name()] + [g.grad_fn.name() for g in gs if g.grad_fn is not None]
    return values, names


def _compare(fn: Callable[..., Any], arrays: tuple, dtype: str = "float64",
             names: bool = True) -> None:
    (ours, our_names), (theirs, their_names) = (_run(lib, fn, arrays, dtype) for lib in LIBS)
    assert len(ours) == len(theirs)
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-4, 2e-5)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * max(1.0, np.abs(b).max()))
    if names:
        assert our_names[0] == their_names[0]


_rng = np.random.default_rng(3)


def _n(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


CONV = [
    ("conv2d", lambda L, x, w, b: L.nn.functional.conv2d(x, w, b), (_n(2, 3, 6, 5),
                                                                     _n(4, 3, 3, 2), _n(4))),
    ("conv2d all settings", lambda L, x, w, b: L.nn.functional.conv2d(
        x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
     (_n(2, 4, 7, 8), _n(6, 2, 3, 2), _n(6))),
    ("conv2d same", lambda L, x, w: L.nn.functional.conv2d(x, w, padding="same", dilation=2),
     (_n(1, 3, 6, 6), _n(4, 3, 3, 3))),
    ("conv2d unbatched", lambda L, x, w: L.nn.functional.conv2d(x, w, stride=2),
     (_n(3, 5, 5), _n(2, 3, 3, 3))),
    ("conv1d", lambda L, x, w, b: L.nn.functional.conv1d(x, w, b, stride=2, padding=1,
                                                         groups=4),
     (_n(2, 4, 9), _n(4, 1, 3), _n(4))),
    ("conv1d same", lambda L, x, w: L.nn.functional.conv1d(x, w, padding="same"),
     (_n(2, 3, 10), _n(5, 3, 5))),
]

POOL = [
    ("max_pool2d", lambda L, x: L.nn.functional.max_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True), (_n(2, 3, 7, 8),)),
    ("max_pool2d dilation", lambda L, x: L.nn.functional.max_pool2d(
        x, (2, 3), stride=(1, 2), padding=(1, 0), dilation=2), (_n(3, 7, 8),)),
    ("max_pool1d", lambda L, x: L.nn.functional.max_pool1d(
        x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True), (_n(2, 3, 9),)),
    ("avg_pool2d", lambda L, x: L.nn.functional.avg_pool2d(x, 3, stride=2, padding=1,
                                                           ceil_mode=True), (_n(2, 3, 7, 8),)),
    ("avg_pool2d exclude pad", lambda L, x: L.nn.functional.avg_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), (_n(2, 3, 7, 8),)),
    ("avg_pool2d divisor", lambda L, x: L.nn.functional.avg_pool2d(
        x, (3, 2), stride=(2, 1), padding=(1, 1), divisor_override=5), (_n(2, 3, 7, 8),)),
    ("avg_pool1d", lambda L, x: L.nn.functional.avg_pool1d(
        x, 4, stride=3, padding=2, ceil_mode=True, count_include_pad=False), (_n(2, 3, 10),)),
    ("adaptive_avg_pool2d", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
     (_n(2, 3, 7, 9),)),
    ("adaptive_avg_pool2d up", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (10, None)),
     (_n(2, 3, 7, 9),)),
    ("adaptive_avg_pool2d 1", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
     (_n(2, 3, 7, 9),)),
    ("adaptive_avg_pool1d", lambda L, x: L.nn.functional.adaptive_avg_pool1d(x, 3),
     (_n(2, 3, 7),)),
    ("adaptive_max_pool2d", lambda L, x: L.nn.functional.adaptive_max_pool2d(
        x, (3, 4), return_indices=True), (_n(2, 3, 7, 9),)),
    ("adaptive_max_pool1d", lambda L, x: L.nn.functional.adaptive_max_pool1d(
        x, 4, return_indices=True), (_n(2, 3, 9),)),
    ("torch.max_pool2d", lambda L, x: L.max_pool2d(x, 3, [], 1, 1, True), (_n(2, 3, 7, 8),)),
    ("torch.avg_pool1d", lambda L, x: L.avg_pool1d(x, 3, 2, 1, True, False), (_n(2, 3, 9),)),
    ("torch.adaptive_max_pool1d", lambda L, x: L.adaptive_max_pool1d(x, 4), (_n(2, 3, 9),)),
    ("torch.max_pool1d_with_indices", lambda L, x: L.max_pool1d_with_indices(x, 3, 2),
     (_n(2, 3, 9),)),
    ("adaptive_max_pool2d up", lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (7, 2)),
     (_n(3, 5, 5),)),
]


def _bn(training: bool) -> Callable[..., Any]:
    def fn(L: Any, x: Any, w: Any, b: Any) -> Any:
        c = x.shape[1]
        rm = L.tensor(np.linspace(-1, 1, c), dtype=x.dtype)
        rv = L.tensor(np.linspace(0.5, 2, c), dtype=x.dtype)
        y = L.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3)
        return y + 0 * (rm.sum() + rv.sum())  # the running statistics are updated in place

    return fn


BN = [(f"batch_norm {shape} training={t}", _bn(t), (_n(*shape) * 2 + 1, _n(shape[1]),
                                                     _n(shape[1])))
      for shape in ((4, 3), (3, 2, 5), (2, 3, 4, 5)) for t in (True, False)]
BN.append(("torch.batch_norm", lambda L, x, w, b: L.batch_norm(
    x, w, b, None, None, True, 0.1, 1e-5, False), (_n(3, 2, 4), _n(2), _n(2))))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CONV + POOL + BN, ids=[c[0] for c in CONV + POOL + BN])
def test_values_and_derivatives_match_torch(case: tuple, dtype: str) -> None:
    _, fn, arrays = case
    _compare(fn, arrays, dtype)


def test_running_statistics_match_torch() -> None:
    out = []
    for lib in LIBS:
        lib.manual_seed(0)
        stats = []
        for momentum in (0.1, None):
            bn = lib.nn.BatchNorm2d(3, momentum=momentum)
            for k in range(3):
                bn(lib.randn(4, 3, 2, 2) * (k + 1) + k)
            bn.eval()
            stats += [bn(lib.randn(2, 3, 2, 2)).detach().numpy()]
            stats += [v.numpy() for v in bn.state_dict().values()]
        out.append(stats)
    for a, b in zip(*out, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("code", ["Conv2d(3, 6, 5)", "Conv1d(4, 8, 3, groups=2)",
                                  "Conv2d(16, 32, (3, 2), bias=False)", "Conv2d(1, 1, 1)",
                                  "Conv2d(2, 4, 3, padding='same', dilation=2).double()"])
def test_initialisation_bit_for_bit(code: str) -> None:
    params = []
    for lib in LIBS:
        lib.manual_seed(0)
        params.append([p.detach().numpy() for p in eval("lib.nn." + code).parameters()])
    for a, b in zip(*params, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def _cnn(lib: Any) -> list:
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(4, 6, 3), nn.AvgPool2d(2, 1),
                          nn.AdaptiveAvgPool2d((2, 2)))
    head = nn.Linear(24, 3)
    opt = lib.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=0.1)
    x, t = lib.randn(8, 1, 10, 10), lib.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(head(model(x).flatten(1)), t)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses + [model(x).detach().numpy()] + [p.detach().numpy()
                                                   for p in model.state_dict().values()]


def _one_thread(fn: Callable[[], Any]) -> Any:
    """``fn()`` with PyTorch on one thread: these models are tiny and threads only contend."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return fn()
    finally:
        torch.set_num_threads(threads)


def test_cnn_training_steps_match_torch() -> None:
    ours, theirs = _cnn(st_autodiff), _one_thread(lambda: _cnn(torch))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("nd, shape, padding", [(2, (1, 2, 5, 6), (1, 2)), (2, (2, 5, 6), 2),
                                                (1, (2, 2, 7), "same"), (1, (2, 6), 1)])
def test_padding_modes_match_torch(mode: str, nd: int, shape: tuple, padding: Any) -> None:
    def fn(L: Any, x: Any) -> Any:
        L.manual_seed(0)
        conv = getattr(L.nn, f"Conv{nd}d")(2, 3, 3, padding=padding, padding_mode=mode)
        return conv.to(x.dtype)(x)

    _compare(fn, (_n(*shape),), names=mode != "circular")  # circular: CatBackward0 here


@pytest.mark.parametrize("shape, kernel", [((1, 2, 6, 6), (3, 2, 2, 3)), ((2, 2, 7), (3, 2, 4)),
                                           ((2, 6, 5), (3, 2, 2, 2))])
def test_same_padding_graph_matches_torch(shape: tuple, kernel: tuple) -> None:
    def graph(lib: Any) -> tuple:
        x = lib.tensor(np.ones(shape), requires_grad=True)
        conv = lib.nn.functional.conv2d if len(kernel) == 4 else lib.nn.functional.conv1d
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = conv(x, lib.tensor(np.ones(kernel)), padding="same")
        nodes, fn = [], y.grad_fn
        while fn is not None:
            nodes.append((fn.name(), getattr(fn, "_saved_padding", None),
                          getattr(fn, "_saved_pad", None)))
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return y.detach().numpy().tolist(), nodes

    assert graph(st_autodiff) == graph(torch)


MODULES = [
    "Conv2d(1, 6, 5)", "Conv2d(3, 6, 3, stride=2, padding=1, dilation=2, groups=3, bias=False)",
    "Conv2d(2, 2, 3, padding='same')", "Conv1d(2, 4, 3)",
    "Conv1d(2, 4, 3, padding='valid', padding_mode='reflect')", "MaxPool2d(2)",
    "MaxPool2d((2, 3), stride=1, padding=1, ceil_mode=True, return_indices=True)",
    "MaxPool1d(2)", "AvgPool2d(2)",
    "AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False, divisor_override=2)",
    "AvgPool1d(2)", "AvgPool1d(3, 1, 1, True, False)", "AdaptiveAvgPool2d((1, 1))",
    "AdaptiveAvgPool2d(3)", "AdaptiveAvgPool1d(3)", "AdaptiveMaxPool2d((2, None))",
    "AdaptiveMaxPool2d(2, return_indices=True)", "AdaptiveMaxPool1d(3)", "BatchNorm1d(4)",
    "BatchNorm2d(3, momentum=None, affine=False, track_running_stats=False)",
    "BatchNorm2d(3, eps=1e-3, bias=False)",
]


@pytest.mark.parametrize("code", MODULES)
def test_repr_and_state_dict_keys(code: str) -> None:
    ours, theirs = (eval("lib.nn." + code) for lib in LIBS)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]


ERRORS = [
    "F.conv2d(L.randn(2, 5, 7, 7), L.randn(4, 3, 3, 3))",
    "F.conv2d(L.randn(2, 3, 2, 2), L.randn(4, 3, 3, 3))",
    "F.conv2d(L.randn(7, 7), L.randn(4, 3, 3, 3))",
    "F.conv2d(L.randn(1, 3, 7, 7), L.randn(4, 3, 3, 3), stride=2, padding='same')",
    "F.conv2d(L.randn(1, 4, 7, 7), L.randn(4, 3, 3, 3), groups=3)",
    "F.conv2d(L.randn(1, 3, 7, 7), L.randn(4, 3, 3, 3), padding='foo')",
    "F.conv2d(L.randn(1, 3, 7, 7), L.randn(4, 3, 3, 3), L.randn(3))",
    "F.conv2d(L.randn(1, 3, 7, 7), L.randn(4, 3, 3, 3).double())",
    "F.conv2d(L.randn(1, 3, 7, 7), L.randn(4, 3, 3, 3), L.randn(4).double())",
    "F.conv1d(L.randn(2, 3, 5), L.randn(4, 3, 3, 3))",
    "L.nn.Conv2d(3, 4, 3, groups=2)", "L.nn.Conv2d(3, 4, 3, padding='same', stride=2)",
    "L.nn.BatchNorm2d(3)(L.randn(2, 3, 4))", "L.nn.BatchNorm1d(3)(L.randn(1, 3))",
    "L.nn.BatchNorm1d(3)(L.randn(2, 4))",
    "F.batch_norm(L.randn(2, 3), None, None, training=False)",
    "F.batch_norm(L.randn(2, 3), None, None, L.ones(4), training=True)",
    "F.max_pool2d(L.randn(1, 1, 4, 4), 2, padding=2)", "F.max_pool2d(L.randn(1, 1, 1, 1), 2)",
    "F.max_pool2d(L.randn(5, 5), 2)", "F.max_pool2d(L.randn(2, 5, 5), 2, stride=0)",
    "F.max_pool1d(L.randn(2, 3, 4, 5), 2)", "F.max_pool1d(L.randn(2, 3, 7), 3, 1, 2, 2)",
    "F.max_pool2d(L.randn(1, 2, 8, 9), (3, 4), 1, 2, 2)",
    "F.max_pool1d(L.randn(2, 3, 7), 3, 0)", "F.max_pool1d(L.randn(2, 3, 3), 4, 1)",
    "F.max_pool1d(L.randn(2, 3, 7), 3, 1, 2, 2, False, True)",
    "F.avg_pool2d(L.randn(1, 1, 4, 4), 2, padding=2)",
    "F.avg_pool2d(L.randn(5, 5), 2)", "F.avg_pool1d(L.randn(5, 5, 5, 5), 2)",
    "F.adaptive_avg_pool2d(L.randn(2, 3, 4, 4), (2, 2, 2))",
    "F.adaptive_avg_pool2d(L.randn(5, 5), 2)", "F.adaptive_avg_pool1d(L.randn(5, 5, 5, 5), 2)",
    "F.adaptive_max_pool2d(L.randn(4, 4), 2)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code: str) -> None:
    caught = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            eval(code, {"L": lib, "F": lib.nn.functional})
        caught.append((type(info.value), str(info.value)))
    assert caught[0] == caught[1]


def test_train_cnn_example_prints_what_pytorch_prints() -> None:
    from .test_nn_vs_torch import EXAMPLES, _run_example

    path = EXAMPLES / "train_cnn.py"
    assert _run_example(path, False) == _one_thread(lambda: _run_example(path, True))
