"""The fast convolution, pooling and batch-norm kernels against plain reference loops.

The kernels take different routes by shape (the stride-1 wide grid or the exact grid for
convolutions, planes first or last for pools); every route is compared here, in float64,
with a direct sum over windows written as loops, and the edge cases each route has to get
right (non-finite values, NaN and ``-inf`` windows) are pinned down.  The max-pool indices
for NaN and ``-inf`` windows are reference output produced by PyTorch 2.13 (CPU).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn.functional as F
from st_autodiff.runtime.nn import conv_kernels as CK

_rng = np.random.default_rng(2024)


def _reference_conv(x: np.ndarray, w: np.ndarray, p: dict) -> np.ndarray:
    """Direct convolution by loops over output positions and kernel offsets."""
    (sh, sw), (dh, dw), ((pt, pb), (pl, pr)), g = p["stride"], p["dilation"], p["pads"], \
        p["groups"]
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    y = np.zeros((n, o, oh, ow))
    og = o // g
    for oc in range(o):
        grp = oc // og
        xs = xp[:, grp * cg:(grp + 1) * cg]
        for i, j in itertools.product(range(kh), range(kw)):
            patch = xs[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                       j * dw:j * dw + sw * (ow - 1) + 1:sw]
            y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    return y


CONFIGS = [  # (x shape, w shape, stride, dilation, pads, groups)
    ((2, 3, 6, 5), (4, 3, 3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 1),
    ((2, 4, 7, 6), (6, 2, 2, 3), (1, 1), (2, 1), ((0, 1), (2, 0)), 2),
    ((3, 2, 1, 9), (4, 2, 1, 3), (1, 1), (1, 2), ((0, 0), (1, 1)), 1),
    ((2, 3, 7, 7), (6, 1, 3, 3), (2, 2), (1, 1), ((1, 1), (1, 1)), 3),
    ((1, 2, 8, 5), (3, 2, 2, 2), (3, 1), (1, 2), ((0, 0), (0, 0)), 1),
    ((2, 2, 4, 4), (2, 2, 1, 1), (1, 1), (1, 1), ((0, 0), (0, 0)), 1),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_conv_kernels_match_direct_loops(cfg: tuple) -> None:
    """The forward and both adjoints (``<conv(x, w), g> = <x, dx(g)> = <w, dw(g)>``)."""
    xs, ws, stride, dil, pads, groups = cfg
    p = {"stride": stride, "dilation": dil, "pads": pads, "groups": groups}
    x, w = _rng.standard_normal(xs), _rng.standard_normal(ws)
    y = CK.conv_arrays(x, w, p)
    ref = _reference_conv(x, w, p)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    g = _rng.standard_normal(y.shape)
    gx = CK.conv_dx_arrays(g, w, x.shape, p)
    gw = CK.conv_dw_arrays(g, x, w.shape, p)
    # each adjoint against the reference applied to unit inputs
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1.0
        assert gx.ravel()[k] == pytest.approx(
            float(np.sum(_reference_conv(e.reshape(x.shape), w, p) * g)), abs=1e-10)
    for k in range(w.size):
        e = np.zeros(w.size)
        e[k] = 1.0
        assert gw.ravel()[k] == pytest.approx(
            float(np.sum(_reference_conv(x, e.reshape(w.shape), p) * g)), abs=1e-10)


def test_non_finite_values_stay_where_they_belong() -> None:
    """The wide grid must not turn ``0 * inf`` from cropped positions into NaN."""
    p = {"stride": (1, 1), "dilation": (1, 1), "pads": ((0, 0), (0, 0)), "groups": 1}
    x = np.ones((1, 1, 3, 3))
    x[0, 0, 2, 2] = np.inf
    w = np.ones((1, 1, 2, 2))
    g = np.ones((1, 1, 2, 2))
    gw = CK.conv_dw_arrays(g, x, w.shape, p)
    np.testing.assert_array_equal(gw, [[[[4.0, 4.0], [4.0, np.inf]]]])
    w_inf = w.copy()
    w_inf[0, 0, 0, 0] = np.inf
    gx = CK.conv_dx_arrays(g, w_inf, x.shape, p)
    assert np.isinf(gx).sum() == 4 and not np.isnan(gx).any()
    assert not np.isnan(CK.conv_arrays(x, w, p)).any()
    both_x, both_w = CK.conv_backward_arrays(g, x, w_inf, True, True, p)
    np.testing.assert_array_equal(both_x, gx)
    np.testing.assert_array_equal(both_w, gw)


def _reference_max(x: np.ndarray, k: int, s: int, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's rule by loops: first maximum, NaN wins, padding never competes."""
    n, c, h, w = x.shape
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    val, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), np.int64)
    for a, b, r, q in itertools.product(range(n), range(c), range(oh), range(ow)):
        best, at = -np.inf, None
        for i, j in itertools.product(range(k), range(k)):
            row, col = r * s - pad + i, q * s - pad + j
            if 0 <= row < h and 0 <= col < w:
                at = row * w + col if at is None else at
                v = x[a, b, row, col]
                if v > best or math.isnan(v):
                    best, at = v, row * w + col
        val[a, b, r, q], idx[a, b, r, q] = best, at
    return val, idx


@pytest.mark.parametrize("planes", [1, 40])  # planes first, planes last
@pytest.mark.parametrize("k,s,pad", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_max_pool_matches_the_rule(planes: int, k: int, s: int, pad: int) -> None:
    x = _rng.standard_normal((planes, 1, 6, 7))
    x.ravel()[::7] = 0.5  # ties
    val, idx = F.max_pool2d(torch.tensor(x), k, s, pad, return_indices=True)
    ref_val, ref_idx = _reference_max(x, k, s, pad)
    np.testing.assert_array_equal(val.numpy(), ref_val)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


def test_max_pool_nan_and_minus_inf_windows_as_torch() -> None:
    nan = float("nan")
    x = torch.tensor([[[[nan, 1.0, nan, 2.0], [0.0, nan, 3.0, -math.inf]]]])
    _, i = F.max_pool2d(x, 2, return_indices=True)
    assert i.tolist() == [[[[5, 2]]]]  # PyTorch 2.13: the last NaN
    x = torch.full((1, 1, 3, 3), -math.inf)
    _, i = F.max_pool2d(x, 2, stride=2, padding=1, return_indices=True)
    assert i.tolist() == [[[[0, 1], [3, 4]]]]  # PyTorch 2.13: first position inside


@pytest.mark.parametrize("planes", [1, 40])
@pytest.mark.parametrize("k,s,pad,include", [(2, 2, 0, True), (3, 2, 1, False),
                                             (3, 1, 1, True)])
def test_avg_pool_and_its_adjoint(planes: int, k: int, s: int, pad: int,
                                  include: bool) -> None:
    x = torch.tensor(_rng.standard_normal((planes, 1, 6, 7)), requires_grad=True)
    y = F.avg_pool2d(x, k, s, pad, count_include_pad=include)
    xp = np.pad(x.detach().numpy(), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ones = np.pad(np.ones((6, 7)), pad)
    oh, ow = y.shape[-2:]
    ref = np.zeros(tuple(y.shape))
    for r, q in itertools.product(range(oh), range(ow)):
        win = xp[:, :, r * s:r * s + k, q * s:q * s + k]
        count = k * k if include else ones[r * s:r * s + k, q * s:q * s + k].sum()
        ref[:, :, r, q] = win.sum(axis=(-2, -1)) / count
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-12)
    g = _rng.standard_normal(tuple(y.shape))
    (gx,) = torch.autograd.grad(y, x, torch.tensor(g))
    e = np.zeros(tuple(x.shape))
    e.ravel()[17] = 1.0
    with torch.no_grad():
        probe = F.avg_pool2d(torch.tensor(e), k, s, pad, count_include_pad=include).numpy()
    assert gx.numpy().ravel()[17] == pytest.approx(float(np.sum(probe * g)), abs=1e-12)


def test_batch_norm_running_statistics_and_version() -> None:
    bn = torch.nn.BatchNorm2d(3, momentum=0.25)
    x = torch.tensor(_rng.standard_normal((4, 3, 2, 5)).astype(np.float32))
    before = bn.running_mean._version
    bn(x)
    data = x.numpy().astype(np.float64)
    mean = data.mean(axis=(0, 2, 3))
    var = data.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.25 * mean, rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.75 + 0.25 * var, rtol=1e-6)
    assert bn.running_mean._version == before + 1


@pytest.mark.parametrize("call", [
    lambda x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2),
                           ceil_mode=True, return_indices=True),
    lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                           count_include_pad=False),
    lambda x: F.avg_pool2d(x, (2, 3), divisor_override=4),
    lambda x: F.max_pool1d(x[:, :, 0], 3, stride=2, padding=1, ceil_mode=True,
                           return_indices=True),
], ids=["max2d", "avg2d", "avg2d-override", "max1d"])
def test_planes_last_equals_planes_first(call: object) -> None:
    """Many planes (worked on as ``(H, W, P)``) give what one plane at a time gives."""
    x = torch.tensor(_rng.standard_normal((30, 2, 6, 7)), requires_grad=True)
    many = call(x)  # type: ignore[operator]
    many = many if isinstance(many, tuple) else (many,)
    g = torch.tensor(_rng.standard_normal(tuple(many[0].shape)))
    (gx,) = torch.autograd.grad(many[0], x, g)
    for n in range(0, 30, 7):
        for c in range(2):
            xi = x[n:n + 1, c:c + 1].detach().requires_grad_()
            one = call(xi)  # type: ignore[operator]
            one = one if isinstance(one, tuple) else (one,)
            for a, b in zip(many, one):
                np.testing.assert_array_equal(a[n:n + 1, c:c + 1].detach().numpy(),
                                              b.detach().numpy())
            (gi,) = torch.autograd.grad(one[0], xi, g[n:n + 1, c:c + 1])
            np.testing.assert_array_equal(gx[n:n + 1, c:c + 1].numpy(), gi.numpy())


def test_wide_products_in_blocks_and_empty_batches() -> None:
    """Past 8192 positions the products run in column blocks; an empty batch still works."""
    p = {"stride": (1, 1), "dilation": (1, 1), "pads": ((1, 1), (1, 1)), "groups": 1}
    x, w = _rng.standard_normal((2, 3, 70, 70)), _rng.standard_normal((4, 3, 3, 3))
    y = CK.conv_arrays(x, w, p)
    np.testing.assert_allclose(y, _reference_conv(x, w, p), rtol=1e-11, atol=1e-11)
    g = _rng.standard_normal(y.shape)
    gx, gw = CK.conv_backward_arrays(g, x, w, True, True, p)
    u, v = _rng.standard_normal(x.shape), _rng.standard_normal(w.shape)
    assert float(np.sum(gx * u)) == pytest.approx(float(np.sum(CK.conv_arrays(u, w, p) * g)))
    assert float(np.sum(gw * v)) == pytest.approx(float(np.sum(CK.conv_arrays(x, v, p) * g)))
    empty = torch.zeros(0, 2, 5, 5, requires_grad=True)
    weight = torch.ones(3, 2, 3, 3, requires_grad=True)
    out = F.conv2d(empty, weight, padding=1)
    pooled = F.max_pool2d(out, 2) + F.avg_pool2d(out, 2)
    pooled.sum().backward()
    assert tuple(out.shape) == (0, 3, 5, 5) and tuple(empty.grad.shape) == (0, 2, 5, 5)
    assert float(weight.grad.abs().sum()) == 0.0
