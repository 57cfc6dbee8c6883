"""Differential tests of ``nn`` and ``optim`` against real PyTorch (skipped without it).

Each check runs the same code on both libraries (``lib`` is ``st_autodiff`` or ``torch``)
from the same seed and compares what a user can see: initial weights (bit for bit),
values and gradients, node names and graph shapes, reprs, error messages, optimizer
trajectories, and the printed output of every example script.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

LIBS = {"st": st_autodiff, "torch": torch}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def both(fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``fn(st_autodiff)`` and ``fn(torch)``, each after ``manual_seed(0)``."""
    out = []
    for lib in LIBS.values():
        lib.manual_seed(0)
        out.append(fn(lib))
    return out[0], out[1]


def arrays(values: Any) -> list[np.ndarray]:
    if not isinstance(values, (list, tuple)):
        values = [values]
    return [np.asarray(v.detach().numpy()) if hasattr(v, "detach") else np.asarray(v)
            for v in values]


def assert_close(ours: Any, theirs: Any, rtol: float = 2e-6, atol: float = 1e-6) -> None:
    for a, b in zip(arrays(ours), arrays(theirs), strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def graph(fn: Any, depth: int = 5) -> Any:
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return [fn.name()] + [graph(f, depth - 1) for f, _ in fn.next_functions]


# --- initial weights ----------------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [(3, 5), (32, 64), (1, 1), (100, 7)])
def test_linear_initial_weights_are_identical(sizes):
    ours, theirs = both(lambda lib: lib.nn.Linear(*sizes))
    for name in ("weight", "bias"):
        np.testing.assert_array_equal(getattr(ours, name).detach().numpy(),
                                      getattr(theirs, name).detach().numpy())


@pytest.mark.parametrize("init", ["xavier_uniform_", "kaiming_uniform_", "uniform_",
                                  "xavier_normal_", "kaiming_normal_", "normal_"])
def test_initialisers_draw_the_same_numbers(init):
    def fill(lib):
        w = lib.empty(20, 10)
        getattr(lib.nn.init, init)(w)
        return w

    assert_close(*both(fill), rtol=1e-6, atol=1e-7)


# --- values, gradients and graphs of every function -----------------------------------------------

def _inputs(lib):
    x = lib.randn(4, 3, requires_grad=True)
    return x, lib.rand(4, 3), lib.tensor([0, 2, 1, 2]), lib.tensor([0, -100, 1, 2])


CALLS = {
    "linear": lambda lib, x, t, c, ci: lib.nn.functional.linear(x, lib.ones(5, 3) * 0.3,
                                                                lib.arange(5.0)),
    "linear 3d": lambda lib, x, t, c, ci: lib.nn.functional.linear(x.reshape(2, 2, 3),
                                                                   lib.ones(5, 3) * 0.3),
    "relu": lambda lib, x, t, c, ci: lib.nn.functional.relu(x),
    "sigmoid": lambda lib, x, t, c, ci: lib.nn.functional.sigmoid(x),
    "tanh": lambda lib, x, t, c, ci: lib.nn.functional.tanh(x),
    "softmax": lambda lib, x, t, c, ci: lib.nn.functional.softmax(x, dim=1),
    "log_softmax": lambda lib, x, t, c, ci: lib.nn.functional.log_softmax(x, dim=0),
    "mse": lambda lib, x, t, c, ci: lib.nn.functional.mse_loss(x, t),
    "mse none": lambda lib, x, t, c, ci: lib.nn.functional.mse_loss(x, t, reduction="none"),
    "mse weight": lambda lib, x, t, c, ci: lib.nn.functional.mse_loss(x, t, weight=t),
    "l1 sum": lambda lib, x, t, c, ci: lib.nn.functional.l1_loss(x, t, reduction="sum"),
    "ce": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(x, c),
    "ce weight ignore": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(
        x, ci, weight=lib.tensor([0.2, 1.0, 3.0])),
    "ce none": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(x, ci, reduction="none"),
    "ce smoothing": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(
        x, ci, label_smoothing=0.2),
    "ce smoothing weight sum": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(
        x, ci, weight=lib.tensor([0.2, 1.0, 3.0]), label_smoothing=0.2, reduction="sum"),
    "ce probabilities": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(
        x, t.softmax(dim=1)),
    "ce probabilities none smoothing": lambda lib, x, t, c, ci: lib.nn.functional.cross_entropy(
        x, t.softmax(dim=1), reduction="none", label_smoothing=0.1),
    "nll sum": lambda lib, x, t, c, ci: lib.nn.functional.nll_loss(x, c, reduction="sum"),
    "bce": lambda lib, x, t, c, ci: lib.nn.functional.binary_cross_entropy_with_logits(x, t),
    "bce pos_weight none": lambda lib, x, t, c, ci:
        lib.nn.functional.binary_cross_entropy_with_logits(
            x * 5, t, weight=lib.tensor([1.0, 0.5, 2.0]), pos_weight=lib.tensor([3.0, 1.0, 0.2]),
            reduction="none"),
    "MSELoss sum": lambda lib, x, t, c, ci: lib.nn.MSELoss(reduction="sum")(x, t),
    "CrossEntropyLoss": lambda lib, x, t, c, ci: lib.nn.CrossEntropyLoss()(x, c),
    "BCEWithLogitsLoss": lambda lib, x, t, c, ci: lib.nn.BCEWithLogitsLoss()(x, t),
    "Sequential": lambda lib, x, t, c, ci: lib.nn.Sequential(
        lib.nn.Linear(3, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2), lib.nn.Sigmoid())(x),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_gradients_and_graphs_match(name):
    def run(lib):
        x, t, c, ci = _inputs(lib)
        y = CALLS[name](lib, x, t, c, ci)
        (g,) = lib.autograd.grad(y, x, lib.ones_like(y))
        return y, g, graph(y.grad_fn)

    (y1, g1, graph1), (y2, g2, graph2) = both(run)
    assert graph1 == graph2
    assert_close([y1, g1], [y2, g2])


@pytest.mark.parametrize("name", ["mse", "ce", "bce", "linear", "ce smoothing"])
def test_second_derivatives_match(name):
    def run(lib):
        x, t, c, ci = _inputs(lib)
        x64 = x.detach().double().requires_grad_()
        y = CALLS[name](lib, x64, t.double(), c, ci) if name != "linear" else \
            lib.nn.functional.linear(x64, lib.ones(5, 3, dtype=lib.float64)).pow(2).sum()
        (g,) = lib.autograd.grad(y.sum(), x64, create_graph=True)
        (h,) = lib.autograd.grad(g.pow(2).sum(), x64)
        return h

    assert_close(*both(run), rtol=1e-10, atol=1e-12)


# --- dropout draws the same masks from the same seed -----------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_masks_match(p, dtype):
    def run(lib):
        x = lib.ones(50, 70, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.dropout(x, p)
        y.sum().backward()
        after = lib.rand(3)  # the generator advanced by the same amount
        return y, x.grad, after, lib.nn.Dropout(p).eval()(x) is x

    ours, theirs = both(run)
    assert ours[3] and theirs[3]
    for a, b in zip(arrays(ours[:3]), arrays(theirs[:3])):
        np.testing.assert_array_equal(a, b)


# --- reprs and error messages -------------------------------------------------------------------

REPRS = {
    "Parameter": lambda lib: repr(lib.nn.Parameter(lib.tensor([1.0, 2.0]))),
    "Parameter frozen": lambda lib: str(lib.nn.Parameter(lib.ones(2), requires_grad=False)),
    "Linear": lambda lib: repr(lib.nn.Linear(3, 5)),
    "Sequential": lambda lib: repr(lib.nn.Sequential(
        lib.nn.Linear(2, 4), lib.nn.ReLU(inplace=True), lib.nn.Dropout(0.3), lib.nn.Tanh(),
        lib.nn.Sequential(lib.nn.Sigmoid(), lib.nn.Softmax(dim=1)), lib.nn.MSELoss(),
        lib.nn.L1Loss(), lib.nn.CrossEntropyLoss(), lib.nn.BCEWithLogitsLoss(),
        lib.nn.Identity(), lib.nn.LogSoftmax(dim=0))),
    "Linear params": lambda lib: repr(list(lib.nn.Linear(2, 1).named_parameters())),
    "state_dict": lambda lib: repr(lib.nn.Sequential(lib.nn.Linear(2, 1)).state_dict()),
    "SGD": lambda lib: repr(lib.optim.SGD(lib.nn.Linear(2, 1).parameters(), lr=0.1,
                                          momentum=0.9, nesterov=True)),
    "Adam": lambda lib: repr(lib.optim.Adam(lib.nn.Linear(2, 1).parameters(), amsgrad=True)),
    "load ok": lambda lib: repr(lib.nn.Linear(2, 1).load_state_dict(
        lib.nn.Linear(2, 1).state_dict())),
    "load partial": lambda lib: repr(lib.nn.Linear(2, 1).load_state_dict(
        {"weight": lib.zeros(1, 2), "extra": lib.zeros(1)}, strict=False)),
    "linear output": lambda lib: repr(lib.nn.Linear(3, 2)(lib.ones(1, 3))),
    "ce output": lambda lib: repr(lib.nn.CrossEntropyLoss()(lib.ones(2, 3, requires_grad=True),
                                                            lib.tensor([0, 1]))),
}


@pytest.mark.parametrize("name", list(REPRS))
def test_reprs_match(name):
    ours, theirs = both(REPRS[name])
    theirs = theirs.replace("torch.nn.parameter.Parameter", "Parameter")
    assert re.sub(r"0x[0-9a-f]+", "", ours) == re.sub(r"0x[0-9a-f]+", "", theirs)


ERRORS = {
    "linear shapes": lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 2)),
    "linear dtype": lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 3, dtype=lib.float64)),
    "linear dtype no bias": lambda lib: lib.nn.functional.linear(
        lib.ones(2, 4, 3, dtype=lib.float64), lib.ones(2, 3)),
    "bad reduction": lambda lib: lib.nn.MSELoss(reduction="avg")(lib.ones(2), lib.ones(2)),
    "ce bounds": lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0, 3])),
    "ce batch": lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0])),
    "ce dtype": lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.ones(2)),
    "ce weight grad": lambda lib: lib.nn.functional.cross_entropy(
        lib.ones(2, 3), lib.tensor([0, 1]), weight=lib.ones(3, requires_grad=True)),
    "bce size": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.ones(2, 3), lib.ones(3)),
    "dropout p": lambda lib: lib.nn.Dropout(p=2.0),
    "tutorial L1Loss": lambda lib: lib.nn.L1Loss(lib.ones(1, 5), lib.ones(1, 5)),
    "assign tensor": lambda lib: setattr(lib.nn.Linear(1, 1), "weight", lib.zeros(1, 1)),
    "missing attribute": lambda lib: lib.nn.Linear(1, 1).missing,
    "load size": lambda lib: lib.nn.Linear(3, 2).load_state_dict({"weight": lib.zeros(5, 3)}),
    "empty optimizer": lambda lib: lib.optim.SGD([]),
    "tensor params": lambda lib: lib.optim.Adam(lib.ones(2)),
    "nesterov": lambda lib: lib.optim.SGD(lib.nn.Linear(1, 1).parameters(), nesterov=True),
    "adam beta": lambda lib: lib.optim.Adam(lib.nn.Linear(1, 1).parameters(), betas=(0.9, 1)),
    "non-leaf": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True) * 2]),
    "set requires_grad on output": lambda lib: setattr(lib.nn.Linear(3, 5)(lib.rand(1, 3)),
                                                       "requires_grad", False),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match(name):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ERRORS[name](lib)
            except Exception as err:  # noqa: BLE001  (the exception is what is compared)
                return type(err).__name__, str(err)
        return None

    ours, theirs = both(run)
    assert ours is not None and ours == theirs


# --- optimizers: trajectories ---------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.2, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.95), weight_decay=0.01)),
    ("Adam", dict(lr=0.05, amsgrad=True, eps=1e-6)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,settings", OPTIMIZERS, ids=[f"{n} {s}" for n, s in OPTIMIZERS])
def test_optimizer_steps_match(name, settings, dtype):
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))
        model.to(getattr(lib, dtype))
        opt = getattr(lib.optim, name)(model.parameters(), **settings)
        x = lib.randn(16, 4, dtype=getattr(lib, dtype))
        y = lib.randint(0, 3, (16,))
        trace = []
        for _ in range(6):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            trace.append(loss.detach())
        state = [v for s in opt.state.values() for v in s.values()]
        return trace + [p.detach() for p in model.parameters()] + state

    ours, theirs = both(run)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    assert_close(ours, theirs, **tol)


def test_training_loop_matches_for_many_steps():
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(32, 64), lib.nn.ReLU(), lib.nn.Linear(64, 10))
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = lib.randn(64, 32), lib.randint(0, 10, (64,))
        losses = []
        for _ in range(30):
            opt.zero_grad()
            loss = lib.nn.CrossEntropyLoss()(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses)

    ours, theirs = both(run)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


# --- the example scripts print the same text with PyTorch ----------------------------------------

def _run_example(path: Path, use_torch: bool) -> str:
    source = path.read_text()
    if use_torch:
        source = (source.replace("import st_autodiff as torch", "import torch")
                  .replace("import st_autodiff.nn as nn", "import torch.nn as nn"))
    out = io.StringIO()
    module = type(sys)("__main__")
    module.__file__ = str(path)
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(source, str(path), "exec"), module.__dict__)
    return re.sub(r"0x[0-9a-f]+", "0x...", out.getvalue())


@pytest.mark.parametrize("name", ["autograd_basics", "hooks_and_modes", "higher_order",
                                  "train_mlp"])
def test_examples_print_what_pytorch_prints(name):
    path = EXAMPLES / f"{name}.py"
    assert _run_example(path, False) == _run_example(path, True)
    _ = runpy  # the scripts also run as __main__ in test_examples.py
