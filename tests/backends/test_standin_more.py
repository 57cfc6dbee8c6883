"""Device fixes found by the survey and by probing, on the CPU device stand-in.

Each case runs on the host and on the stand-in (which refuses every silent host
conversion and counts each explicit one) and must agree in values, gradients and the
device of every result, with no synchronisation the host code does not need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime import device_standin


def _syncs() -> int:
    return sum(device_standin.SYNCS.values())


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [v for item in value for v in _flat(item)]
    return [value]


def _run(fn: Callable[..., Any], arrays: list[np.ndarray], dev: str) -> tuple[list[Any], list[Any]]:
    """``fn``'s results and the gradients of the sum of its float results."""
    inputs = [torch.tensor(a, device=dev, requires_grad=True) for a in arrays]
    before = _syncs()
    outs = _flat(fn(*inputs))
    assert _syncs() == before, f"{fn.__name__} synchronised on {dev}"
    assert all(o.device.type == dev for o in outs), [str(o.device) for o in outs]
    loss = sum((o * o).sum() for o in outs if o.requires_grad)
    grads = list(torch.autograd.grad(loss, inputs, allow_unused=True)) if outs[0].requires_grad \
        else []
    return [o.detach().cpu().numpy() for o in outs], grads


_RNG = np.random.default_rng(15)
_A = _RNG.standard_normal((3, 4))
_B = _RNG.standard_normal((4, 2))
_SQ = _RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
_V = _RNG.standard_normal(4)


def _lu_round_trip(a: Any) -> Any:
    lu, piv = torch.linalg.lu_factor(a)
    return lu, piv, torch.linalg.lu_solve(lu, piv, a[..., :2] + 1.0)


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "vander": (lambda v: torch.vander(v, 3), [_V]),
    "vander_empty": (lambda v: torch.vander(v.detach(), 0), [_V]),
    "lstsq": (lambda a, b: torch.linalg.lstsq(a.T, b), [_A, _B]),
    "lu_factor_solve": (_lu_round_trip, [_SQ]),
    "matrix_power_0": (lambda a: torch.linalg.matrix_power(a, 0) + a, [_SQ]),
    "qr_r": (lambda a: torch.linalg.qr(a, mode="r"), [_A]),
    "solve_triangular": (lambda a, b: torch.linalg.solve_triangular(
        a, b[:3], upper=True, unitriangular=True), [_SQ[0], _B]),
    "rfft": (lambda a: torch.fft.rfft(a).abs(), [_A]),
    "fft_round_trip": (lambda a: torch.fft.ifft(torch.fft.fft(a * 2)).real, [_A]),
    "index_fill_tensor_value": (lambda a, v: a.index_fill(
        1, torch.tensor([1, 3, 1, -1], device=a.device), (v * v).sum()), [_A, _V]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_runs_on_the_device_as_on_the_host(name: str, standin: None) -> None:
    fn, arrays = CASES[name]
    host_out, host_grads = _run(fn, arrays, "cpu")
    dev_out, dev_grads = _run(fn, arrays, "cuda")
    for h, d in zip(host_out, dev_out, strict=True):
        np.testing.assert_allclose(d, h, rtol=1e-10, atol=1e-12, err_msg=name)
    for h, d in zip(host_grads, dev_grads, strict=True):
        assert (h is None) == (d is None)
        if h is not None:
            assert d.device.type == "cuda"
            np.testing.assert_allclose(d.cpu().numpy(), h.numpy(), rtol=1e-10, atol=1e-12)


def test_host_scalar_parameter_of_a_device_op_gets_a_host_gradient(standin: None) -> None:
    """A 0-d host tensor may join a device op as a scalar (PyTorch allows it); its gradient
    comes back to the host, where PyTorch's engine moves a 0-d gradient too, also under
    ``create_graph``."""
    for x0 in (_RNG.standard_normal(5), np.array(-0.3)):  # (a 0-d device operand too)
        _host_scalar_case(x0)


def _host_scalar_case(x0: np.ndarray) -> None:
    results = {}
    for dev in ("cpu", "cuda"):
        s = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
        x = torch.tensor(x0, device=dev)
        g, = torch.autograd.grad((s * x).exp().sum(), s, create_graph=True)
        h, = torch.autograd.grad(g, s)
        (s * x + s).pow(2).sum().backward()
        assert g.device.type == h.device.type == s.grad.device.type == "cpu"
        results[dev] = (g.item(), h.item(), s.grad.item())
    np.testing.assert_allclose(results["cuda"], results["cpu"], rtol=1e-12)
    expected = (np.sum(x0 * np.exp(0.7 * x0)), np.sum(x0**2 * np.exp(0.7 * x0)),
                np.sum(2 * (0.7 * x0 + 0.7) * (x0 + 1)))
    np.testing.assert_allclose(results["cpu"], expected, rtol=1e-12)


_IDX = np.array([[0, 1], [2, 2], [3, 0]])
_ROWS = np.array([0, 2, 2, 1])

SECOND_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "gather": lambda a, i: torch.gather(a * a, 1, i),
    "scatter_add": lambda a, i: torch.zeros(3, 5, dtype=a.dtype, device=a.device).scatter_add(
        1, i, (a * a)[:, :2]),
    "scatter": lambda a, i: (a * 2).scatter(1, i, (a * a)[:, 2:]),
    "scatter_reduce": lambda a, i: (a * 2).scatter_reduce(1, i, (a * a)[:, 1:3], "amax"),
    "index_fill": lambda a, i: (a * 3).index_fill(1, i.reshape(-1)[:4] % 4, (a * a).sum()),
    "embedding": lambda a, i: torch.nn.functional.embedding(
        i.reshape(-1)[:4] % 3, a * a, padding_idx=2, scale_grad_by_freq=True),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_index_rules_read_nothing_on_the_host(name: str, standin: None) -> None:
    """Under ``create_graph`` the gather/scatter/embedding rules re-use the index their
    forward checked: no second read of it on the host (PyTorch's backward reads none)."""
    fn = SECOND_ORDER[name]
    a0 = _RNG.standard_normal((3, 4))
    results = []
    for dev in ("cpu", "cuda"):
        a = torch.tensor(a0, device=dev, requires_grad=True)
        out = fn(a, torch.tensor(_IDX, device=dev))
        before = _syncs()
        g, = torch.autograd.grad((out * out).sum(), a, create_graph=True)
        h, = torch.autograd.grad((g * g.sin()).sum(), a)
        assert _syncs() == before and h.device.type == dev
        results.append((g.detach().cpu().numpy(), h.cpu().numpy()))
    for d, c in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(d, c, rtol=1e-10, atol=1e-12)


def test_factories_place_where_pytorch_places(standin: None) -> None:
    """``tril_indices``/``triu_indices`` honour ``device``; ``torch.tensor`` of a device
    tensor copies it on the device (no trip through the host), as PyTorch's does;
    ``logspace(device="cpu")`` stays on the host under a ``cuda`` default device."""
    import warnings

    low = torch.tril_indices(3, 4, -1, device="cuda")
    up = torch.triu_indices(3, 4, 1, dtype=torch.int32, device="cuda")
    assert low.device.type == up.device.type == "cuda" and up.dtype == torch.int32
    np.testing.assert_array_equal(low.cpu().numpy(), np.array(np.tril_indices(3, -1, 4)))
    np.testing.assert_array_equal(up.cpu().numpy(), np.array(np.triu_indices(3, 1, 4)))
    x = torch.tensor([1.5, -2.0], device="cuda")
    before = _syncs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (PyTorch's copy-construct advice)
        copies = [torch.tensor(x), torch.tensor(x, dtype=torch.float64), torch.as_tensor(
            x, dtype=torch.int64), torch.tensor(x[0], requires_grad=True)]
    assert _syncs() == before
    assert all(c.device.type == "cuda" for c in copies) and copies[3].requires_grad
    assert copies[1].dtype == torch.float64 and copies[2].tolist() == [1, -2]
    copies[0][0] = 7.0  # a copy: the source is untouched
    assert x.tolist() == [1.5, -2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert torch.tensor(x, device="cpu").device.type == "cpu"
        assert torch.tensor(x.cpu()).device.type == "cpu"
    torch.set_default_device("cuda")
    try:  # an explicit ``device`` wins over the default one
        spaced = [torch.logspace(0, 1, 3, device="cpu"), torch.logspace(0, 1, 3)]
        assert [t.device.type for t in spaced] == ["cpu", "cuda"]
    finally:
        torch.set_default_device(None)
    np.testing.assert_allclose(spaced[1].cpu().numpy(), np.logspace(0, 1, 3), rtol=1e-6)


def test_index_select_refuses_an_index_on_another_device(standin: None) -> None:
    """PyTorch's words, not a TypeError from inside the device library."""
    x = torch.ones(4, 3, device="cuda")
    for data, index in ((x, torch.tensor([0, 2])), (x.cpu(), torch.tensor([0, 2], device="cuda"))):
        with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
            data.index_select(0, index)
    assert x.index_select(0, torch.tensor([0, 2], device="cuda")).device.type == "cuda"


def test_distribution_constants_live_on_the_parameters_device(standin: None) -> None:
    """``enumerate_support`` (and the ``Binomial`` entropy built on it) and the undefined
    moments (``Cauchy``'s nan mean and inf variance, ``Categorical``'s nan ones) are made
    on the parameters' device, as PyTorch makes them."""
    D = torch.distributions
    p0, s0 = np.array([0.2, 0.5, 0.9]), np.array([0.5, 1.5, 2.0])
    answers = {}
    for dev in ("cpu", "cuda"):
        p = torch.tensor(p0, device=dev, requires_grad=True)
        s = torch.tensor(s0, device=dev)
        values = [D.Bernoulli(p).enumerate_support(), D.Categorical(probs=p).enumerate_support(),
                  D.Binomial(4, p).enumerate_support(), D.Binomial(4, p).entropy(),
                  D.Cauchy(s, s).mean, D.Cauchy(s, s).variance,
                  D.Categorical(probs=p).mean, D.Categorical(probs=p).variance]
        assert all(v.device.type == dev for v in values), [str(v.device) for v in values]
        g, = torch.autograd.grad(values[3].sum(), p)
        answers[dev] = [v.detach().cpu().numpy() for v in values] + [g.cpu().numpy()]
    for d, h in zip(answers["cuda"], answers["cpu"], strict=True):
        np.testing.assert_allclose(d, h, rtol=1e-12)


def test_reads_that_size_a_result_by_the_data_are_counted(standin: None) -> None:
    """CuPy reads a count back to the host before ``d[mask]``, ``nonzero`` or ``unique``:
    the stand-in counts each as a synchronisation, so tests see them."""
    x = torch.tensor(_A, device="cuda")
    device_standin.SYNCS.clear()
    kept = x[x > 0]
    where = torch.nonzero(x > 0)
    distinct = torch.unique(torch.tensor([3, 1, 3], device="cuda"))
    assert device_standin.SYNCS == {"mask": 1, "nonzero": 1, "unique": 1}
    np.testing.assert_array_equal(kept.cpu().numpy(), _A[_A > 0])
    np.testing.assert_array_equal(where.cpu().numpy(), np.argwhere(_A > 0))
    np.testing.assert_array_equal(distinct.cpu().numpy(), [1, 3])
