"""The speedcore fast paths give the bits of the paths they shortcut: a group's one-array
optimizer update (``optim.batched``), the folded ``rsqrt14``, ``sqrt`` with zeros, the
once-rounded ``fma`` and matmul nodes with one constant input."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import st_autodiff as torch

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("AdamW", {"lr": 0.05}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.3, "lr_decay": 1e-3}),
]


def _run(name: str, kwargs: dict, batched: bool, dtype: torch.dtype) -> list:
    torch.manual_seed(0)
    params = [torch.randn(*s, dtype=dtype, requires_grad=True) for s in ((3, 4), (4,), (2, 2, 2))]
    opt = getattr(torch.optim, name)(params, **kwargs)
    if not batched:  # one parameter per group: always the per-parameter path
        opt = getattr(torch.optim, name)([{"params": [p]} for p in params], **kwargs)
    for _ in range(4):
        opt.zero_grad()
        sum(((p * p * p).sum() + p.sin().sum()) for p in params).backward()
        opt.step()
    out = [p.detach().numpy().copy() for p in params]
    for p in params:
        for key, value in opt.state[p].items():
            out.append((key, np.asarray(value.numpy()).copy()))
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_group_update_is_bit_identical(name: str, kwargs: dict, dtype: torch.dtype) -> None:
    one, each = _run(name, kwargs, True, dtype), _run(name, kwargs, False, dtype)
    assert len(one) == len(each)
    for a, b in zip(one, each):
        if isinstance(a, tuple):
            assert a[0] == b[0]
            a, b = a[1], b[1]
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def test_unequal_steps_fall_back() -> None:
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    opt = torch.optim.Adam([a, b], lr=0.1)
    a.grad = torch.ones(3)
    opt.step()  # only a steps
    a.grad, b.grad = torch.ones(3), torch.ones(2)
    opt.step()
    assert float(opt.state[a]["step"]) == 2.0 and float(opt.state[b]["step"]) == 1.0
    c = torch.ones(2, requires_grad=True)
    alone = torch.optim.Adam([c], lr=0.1)
    c.grad = torch.ones(2)
    alone.step()
    assert torch.equal(b.detach(), c.detach())
    assert not torch.equal(a.detach(), torch.full((3,), float(c[0])))


def test_rsqrt14_bit_folding_matches_the_staged_computation() -> None:
    """Arrays take the folded bit operations, a 0-d input the step-by-step computation."""
    from st_autodiff.runtime.optim.rsqrt14 import rsqrt14

    rng = np.random.default_rng(12)
    bits = rng.integers(1 << 23, 0x7F800000, 3000, dtype=np.uint32)
    bits[:4] = [1 << 23, 0x7F7FFFFF, 0x3F800000, 0x3F000000]
    x = bits.view(np.float32)
    staged = np.array([rsqrt14(np.float32(v)) for v in x], dtype=np.float32)
    assert rsqrt14(x).tobytes() == staged.tobytes()


def test_sqrt_with_zeros_matches_the_general_path() -> None:
    """Zeros take the Newton step's shortcut; a negative entry forces the general path."""
    from st_autodiff.runtime.optim.rounding import sqrt

    rng = np.random.default_rng(5)
    x = rng.random(2000).astype(np.float32) * np.float32(3.0)
    x[::7] = 0
    x[::11] = -0.0
    with np.errstate(invalid="ignore"):
        general = sqrt(np.concatenate([np.float32([-1.0]), x]))[1:]
    assert sqrt(x).tobytes() == general.tobytes()


def test_parameters_sharing_an_array_are_updated_in_turn() -> None:
    """Two views of one array: the second update sees the first, as parameter by parameter."""
    base = torch.zeros(4)
    views = [torch.nn.Parameter(base[0:3]), torch.nn.Parameter(base[1:4])]
    for p in views:
        p.grad = torch.ones(3)
    torch.optim.SGD(views, lr=1.0).step()
    assert views[0].tolist() == [-1.0, -2.0, -2.0] and views[1].tolist() == [-2.0, -2.0, -1.0]


def _nearest_float32(x: Fraction) -> float:
    """``x`` rounded to the nearest float32, ties to even (exact rational arithmetic)."""
    if x == 0:
        return 0.0
    e = max(math.floor(math.log2(abs(x))), -126)
    while abs(x) >= Fraction(2) ** (e + 1) and e >= -126:  # log2 of a Fraction can be off
        e += 1
    while e > -126 and abs(x) < Fraction(2) ** e:
        e -= 1
    quantum = Fraction(2) ** (e - 23)
    n = x / quantum
    m = math.floor(n)
    if n - m > Fraction(1, 2) or (n - m == Fraction(1, 2) and m % 2):
        m += 1
    return float(m * quantum)


def test_fma32_rounds_once_on_ties_and_subnormals() -> None:
    """``fma`` against exact rational arithmetic where double rounding would bite."""
    from st_autodiff.runtime.optim.rounding import fma

    rng = np.random.default_rng(9)
    n = 400
    a = rng.integers(-(2**12), 2**12, n).astype(np.float32)
    b = rng.integers(-(2**12), 2**12, n).astype(np.float32) * np.float32(1.5)
    c = (rng.integers(-(2**30), 2**30, n) * 1.0).astype(np.float32)
    tiny_a = (rng.standard_normal(n) * 2.0**-70).astype(np.float32)
    tiny_c = (rng.standard_normal(n) * 2.0**-140).astype(np.float32)
    mid_a = (rng.standard_normal(n) * 2.0**-75).astype(np.float32)
    mid_c = (rng.standard_normal(n) * 2.0**-126).astype(np.float32)
    # products a hair below half a float32 step of c: the float64 sum lands on the tie
    sign = rng.choice(np.float32([-1.0, 1.0]), n)
    near_a = np.full(n, 2.0**-12 * (1 + 2.0**-23), np.float32)
    near_b = np.full(n, 2.0**-12 * (1 - 2.0**-23), np.float32) * sign
    near_c = (1 + rng.integers(0, 2**23, n) * 2.0**-23).astype(np.float32)
    sub_a = np.full(n, 2.0**-75 * (1 + 2.0**-23), np.float32)
    sub_b = np.full(n, 2.0**-75 * (1 - 2.0**-23), np.float32) * sign
    sub_c = (rng.integers(-(2**20), 2**20, n) * 2.0**-149).astype(np.float32)
    for x, y, z in ((a, b, c), (tiny_a, tiny_a[::-1].copy(), tiny_c),
                    (mid_a, mid_a[::-1].copy(), mid_c), (near_a, near_b, near_c),
                    (sub_a, sub_b, sub_c)):
        got = fma(x, y, z)
        want = [_nearest_float32(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(s)))
                for p, q, s in zip(x, y, z)]
        assert got.tolist() == want


@pytest.mark.parametrize("kind", ["mm", "mv", "dot", "bmm"])
def test_matmul_with_one_constant_side_gives_the_same_gradient(kind: str) -> None:
    """Only the live input's gradient is computed: same bits as with both live, and
    central differences agree (float64 gradcheck), second order included."""
    shapes = {"mm": ((3, 4), (4, 2)), "mv": ((3, 4), (4,)), "dot": ((4,), (4,)),
              "bmm": ((2, 3, 4), (2, 4, 2))}[kind]
    fn = getattr(torch, kind)
    torch.manual_seed(3)
    a0, b0 = (torch.randn(*s, dtype=torch.float64) for s in shapes)
    for live in (0, 1):
        both = [a0.clone().requires_grad_(), b0.clone().requires_grad_()]
        one = [a0.clone(), b0.clone()]
        one[live].requires_grad_()
        (fn(*both) ** 2).sum().backward()
        (fn(*one) ** 2).sum().backward()
        assert one[live].grad.numpy().tobytes() == both[live].grad.numpy().tobytes()
        assert one[1 - live].grad is None
        args = tuple(one)
        assert torch.autograd.gradcheck(lambda *xs: fn(*xs), args)
        assert torch.autograd.gradgradcheck(lambda *xs: fn(*xs) ** 2, args)
