"""``optim``: the update equations step by step, and the ``Optimizer`` API.

The references below write PyTorch's documented update rules in float64 NumPy; the
optimizers must follow them for several steps with every option combination.
``test_nn_vs_torch.py`` compares the same runs with PyTorch itself.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn

STEPS = 5


def quadratic_grads(p: np.ndarray, k: int) -> np.ndarray:
    """A gradient that changes from step to step: that of ``sum((p - k)**2 * c)``."""
    c = np.linspace(0.5, 2.0, p.size).reshape(p.shape)
    return 2 * c * (p - 0.1 * k)


def run(opt_cls, settings: dict, start: np.ndarray) -> list[np.ndarray]:
    p = nn.Parameter(torch.tensor(start, dtype=torch.float64))
    opt = opt_cls([p], **settings)
    out = []
    for k in range(STEPS):
        opt.zero_grad()
        p.grad = torch.tensor(quadratic_grads(p.detach().numpy(), k))
        opt.step()
        out.append(p.detach().numpy().copy())
    return out


def sgd_reference(start, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                  maximize=False) -> list[np.ndarray]:
    p, buf, out = start.copy(), None, []
    for k in range(STEPS):
        g = quadratic_grads(p, k)
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def adam_reference(start, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                   amsgrad=False, maximize=False, decoupled_weight_decay=False):
    p = start.copy()
    m, v, vmax, out = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p), []
    for k in range(STEPS):
        t = k + 1
        g = quadratic_grads(p, k)
        g = -g if maximize else g
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        vmax = np.maximum(vmax, v)
        vhat = vmax if amsgrad else v
        p = p - lr / (1 - betas[0] ** t) * m / (np.sqrt(vhat) / np.sqrt(1 - betas[1] ** t) + eps)
        out.append(p)
    return out


START = np.array([[0.5, -1.0, 2.0], [0.0, 0.25, -0.75]])

SGD_SETTINGS = [dict(lr=0.1)] + [
    dict(lr=0.05, momentum=m, dampening=d, weight_decay=w, nesterov=n, maximize=x)
    for m, d, w, n, x in itertools.product((0.0, 0.9), (0.0, 0.3), (0.0, 0.01), (False, True),
                                           (False, True))
    if not (n and (m == 0 or d != 0))]


@pytest.mark.parametrize("settings", SGD_SETTINGS, ids=str)
def test_sgd_follows_the_update_equations(settings):
    got = run(torch.optim.SGD, settings, START)
    for a, b in zip(got, sgd_reference(START, **settings)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


ADAM_SETTINGS = [dict(), dict(lr=0.1, betas=(0.8, 0.99)), dict(lr=0.05, weight_decay=0.1),
                 dict(lr=0.05, amsgrad=True), dict(lr=0.05, maximize=True, eps=1e-3),
                 dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True),
                 dict(lr=0.05, betas=(0.3, 0.9))]


@pytest.mark.parametrize("settings", ADAM_SETTINGS, ids=str)
def test_adam_follows_the_update_equations(settings):
    got = run(torch.optim.Adam, settings, START)
    for a, b in zip(got, adam_reference(START, **settings)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_state_holds_pytorchs_buffers():
    p = nn.Parameter(torch.ones(2))
    sgd = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = torch.tensor([1.0, 2.0])
    sgd.step()
    assert list(sgd.state[p]) == ["momentum_buffer"]
    assert sgd.state[p]["momentum_buffer"].tolist() == [1.0, 2.0]
    plain = torch.optim.SGD([p], lr=0.1)
    plain.step()
    assert plain.state_dict()["state"] == {}  # no buffers without momentum
    adam = torch.optim.Adam([p], amsgrad=True)
    adam.step()
    adam.step()
    state = adam.state[p]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert repr(state["step"]) == "tensor(2.)" and state["step"].dtype is torch.float32


def test_parameters_without_grad_are_skipped_and_versions_bump():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([a, b], lr=0.5)
    a.grad = torch.ones(2)
    version = a._version
    opt.step()
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [1.0, 1.0]
    assert a._version == version + 1 and a.requires_grad and a.is_leaf


def test_zero_grad_to_none_or_zeros():
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    p.grad = torch.ones(2)
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_param_groups_with_their_own_settings():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    opt = torch.optim.SGD([{"params": model[0].parameters()},
                           {"params": model[1].parameters(), "lr": 1.0}], lr=0.1, momentum=0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert all(g["momentum"] == 0.5 for g in opt.param_groups)
    before = [p.detach().clone() for p in model.parameters()]
    model(torch.ones(3, 2)).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    opt.step()
    for (p, b, g), lr in zip(zip(model.parameters(), before, grads), (0.1, 0.1, 1.0, 1.0)):
        np.testing.assert_allclose(p.detach().numpy(), (b - lr * g).numpy(), rtol=1e-6)


def test_closure_is_evaluated_with_grad_enabled():
    p = nn.Parameter(torch.tensor([3.0]))
    opt = torch.optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with torch.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0 and p.item() == 1.5


def test_state_dict_round_trip_continues_identically():
    def fresh():
        torch.manual_seed(0)
        model = nn.Linear(3, 1)
        return model, torch.optim.Adam(model.parameters(), lr=0.1)

    x = torch.randn(4, 3)
    model, opt = fresh()
    for _ in range(3):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    saved_model = copy.deepcopy(model.state_dict())
    saved_opt = opt.state_dict()
    assert saved_opt["param_groups"][0]["params"] == [0, 1]
    assert set(saved_opt["state"]) == {0, 1}
    twin, twin_opt = fresh()
    twin.load_state_dict(saved_model)
    twin_opt.load_state_dict(saved_opt)
    for m, o in ((model, opt), (twin, twin_opt)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    assert torch.equal(model.weight, twin.weight)
    assert twin_opt.state[twin.weight]["step"].item() == 4.0


def test_reprs():
    p = nn.Parameter(torch.ones(1))
    assert repr(torch.optim.SGD([p], lr=0.1)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    fused: None\n    lr: 0.1\n    maximize: False\n"
        "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)")
    assert repr(torch.optim.Adam([p])).splitlines()[2:4] == ["    amsgrad: False",
                                                             "    betas: (0.9, 0.999)"]


@pytest.mark.parametrize("make,error,message", [
    (lambda p: torch.optim.SGD(p[0]), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
     "torch.FloatTensor"),
    (lambda p: torch.optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
    (lambda p: torch.optim.SGD([p[0] * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda p: torch.optim.SGD([1]), TypeError,
     "optimizer can only optimize Tensors, but one of the params is int"),
    (lambda p: torch.optim.SGD(p, lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: torch.optim.SGD(p, nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: torch.optim.SGD(p, momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda p: torch.optim.SGD(p, weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda p: torch.optim.Adam(p, betas=(1.0, 0.9)), ValueError,
     "Invalid beta parameter at index 0: 1.0"),
    (lambda p: torch.optim.Adam(p, betas=(0.9, 1.0)), ValueError,
     "Invalid beta parameter at index 1: 1.0"),
    (lambda p: torch.optim.Adam(p, eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: torch.optim.SGD([{"params": p}, {"params": p}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda p: torch.optim.SGD([{"params": set(p)}]), TypeError,
     "optimizer parameters need to be organized in ordered collections"),
])
def test_argument_errors(make, error, message):
    params = [nn.Parameter(torch.zeros(1))]
    with pytest.raises(error) as err:
        make(params)
    assert message in str(err.value)


def test_duplicate_parameters_warn():
    p = nn.Parameter(torch.zeros(1))
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate "
                                         "parameters"):
        torch.optim.SGD([p, p])
