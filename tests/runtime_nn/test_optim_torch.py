"""``optim``, ``optim.lr_scheduler`` and ``nn.utils`` against real PyTorch (skipped without it).

Float32 optimizer trajectories must be bit-identical to PyTorch's default CPU
implementation: one SGD step and 200 steps of Adam, AdamW, RMSprop and Adagrad on 100,000
elements, the other stored runs of ``optim_cases.py`` on 10,000.  Schedules must give the
same rates (Python floats) over 100 steps, the same state dicts, warnings and errors.

PyTorch's float32 ``sqrt`` goes through MKL, whose AVX-512 code is off by one ulp for about
0.7% of inputs (``optim/rounding.py`` reproduces it); on machines without AVX-512 MKL rounds
correctly, and the ``host_sqrt`` fixture makes our optimizers do the same there.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import st_autodiff
from st_autodiff.runtime.optim import rounding

from .optim_cases import OPTIMIZER_RUNS, SCHEDULES, run_optimizer, run_schedule

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

BIG = {"sgd one step", "adam", "adamw", "rmsprop", "adagrad"}


def _correctly_rounded_sqrt(x: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return np.sqrt(x, out=np.empty_like(np.asarray(x)))


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """PyTorch on one thread: its thread pool crawls on a busy machine (results are the same)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def host_sqrt(monkeypatch):
    """Follow this machine's PyTorch sqrt: MKL's AVX-512 result or the correctly rounded one."""
    probe = np.random.default_rng(0).random(20000).astype(np.float32) + np.float32(0.1)
    theirs = torch.from_numpy(probe).sqrt().numpy()
    if not np.array_equal(theirs, rounding.sqrt(probe)):
        assert np.array_equal(theirs, np.sqrt(probe)), "PyTorch's sqrt follows neither model"
        monkeypatch.setattr(rounding, "sqrt", _correctly_rounded_sqrt)


def _bits_differ(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.count_nonzero(a.view(np.uint32) != b.view(np.uint32)))


# --- the rounding helpers, op by op -------------------------------------------------------

def test_rounding_helpers_match_pytorch_kernels():
    rng = np.random.default_rng(1)
    n = 100_003  # not a multiple of any vector width: the scalar tail is checked too
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    c = rng.random(n).astype(np.float32) + np.float32(0.1)
    t = torch.from_numpy
    checks = {
        "add": (t(a).add(t(b), alpha=-0.0123), rounding.add(a, b, -0.0123)),
        "mul": (t(a).mul(0.999), rounding.mul(a, 0.999)),
        "div": (t(a) / 0.7071, rounding.div(a, 0.7071)),
        "addcmul": (t(a).addcmul(t(b), t(c), value=0.001), rounding.addcmul(a, b, c, 0.001)),
        "addcdiv": (t(a).addcdiv(t(b), t(c), value=-0.37), rounding.addcdiv(a, b, c, -0.37)),
        "lerp small": (t(a).lerp(t(b), 0.1), rounding.lerp(a, b, 0.1)),
        "lerp large": (t(a).lerp(t(b), 0.999), rounding.lerp(a, b, 0.999)),
        "sqrt": (t(c).sqrt(), rounding.sqrt(c)),
        "sqrt wide": (t(np.abs(a) * np.float32(1e-30)).sqrt(),
                      rounding.sqrt(np.abs(a) * np.float32(1e-30))),
    }
    assert {k: _bits_differ(x.numpy(), y) for k, (x, y) in checks.items()} == {
        k: 0 for k in checks}


def test_float64_helpers_match_pytorch():
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(10_000) for _ in range(3))
    t = torch.from_numpy
    assert np.array_equal(t(a).add(t(b), alpha=-0.37).numpy(), rounding.add(a, b, -0.37))
    assert np.array_equal(t(a).addcmul(t(b), t(c), value=0.3).numpy(),
                          rounding.addcmul(a, b, c, 0.3))
    assert np.array_equal(t(a).lerp(t(b), 0.9).numpy(), rounding.lerp(a, b, 0.9))


# --- optimizers ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", list(OPTIMIZER_RUNS))
def test_float32_trajectories_are_bit_identical(case):
    name, settings, steps = OPTIMIZER_RUNS[case]
    n = 100_000 if case in BIG else 10_000
    ours = run_optimizer(st_autodiff, name, settings, steps, n)
    theirs = run_optimizer(torch, name, settings, steps, n)
    assert _bits_differ(ours, theirs) == 0


@pytest.mark.parametrize("case", list(OPTIMIZER_RUNS))
def test_pytorchs_foreach_implementation_gives_the_same_bits(case):
    # PyTorch's multi-tensor (foreach=True) path rounds like its single-tensor default
    name, settings, steps = OPTIMIZER_RUNS[case]
    ours = run_optimizer(st_autodiff, name, settings, steps, 10_000)
    theirs = run_optimizer(torch, name, dict(settings, foreach=True), steps, 10_000)
    assert _bits_differ(ours, theirs) == 0


def _loaded(lib: Any) -> str:
    p = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
    opt = lib.optim.AdamW([p], lr=0.1)
    lib.optim.lr_scheduler.StepLR(opt, 2)  # adds initial_lr to the group
    p.grad = lib.ones(2, dtype=lib.float64)
    opt.step()
    q = lib.nn.Parameter(lib.ones(2))
    twin = lib.optim.AdamW([q], lr=0.5)
    saved = opt.state_dict()
    saved["param_groups"][0]["decoupled_weight_decay"] = False
    twin.load_state_dict(saved)
    state = {k: (str(v.dtype).split(".")[-1], v.tolist()) for k, v in twin.state[q].items()}
    return repr((state, twin.param_groups[0]))


def test_load_state_dict_casts_buffers_and_takes_saved_settings():
    assert _loaded(st_autodiff) == _loaded(torch)


@pytest.mark.parametrize("name,settings", [
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
])
def test_float64_training_runs_match(name, settings):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))
        model.to(lib.float64)
        opt = getattr(lib.optim, name)(model.parameters(), **settings)
        x = lib.randn(16, 4, dtype=lib.float64)
        for _ in range(10):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        return [p.detach().numpy().copy() for p in model.parameters()]

    for a, b in zip(run(st_autodiff), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _state_summary(lib: Any, cls: str, settings: dict[str, Any]) -> str:
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    opt = getattr(lib.optim, cls)([{"params": [model.weight]},
                                   {"params": [model.bias], "lr": 0.5}], **settings)
    model(lib.ones(4, 3)).sum().backward()
    opt.step()
    saved = opt.state_dict()
    state = {k: {name: (type(v).__name__, str(v.dtype), tuple(v.shape)) for name, v in s.items()}
             for k, s in saved["state"].items()}
    return repr((state, saved["param_groups"], repr(opt)))


@pytest.mark.parametrize("cls,settings", [
    ("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(amsgrad=True)), ("AdamW", {}),
    ("RMSprop", dict(momentum=0.5, centered=True)), ("Adagrad", dict(lr_decay=0.1)),
])
def test_state_dicts_and_reprs_match(cls, settings):
    assert _state_summary(st_autodiff, cls, settings) == _state_summary(torch, cls, settings)


def _lbfgs(lib: Any, line_search: str | None, history: int) -> tuple[Any, ...]:
    x = lib.nn.Parameter(lib.tensor(np.linspace(-1.5, 1.2, 6)))
    opt = lib.optim.LBFGS([x], history_size=history, line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(3)]
    state = opt.state[x]
    return losses, x.detach().numpy().copy(), state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("history", [100, 3])
def test_lbfgs_follows_pytorch_on_rosenbrock(line_search, history):
    ours, theirs = _lbfgs(st_autodiff, line_search, history), _lbfgs(torch, line_search, history)
    assert ours[2:] == theirs[2:]  # the same number of evaluations and iterations
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-8)
    # the dot products sum in another order; along Rosenbrock's flat valley that moves the
    # point (not the loss) in the fifth digit after three steps of 20 iterations
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4)


# --- schedulers ---------------------------------------------------------------------------

SCHEDULE_RUNS = [(name, "SGD") for name in SCHEDULES] + [
    (name, "Adam") for name in SCHEDULES if name.startswith("OneCycle")]  # beta1 cycling


@pytest.mark.parametrize("name,optimizer", SCHEDULE_RUNS)
def test_schedules_give_identical_rates(name, optimizer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run_schedule(st_autodiff, name, optimizer) == run_schedule(torch, name, optimizer)


def _scheduler_story(lib: Any) -> list[Any]:
    """State dicts, warnings and errors a user sees."""
    out: list[Any] = []
    p = [lib.nn.Parameter(lib.ones(1))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = lib.optim.SGD(p, lr=0.1, momentum=0.9)
        s = lib.optim.lr_scheduler
        sched = s.StepLR(opt, 2)
        sched.step()  # before any optimizer.step(): warns
        opt.step()
        sched.step()
        sched.step(5)  # deprecated epoch argument
        sched.get_lr()  # outside step: warns
        out.append(repr(sched.state_dict()))
        seq = s.SequentialLR(opt, [s.ConstantLR(opt), s.ExponentialLR(opt, 0.9)], [3])
        out.append(repr(seq.state_dict()))
        plateau = s.ReduceLROnPlateau(opt, mode="max")
        out.append(repr(plateau.state_dict()))
    out.append([(w.category.__name__, str(w.message)) for w in caught])
    for bad in (lambda: s.StepLR(3, 1), lambda: s.OneCycleLR(lib.optim.Adagrad(p), 0.1, 10),
                lambda: s.OneCycleLR(opt, 0.1),
                lambda: s.ReduceLROnPlateau(opt, mode="up"),
                lambda: s.LinearLR(opt, start_factor=0),
                lambda: s.SequentialLR(opt, [s.ConstantLR(opt)], [1]),
                lambda: s.StepLR(lib.optim.SGD(p), 1, last_epoch=3)):
        try:
            bad()
            out.append(None)
        except Exception as err:  # noqa: BLE001  (the exception is what is compared)
            out.append((type(err).__name__, str(err)))
    return out


def test_scheduler_state_dicts_warnings_and_errors_match():
    assert _scheduler_story(st_autodiff) == _scheduler_story(torch)


# --- nn.utils -----------------------------------------------------------------------------

def _grads(lib: Any, dtype: str, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    params = []
    for shape in ((7, 5), (7,), (3, 7), (3,)):
        p = lib.nn.Parameter(lib.zeros(*shape, dtype=getattr(lib, dtype)))
        p.grad = lib.tensor((rng.standard_normal(shape) * 3).astype(dtype))
        params.append(p)
    return params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1, 3, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 1e6])
def test_clip_grad_norm_matches(dtype, norm_type, max_norm):
    results = []
    for lib in (st_autodiff, torch):
        params = _grads(lib, dtype, 3)
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        results.append((total, [p.grad.numpy().copy() for p in params]))
    (ours, ours_grads), (theirs, their_grads) = results
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "st_autodiff.") or (
        ours.dtype.__repr__().split(".")[-1] == str(theirs.dtype).split(".")[-1])
    assert ours.shape == theirs.shape == ()
    rtol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=rtol)
    for a, b in zip(ours_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=2 * rtol, atol=0)


def test_clip_grad_value_and_parameter_vectors_match():
    results = []
    for lib in (st_autodiff, torch):
        params = _grads(lib, "float32", 4)
        lib.nn.utils.clip_grad_value_(params, 1.5)
        vec = lib.nn.utils.parameters_to_vector(params)
        lib.nn.utils.vector_to_parameters(vec.detach() * 2, params)
        results.append(([p.grad.numpy().copy() for p in params], type(vec.grad_fn).__name__,
                        [p.detach().numpy().copy() for p in params]))
    (a_grads, a_node, a_params), (b_grads, b_node, b_params) = results
    assert a_node == b_node
    for x, y in zip(a_grads + a_params, b_grads + b_params):
        assert np.array_equal(x, y)
