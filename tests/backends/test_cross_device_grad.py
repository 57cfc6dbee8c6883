"""Issue 15: backward passes through graphs that cross devices, on the CPU device stand-in.

A graph may move values between the host and ``cuda`` anywhere (``.cuda()`` on inputs,
``.cpu()`` before a host loss, a ``ToCopyBackward0`` in the middle).  Each node's rule must
then run on its own device: the constants it makes from shapes (``diagonal``'s ``eye``,
``take_along_axis``'s index grids ...) belong next to its gradient, not next to the root's.
Every case runs once on the host alone and once per placement of its two halves, and the
first and second derivatives must agree with the host's (float64, to rounding).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch

PLACEMENTS = [("cuda", "cpu"), ("cpu", "cuda"), ("cuda", "cuda")]


def _host(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _leaf(*shape: int) -> Any:
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


def gradient_penalty(first: str, second: str) -> list[np.ndarray]:
    """WGAN-GP style: the norm of an input gradient, taken with ``create_graph``, trained."""
    torch.manual_seed(0)
    w, x = _leaf(4, 3), _leaf(5, 4)
    y = torch.tanh(x.to(first) @ w.to(first)).to(second)
    g, = torch.autograd.grad((y**2).sum(), x, create_graph=True)
    penalty = (g.norm(dim=1) - 1).pow(2).mean()
    penalty.backward()
    assert str(w.grad.device) == "cpu" and str(g.device) == "cpu"
    return [_host(g), _host(w.grad), _host(x.grad)]


def hvp_diagonal(first: str, second: str) -> list[np.ndarray]:
    torch.manual_seed(1)
    a = _leaf(4, 4)
    b = a.to(first)
    y = torch.diagonal(b @ b).to(second)
    g, = torch.autograd.grad(y.exp().sum(), a, create_graph=True)
    hv, = torch.autograd.grad((g * torch.ones(4, 4, dtype=torch.float64)).sum(), a)
    return [_host(g), _host(hv)]


def hvp_take_along_dim(first: str, second: str) -> list[np.ndarray]:
    torch.manual_seed(2)
    a = _leaf(4, 5)
    idx = torch.tensor([[0, 2], [1, 1], [4, 3], [0, 0]])
    b = a.to(first)
    y = torch.take_along_dim(b * b, idx.to(first), dim=1).to(second)
    g, = torch.autograd.grad(y.sin().sum(), a, create_graph=True)
    hv, = torch.autograd.grad((g * g).sum(), a)
    return [_host(g), _host(hv)]


def hvp_gather(first: str, second: str) -> list[np.ndarray]:
    torch.manual_seed(3)
    a = _leaf(4, 5)
    idx = torch.tensor([[0, 2], [1, 1], [4, 3], [0, 0]])
    y = torch.gather(a.to(first).exp(), 1, idx.to(first)).to(second)
    g, = torch.autograd.grad((y**3).sum(), a, create_graph=True)
    hv, = torch.autograd.grad((g * g).sum(), a)
    return [_host(g), _host(hv)]


def hvp_copy_in_the_middle(first: str, second: str) -> list[np.ndarray]:
    """``diag`` on both sides of a device move, then ``logsumexp``."""
    torch.manual_seed(4)
    a = _leaf(3, 3)
    b = torch.diag(a.to(first).sin())
    c = torch.diag(b.to(second) * 2)
    loss = (c @ c).sum() + torch.logsumexp(c, 0).sum()
    g, = torch.autograd.grad(loss, a, create_graph=True)
    hv, = torch.autograd.grad((g**2).sum(), a)
    return [_host(g), _host(hv)]


def hvp_order_statistics(first: str, second: str) -> list[np.ndarray]:
    """``sort``, ``max(dim)`` and ``cumsum``: rules built on ``take_along_axis``."""
    torch.manual_seed(5)
    a = _leaf(4, 5)
    b = a.to(first)
    v, _ = torch.sort(b * b, dim=1)
    m = torch.max(b.exp(), dim=0).values
    loss = (v.to(second)**3).sum() + (m.to(second)**2).sum() + \
        torch.cumsum(b, 1).to(second).pow(3).sum()
    g, = torch.autograd.grad(loss, a, create_graph=True)
    hv, = torch.autograd.grad((g**2).sum(), a)
    return [_host(g), _host(hv)]


def hooks_on_both_sides(first: str, second: str) -> list[np.ndarray]:
    """Tensor hooks and ``retain_grad`` on each side of the move see their own device."""
    torch.manual_seed(6)
    a = _leaf(3, 4)
    b = a.to(first) * 2
    b.retain_grad()
    seen: list[str] = []
    b.register_hook(lambda g: seen.append(g.device.type))
    c = torch.diagonal(b[:, :3]).to(second)
    c.retain_grad()
    c.register_hook(lambda g: seen.append(g.device.type))
    g, = torch.autograd.grad((c**3).sum(), a, create_graph=True)
    g.sum().backward()
    assert seen[:2] == [second, first] and b.grad.device.type == first
    return [_host(g), _host(a.grad), _host(b.grad), _host(c.grad)]


CASES: dict[str, Callable[[str, str], list[np.ndarray]]] = {
    f.__name__: f for f in (gradient_penalty, hvp_diagonal, hvp_take_along_dim, hvp_gather,
                            hvp_copy_in_the_middle, hvp_order_statistics,
                            hooks_on_both_sides)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cross_device_double_backward_matches_the_host(name: str, standin: None) -> None:
    case = CASES[name]
    host = case("cpu", "cpu")
    for first, second in PLACEMENTS:
        moved = case(first, second)
        assert len(moved) == len(host)
        for k, (m, h) in enumerate(zip(moved, host, strict=True)):
            np.testing.assert_allclose(m, h, rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name} {first}->{second}: value {k}")


def test_second_derivative_matches_central_differences(standin: None) -> None:
    """The host reference itself: d/da of sum(grad**2) through diagonal vs differences."""
    torch.manual_seed(7)
    a0 = np.random.default_rng(0).standard_normal((3, 3))

    def f(a: Any) -> Any:
        y = torch.diagonal(a.cuda() @ a.cuda()).cpu()
        g, = torch.autograd.grad(y.exp().sum(), a, create_graph=True)
        return (g**2).sum()

    a = torch.tensor(a0, requires_grad=True)
    grad, = torch.autograd.grad(f(a), a)
    eps = 1e-6
    fd = np.zeros_like(a0)
    for i in np.ndindex(*a0.shape):
        hi, lo = a0.copy(), a0.copy()
        hi[i] += eps
        lo[i] -= eps
        fd[i] = (f(torch.tensor(hi, requires_grad=True)).item()
                 - f(torch.tensor(lo, requires_grad=True)).item()) / (2 * eps)
    np.testing.assert_allclose(_host(grad), fd, rtol=1e-6, atol=1e-7)


def test_functional_hessian_and_gradgradcheck_across_devices(standin: None) -> None:
    """``autograd.functional.hessian``/``hvp`` and ``gradgradcheck`` of a function that
    moves its input to the device and its result back agree with the host-only function."""
    AF = torch.autograd.functional

    def moved(a: Any) -> Any:
        b = a.cuda()
        sorted_cubes = torch.sort(b.sin(), 1)[0].pow(3).sum().cpu()
        return torch.diagonal(b @ b).cpu().exp().sum() + sorted_cubes

    def host(a: Any) -> Any:
        return torch.diagonal(a @ a).exp().sum() + torch.sort(a.sin(), 1)[0].pow(3).sum()

    torch.manual_seed(8)
    a = torch.randn(3, 3, dtype=torch.float64)
    v = torch.randn(3, 3, dtype=torch.float64)
    np.testing.assert_allclose(_host(AF.hessian(moved, a)), _host(AF.hessian(host, a)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_host(AF.hvp(moved, a, v)[1]), _host(AF.hvp(host, a, v)[1]),
                               rtol=1e-10, atol=1e-12)
    assert torch.autograd.gradgradcheck(moved, (a.clone().requires_grad_(),))
