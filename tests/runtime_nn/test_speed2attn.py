"""The array fast paths of layer_norm, flash attention, addmm and functional.jacobian give
the very bits of the generic (recording, ``create_graph``) path, which recomputes every
step with the rules' tensor ops."""

from __future__ import annotations

import numpy as np
import pytest
from st_autodiff.autograd.functional import jacobian

import st_autodiff as torch
from st_autodiff import nn

F = nn.functional


def _both(fn, inputs, seed):  # noqa: ANN001, ANN202
    """Gradients by the array path and by the create_graph (tensor ops) path."""
    fast = torch.autograd.grad(fn(*inputs), inputs, seed)
    slow = torch.autograd.grad(fn(*inputs), inputs, seed, create_graph=True)
    return fast, slow


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("shape", "ns"), [((4, 7, 16), (16,)), ((3, 5, 6), (5, 6)),
                                          ((2, 3), (3,))])
def test_layer_norm_fast_backward_same_bits(dtype, shape, ns) -> None:  # noqa: ANN001
    torch.manual_seed(0)
    x = (torch.randn(*shape, dtype=dtype) * 3 + 1).requires_grad_()
    w = torch.randn(*ns, dtype=dtype, requires_grad=True)
    b = torch.randn(*ns, dtype=dtype, requires_grad=True)
    seed = torch.randn(*shape, dtype=dtype)
    fast, slow = _both(lambda x, w, b: F.layer_norm(x, ns, w, b), (x, w, b), seed)
    for f, s in zip(fast, slow, strict=True):
        assert f.shape == s.shape and f.dtype == s.dtype
        assert f.numpy().tobytes() == s.detach().numpy().tobytes()


@pytest.mark.parametrize("case", ["plain", "float_mask", "bool_mask", "causal"])
def test_flash_fast_backward_same_bits(case: str) -> None:
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 3, n, 4, requires_grad=True) for n in (5, 6, 6))
    kw: dict = {}
    if case == "float_mask":
        kw["attn_mask"] = torch.randn(5, 6)
    elif case == "bool_mask":
        mask = torch.rand(5, 6) > 0.4
        mask[1] = False  # a fully masked row: zeros, not NaN
        kw["attn_mask"] = mask
    elif case == "causal":
        kw["is_causal"] = True
    seed = torch.randn(2, 3, 5, 4)
    out = F.scaled_dot_product_attention(q, k, v, **kw)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    fast, slow = _both(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw),
                       (q, k, v), seed)
    for f, s in zip(fast, slow, strict=True):
        assert f.numpy().tobytes() == s.detach().numpy().tobytes()


def test_linear_bias_grad_same_bits() -> None:
    torch.manual_seed(2)
    lin = nn.Linear(7, 3)
    x = torch.randn(33, 7, requires_grad=True)
    seed = torch.randn(33, 3)
    fast, slow = _both(lin, (x,), seed)
    assert fast[0].numpy().tobytes() == slow[0].detach().numpy().tobytes()
    (gb,) = torch.autograd.grad(lin(x), lin.bias, seed)
    assert gb.numpy().tobytes() == seed.numpy().sum(axis=0).tobytes()


def test_jacobian_rows_match_select_rows() -> None:
    x = torch.tensor([[0.3, -1.2], [2.0, 0.5]], dtype=torch.float64)

    def f(a):  # noqa: ANN001, ANN202
        return a.sin() * a.sum()

    jac = jacobian(f, x)
    xr = x.clone().requires_grad_()
    flat = f(xr).reshape(-1)
    rows = [torch.autograd.grad(flat[j], xr, retain_graph=True)[0] for j in range(4)]
    want = torch.stack(rows).view(2, 2, 2, 2)
    assert jac.numpy().tobytes() == want.numpy().tobytes()
    # and by finite differences in float64
    eps = 1e-6
    num = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            d = torch.zeros(2, 2, dtype=torch.float64)
            d[i, j] = eps
            num[:, :, i, j] = ((f(x + d) - f(x - d)) / (2 * eps)).numpy()
    assert np.allclose(jac.numpy(), num, atol=1e-7)
    hess_rows = jacobian(lambda a: jacobian(f, a, create_graph=True), x)
    assert hess_rows.shape == (2, 2, 2, 2, 2, 2)
