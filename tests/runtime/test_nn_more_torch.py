"""The nn pieces added by the eagernn part (group/instance/RMS norm, interpolate, pixel
shuffle, transposed convolution, padding modules, channel dropout, GLU, Bilinear,
unfold/fold, embedding_bag, ``nn.utils.rnn`` and seven losses) compared live with PyTorch:
values, first and second derivatives, node names, default initialisation bit for bit,
``repr``, ``state_dict`` keys and error messages.

Each case is a function of the library (``T`` is ``torch`` or ``st_autodiff``) run under both;
the results are compared entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch


# --- the harness ------------------------------------------------------------------------------

def _run(T: Any, fn: Callable[[Any], Any]) -> Any:
    try:
        return fn(T)
    except Exception as e:  # noqa: BLE001 (the error is the observation)
        return f"!{type(e).__name__}: {e}"


def _value(v: Any) -> Any:
    if isinstance(v, (st.Tensor, torch.Tensor)):
        try:
            return np.asarray(v.detach().tolist(), dtype=np.float64)
        except RuntimeError:  # PyTorch's zero tensors without storage
            return np.zeros(tuple(v.shape))
    return v


def _same(fn: Callable[[Any], Any], tol: float = 1e-6, skip: tuple[str, ...] = ()) -> None:
    ours, theirs = _run(st, fn), _run(torch, fn)
    if isinstance(ours, str) or isinstance(theirs, str):
        assert ours == theirs
        return
    for key in set(theirs) - set(ours):
        # F.pad's 2-d reflect/replicate (older code): no second derivative where PyTorch
        # gives an all-zero one (its first derivative does not depend on the input)
        assert key.startswith("gg") and not _value(theirs[key]).any(), key
    assert set(ours) <= set(theirs)
    for key, want in theirs.items():
        if key in skip or key not in ours:
            continue
        got, want = _value(ours[key]), _value(want)
        if isinstance(want, np.ndarray):
            assert isinstance(got, np.ndarray) and got.shape == want.shape, key
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=key)
        else:
            assert got == want, key


def _grads(T: Any, f: Callable[..., Any], *arrays: Any, second: bool = True,
           dtype: str = "float64") -> dict[str, Any]:
    """``f``'s value and node name, the gradient of a weighted sum of it, and the gradient
    of the squared gradients (a second derivative through ``create_graph``)."""
    ins = [T.tensor(a, dtype=getattr(T, dtype), requires_grad=True) for a in arrays]
    y = f(T, *ins)
    w = (T.arange(y.numel(), dtype=y.dtype) + 1).sin().reshape(y.shape)
    g = T.autograd.grad((y * w).sum(), ins, create_graph=second)
    out = {"y": y, "name": type(y.grad_fn).__name__}
    out.update({f"g{i}": v for i, v in enumerate(g)})
    total = sum((gi ** 2).sum() for gi in g)
    if second and total.requires_grad:
        gg = T.autograd.grad(total, ins, allow_unused=True)
        out.update({f"gg{i}": v for i, v in enumerate(gg) if v is not None})
    return out


R = np.random.RandomState(0)
X4 = R.randn(2, 4, 5, 6)
X3 = X4[:, :, 0].copy()
W4, B4 = R.randn(4), R.randn(4)
WT = R.randn(4, 3, 3, 2)

F_CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "group_norm": (lambda T, x, w, b: T.nn.functional.group_norm(x, 2, w, b), (X4, W4, B4)),
    "group_norm_plain": (lambda T, x: T.nn.functional.group_norm(x, 4), (X3,)),
    "instance_norm": (lambda T, x, w, b: T.nn.functional.instance_norm(x, weight=w, bias=b),
                      (X4, W4, B4)),
    "instance_norm_1d": (lambda T, x: T.nn.functional.instance_norm(x), (X3,)),
    "rms_norm": (lambda T, x, w: T.nn.functional.rms_norm(x, (5, 6), w, 1e-3),
                 (X4, R.randn(5, 6))),
    "rms_norm_default_eps": (lambda T, x: T.nn.functional.rms_norm(x, [6]), (X4,)),
    "glu": (lambda T, x: T.nn.functional.glu(x, 1), (X4,)),
    "pixel_shuffle": (lambda T, x: T.nn.functional.pixel_shuffle(x, 2), (X4,)),
    "pixel_unshuffle": (lambda T, x: T.nn.functional.pixel_unshuffle(x[..., :4, :], 2), (X4,)),
    "bilinear": (lambda T, a, b, w, c: T.nn.functional.bilinear(a, b, w, c),
                 (R.randn(5, 4), R.randn(5, 3), R.randn(2, 4, 3), R.randn(2))),
    "bilinear_batch": (lambda T, a, b, w: T.nn.functional.bilinear(a, b, w),
                       (R.randn(2, 5, 4), R.randn(2, 5, 3), R.randn(2, 4, 3))),
    "lp_pool1d": (lambda T, x: T.nn.functional.lp_pool1d(x, 2, 3, stride=2), (X3,)),
    # (an odd power of positive windows: PyTorch's NaN for negative ones is ours too, but
    # pytest shows NumPy's warning that the runtime's filter hides)
    "lp_pool2d": (lambda T, x: T.nn.functional.lp_pool2d(x * x + 0.1, 3, (2, 3), ceil_mode=True),
                  (X4,)),
    "lp_pool2d_inf": (lambda T, x: T.nn.functional.lp_pool2d(x, float("inf"), 2), (X4,)),
    "torch.conv_transpose2d": (lambda T, x, w: T.conv_transpose2d(x, w, None, 2, 1),
                               (X4, WT)),
    "torch.pixel_shuffle": (lambda T, x: T.pixel_unshuffle(T.pixel_shuffle(x, 2) * 2, 2),
                            (X4,)),
    "torch.rms_norm": (lambda T, x: T.rms_norm(x, [6], None, 0.1), (X4,)),
}
_INTERP = [("nearest", None, {"scale_factor": 2}), ("nearest", None, {"size": (7, 4)}),
           ("nearest", None, {"scale_factor": 0.6}),
           ("bilinear", False, {"scale_factor": 1.7}), ("bilinear", True, {"size": (9, 11)}),
           ("bilinear", False, {"size": (3, 4)}), ("bilinear", True, {"scale_factor": 2}),
           ("bilinear", False, {"scale_factor": 2.5, "recompute_scale_factor": True}),
           ("nearest-exact", None, {"size": (7, 9)}),
           ("bicubic", False, {"scale_factor": 2}), ("bicubic", True, {"size": (9, 4)}),
           ("bicubic", False, {"size": (3, 11)}), ("bicubic", True, {"scale_factor": 0.5}),
           ("area", None, {"size": (3, 4)}), ("area", None, {"scale_factor": 0.5})]
for _m, _a, _kw in _INTERP:
    F_CASES[f"interpolate2d_{_m}_{_a}_{_kw}"] = (
        lambda T, x, m=_m, a=_a, kw=_kw: T.nn.functional.interpolate(x, mode=m, align_corners=a,
                                                                     **kw), (X4,))
X5 = R.randn(2, 2, 3, 4, 5)
for _m, _a, _kw in [("nearest", None, {"scale_factor": 2}), ("nearest", None, {"size": (2, 5, 7)}),
                    ("trilinear", False, {"scale_factor": (1.5, 2, 0.5)}),
                    ("trilinear", True, {"size": (4, 3, 6)}),
                    ("nearest-exact", None, {"size": (5, 5, 5)})]:
    F_CASES[f"interpolate3d_{_m}_{_a}_{_kw}"] = (
        lambda T, x, m=_m, a=_a, kw=_kw: T.nn.functional.interpolate(x, mode=m, align_corners=a,
                                                                     **kw), (X5,))
for _m, _a, _kw in [("nearest", None, {"scale_factor": 3}),
                    ("linear", False, {"scale_factor": 2.5}),
                    ("linear", True, {"size": 11}), ("linear", False, {"size": 4}),
                    ("area", None, {"size": 4})]:
    F_CASES[f"interpolate1d_{_m}_{_a}_{_kw}"] = (
        lambda T, x, m=_m, a=_a, kw=_kw: T.nn.functional.interpolate(x, mode=m, align_corners=a,
                                                                     **kw), (X3,))
for _kw in [{}, {"stride": 2}, {"stride": 2, "padding": 1, "output_padding": 1},
            {"stride": (2, 3), "padding": (0, 1), "dilation": 2, "output_padding": (1, 0)},
            {"groups": 2, "stride": 2}, {"padding": 2},
            {"dilation": 2, "output_padding": 1},  # (output_padding >= stride: composed)
            {"stride": 3, "padding": 2, "dilation": (1, 2), "groups": 2}]:
    F_CASES[f"conv_transpose2d_{_kw}"] = (
        lambda T, x, w, b, kw=_kw: T.nn.functional.conv_transpose2d(x, w, b, **kw),
        (X4, WT, np.arange(3.0 * _kw.get("groups", 1))))
    _kw1 = {k: (v[0] if isinstance(v, tuple) else v) for k, v in _kw.items()}
    F_CASES[f"conv_transpose1d_{_kw}"] = (
        lambda T, x, w, kw=_kw1: T.nn.functional.conv_transpose1d(x, w, **kw), (X3, WT[..., 0]))
F_CASES["conv_transpose2d_unbatched"] = (
    lambda T, x, w: T.nn.functional.conv_transpose2d(x, w, stride=2), (X4[0], WT))
for _k in [{"kernel_size": 2}, {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1,
                                "stride": (2, 1)}, {"kernel_size": 3, "padding": (0, 2),
                                                    "stride": 2}]:
    F_CASES[f"unfold_{_k}"] = (lambda T, x, k=_k: T.nn.functional.unfold(x, **k), (X4,))
    F_CASES[f"fold_{_k}"] = (
        lambda T, x, k=_k: T.nn.functional.fold(T.nn.functional.unfold(x, **k) * 1.5, (5, 6),
                                                **k), (X4,))
F_CASES["unfold_unbatched"] = (lambda T, x: T.nn.functional.unfold(x, 2), (X4[0],))
F_CASES["fold_unbatched"] = (lambda T, c: T.nn.functional.fold(c, (3, 4), 2), (R.randn(8, 6),))
for _p in [(1, 2), (1, 2, 0, 1)]:
    for _mode in ["constant", "reflect", "replicate"]:
        F_CASES[f"pad_{_mode}_{_p}"] = (
            lambda T, x, p=_p, m=_mode: T.nn.functional.pad(x, p, mode=m), (X4,))

# PyTorch's node where the runtime composes several (docs/eager_runtime.md)
_OTHER_NODE = ("group_norm", "glu")


@pytest.mark.parametrize("name", sorted(F_CASES))
def test_functional_values_and_derivatives_match_torch(name: str) -> None:
    f, arrays = F_CASES[name]
    skip = ("name",) if name.startswith(_OTHER_NODE) else ()
    _same(lambda T: _grads(T, f, *arrays), tol=1e-7, skip=skip)


@pytest.mark.parametrize("name", [n for n in sorted(F_CASES) if "pad_" not in n])
def test_functional_float32_values_match_torch(name: str) -> None:
    f, arrays = F_CASES[name]
    _same(lambda T: {"y": f(T, *[T.tensor(a, dtype=T.float32) for a in arrays])}, tol=2e-6)


# --- losses -----------------------------------------------------------------------------------

A, B, C = R.randn(4, 5), R.randn(4, 5), R.randn(4, 5)
P = np.abs(R.randn(4, 5)) * 2
Y = np.array([1.0, -1, 1, -1])
L_CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...], bool]] = {}
for _r in ("mean", "sum", "none"):
    L_CASES.update({
        f"poisson_{_r}": (lambda T, x, r=_r: T.nn.functional.poisson_nll_loss(
            x, T.tensor(P), reduction=r), (A,), True),
        f"poisson_full_{_r}": (lambda T, x, r=_r: T.nn.functional.poisson_nll_loss(
            x, T.tensor(P), log_input=False, full=True, reduction=r), (P + 0.1,), True),
        f"gaussian_{_r}": (lambda T, x, v, r=_r: T.nn.functional.gaussian_nll_loss(
            x, T.tensor(B), v, full=True, reduction=r), (A, P), True),
        f"gaussian_homoscedastic_{_r}": (lambda T, x, v, r=_r: T.nn.functional.gaussian_nll_loss(
            x, T.tensor(B), v, reduction=r), (A, P[:, 0]), True),
        f"triplet_{_r}": (lambda T, a, p, n, r=_r: T.nn.functional.triplet_margin_loss(
            a, p, n, reduction=r), (A, B, C), True),
        f"triplet_swap_p1_{_r}": (lambda T, a, p, n, r=_r: T.nn.functional.triplet_margin_loss(
            a, p, n, margin=2.0, p=1, swap=True, reduction=r), (A, B, C), True),
        f"cosine_embedding_{_r}": (lambda T, a, b, r=_r: T.nn.functional.cosine_embedding_loss(
            a, b, T.tensor(Y), margin=0.1, reduction=r), (A, B), True),
        f"hinge_embedding_{_r}": (lambda T, a, r=_r: T.nn.functional.hinge_embedding_loss(
            a, T.tensor(np.sign(B)), margin=0.5, reduction=r), (A,), True),
        f"multi_margin_{_r}": (lambda T, a, r=_r: T.nn.functional.multi_margin_loss(
            a, T.tensor([0, 3, 4, 1]), reduction=r), (A,), False),
        f"multi_margin_p2_weight_{_r}": (lambda T, a, r=_r: T.nn.functional.multi_margin_loss(
            a, T.tensor([0, 3, 4, 1]), p=2, margin=0.7, weight=T.tensor(P[0]), reduction=r),
            (A,), False),
        f"multi_margin_1d_{_r}": (lambda T, a, r=_r: T.nn.functional.multi_margin_loss(
            a, T.tensor(2), reduction=r), (A[0],), False),
        f"triplet_with_distance_{_r}": (
            lambda T, a, p, n, r=_r: T.nn.functional.triplet_margin_with_distance_loss(
                a, p, n, reduction=r), (A, B, C), True),
        f"triplet_with_cosine_distance_swap_{_r}": (
            lambda T, a, p, n, r=_r: T.nn.functional.triplet_margin_with_distance_loss(
                a, p, n, distance_function=lambda u, v: 1 - T.nn.functional.cosine_similarity(
                    u, v), margin=0.5, swap=True, reduction=r), (A, B, C), True),
        f"multilabel_soft_margin_{_r}": (
            lambda T, a, r=_r: T.nn.functional.multilabel_soft_margin_loss(
                a, T.tensor((B > 0) * 1.0), weight=T.tensor(P[1]), reduction=r), (A,), True),
    })


@pytest.mark.parametrize("name", sorted(L_CASES))
def test_losses_match_torch(name: str) -> None:
    """(PyTorch has no second derivative of ``multi_margin_loss``.)"""
    f, arrays, second = L_CASES[name]
    skip = ("name",) if name.startswith("multi_margin") else ()
    _same(lambda T: _grads(T, f, *arrays, second=second), tol=1e-7, skip=skip)


LOSS_MODULES = [
    ("PoissonNLLLoss(full=True, log_input=False)", 2), ("GaussianNLLLoss(eps=0.1)", 3),
    ("TripletMarginLoss(margin=0.5, swap=True)", 3),
    ("CosineEmbeddingLoss(0.2, reduction='sum')", -3),
    ("HingeEmbeddingLoss(margin=0.3, reduction='none')", -2), ("MultiMarginLoss(p=2)", 0),
    ("MultiMarginLoss(weight=T.arange(5.0) + 1)", 0),
    ("MultiMarginLoss(weight=T.arange(5.0, dtype=T.float64) + 1, margin=2.0)", 0),
    ("MultiLabelSoftMarginLoss()", 1),
    ("MultiLabelSoftMarginLoss(weight=T.arange(5.0))", 1),
]


@pytest.mark.parametrize("src,kind", LOSS_MODULES)
def test_loss_modules_match_torch(src: str, kind: int) -> None:
    """``kind``: how many tensor arguments, negative for a trailing +-1 target, 0 for class
    indices, 1 for 0/1 labels."""
    def run(T: Any) -> dict[str, Any]:
        m = eval("T.nn." + src, {"T": T})  # noqa: S307 (a fixed constructor call)
        x = T.tensor(np.abs(A) + 0.5, requires_grad=True)
        if kind == 0:
            args = [x, T.tensor([0, 3, 4, 1])]
        elif kind == 1:
            args = [x, T.tensor((B > 0) * 1.0)]
        elif kind < 0:
            args = [x, T.tensor(B), T.tensor(Y)][:-kind - 1] + [T.tensor(Y if kind == -3
                                                                      else np.sign(B))]
        else:
            args = [x, T.tensor(np.abs(B)), T.tensor(P)][:kind]
        y = m(*args)
        y.sum().backward()
        return {"repr": repr(m), "keys": list(m.state_dict()), "y": y, "g": x.grad}

    _same(run)


# --- embedding_bag ----------------------------------------------------------------------------

WE = R.randn(10, 3)
IDX, OFFS = [1, 2, 4, 5, 4, 3, 2, 9, 0], [0, 2, 2, 5]
BAG_CASES: dict[str, Callable[..., Any]] = {}
for _mode in ("sum", "mean", "max"):
    BAG_CASES.update({
        f"1d_{_mode}": lambda T, w, m=_mode: T.nn.functional.embedding_bag(
            T.tensor(IDX), w, T.tensor(OFFS), mode=m),
        f"2d_padding_idx_{_mode}": lambda T, w, m=_mode: T.nn.functional.embedding_bag(
            T.tensor([[1, 2, 4], [4, 4, 2]]), w, mode=m, padding_idx=4),
        f"include_last_offset_{_mode}": lambda T, w, m=_mode: T.nn.functional.embedding_bag(
            T.tensor(IDX), w, T.tensor([*OFFS, 9]), mode=m, include_last_offset=True),
    })


@pytest.mark.parametrize("name", sorted(BAG_CASES))
def test_embedding_bag_matches_torch(name: str) -> None:
    _same(lambda T: _grads(T, BAG_CASES[name], WE), tol=1e-7, skip=("name",))


def test_embedding_bag_per_sample_weights_match_torch() -> None:
    psw = R.randn(9)

    def f(T: Any, w: Any, p: Any) -> Any:
        return T.nn.functional.embedding_bag(T.tensor(IDX), w, T.tensor(OFFS), mode="sum",
                                             per_sample_weights=p)

    _same(lambda T: _grads(T, f, WE, psw, second=False), tol=1e-7, skip=("name",))


# --- modules: initialisation, repr, state_dict, forward, backward ------------------------------

MODULES = {
    "GroupNorm(2, 4)": (2, 4, 3, 3), "GroupNorm(3, 6, eps=1e-3, affine=False)": (2, 6, 5),
    "GroupNorm(2, 4, bias=False)": (2, 4, 3),
    "InstanceNorm1d(4)": (2, 4, 5),
    "InstanceNorm1d(4, affine=True, track_running_stats=True)": (2, 4, 5),
    "InstanceNorm2d(3, momentum=0.3, track_running_stats=True)": (2, 3, 4, 4),
    "InstanceNorm2d(3, affine=True)": (3, 4, 4),
    "InstanceNorm3d(2, affine=True, track_running_stats=True)": (2, 2, 3, 2, 3),
    "InstanceNorm3d(2)": (2, 3, 2, 2),
    "RMSNorm(5)": (2, 3, 5), "RMSNorm((3, 5), eps=1e-4, elementwise_affine=False)": (2, 3, 5),
    "Upsample(scale_factor=2)": (1, 2, 3, 3),
    "Upsample(size=(5, 4), mode='bilinear', align_corners=True)": (1, 2, 3, 3),
    "Upsample(scale_factor=(1.5, 2.0), mode='bilinear')": (1, 2, 3, 3),
    "Upsample(size=7, mode='linear')": (1, 2, 3),
    "Upsample(scale_factor=1.5, mode='bicubic', align_corners=True)": (1, 2, 4, 4),
    "Upsample(scale_factor=(1.0, 2.0, 1.5), mode='trilinear')": (1, 2, 2, 3, 2),
    "UpsamplingNearest2d(scale_factor=3)": (1, 1, 2, 2),
    "UpsamplingBilinear2d(size=(4, 5))": (1, 1, 2, 3),
    "PixelShuffle(2)": (1, 8, 2, 3), "PixelUnshuffle(2)": (1, 2, 4, 6),
    "ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)": (2, 4, 5),
    "ConvTranspose2d(3, 2, (3, 2), stride=(2, 1), dilation=(1, 2), bias=False)": (2, 3, 4, 4),
    "ConvTranspose2d(2, 4, 3)": (2, 4, 4),
    "ConvTranspose2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))": (1, 16, 5, 6),
    "ZeroPad1d((1, 2))": (2, 3), "ZeroPad2d(1)": (1, 2, 3, 3),
    "ConstantPad1d(2, 3.5)": (1, 2, 3), "ConstantPad2d((1, 0, 2, 1), -1.0)": (1, 2, 3),
    "ReflectionPad1d(2)": (1, 2, 4), "ReflectionPad2d((1, 2, 0, 1))": (1, 2, 3, 4),
    "ReplicationPad1d((3, 1))": (2, 3), "ReplicationPad2d(2)": (1, 1, 3, 3),
    "CircularPad1d((1, 2))": (2, 3, 4), "CircularPad2d(1)": (1, 2, 3, 3),
    "CircularPad3d((1, 0, 1, 1, 0, 2))": (1, 1, 3, 3, 3), "ConstantPad3d(1, 2.0)": (1, 2, 2, 2),
    "ZeroPad3d((1, 0, 0, 1, 2, 0))": (1, 1, 2, 2, 2), "ReflectionPad3d(1)": (1, 1, 3, 3, 3),
    "ReplicationPad3d((2, 0, 1, 0, 0, 1))": (1, 2, 2, 2, 2),
    "GLU()": (3, 4), "GLU(dim=0)": (4, 3),
    "LPPool1d(4, 2)": (2, 3, 6), "LPPool2d(2, 2, stride=1)": (1, 2, 4, 5),
    "Dropout1d(0.4)": (4, 6, 5), "Dropout2d(0.3)": (3, 5, 2, 2), "Dropout1d()": (6, 3),
    "Unfold((2, 3), padding=1, stride=2)": (1, 2, 5, 5), "Fold((4, 5), 2)": (2, 8, 12),
}


def _module_run(T: Any, src: str, shape: tuple[int, ...]) -> dict[str, Any]:
    T.manual_seed(11)
    m = eval("T.nn." + src, {"T": T})  # noqa: S307 (a fixed constructor call)
    x = T.randn(*shape, requires_grad=True)
    y = m(x)
    (y * y).sum().backward()
    out: dict[str, Any] = {"repr": repr(m), "keys": list(m.state_dict()), "y": y, "gx": x.grad,
                           "name": type(y.grad_fn).__name__}
    for k, v in m.state_dict().items():
        out["state." + k] = v.double()
    for k, p in m.named_parameters():
        out["grad." + k] = p.grad
        out["bits." + k] = p.detach().numpy().tobytes()  # bit for bit
    m.eval()
    out["eval"] = m(x)
    return out


@pytest.mark.parametrize("src", sorted(MODULES))
def test_modules_match_torch(src: str) -> None:
    skip = ("name",) if src.startswith(("GroupNorm", "GLU")) else ()
    _same(lambda T: _module_run(T, src, MODULES[src]), tol=2e-6, skip=skip)


def test_distance_modules_match_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        a, b, c = (T.tensor(v, requires_grad=True) for v in (A, B, C))
        mods = [T.nn.PairwiseDistance(), T.nn.PairwiseDistance(p=1.0, keepdim=True),
                T.nn.CosineSimilarity(dim=0), T.nn.TripletMarginWithDistanceLoss(swap=True),
                T.nn.TripletMarginWithDistanceLoss(distance_function=T.nn.PairwiseDistance(3),
                                                   margin=2.0, reduction="none")]
        out: dict[str, Any] = {}
        for i, m in enumerate(mods):
            y = m(a, b, c) if i >= 3 else m(a, b)
            out[f"repr{i}"], out[f"y{i}"] = repr(m), y
            out[f"keys{i}"] = list(m.state_dict())
        sum(out[f"y{i}"].sum() for i in range(5)).backward()
        out.update({"ga": a.grad, "gb": b.grad, "gc": c.grad})
        out["bad"] = _run(T, lambda T: T.nn.TripletMarginWithDistanceLoss(margin=-1.0))
        out["bad_f"] = _run(T, lambda T: T.nn.functional.triplet_margin_with_distance_loss(
            a, b[0], c))
        return out

    _same(run)


def test_conv_transpose_graph_matches_torch() -> None:
    """One ``ConvolutionBackward0`` over (input, weight, bias), saving ``transposed=True``.
    (Its ``create_graph`` backward records ``ConvolutionBackward0`` for the input's gradient
    where PyTorch records ``ConvolutionBackwardBackward0``: values only.)"""
    def run(T: Any) -> dict[str, Any]:
        x = T.tensor(X4, requires_grad=True)
        w = T.tensor(WT, requires_grad=True)
        b = T.tensor(np.arange(3.0), requires_grad=True)
        y = T.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
        node = y.grad_fn
        gx, gw = T.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return {"edges": [type(f).__name__ for f, _ in node.next_functions],
                "transposed": node._saved_transposed, "stride": node._saved_stride,
                "output_padding": node._saved_output_padding, "padding": node._saved_padding,
                "gx_value": gx, "gw_value": gw}

    _same(run)


def test_bilinear_module_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(5)
        m = T.nn.Bilinear(3, 4, 2)
        a, b = T.randn(5, 3), T.randn(5, 4)
        y = m(a, b)
        y.sum().backward()
        return {"repr": repr(m), "y": y, "gw": m.weight.grad, "gb": m.bias.grad,
                "bits": m.weight.detach().numpy().tobytes() + m.bias.detach().numpy().tobytes(),
                "keys": list(m.state_dict()), "name": type(y.grad_fn).__name__}

    _same(run, tol=2e-6)


def test_embedding_bag_module_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(5)
        m = T.nn.EmbeddingBag(5, 3, mode="sum", padding_idx=2)  # (15 draws: bit for bit)
        y = m(T.tensor([1, 2, 3, 4, 2]), T.tensor([0, 3]))
        y.sum().backward()
        return {"repr": repr(m), "w": m.weight, "bits": m.weight.detach().numpy().tobytes(),
                "y": y, "g": m.weight.grad, "keys": list(m.state_dict()),
                "repr2": repr(T.nn.EmbeddingBag(4, 2, max_norm=1.0, mode="max"))}

    _same(run)


def test_embedding_bag_from_pretrained_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        table = T.tensor(WE)
        frozen = T.nn.EmbeddingBag.from_pretrained(table, mode="max", padding_idx=1)
        free = T.nn.EmbeddingBag.from_pretrained(table, freeze=False, include_last_offset=True)
        y = free(T.tensor([1, 2, 3, 9]), T.tensor([0, 1, 4]))
        y.sum().backward()
        return {"r1": repr(frozen), "r2": repr(free), "rg": frozen.weight.requires_grad,
                "y1": frozen(T.tensor([[1, 2], [1, 1]])), "y2": y, "g": free.weight.grad}

    _same(run)


def test_instance_norm_running_stats_match_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(2)
        m = T.nn.InstanceNorm1d(3, track_running_stats=True, momentum=None)
        for _ in range(3):
            m(T.randn(4, 3, 6) * 2 + 1)
        out = {"rm": m.running_mean, "rv": m.running_var, "n": m.num_batches_tracked}
        m.eval()
        out["eval"] = m(T.randn(2, 3, 6))
        return out

    _same(run)


def test_get_submodule_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        net = T.nn.Sequential(T.nn.Conv2d(1, 2, 3),
                              T.nn.Sequential(T.nn.ReLU(), T.nn.GroupNorm(1, 2)))
        out = {"deep": repr(net.get_submodule("1.1")), "self": net.get_submodule("") is net,
               "first": repr(net.get_submodule("0"))}
        for bad in ("2", "0.weight", "1.0.x"):
            out[bad] = _run(T, lambda T, b=bad: net.get_submodule(b))
        return out

    _same(run)


# --- nn.utils.rnn -----------------------------------------------------------------------------

S1, S2, S3, S4 = R.randn(4, 3), R.randn(2, 3), R.randn(3, 3), R.randn(4, 3)


@pytest.mark.parametrize("enforce", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_matches_torch(enforce: bool, batch_first: bool) -> None:
    def run(T: Any) -> dict[str, Any]:
        U = T.nn.utils.rnn
        xs = [T.tensor(s, requires_grad=True) for s in (S1, S2, S3)]
        seqs = [xs[i] for i in ([0, 2, 1] if enforce else [1, 0, 2])]
        padded = U.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.0)
        p = U.pack_padded_sequence(padded, [s.shape[0] for s in seqs],
                                   batch_first=batch_first, enforce_sorted=enforce)
        back, lens = U.pad_packed_sequence(p, batch_first=batch_first, padding_value=2.0,
                                           total_length=5)
        (back * T.arange(back.numel(), dtype=back.dtype).reshape(back.shape).cos()).sum() \
            .backward()
        out = {"padded": padded, "data": p.data, "batch_sizes": p.batch_sizes,
               "sorted": str(p.sorted_indices), "unsorted": str(p.unsorted_indices),
               "back": back, "lengths": lens, "left": U.pad_sequence(seqs, padding_side="left")}
        out.update({f"grad{i}": x.grad for i, x in enumerate(xs)})
        out.update({f"unpacked{i}": u for i, u in enumerate(U.unpack_sequence(p))})
        return out

    _same(run)


PACKED_LAYERS = [
    ("RNN", {}), ("GRU", {}), ("LSTM", {}),
    ("RNN", {"nonlinearity": "relu", "bias": False}), ("LSTM", {"proj_size": 2}),
    ("GRU", {"dropout": 0.5}),  # (evaluation mode: no dropout)
]


@pytest.mark.parametrize("kind,extra", PACKED_LAYERS)
@pytest.mark.parametrize("batch_first,bidirectional,with_hx,enforce", [
    (False, False, False, False), (True, True, True, False), (False, True, True, True)])
def test_packed_sequence_through_rnn_matches_torch(kind: str, extra: dict[str, Any],
                                                   batch_first: bool, bidirectional: bool,
                                                   with_hx: bool, enforce: bool) -> None:
    rs = np.random.RandomState(1)
    real = extra.get("proj_size", 4)
    h_start = rs.randn(4 if bidirectional else 2, 4, real)
    c_start = rs.randn(4 if bidirectional else 2, 4, 4)

    def run(T: Any) -> dict[str, Any]:
        U = T.nn.utils.rnn
        T.manual_seed(0)
        m = getattr(T.nn, kind)(3, 4, num_layers=2, batch_first=batch_first,
                                bidirectional=bidirectional, **extra).double()
        m.eval()
        order = (S1, S4, S3, S2) if enforce else (S2, S1, S3, S4)  # (two of length 4)
        xs = [T.tensor(s, requires_grad=True) for s in order]
        p = U.pack_sequence(xs, enforce_sorted=enforce)
        h0: Any = None
        if with_hx:
            h = T.tensor(h_start, requires_grad=True)
            h0 = (h, T.tensor(c_start)) if kind == "LSTM" else h
        out, hn = m(p, h0)
        padded, lens = U.pad_packed_sequence(out, batch_first=batch_first)
        hn = hn[0].sum() + hn[1].sum() if kind == "LSTM" else hn
        ((padded ** 2).sum() + (hn ** 3).sum()).backward()
        res = {"data": out.data, "padded": padded, "hn": hn, "batch_sizes": out.batch_sizes,
               "lengths": lens, "sorted": str(out.sorted_indices)}
        res.update({f"grad{i}": x.grad for i, x in enumerate(xs)})
        res.update({n: q.grad for n, q in m.named_parameters()})
        return res

    _same(run, tol=1e-9)


def test_packed_dropout_between_layers_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(0)
        m = T.nn.GRU(3, 4, num_layers=3, dropout=0.5).double()
        xs = [T.tensor(s) for s in (S2, S1, S3)]
        out, h = m(T.nn.utils.rnn.pack_sequence(xs, enforce_sorted=False))
        return {"data": out.data, "h": h}

    _same(run, tol=1e-9)


def test_packed_float32_lstm_matches_torch() -> None:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(0)
        m = T.nn.LSTM(3, 5)
        xs = [T.tensor(s, dtype=T.float32) for s in (S2, S1, S3)]
        out, (h, c) = m(T.nn.utils.rnn.pack_sequence(xs, enforce_sorted=False))
        (out.data.sum() + h.sum() + c.sum()).backward()
        return {"data": out.data, "h": h, "c": c, "g": m.weight_hh_l0.grad}

    _same(run, tol=2e-6)


# --- argument errors --------------------------------------------------------------------------

ERRORS = [
    "F.group_norm(T.ones(2, 3, 4), 2)", "F.group_norm(T.ones(3), 1)",
    "F.group_norm(T.ones(1, 2), 2)", "F.group_norm(T.ones(2, 4, 3), 2, T.ones(3))",
    "nn.GroupNorm(2, 3)", "F.instance_norm(T.ones(2, 3, 1))",
    "nn.InstanceNorm1d(3)(T.ones(2, 3, 4, 5))",
    "nn.InstanceNorm2d(3, affine=True)(T.ones(2, 4, 4, 5))",
    "F.rms_norm(T.ones(2, 3), (4,))", "F.rms_norm(T.ones(2, 3), 3)",
    "F.rms_norm(T.ones(2, 3), (4, 5))",
    "F.interpolate(T.ones(1, 1, 4), scale_factor=2, size=3)", "F.interpolate(T.ones(1, 1, 4))",
    "F.interpolate(T.ones(1, 1, 4), scale_factor=2, mode='nearest', align_corners=True)",
    "F.interpolate(T.ones(1, 1, 4), scale_factor=2, mode='bilinear')",
    "F.interpolate(T.ones(1, 1, 4, 4), scale_factor=2, mode='linear')",
    "F.interpolate(T.ones(1, 1, 4, 4), size=(2, 3, 4))",
    "F.interpolate(T.ones(1, 1, 4, 4), scale_factor=(2, 3, 4))",
    "F.interpolate(T.ones(4, 4), scale_factor=2)",
    "F.interpolate(T.ones(1, 1, 2, 2, 2), scale_factor=2, mode='bilinear')",
    "F.interpolate(T.ones(1, 1, 2), scale_factor=2, mode='bicubic')",
    "F.interpolate(T.ones(1, 1, 2), scale_factor=2, mode='cubic')",
    "F.interpolate(T.ones(1, 1, 2), scale_factor=0.2, mode='linear')",
    "F.interpolate(T.ones(1, 1, 2, 2), scale_factor=0.2, mode='bicubic')",
    "F.interpolate(T.ones(1, 1, 2, 2, 2), scale_factor=0.2)",
    "F.interpolate(T.ones(1, 1, 2, 2), scale_factor=2, mode='trilinear')",
    "F.interpolate(T.ones(1, 1, 2, 2), scale_factor=2, antialias=True)",
    "F.pixel_shuffle(T.ones(1, 5, 2, 2), 2)", "F.pixel_shuffle(T.ones(5, 2), 2)",
    "F.pixel_unshuffle(T.ones(1, 1, 3, 4), 2)", "F.pixel_unshuffle(T.ones(1, 1, 4, 3), 2)",
    "F.conv_transpose2d(T.ones(1, 3, 4, 4), T.ones(4, 2, 3, 3))",
    "F.conv_transpose2d(T.ones(1, 4, 4, 4), T.ones(4, 2, 3, 3), output_padding=1)",
    "F.conv_transpose1d(T.ones(1, 4, 4), T.ones(4, 2, 3), T.ones(3))",
    "F.conv_transpose2d(T.ones(4, 4), T.ones(4, 2, 3, 3))",
    "F.conv_transpose2d(T.ones(1, 2, 3, 3, dtype=T.float64), T.ones(2, 3, 2, 2))",
    "nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect')", "nn.ConvTranspose2d(3, 4, 3, groups=2)",
    "nn.ConvTranspose2d(2, 2, 3, stride=2)(T.ones(1, 2, 3, 3), output_size=(9, 9))",
    "nn.ConvTranspose2d(2, 2, 3, stride=2)(T.ones(1, 2, 3, 3), output_size=(8, 7)).shape",
    "F.glu(T.ones(3, 5), 1)", "F.glu(T.tensor(1.))",
    "F.bilinear(T.ones(2, 3), T.ones(2, 4), T.ones(5, 3, 3))",
    "F.bilinear(T.ones(2, 3), T.ones(3, 4), T.ones(5, 3, 4))",
    "F.bilinear(T.ones(2, 3, 1), T.ones(2, 4), T.ones(5, 3, 4))",
    "F.dropout1d(T.ones(2, 3, 4, 5))", "nn.Dropout2d(1.5)", "nn.ZeroPad2d((1, 2, 3))",
    "nn.ReflectionPad1d(3)(T.ones(1, 2, 3))",
    "F.poisson_nll_loss(T.ones(3), T.ones(3), reduction='avg')",
    "F.gaussian_nll_loss(T.ones(3, 2), T.ones(3, 2), T.ones(2))",
    "F.gaussian_nll_loss(T.ones(3), T.ones(3), -T.ones(3))",
    "F.triplet_margin_loss(T.ones(3, 2), T.ones(2), T.ones(3, 2))",
    "nn.TripletMarginLoss(margin=0.0)",
    "F.cosine_embedding_loss(T.ones(3, 2), T.ones(3, 2), T.ones(3, 1))",
    "F.cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(3))",
    "F.multi_margin_loss(T.ones(3, 2), T.tensor([0, 1, 2]))",
    "F.multi_margin_loss(T.ones(3, 2), T.tensor([0, 1, 1]), p=3)",
    "F.multi_margin_loss(T.ones(3, 2), T.tensor([0, 1]))",
    "F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2))",
    "F.embedding_bag(T.tensor([[1, 2]]), T.ones(3, 2), T.tensor([0]))",
    "F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]), mode='median')",
    "F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]), mode='mean', "
    "per_sample_weights=T.ones(2))",
    "F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]), mode='max', "
    "scale_grad_by_freq=True)",
    "F.embedding_bag(T.tensor([1, 5]), T.ones(3, 2), T.tensor([0]))",
    "F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([1]))",
    "F.unfold(T.ones(1, 1, 2, 2), 3)", "F.unfold(T.ones(2, 2), 1)",
    "F.unfold(T.ones(1, 1, 1, 2, 2), 1)", "F.fold(T.ones(1, 5, 4), (3, 3), 2)",
    "F.fold(T.ones(1, 4, 5), (3, 3), 2)", "F.fold(T.ones(4), (2, 2), 1)",
    "U.pack_padded_sequence(T.ones(3, 2, 1), [2, 3])",
    "U.pack_padded_sequence(T.ones(3, 2, 1), [3, 0])",
    "U.pad_packed_sequence(U.pack_sequence([T.ones(3), T.ones(2)]), total_length=2)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code: str) -> None:
    def run(T: Any) -> dict[str, Any]:
        scope = {"T": T, "F": T.nn.functional, "nn": T.nn, "U": T.nn.utils.rnn}
        return {"repr": repr(eval(code, scope))}  # noqa: S307 (fixed test code)

    _same(run)
