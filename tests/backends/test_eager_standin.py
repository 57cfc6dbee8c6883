"""The eager runtime on the CPU device stand-in (``runtime/device_standin.py``).

``cuda`` tensors are backed by a CuPy-shaped double that refuses every silent host
conversion, so these tests fail wherever the runtime would copy device data to NumPy
behind the user's back.  Each case of ``tests/gpu/eager_cases.py`` runs on the host and on
the stand-in and must agree (float64: to rounding; the optimizers' PyTorch-CPU rounding
emulation is host-only, so device steps may differ in the last bits).  The same cases run
on a real GPU in ``tests/gpu/test_eager_cuda.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from gpu.eager_cases import CASES

import st_autodiff as torch
from st_autodiff.runtime import device_standin


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_on_the_standin_matches_the_host(name: str, standin: None) -> None:
    host = CASES[name](torch, "cpu")
    dev = CASES[name](torch, "cuda")
    assert host.keys() == dev.keys()
    for key in host:
        np.testing.assert_allclose(dev[key], host[key], rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: {key}")


def test_standin_refuses_silent_host_conversions(standin: None) -> None:
    """The double behaves as CuPy does: no ``__array__``, no mixing with NumPy arrays."""
    d = device_standin.xp.arange(3.0)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(d)
    with pytest.raises(TypeError, match="Unsupported type"):
        d + np.ones(3)
    assert type(np.exp(d)) is device_standin.StandinArray  # NumPy calls dispatch to it
    assert type(d.sum()) is device_standin.StandinArray  # reductions stay on the device
    assert float(d.sum()) == 3.0 and d.get().tolist() == [0.0, 1.0, 2.0]


def test_standin_models_the_cupy_beyond_numpys_namespace(standin: None) -> None:
    """``random.default_rng`` draws from device parameters, ``cupyx.scipy.special`` takes
    device arrays, ``data.ptr`` is an address, device repeats are refused: as in CuPy."""
    from st_autodiff.ir.namespaces import scipy_module

    xp = device_standin.xp
    d = xp.arange(1.0, 4.0)
    rng = xp.random.default_rng(3)
    assert type(rng.standard_gamma(d)) is device_standin.StandinArray
    assert type(rng.poisson(d)) is device_standin.StandinArray
    with pytest.raises(TypeError, match="Unsupported type"):
        rng.standard_gamma(np.ones(3))
    with pytest.raises(AttributeError, match="as CuPy's"):
        rng.multinomial  # noqa: B018  (CuPy's Generator has no multinomial)
    special = scipy_module("special", d)
    np.testing.assert_allclose(special.polygamma(1, d).get(), [np.pi**2 / 6, np.pi**2 / 6 - 1,
                                                              np.pi**2 / 6 - 1.25])
    assert d[1:].data.ptr - d.data.ptr == d.itemsize
    with pytest.raises(ValueError, match="not supported for repeats"):
        xp.repeat(d, xp.asarray(np.array([1, 0, 2])))
    assert xp.repeat(d, [1, 0, 2]).get().tolist() == [1.0, 3.0, 3.0]


def test_cuda_tensors_behave_as_torch_words_them(standin: None) -> None:
    x = torch.tensor([1.5, -2.0], device="cuda", requires_grad=True)
    assert x.is_cuda and str(x.device) == "cuda:0" and x.get_device() == 0
    assert repr(x) == "tensor([ 1.5000, -2.0000], device='cuda:0', requires_grad=True)"
    with pytest.raises(TypeError, match="^can't convert cuda:0 device type tensor to numpy"):
        x.detach().numpy()
    assert x.sum().item() == -0.5 and x.tolist() == [1.5, -2.0]
    y = x.cpu()
    assert y.grad_fn.name() == "ToCopyBackward0" and not y.is_cuda
    (y * y).sum().backward()
    assert x.grad.is_cuda and x.grad.tolist() == [3.0, -4.0]
    assert torch.cuda.is_available() and torch.cuda.device_count() == 1


def test_set_default_device_makes_factories_place_on_the_device(standin: None) -> None:
    torch.set_default_device("cuda")
    try:
        made = [torch.zeros(2), torch.ones(2, 3), torch.randn(4), torch.arange(3),
                torch.tensor([1.0]), torch.full((2,), 7.0), torch.eye(2)]
    finally:
        torch.set_default_device(None)
    assert all(t.is_cuda for t in made)
    assert not torch.zeros(2).is_cuda


def test_training_keeps_everything_on_the_device(standin: None) -> None:
    """A training step never reads device data on the host: only the final ``.item()``."""
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                torch.nn.Linear(8, 2)).cuda()
    opt = torch.optim.Adam(model.parameters())
    x = torch.randn(3, 1, 6, 6, device="cuda")
    target = torch.tensor([0, 1, 1], device="cuda")
    device_standin.SYNCS.clear()
    for _ in range(2):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
    # the one synchronisation per step is cross_entropy's bounds check on the targets
    assert device_standin.SYNCS == {"bool": 2}
    assert all(p.is_cuda and p.grad.is_cuda for p in model.parameters())
    assert np.isfinite(loss.item())


def test_mixing_devices_follows_torch(standin: None) -> None:
    """A 0-d host tensor joins a device tensor as a scalar; a host array is an error."""
    x = torch.ones(3, device="cuda")
    assert (x * torch.tensor(2.0)).is_cuda and (torch.tensor(2.0) + x).tolist() == [3.0] * 3
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
        x + torch.ones(3)


def test_ops_that_pytorch_runs_without_a_sync_read_nothing_on_the_host(standin: None) -> None:
    """Order statistics, tensor-valued fills and bounds, random draws of distributions and
    double backward run on the device with no host read (PyTorch CUDA makes none there)."""
    D = torch.distributions  # noqa: N806
    x = torch.randn(4, 5, device="cuda", dtype=torch.float64, requires_grad=True)
    v = torch.tensor(0.5, device="cuda", dtype=torch.float64)
    conc = torch.rand(3, device="cuda", dtype=torch.float64) + 0.5
    device_standin.SYNCS.clear()
    y = (x.median() + x.nanmedian(1).values.sum() + x.mode(0).values.sum()
         + x.masked_fill(x > 0, v).sum() + x.index_fill(1, torch.tensor([1], device="cuda"),
                                                        v).sum()
         + x.clamp(min=x[0]).sum() + x.sort(1).values[:, 0].sum() + x.diagonal().pow(3).sum())
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (g * g).sum().backward()
    # (argument validation reads its verdict on the host, in PyTorch too: off here)
    kw = {"validate_args": False}
    draws = [D.Normal(x, 1.0, **kw).rsample(), D.Gamma(conc, 2.0, **kw).rsample((2,)),
             D.Poisson(conc, **kw).sample(), D.Binomial(4, probs=conc / 2, **kw).sample(),
             D.Categorical(probs=conc, **kw).sample((3,)), torch.bernoulli(conc / 2)]
    q = torch.randn(2, 3, 4, device="cuda", requires_grad=True)
    keep = torch.rand(3, 3, device="cuda") > 0.5
    mha = torch.nn.MultiheadAttention(4, 2, batch_first=True).cuda()
    pad = torch.tensor([[False, False, True], [False, False, False]], device="cuda")
    att = (torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=keep).sum()
           + mha(q, q, q, key_padding_mask=pad)[0].sum())
    att.backward()
    assert device_standin.SYNCS == {}
    assert all(d.is_cuda for d in draws) and x.grad.is_cuda and q.grad.is_cuda


def test_embedding_checks_its_indices_once_and_its_backward_reads_nothing(standin: None) -> None:
    w = torch.randn(6, 3, device="cuda", dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([[0, 2, 2, 5], [1, 2, 0, 0]], device="cuda")
    y = torch.nn.functional.embedding(idx, w, padding_idx=2, scale_grad_by_freq=True)
    device_standin.SYNCS.clear()
    (y * y).sum().backward()
    assert device_standin.SYNCS == {} and w.grad.is_cuda


def test_attention_rows_with_every_key_masked_give_zeros_on_the_device(standin: None) -> None:
    """The fully masked rows, found with device ops, give what the host gives (zeros)."""
    rng = np.random.default_rng(31)
    q, k, v = (rng.standard_normal((1, 2, 3, 4)) for _ in range(3))  # 4-d: the fused node
    keep = rng.random((3, 3)) > 0.3
    keep[2] = False
    out = {}
    for dev in ("cpu", "cuda"):
        qt = torch.tensor(q, device=dev, requires_grad=True)
        y = torch.nn.functional.scaled_dot_product_attention(
            qt, torch.tensor(k, device=dev), torch.tensor(v, device=dev),
            attn_mask=torch.tensor(keep, device=dev))
        y.sum().backward()
        out[dev] = (y.detach().cpu().numpy(), qt.grad.cpu().numpy())
    assert not out["cpu"][0][:, :, 2].any()
    for a, b in zip(out["cpu"], out["cuda"]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


def test_constraints_check_on_the_device(standin: None) -> None:
    """``constraint.check`` answers on the value's device, as on the host; validation reads
    one flag per check."""
    C = torch.distributions.constraints  # noqa: N806
    rng = np.random.default_rng(32)
    v = rng.standard_normal((3, 4))
    lower = np.tril(rng.random((2, 3, 3))) + np.eye(3)
    lower[1, 0, 2] = 1.0
    simplex = np.abs(v) / np.abs(v).sum(-1, keepdims=True)
    simplex[0, 0] += 0.1
    checks = [(C.real, v), (C.positive, v), (C.greater_than(torch.tensor(0.5)), v),
              (C.interval(-0.5, 0.5), v), (C.half_open_interval(-1.0, 0.2), v),
              (C.integer_interval(0, 3), np.round(v * 2)), (C.nonnegative_integer, v.round()),
              (C.less_than(0.1), v), (C.boolean, (v > 0) * 1.0), (C.simplex, simplex),
              (C.lower_cholesky, lower), (C.positive_definite, lower @ lower.swapaxes(-1, -2)),
              (C.independent(C.positive, 1), v)]
    for constraint, value in checks:
        host = constraint.check(torch.tensor(value))
        dev = constraint.check(torch.tensor(value, device="cuda"))
        assert dev.is_cuda and dev.tolist() == host.tolist(), constraint
    loc = torch.tensor(v[0], device="cuda")
    device_standin.SYNCS.clear()
    torch.distributions.Normal(loc, 1.0, validate_args=True).log_prob(loc)
    assert device_standin.SYNCS == {"bool": 3}  # loc's, scale's and the value's flags
