"""``optim``, ``optim.lr_scheduler`` and ``nn.utils`` without PyTorch: stored PyTorch 2.13
results, exact-rounding properties of ``optim/rounding.py``, and behaviour checks.

The stored values were produced by PyTorch 2.13.0 (CPU, AVX-512, MKL) running the same
deterministic problems (``optim_cases.py``) and saved here: a fingerprint of the final float32
parameter (1,000 elements; 1 to 200 steps) with its first values, and for schedules a
fingerprint of the 101 rates (and momenta) and two of them.  ``test_optim_torch.py`` makes
the same comparisons live, bit for bit, on 100,000 elements.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
from st_autodiff.runtime.optim import rounding
from st_autodiff.runtime.optim.rsqrt14 import rsqrt14

from .optim_cases import OPTIMIZER_RUNS, SCHEDULES, digest, run_optimizer, run_schedule

# --- produced by PyTorch 2.13.0 -----------------------------------------------------------
OPTIMIZER_REFERENCES = {
    "sgd one step": ("d50335a8a5293228",
        ['-0x1.efdf440000000p+1', '0x1.c2c9da0000000p+1', '0x1.9536020000000p+1']),
    "sgd nesterov": ("66d0974d200ac516",
        ['0x1.a4c91c0000000p-2', '-0x1.62b04e0000000p-2', '-0x1.46762e0000000p-2']),
    "sgd dampening maximize": ("4de280dea72f5030",
        ['-0x1.6ade800000000p+3', '0x1.45e0ca0000000p+3', '0x1.2304420000000p+3']),
    "adam": ("272a048e691fdcff",
        ['-0x1.1cfdb00000000p+1', '0x1.e2eed20000000p+0', '0x1.8d5cb80000000p+0']),
    "adam amsgrad l2": ("94c47851e62b69a1",
        ['-0x1.24ee2c0000000p+1', '0x1.f47dfe0000000p+0', '0x1.a100720000000p+0']),
    "adamw": ("91d85eacd44bd1ac",
        ['-0x1.1660e60000000p+1', '0x1.d784580000000p+0', '0x1.83c1dc0000000p+0']),
    "adamw maximize": ("72e7ae69a53832ad",
        ['-0x1.1de5080000000p+2', '0x1.0735e20000000p+2', '0x1.e074ce0000000p+1']),
    "rmsprop": ("179987cdc0d4a26c",
        ['-0x1.ce1c200000000p+1', '0x1.9ff7a60000000p+1', '0x1.7150320000000p+1']),
    "rmsprop centered momentum": ("14efbbf36205da66",
        ['0x1.07c1e80000000p-8', '-0x1.081d380000000p-6', '0x1.f456200000000p-9']),
    "adagrad": ("cdd5772b5c471546",
        ['-0x1.59eec00000000p+1', '0x1.2c23220000000p+1', '0x1.fc29460000000p+0']),
    "adagrad decay": ("9b6ab6c53fdc0f71",
        ['-0x1.6ea2680000000p+2', '0x1.58ee9a0000000p+2', '0x1.4342740000000p+2']),
}
SCHEDULE_REFERENCES = {
    ("StepLR", "SGD"): ("5bd4215e6b3d8ecc", 0.00024299999999999994, 4.782968999999998e-09),
    ("MultiStepLR", "SGD"): ("61455c90204f8b17", 0.03429999999999999, 0.024009999999999993),
    ("ExponentialLR", "SGD"): ("148469ea4d78c844", 0.032400683201884196, 0.004755250792540566),
    ("CosineAnnealingLR", "SGD"): ("330e1da33be9e474", 0.09258574821861594, 0.09665737535551684),
    ("LambdaLR", "SGD"): ("7bb2313a7abef47a", 0.014989025404881546, 0.0005920529220333997),
    ("MultiplicativeLR", "SGD"): ("89a00f9665d8fe98", 0.06894490858690777, 0.03660323412732295),
    ("LinearLR", "SGD"): ("6be719160d98c254", 0.09, 0.09),
    ("ConstantLR", "SGD"): ("46c6c2ba8b79e1a8", 0.1, 0.1),
    ("PolynomialLR", "SGD"): ("dd14c807cdaf19d6", 0.010126390981492445, 0.0),
    ("OneCycleLR cos", "SGD"): ("ed15de04876c1af0", 0.48405878142506364, 0.0002537323577378662),
    ("OneCycleLR cos", "Adam"): ("ed15de04876c1af0", 0.48405878142506364, 0.0002537323577378662),
    ("OneCycleLR linear three_phase", "SGD"): (
        "025ca800c093e917", 0.36758620689655175, -0.00048575609756097704),
    ("OneCycleLR linear three_phase", "Adam"): (
        "025ca800c093e917", 0.36758620689655175, -0.00048575609756097704),
    ("SequentialLR", "SGD"): ("17b622548c7d317c", 0.023875071764202557, 0.0005153775207320121),
    ("ChainedScheduler", "SGD"): ("dd50da7816b028fe", 0.0020275559590445286, 2.656139888758755e-06),
    ("ReduceLROnPlateau", "SGD"): (
        "6a5d8bf7ce5c73ef", 1.0000000000000005e-08, 1.0000000000000005e-08),
    ("ReduceLROnPlateau max abs", "SGD"): ("98838e7cf2e69723", 0.01, 0.01),
}

SQRT_TIES = [  # (input bits, PyTorch 2.13 sqrt bits): MKL's result, one below the exact
    (0x564723f4, 0x4ae1c993), (0x6e25fe65, 0x56ce2445), (0x18bdbb5e, 0x2c1bd6b1),
    (0x1b7e2415, 0x2d7f119b), (0x01aabcfc, 0x2093d528), (0x19774b85, 0x2c7b9c1f),
    (0x3d839e23, 0x3e81cbd7), (0x1319ef1b, 0x29468321), (0x0f8b065b, 0x27856608),
    (0x70e3fea1, 0x582ad4cc), (0x03bd5d05, 0x219bafed), (0x7e2094b9, 0x5ecac0bb),
]
RSQRT14 = [  # (input bits, output bits of the VRSQRT14PS instruction on the same machine)
    (0x55869661, 0x3479aa80), (0x6d8120a1, 0x287ee380), (0x021864c7, 0x5e25e680),
    (0x16dec1b2, 0x53c20f00), (0x6d14483f, 0x28a82e80), (0x5023af47, 0x37201280),
    (0x07eea58f, 0x5b3b7d00), (0x72b62d2b, 0x25d69700), (0x33be65b1, 0x4551e780),
    (0x5c86350b, 0x30fa0500), (0x48819b81, 0x3afe6b00), (0x3c7a7961, 0x41016800),
]
# --- end of PyTorch output ---------------------------------------------------------------


@pytest.mark.parametrize("case", list(OPTIMIZER_RUNS))
def test_float32_trajectories_match_stored_pytorch_bits(case):
    name, settings, steps = OPTIMIZER_RUNS[case]
    got = run_optimizer(torch, name, settings, steps, 1000)
    fingerprint, first = OPTIMIZER_REFERENCES[case]
    assert [float(x).hex() for x in got[:3]] == first
    assert digest(got) == fingerprint


@pytest.mark.parametrize("case", list(SCHEDULE_REFERENCES), ids=" ".join)
def test_schedules_match_stored_pytorch_rates(case):
    name, optimizer = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rates = run_schedule(torch, name, optimizer)
    fingerprint, at37, last = SCHEDULE_REFERENCES[case]
    assert rates[37][0] == at37 and rates[-1][0] == last
    assert hashlib.sha256(repr(rates).encode()).hexdigest()[:16] == fingerprint


def test_every_schedule_has_a_stored_run():
    assert {name for name, _ in SCHEDULE_REFERENCES} == set(SCHEDULES)


# --- the rounding helpers ------------------------------------------------------------------

def _exact_float32(x: Fraction) -> np.float32:
    """``x`` rounded once to float32 (to nearest, ties to even), via a float64 bracket."""
    lo = np.float32(float(x))
    candidates = [lo, np.nextafter(lo, np.float32(np.inf)), np.nextafter(lo, np.float32(-np.inf))]
    best = min(candidates, key=lambda c: (abs(Fraction(float(c)) - x),
                                          int(c.view(np.uint32)) & 1))
    return best


def test_fma_rounds_once_like_a_fused_multiply_add():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(300).astype(np.float32)
    b = rng.standard_normal(300).astype(np.float32)
    c = rng.standard_normal(300).astype(np.float32)
    # products that land exactly halfway in float64 before the sum's error is added
    a[:50] = np.float32(1 + 2.0**-12)
    b[:50] = np.float32(1 + 2.0**-12)
    c[:50] = np.float32(2.0**-48) * rng.choice([-1, 1], 50).astype(np.float32)
    got = rounding.fma(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        want = _exact_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        assert g == want, (x, y, z)


def test_fma_breaks_double_rounding_ties_by_the_lost_error():
    # 1 + 2**-24 lies halfway between float32 neighbours; the float64 sum lands there and
    # only the product's low bits (lost by the float64 rounding) decide the direction
    one, half_ulp = np.float32(1.0), np.float32(2.0**-24)
    up = np.nextafter(one, np.float32(2))
    for factor, want in ((1 + 2.0**-23, up), (1 - 2.0**-24, one), (1.0, one)):
        a = np.array([factor], dtype=np.float32)
        assert rounding.fma(a, np.array([half_ulp]), np.array([one]))[0] == want
    # a float64 sum that is itself rounded onto the halfway point
    c = np.array([np.float32(1.0)])
    a = np.array([np.float32(2.0**-24 + 2.0**-47)])
    b = np.array([np.float32(1 + 2.0**-23)])
    exact = Fraction(float(a[0])) * Fraction(float(b[0])) + 1
    assert rounding.fma(a, b, c)[0] == _exact_float32(exact)


def test_fma_in_float64_is_exact_on_random_values():
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(200) for _ in range(3))
    got = rounding.fma(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        assert abs(Fraction(g) - exact) <= abs(Fraction(np.spacing(g))) / 2


def test_rsqrt14_matches_the_instruction_and_its_accuracy():
    x = np.array([i for i, _ in RSQRT14], dtype=np.uint32).view(np.float32)
    want = np.array([o for _, o in RSQRT14], dtype=np.uint32)
    assert rsqrt14(x).view(np.uint32).tolist() == want.tolist()
    grid = np.linspace(0.5, 2.0, 20001, dtype=np.float32)
    y = rsqrt14(grid).astype(np.float64)
    assert np.max(np.abs(y * np.sqrt(grid.astype(np.float64)) - 1)) < 2.0**-14
    assert np.all(np.diff(y) <= 0)  # never increases on [0.5, 2)
    scaled = rsqrt14(grid * np.float32(4.0**-20)).astype(np.float64)
    np.testing.assert_array_equal(scaled, y * 2.0**20)


def test_sqrt_reproduces_mkl_ties_and_is_otherwise_correctly_rounded():
    x = np.array([i for i, _ in SQRT_TIES], dtype=np.uint32).view(np.float32)
    want = np.array([o for _, o in SQRT_TIES], dtype=np.uint32)
    got = rounding.sqrt(x)
    assert got.view(np.uint32).tolist() == want.tolist()
    assert np.all(got.view(np.int32) == np.sqrt(x).view(np.int32) - 1)
    rng = np.random.default_rng(3)
    v = rng.random(20000).astype(np.float32) * 100
    ulps = np.abs(rounding.sqrt(v).view(np.int32) - np.sqrt(v).view(np.int32))
    assert ulps.max() <= 1 and 0 < ulps.mean() < 0.02
    special = np.array([0.0, -0.0, np.inf, -1.0, np.nan, 1e-45, 4.0], dtype=np.float32)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(rounding.sqrt(special), np.sqrt(special))
    assert rounding.sqrt(np.array(9.0, dtype=np.float32)) == 3.0  # 0-d arrays
    assert rounding.sqrt(np.array([2.0])).dtype == np.float64


def test_lerp_uses_both_forms():
    start = np.array([1.0, -3.0], dtype=np.float32)
    end = np.array([2.0, 5.0], dtype=np.float32)
    for w in (0.0, 0.25, 0.5, 0.75, 1.0):
        got = rounding.lerp(start, end, w)
        np.testing.assert_allclose(got, start + w * (end - start), rtol=1e-6)
    np.testing.assert_array_equal(rounding.lerp(start, end, 1.0), end)  # exact at the end


# --- optimizers ----------------------------------------------------------------------------

def quadratic_run(opt_cls, settings, steps=300):
    """Minimise sum(c * (p - 1)**2) in float64; return the final parameter."""
    p = nn.Parameter(torch.tensor([3.0, -2.0, 0.5], dtype=torch.float64))
    c = torch.tensor([1.0, 4.0, 0.5], dtype=torch.float64)
    opt = opt_cls([p], **settings)
    for _ in range(steps):
        opt.zero_grad()
        (c * (p - 1) ** 2).sum().backward()
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("cls,settings", [
    (torch.optim.RMSprop, dict(lr=0.01)),
    (torch.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)),
    (torch.optim.Adagrad, dict(lr=0.5)),
    (torch.optim.Adagrad, dict(lr=0.5, lr_decay=1e-3, initial_accumulator_value=0.1)),
    (torch.optim.AdamW, dict(lr=0.05, weight_decay=0.0)),
], ids=str)
def test_optimizers_reach_the_minimum(cls, settings):
    np.testing.assert_allclose(quadratic_run(cls, settings, 1000), 1.0, atol=2e-2)


def rmsprop_reference(p, grads, lr, alpha, eps, momentum, centered, weight_decay):
    v = np.zeros_like(p)
    m = np.zeros_like(p)
    b = np.zeros_like(p)
    for g in grads:
        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        if centered:
            m = m + (1 - alpha) * (g - m)
            avg = np.sqrt(v - m * m) + eps
        else:
            avg = np.sqrt(v) + eps
        if momentum > 0:
            b = momentum * b + g / avg
            p = p - lr * b
        else:
            p = p - lr * g / avg
    return p


def adagrad_reference(p, grads, lr, lr_decay, eps, weight_decay, initial):
    s = np.full_like(p, initial)
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        s = s + g * g
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return p


def _run_fixed_grads(opt, p, grads):
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.7])
def test_rmsprop_follows_the_update_equations(centered, momentum):
    rng = np.random.default_rng(4)
    start, grads = rng.standard_normal(5), [rng.standard_normal(5) for _ in range(6)]
    settings = dict(lr=0.03, alpha=0.9, eps=1e-6, momentum=momentum, centered=centered,
                    weight_decay=0.05)
    p = nn.Parameter(torch.tensor(start))
    got = _run_fixed_grads(torch.optim.RMSprop([p], **settings), p, grads)
    np.testing.assert_allclose(got, rmsprop_reference(start, grads, **settings), rtol=1e-13)


def test_adagrad_follows_the_update_equations():
    rng = np.random.default_rng(5)
    start, grads = rng.standard_normal(5), [rng.standard_normal(5) for _ in range(6)]
    settings = dict(lr=0.1, lr_decay=0.2, eps=1e-10, weight_decay=0.05)
    p = nn.Parameter(torch.tensor(start))
    opt = torch.optim.Adagrad([p], initial_accumulator_value=0.3, **settings)
    got = _run_fixed_grads(opt, p, grads)
    np.testing.assert_allclose(got, adagrad_reference(start, grads, initial=0.3, **settings),
                               rtol=1e-13)


def test_state_and_state_dict_structure():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))
    opt = torch.optim.RMSprop([{"params": [a]}, {"params": [b], "lr": 0.5}], momentum=0.9,
                              centered=True)
    a.grad, b.grad = torch.ones(2), torch.ones(3)
    opt.step()
    saved = opt.state_dict()
    assert list(saved["state"]) == [0, 1]
    assert list(saved["state"][0]) == ["step", "square_avg", "momentum_buffer", "grad_avg"]
    assert repr(saved["state"][1]["step"]) == "tensor(1.)"
    assert [g["params"] for g in saved["param_groups"]] == [[0], [1]]
    assert list(saved["param_groups"][1])[-1] == "params" and saved["param_groups"][1]["lr"] == 0.5
    ada = torch.optim.Adagrad([a], initial_accumulator_value=0.25)
    assert list(ada.state[a]) == ["step", "sum"]  # created with the optimizer
    assert ada.state[a]["sum"].tolist() == [0.25, 0.25]


def test_adamw_keeps_decoupled_weight_decay_through_state_loading():
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.AdamW([p])
    assert opt.defaults["weight_decay"] == 1e-2 and opt.defaults["decoupled_weight_decay"]
    opt.__setstate__({"defaults": opt.defaults, "state": opt.state,
                      "param_groups": [dict(opt.param_groups[0], decoupled_weight_decay=False)]})
    assert opt.param_groups[0]["decoupled_weight_decay"] is True


def test_state_dict_round_trip_for_rmsprop_and_adagrad():
    for cls in (torch.optim.RMSprop, torch.optim.Adagrad):
        p = nn.Parameter(torch.tensor([1.0, -2.0]))
        opt = cls([p], lr=0.1)
        for _ in range(3):
            p.grad = p.detach() * 2
            opt.step()
        twin = nn.Parameter(p.detach().clone())
        twin_opt = cls([twin], lr=0.1)
        twin_opt.load_state_dict(opt.state_dict())
        for q, o in ((p, opt), (twin, twin_opt)):
            q.grad = q.detach() * 2
            o.step()
        assert torch.equal(p, twin)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_solves_a_quadratic_exactly_enough(line_search):
    rng = np.random.default_rng(6)
    m = rng.standard_normal((6, 6))
    a = torch.tensor(m @ m.T + 6 * np.eye(6))
    target = torch.tensor(rng.standard_normal(6))
    x = nn.Parameter(torch.zeros(6, dtype=torch.float64))
    opt = torch.optim.LBFGS([x], line_search_fn=line_search, history_size=4,
                            tolerance_grad=1e-12, tolerance_change=1e-15)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (a @ x)) - (target * x).sum()
        loss.backward()
        return loss

    for _ in range(5):
        opt.step(closure)
    want = np.linalg.solve(a.numpy(), target.numpy())
    np.testing.assert_allclose(x.detach().numpy(), want, rtol=1e-6, atol=1e-8)
    state = opt.state[x]
    assert len(state["old_dirs"]) <= 4 and state["n_iter"] >= 1
    assert state["func_evals"] >= state["n_iter"]


def test_load_state_dict_casts_buffers_keeps_step_and_replaces_settings():
    p = nn.Parameter(torch.ones(2, dtype=torch.float64))
    opt = torch.optim.Adam([p], lr=0.1)
    opt.param_groups[0]["initial_lr"] = 0.1
    p.grad = torch.ones(2, dtype=torch.float64)
    opt.step()
    q = nn.Parameter(torch.ones(2))
    twin = torch.optim.AdamW([q], lr=0.5)
    twin.load_state_dict(opt.state_dict())
    state = twin.state[q]
    assert state["exp_avg"].dtype is torch.float32 and state["step"].dtype is torch.float32
    assert state["exp_avg"] is not opt.state[p]["exp_avg"]
    group = twin.param_groups[0]
    assert group["lr"] == 0.1 and group["initial_lr"] == 0.1 and group["params"] == [q]
    assert group["decoupled_weight_decay"] is True  # AdamW insists, as in PyTorch


def test_lbfgs_errors():
    a, b = nn.Parameter(torch.ones(1)), nn.Parameter(torch.ones(1))
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        torch.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = torch.optim.LBFGS([a], line_search_fn="bogus")

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# --- schedulers ----------------------------------------------------------------------------

def _sgd(lr=0.1):
    return torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=lr, momentum=0.9)


def test_scheduler_step_before_optimizer_step_warns():
    opt = _sgd()
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        sched.step()
    opt = _sgd()
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_scheduler_state_dict_and_closed_form():
    opt = _sgd()
    sched = torch.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5)
    assert list(sched.state_dict()) == ["step_size", "gamma", "base_lrs", "last_epoch",
                                        "_step_count", "_is_initial",
                                        "_get_lr_called_within_step", "_last_lr"]
    opt.step()
    with pytest.warns(UserWarning, match=r"The epoch parameter in `scheduler.step\(\)`"):
        sched.step(7)
    assert sched.get_last_lr() == [0.1 * 0.5**2] and opt.param_groups[0]["lr"] == 0.025
    fresh = torch.optim.lr_scheduler.StepLR(_sgd(), 3, gamma=0.5)
    fresh.load_state_dict(sched.state_dict())
    assert fresh.last_epoch == 7


def test_cosine_closed_and_chainable_forms_agree():
    opt = _sgd()
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 10, eta_min=0.01)
    for t in range(1, 25):
        opt.step()
        sched.step()
        closed = 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * t / 10)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(closed, abs=1e-12)


def test_onecycle_cycles_adam_beta1_and_sgd_momentum():
    p = nn.Parameter(torch.ones(1))
    adam = torch.optim.Adam([p], lr=0.1, betas=(0.9, 0.99))
    sched = torch.optim.lr_scheduler.OneCycleLR(adam, max_lr=1.0, total_steps=10)
    assert adam.param_groups[0]["betas"] == (0.95, 0.99)
    assert adam.param_groups[0]["lr"] == pytest.approx(1.0 / 25)
    for _ in range(2):  # the rise ends at step pct_start * total_steps - 1 = 2
        adam.step()
        sched.step()
    assert adam.param_groups[0]["betas"][0] == pytest.approx(0.85)
    assert sched.get_last_lr()[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        for _ in range(9):
            adam.step()
            sched.step()
    no_momentum = torch.optim.Adagrad([p])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        torch.optim.lr_scheduler.OneCycleLR(no_momentum, max_lr=1.0, total_steps=10)


def test_reduce_on_plateau_respects_patience_cooldown_and_min_lr():
    opt = _sgd(1.0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1,
                                                       min_lr=0.2)
    lrs = []
    for metric in (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5):
        sched.step(metric)
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25]
    sched.step(0.5)
    sched.step(0.5)
    assert sched.get_last_lr() == [0.2]  # floored at min_lr
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)


def test_sequential_rejects_mismatched_milestones():
    opt = _sgd()
    s = torch.optim.lr_scheduler
    with pytest.raises(ValueError, match="number of milestone points"):
        s.SequentialLR(opt, [s.ConstantLR(opt), s.ExponentialLR(opt, 0.9)], milestones=[])


# --- nn.utils ------------------------------------------------------------------------------

def _params_with_grads(dtype=torch.float32):
    rng = np.random.default_rng(7)
    shapes = [(3, 4), (4,), (2, 3)]
    params = [nn.Parameter(torch.zeros(*s, dtype=dtype)) for s in shapes]
    for p, s in zip(params, shapes):
        p.grad = torch.tensor(rng.standard_normal(s) * 3, dtype=dtype)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3, float("inf"), 0.5])
def test_clip_grad_norm_returns_the_total_norm_and_clips(norm_type):
    params = _params_with_grads(torch.float64)
    flat = np.concatenate([p.grad.numpy().ravel() for p in params])
    if norm_type == float("inf"):
        want = np.abs(flat).max()
    else:
        want = (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    total = nn.utils.clip_grad_norm_(params, max_norm=1.0, norm_type=norm_type)
    assert total.dtype is torch.float64 and total.shape == ()
    assert total.item() == pytest.approx(want, rel=1e-13)
    clipped = np.concatenate([p.grad.numpy().ravel() for p in params])
    np.testing.assert_allclose(clipped, flat * (1.0 / (want + 1e-6)), rtol=1e-12)
    big = nn.utils.clip_grad_norm_(params, max_norm=1e9, norm_type=norm_type)
    np.testing.assert_allclose(np.concatenate([p.grad.numpy().ravel() for p in params]),
                               clipped, rtol=0)  # the factor is capped at 1
    assert big.item() < 1.0


def test_clip_grad_norm_edge_cases():
    p = nn.Parameter(torch.ones(2))
    p.grad = torch.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert repr(nn.utils.clip_grad_norm_([], 1.0)) == "tensor(0.)"
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        nn.utils.clip_grad_norm_((q for q in []), 1.0)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        nn.utils.clip_grad_norm(nn.Parameter(torch.ones(1)), 1.0)


def test_clip_grad_value_and_parameter_vectors():
    params = _params_with_grads()
    nn.utils.clip_grad_value_(params, 0.5)
    for p in params:
        assert p.grad.abs().max().item() <= 0.5
    model = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (8,) and type(vec.grad_fn).__name__ == "CatBackward0"
    (vec * torch.arange(8.0)).sum().backward()
    assert model.weight.grad.flatten().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    nn.utils.vector_to_parameters(torch.arange(8.0), model.parameters())
    assert model.bias.tolist() == [6.0, 7.0] and model.weight.shape == (2, 3)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], model.parameters())
