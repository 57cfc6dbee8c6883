"""Activations, losses, embedding, padding, distances and containers against PyTorch.

Each case runs the same call on both libraries (``lib`` is ``st_autodiff`` or ``torch``)
with the same inputs, in float32 and float64, and compares the value, the gradient of
every input, the node name (and the names of the nodes it leads to), and the second
derivative (a ``create_graph`` gradient differentiated again).  Modules are compared on
their default initialisation under the same seed, reprs, ``state_dict`` keys, error
messages and warnings.  Skipped where torch is not installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

LIBS = (st_autodiff, torch)
_rng = np.random.default_rng(21)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def unit(*shape: int) -> np.ndarray:
    return _rng.uniform(0.05, 0.95, shape)


def grid(*shape: int) -> np.ndarray:
    """Values on a grid of halves, so that kinks (0, +-1, +-3, +-6 ...) are hit exactly."""
    return (np.arange(int(np.prod(shape))) % 17 - 8).reshape(shape) * 0.5


def L(lib: Any, values: Any) -> Any:  # noqa: N802 (a class-index target)
    return lib.tensor(values, dtype=lib.int64)


CASES: list[tuple[str, Callable[..., Any], tuple]] = []


def case(name: str, fn: Callable[..., Any], *inputs: np.ndarray) -> None:
    CASES.append((name, fn, inputs))


_ACTS: dict[str, Callable[..., Any]] = {
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda lib, x: lib.nn.functional.silu(x),
    "mish": lambda lib, x: lib.nn.functional.mish(x),
    "elu": lambda lib, x: lib.nn.functional.elu(x, 0.7),
    "selu": lambda lib, x: lib.nn.functional.selu(x),
    "celu": lambda lib, x: lib.nn.functional.celu(x, 1.5),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
    "softplus beta threshold": lambda lib, x: lib.nn.functional.softplus(x, 2.0, 3.0),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x, -2.0, 1.5),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x * 2),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.5, -2.0),
    "softshrink": lambda lib, x: lib.nn.functional.softshrink(x, 1.0),
    "hardshrink": lambda lib, x: lib.nn.functional.hardshrink(x, 1.0),
    "hardsigmoid": lambda lib, x: lib.nn.functional.hardsigmoid(x),
    "hardswish": lambda lib, x: lib.nn.functional.hardswish(x),
    "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    "softsign": lambda lib, x: lib.nn.functional.softsign(x),
    "tanhshrink": lambda lib, x: lib.nn.functional.tanhshrink(x),
    "softmin": lambda lib, x: lib.nn.functional.softmin(x, dim=1),
    "log_softmax dim 0": lambda lib, x: lib.nn.functional.log_softmax(x, dim=0),
    "softmax dim -1": lambda lib, x: lib.nn.Softmax(dim=-1)(x),
}
for _name, _fn in _ACTS.items():
    case(_name, _fn, grid(4, 5))
    case(f"{_name} random", _fn, normal(3, 4) * 3)
case("prelu shared", lambda lib, x, w: lib.nn.functional.prelu(x, w), grid(2, 3, 2), unit(1))
case("prelu per channel", lambda lib, x, w: lib.nn.functional.prelu(x, w), grid(2, 3, 2),
     normal(3))
case("prelu vector", lambda lib, x, w: lib.nn.functional.prelu(x, w), grid(5), unit(1))

for _r in ("mean", "sum", "none"):
    case(f"binary_cross_entropy {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.binary_cross_entropy(x, t, reduction=r), unit(3, 4), unit(3, 4))
    case(f"binary_cross_entropy weight {_r}", lambda lib, x, t, w, r=_r:
         lib.nn.functional.binary_cross_entropy(x, t, weight=w.detach(), reduction=r),
         unit(3, 4), unit(3, 4), unit(4))
    case(f"smooth_l1_loss {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.smooth_l1_loss(x, t, reduction=r, beta=0.5), grid(3, 4),
         normal(3, 4))
    case(f"smooth_l1_loss beta 0 {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.smooth_l1_loss(x, t, reduction=r, beta=0.0), normal(3, 4),
         normal(3, 4))
    case(f"huber_loss {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.huber_loss(x, t, reduction=r, delta=0.5), grid(3, 4), normal(3, 4))
    case(f"huber_loss weight {_r}", lambda lib, x, t, w, r=_r:
         lib.nn.functional.huber_loss(x, t, reduction=r, weight=w), normal(3, 4) * 2,
         normal(3, 4), unit(3, 4))
    for _red in (_r, "batchmean"):
        case(f"kl_div {_red}", lambda lib, x, t, r=_red:
             lib.nn.functional.kl_div(x, t, reduction=r), normal(3, 4), unit(3, 4))
        case(f"kl_div log_target {_red}", lambda lib, x, t, r=_red:
             lib.nn.functional.kl_div(x, t, reduction=r, log_target=True), normal(3, 4),
             normal(3, 4))
    case(f"nll_loss 1-d {_r}", lambda lib, x, r=_r:
         lib.nn.functional.nll_loss(x, L(lib, 2), reduction=r), normal(4))
    case(f"nll_loss 3-d {_r}", lambda lib, x, r=_r:
         lib.nn.functional.nll_loss(x, L(lib, [[0, 2], [1, -100]]), reduction=r),
         normal(2, 3, 2))
    case(f"nll_loss 4-d weight {_r}", lambda lib, x, w, r=_r:
         lib.nn.functional.nll_loss(x, L(lib, [[[0, 2], [1, 1]]]), weight=w.detach(),
                                    reduction=r), normal(1, 3, 2, 2), unit(3))
    case(f"nll_loss 5-d {_r}", lambda lib, x, r=_r:
         lib.nn.functional.nll_loss(x, L(lib, [[[[0, 1]], [[2, 2]]]]), reduction=r),
         normal(1, 3, 2, 1, 2))
    case(f"cross_entropy 3-d smoothing {_r}", lambda lib, x, r=_r:
         lib.nn.functional.cross_entropy(x, L(lib, [[0, 2], [1, 1]]), reduction=r,
                                         label_smoothing=0.1), normal(2, 3, 2))
    case(f"cross_entropy probabilities {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.cross_entropy(x, t, reduction=r), normal(2, 3),
         unit(2, 3))
    case(f"mse_loss {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.mse_loss(x, t, reduction=r), normal(2, 3), normal(2, 3))
    case(f"l1_loss {_r}", lambda lib, x, t, r=_r:
         lib.nn.functional.l1_loss(x, t, reduction=r), normal(2, 3), normal(2, 3))

# in-place forms (on a non-leaf copy): PyTorch records some from their result (...Backward1)
_INPLACE = {
    "elu_": lambda F, t: F.elu(t, 0.5, inplace=True),
    "selu_": lambda F, t: F.selu(t, inplace=True),
    "celu_": lambda F, t: F.celu(t, 2.0, inplace=True),
    "leaky_relu_": lambda F, t: F.leaky_relu(t, 0.3, inplace=True),
    "threshold_": lambda F, t: F.threshold(t, 0.5, -1.0, inplace=True),
    "hardtanh_": lambda F, t: F.hardtanh(t, -1.5, 2.0, inplace=True),
    "relu6_": lambda F, t: F.relu6(t * 3, inplace=True),
    "silu_": lambda F, t: F.silu(t, inplace=True),
    "mish_": lambda F, t: F.mish(t, inplace=True),
    "hardswish_": lambda F, t: F.hardswish(t, inplace=True),
    "hardsigmoid_": lambda F, t: F.hardsigmoid(t, inplace=True),
}
for _name, _fn in _INPLACE.items():
    case(f"inplace {_name}", lambda lib, x, f=_fn: f(lib.nn.functional, x * 1.0), grid(3, 5))
case("cross_entropy 4-d weight ignore_index smoothing", lambda lib, x, w:
     lib.nn.functional.cross_entropy(x, L(lib, [[[0, 2], [-1, 1]], [[1, 1], [2, -1]]]),
                                     weight=w.detach(), ignore_index=-1, label_smoothing=0.2),
     normal(2, 3, 2, 2), unit(3))
case("cross_entropy probabilities 3-d weight smoothing", lambda lib, x, t, w:
     lib.nn.functional.cross_entropy(x, t, weight=w.detach(), label_smoothing=0.3),
     normal(2, 3, 4), unit(2, 3, 4), unit(3))
case("CrossEntropyLoss sum", lambda lib, x: lib.nn.CrossEntropyLoss(reduction="sum")(
    x, L(lib, [2, 0, 1])), normal(3, 4))
case("BCELoss weight", lambda lib, x, t: lib.nn.BCELoss(weight=lib.tensor(
    [0.5, 2.0, 1.0], dtype=x.dtype))(x, t), unit(2, 3), unit(2, 3))
case("NLLLoss weight ignore_index", lambda lib, x: lib.nn.NLLLoss(weight=lib.tensor(
    [0.5, 2.0, 1.0], dtype=x.dtype), ignore_index=1)(x, L(lib, [1, 0, 2, 2])), normal(4, 3))
case("HuberLoss none", lambda lib, x, t: lib.nn.HuberLoss("none", 2.0)(x, t), normal(2, 3) * 3,
     normal(2, 3))
case("SmoothL1Loss sum", lambda lib, x, t: lib.nn.SmoothL1Loss(reduction="sum", beta=2.0)(x, t),
     normal(2, 3) * 3, normal(2, 3))
case("KLDivLoss log_target", lambda lib, x, t: lib.nn.KLDivLoss("batchmean", log_target=True)(
    x, t), normal(2, 3), normal(2, 3))
case("BCEWithLogitsLoss pos_weight 3-d", lambda lib, x, t: lib.nn.BCEWithLogitsLoss(
    pos_weight=lib.tensor([[1.5], [0.5]], dtype=x.dtype))(x, t), normal(3, 2, 4), unit(3, 2, 4))

_PM = np.array([1.0, -1.0, 1.0, -1.0])
for _r in ("mean", "sum", "none"):
    case(f"soft_margin_loss {_r}", lambda lib, x, r=_r: lib.nn.functional.soft_margin_loss(
        x, lib.tensor(_PM, dtype=x.dtype).expand(3, 4), reduction=r), normal(3, 4) * 2)
    case(f"margin_ranking_loss {_r}", lambda lib, a, b, r=_r:
         lib.nn.functional.margin_ranking_loss(a, b, lib.tensor(_PM, dtype=a.dtype), 0.3,
                                               reduction=r), normal(4), normal(4))
case("SoftMarginLoss", lambda lib, x: lib.nn.SoftMarginLoss()(x, lib.ones(2, 3, dtype=x.dtype)),
     normal(2, 3))
case("MarginRankingLoss", lambda lib, a, b: lib.nn.MarginRankingLoss(margin=0.5)(
    a, b, lib.tensor(_PM, dtype=a.dtype)), normal(4), normal(4))

_IDX = [[0, 2, 3], [3, 3, 1]]
case("embedding", lambda lib, w: lib.nn.functional.embedding(L(lib, _IDX), w), normal(5, 3))
case("embedding padding_idx", lambda lib, w:
     lib.nn.functional.embedding(L(lib, _IDX), w, padding_idx=3), normal(5, 3))
case("embedding scale_grad_by_freq", lambda lib, w:
     lib.nn.functional.embedding(L(lib, _IDX), w, scale_grad_by_freq=True, padding_idx=-5),
     normal(5, 3))
case("pad", lambda lib, x: lib.nn.functional.pad(x, (1, 2, 0, 1), value=0.5), normal(2, 3))
case("pad negative", lambda lib, x: lib.nn.functional.pad(x, [-1, 2, 1, -1]), normal(3, 4))
case("pad 3-d last dim", lambda lib, x: lib.nn.functional.pad(x, (2, 0)), normal(2, 2, 2))
for _mode in ("reflect", "replicate", "circular"):
    case(f"pad {_mode} 1-d", lambda lib, x, m=_mode: lib.nn.functional.pad(x, (2, 1), mode=m),
         normal(2, 3, 4))
    case(f"pad {_mode} 2-d", lambda lib, x, m=_mode: lib.nn.functional.pad(x, (1, 2, 2, 0), m),
         normal(1, 2, 3, 4))
    case(f"pad {_mode} 3-d unbatched", lambda lib, x, m=_mode:
         lib.nn.functional.pad(x, (1, 1, 0, 1, 1, 0), mode=m), normal(2, 2, 3, 3))
    case(f"pad {_mode} negative", lambda lib, x, m=_mode:
         lib.nn.functional.pad(x, (-1, 2), mode=m), normal(2, 3, 4))
case("cosine_similarity", lambda lib, a, b: lib.nn.functional.cosine_similarity(a, b),
     normal(3, 4), normal(3, 4))
case("cosine_similarity broadcast", lambda lib, a, b:
     lib.nn.functional.cosine_similarity(a, b, dim=0), normal(3, 4), normal(3, 1))
case("pairwise_distance", lambda lib, a, b: lib.nn.functional.pairwise_distance(a, b),
     normal(3, 4), normal(3, 4))
case("pairwise_distance p=3 keepdim", lambda lib, a, b:
     lib.nn.functional.pairwise_distance(a, b, p=3.0, keepdim=True), normal(3, 4),
     normal(3, 4))
case("normalize", lambda lib, x: lib.nn.functional.normalize(x), normal(3, 4))
case("normalize p=1 dim 0", lambda lib, x: lib.nn.functional.normalize(x, p=1.0, dim=0),
     normal(3, 4))


def _names(fn: Any, depth: int = 3) -> Any:
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return [fn.name()] + [_names(f, depth - 1) for f, _ in fn.next_functions]


def _run(lib: Any, fn: Callable[..., Any], inputs: tuple, dtype: str) -> tuple:
    xs = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *xs)
    g = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)),
                   dtype=getattr(lib, dtype))
    grads = lib.autograd.grad(out, xs, g, create_graph=True, allow_unused=True,
                              materialize_grads=True)
    live = [gr for gr in grads if gr.requires_grad]
    second = None
    if live and dtype == "float64":
        h = [lib.ones_like(gr) for gr in live]
        try:
            second = lib.autograd.grad(live, xs, h, allow_unused=True, materialize_grads=True)
        except RuntimeError as exc:  # torch has no second derivative of hardsigmoid
            if lib is st_autodiff or "is not implemented" not in str(exc):
                raise
    return out, grads, second, _names(out.grad_fn)


def _np(t: Any) -> np.ndarray:
    if getattr(t, "_is_zerotensor", lambda: False)():  # torch's symbolic zero gradient
        return np.zeros(tuple(t.shape))
    return t.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(len(CASES)), ids=[c[0] for c in CASES])
def test_matches_torch(k: int, dtype: str) -> None:
    name, fn, inputs = CASES[k]
    ours, theirs = (_run(lib, fn, inputs, dtype) for lib in LIBS)
    rtol, atol = (1e-5, 2e-6) if dtype == "float32" else (1e-10, 1e-12)
    assert str(ours[0].dtype) == str(theirs[0].dtype)
    assert tuple(ours[0].shape) == tuple(theirs[0].shape)
    np.testing.assert_allclose(_np(ours[0]), _np(theirs[0]), rtol=rtol, atol=atol)
    for a, b in zip(ours[1], theirs[1], strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)
    assert ours[3] == theirs[3]
    if theirs[2] is not None:
        # where the first gradient does not depend on the inputs, PyTorch still records it
        # (its second derivative is zero) and the runtime does not (as for relu and abs)
        zeros = [np.zeros_like(_np(b)) for b in theirs[2]]
        for a, b in zip(zeros if ours[2] is None else ours[2], theirs[2], strict=True):
            scale = max(1.0, float(np.max(np.abs(_np(b)), initial=0.0)))
            np.testing.assert_allclose(a if ours[2] is None else _np(a), _np(b), rtol=1e-8,
                                       atol=1e-10 * scale)


# --- modules ------------------------------------------------------------------------------------

def _build(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Flatten(), nn.Linear(6, 8), nn.GELU(), nn.Unflatten(1, (2, 4)), nn.PReLU(2),
        nn.Flatten(), nn.SiLU(), nn.ELU(0.5), nn.LeakyReLU(0.1), nn.Softplus(2.0), nn.Mish(),
        nn.Hardtanh(-2, 2), nn.ReLU6(), nn.Softsign(), nn.Tanhshrink(), nn.SELU(), nn.CELU(),
        nn.Hardswish(), nn.Hardsigmoid(), nn.LogSigmoid(), nn.Softshrink(0.01),
        nn.Hardshrink(0.001), nn.Threshold(-5.0, 0.0), nn.Identity(), nn.Linear(8, 3),
        nn.LogSoftmax(dim=1))


def test_model_of_every_module_matches_torch() -> None:
    results = []
    for lib in LIBS:
        lib.manual_seed(0)
        model = _build(lib)
        x = lib.tensor(normal(4, 2, 3) if lib is st_autodiff else results[0][0],
                       dtype=lib.float32)
        loss = lib.nn.NLLLoss()(model(x), L(lib, [0, 2, 1, 1]))
        loss.backward()
        grads = {n: p.grad.numpy() for n, p in model.named_parameters()}
        results.append((x.numpy(), loss.item(), grads, repr(model), list(model.state_dict())))
    ours, theirs = results
    assert abs(ours[1] - theirs[1]) < 1e-5
    assert ours[2].keys() == theirs[2].keys()
    for name in ours[2]:
        np.testing.assert_allclose(ours[2][name], theirs[2][name], rtol=1e-4, atol=1e-6)
    assert ours[3] == theirs[3] and ours[4] == theirs[4]


def test_embedding_module_matches_torch() -> None:
    results = []
    for lib in LIBS:
        lib.manual_seed(3)
        emb = lib.nn.Embedding(6, 4, padding_idx=2, max_norm=1.5)
        out = emb(L(lib, [[0, 2, 5], [5, 1, 2]]))
        (out * lib.arange(24.0).view(2, 3, 4)).sum().backward()
        results.append((emb.weight.detach().numpy().copy(), out.detach().numpy(),
                        emb.weight.grad.numpy(), repr(emb), type(out.grad_fn).__name__))
    for a, b in zip(*results, strict=True):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
        else:
            assert a == b
    pre = [lib.nn.Embedding.from_pretrained(lib.ones(3, 2), padding_idx=1) for lib in LIBS]
    assert repr(pre[0]) == repr(pre[1])
    assert pre[0].weight.requires_grad == pre[1].weight.requires_grad


def test_containers_match_torch() -> None:
    def build(lib: Any) -> Any:
        model = lib.nn.Module()
        model.blocks = lib.nn.ModuleDict({"b": lib.nn.Linear(2, 2), "a": lib.nn.PReLU()})
        model.plist = lib.nn.ParameterList([lib.ones(2), lib.zeros(1, 3)])
        model.pdict = lib.nn.ParameterDict({"z": lib.ones(1), "y": lib.ones(2, 2)})
        model.plist.append(lib.ones(4))
        model.pdict["x"] = lib.nn.Parameter(lib.ones(3), requires_grad=False)
        return model

    ours, theirs = (build(lib) for lib in LIBS)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.pdict.keys()) == list(theirs.pdict.keys())


def test_loss_modules_state_and_reprs_match_torch() -> None:
    def build(lib: Any) -> list:
        w = lib.ones(3)
        return [lib.nn.NLLLoss(weight=w), lib.nn.BCELoss(weight=w, reduction="sum"),
                lib.nn.SmoothL1Loss(beta=0.5), lib.nn.HuberLoss(delta=2.0),
                lib.nn.KLDivLoss(reduction="batchmean", log_target=True),
                lib.nn.CrossEntropyLoss(label_smoothing=0.1)]

    for ours, theirs in zip(*(build(lib) for lib in LIBS), strict=True):
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for attr in ("reduction", "beta", "delta", "log_target", "ignore_index",
                     "label_smoothing"):
            assert getattr(ours, attr, None) == getattr(theirs, attr, None), attr


ERRORS: list[Callable[[Any], Any]] = [
    lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate="x"),
    lambda lib: lib.nn.functional.elu(lib.tensor([1, 2])),
    lambda lib: lib.nn.functional.softplus(lib.tensor([1, 2])),
    lambda lib: lib.nn.functional.hardtanh(lib.ones(2), 1.0, -1.0),
    lambda lib: lib.nn.functional.prelu(lib.ones(2, 4), lib.ones(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(2, 3) * 0.5, lib.ones(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) * 2, lib.ones(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3).double()),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-0.5),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), delta=-1.0),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), reduction="avg"),
    lambda lib: lib.nn.functional.kl_div(lib.ones(3), lib.ones(3), reduction="avg"),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), weight=lib.ones(2)),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), reduction="avg",
                                             weight=lib.ones(3)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4), L(lib, [[0, 1, 2]])),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4), L(lib, [[0, 1, 2]] * 2)),
    lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3, 4), L(lib, [[0, 1, 2, 1]] * 3)),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3, 4), L(lib, [[0, 1, 2, 5]] * 2)),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([1, 2], dtype=lib.int32)),
    lambda lib: lib.nn.functional.soft_margin_loss(lib.ones(3), lib.ones(3, requires_grad=True)),
    lambda lib: lib.nn.functional.margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(1, 3)),
    lambda lib: lib.nn.functional.one_hot(L(lib, [1, 3]), 3),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3), (1,)),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3), (-2, -2)),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (4, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (0, 0, 3, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (5, 1), mode="circular"),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (-5, 1), mode="replicate"),
    lambda lib: lib.nn.functional.pad(lib.ones(4), (1, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 4), (1, 1), mode="reflect", value=2.0),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (1, 1, 1, 1, 1, 1), mode="replicate"),
    lambda lib: lib.nn.functional.embedding(L(lib, [3]), lib.ones(3, 2)),
    lambda lib: lib.nn.functional.embedding(L(lib, [-1]), lib.ones(3, 2)),
    lambda lib: lib.nn.functional.embedding(lib.ones(2), lib.ones(3, 2)),
    lambda lib: lib.nn.Embedding(3, 2, padding_idx=-4),
    lambda lib: lib.nn.Unflatten(1, 4),
    lambda lib: lib.nn.Unflatten(0, (2, 2))(lib.ones(3)),
    lambda lib: lib.nn.ModuleDict({"a": 3}),
    lambda lib: lib.nn.ModuleDict()["missing"],
    lambda lib: lib.nn.ParameterList()[2],
    lambda lib: lib.nn.Softmax2d()(lib.ones(2)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k: int) -> None:
    caught = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:  # noqa: PT011 (compared with torch below)
            ERRORS[k](lib)
        caught.append((type(info.value).__name__, str(info.value)))
    assert caught[0] == caught[1]


WARNS: list[Callable[[Any], Any]] = [
    lambda lib: lib.nn.functional.kl_div(lib.ones(2, 3), lib.ones(2, 3) / 3),
    lambda lib: lib.nn.KLDivLoss()(lib.ones(2, 3), lib.ones(2, 3) / 3),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(2, 3), lib.ones(3)),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(2, 3), lib.ones(1, 3)),
    lambda lib: lib.nn.functional.softmin(lib.ones(2, 3)),
    lambda lib: lib.nn.Softmin()(lib.ones(2, 3)),
    lambda lib: lib.nn.BCELoss(size_average=False)(lib.ones(2) / 2, lib.ones(2)),
    lambda lib: lib.nn.Softmax()(lib.ones(2, 3, 4)),
    lambda lib: lib.nn.LogSoftmax()(lib.ones(2, 3)),
    lambda lib: lib.nn.functional.softmax(lib.ones(3)),
]


@pytest.mark.parametrize("k", range(len(WARNS)))
def test_warnings_match_torch(k: int) -> None:
    seen = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            WARNS[k](lib)
        seen.append([(w.category.__name__, str(w.message)) for w in record])
    assert seen[0] == seen[1] and seen[0]


def _edge_calls(lib: Any) -> dict[str, Callable[[], Any]]:
    F = lib.nn.functional  # noqa: N806
    x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float32)
    p = lib.tensor(np.linspace(0.1, 0.9, 12).reshape(3, 4), dtype=lib.float32)
    return {
        "ce int32 target": lambda: F.cross_entropy(x, lib.tensor([0, 1, 2], dtype=lib.int32)),
        "ce float target wrong shape": lambda: F.cross_entropy(x, lib.ones(3)),
        "ce target oob": lambda: F.cross_entropy(x, L(lib, [0, 1, 7])),
        "nll uint8": lambda: F.nll_loss(x, lib.tensor([0, 1, 2], dtype=lib.uint8)),
        "huber long target": lambda: F.huber_loss(x, lib.ones(3, 4, dtype=lib.int64)),
        "huber f64 target": lambda: F.huber_loss(x, p.double()),
        "smooth_l1 f64 target": lambda: F.smooth_l1_loss(x, p.double()),
        "kl broadcast": lambda: F.kl_div(x, p[0], reduction="sum"),
        "bce 0-d": lambda: F.binary_cross_entropy(p[0, 0], p[0, 1]),
        "bce nan": lambda: F.binary_cross_entropy(p * float("nan"), p),
        "gelu half": lambda: F.gelu(x.half()).dtype,
        "softplus 0-d": lambda: F.softplus(lib.tensor(3.0)),
        "prelu 0-d": lambda: F.prelu(lib.tensor(-3.0), lib.tensor([0.5])),
        "prelu 2-d weight": lambda: F.prelu(x, lib.ones(1, 1)),
        "embedding 0-d": lambda: F.embedding(lib.tensor(1), x),
        "one_hot 2-d": lambda: F.one_hot(L(lib, [[0, 1], [2, 0]])),
        "pad int value": lambda: F.pad(lib.tensor([1, 2]), (1, 1), value=-1),
        "cosine 1-d": lambda: F.cosine_similarity(x[0], p[0], dim=0),
        "pairwise 1-d": lambda: F.pairwise_distance(x[0], p[0]),
        "hardshrink negative": lambda: F.hardshrink(x, -1.0),
        "softshrink negative": lambda: F.softshrink(x.double(), -1.0),
        "celu 0": lambda: F.celu(x, 0.0),
        "kl 0-d batchmean": lambda: F.kl_div(x[0, 0], p[0, 0], reduction="batchmean"),
        "embedding max_norm f64": lambda: F.embedding(L(lib, [0]),
                                                      lib.ones(2, 2, dtype=lib.float64) * 3,
                                                      max_norm=1.0),
        "Embedding negative padding_idx": lambda: lib.nn.Embedding(4, 2, padding_idx=-1),
        "leaky_relu_ negative slope backward": lambda: F.leaky_relu(
            x.clone().requires_grad_() * 1, -0.1, inplace=True).sum().backward(),
    }


@pytest.mark.parametrize("name", list(_edge_calls(st_autodiff)))
def test_edge_behaviour_matches_torch(name: str) -> None:
    seen = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = repr(_edge_calls(lib)[name]())
            except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
                result = f"{type(exc).__name__}: {exc}"
        seen.append(result)
    assert seen[0] == seen[1]


def _top_level_calls(lib: Any) -> dict[str, Callable[[], Any]]:
    x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float64, requires_grad=True)
    p = lib.tensor(np.linspace(0.1, 0.9, 12).reshape(3, 4), dtype=lib.float64)
    w = lib.tensor([0.2, 0.1, 0.3], dtype=lib.float64)
    return {
        "celu": lambda: lib.celu(x, 0.5), "selu": lambda: lib.selu(x),
        "prelu": lambda: lib.prelu(x, w[:1]), "hardshrink": lambda: lib.hardshrink(x, 0.3),
        "threshold": lambda: lib.threshold(x, 0.1, 5.0),
        "cosine_similarity": lambda: lib.cosine_similarity(x, p),
        "pairwise_distance": lambda: lib.pairwise_distance(x, p),
        "embedding": lambda: lib.embedding(x, L(lib, [0, 2]), 2),
        "kl_div": lambda: lib.kl_div(x, p), "kl_div 1": lambda: lib.kl_div(x, p, 1),
        "kl_div 2 log_target": lambda: lib.kl_div(x, p, 2, log_target=True),
        "kl_div str": lambda: lib.kl_div(x, p, "mean"),
        "Tensor.hardshrink": lambda: x.hardshrink(0.2), "Tensor.prelu": lambda: x.prelu(w),
        "selu_": lambda: lib.selu_(x.detach().clone()),
        "celu_": lambda: lib.celu_(x.detach().clone(), 2.0),
        "threshold_": lambda: lib.threshold_(x.detach().clone(), 0.0, 2.0),
    }


@pytest.mark.parametrize("name", list(_top_level_calls(st_autodiff)))
def test_top_level_forms_match_torch(name: str) -> None:
    seen = []
    for lib in LIBS:
        try:
            result = repr(_top_level_calls(lib)[name]())
        except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
            result = f"{type(exc).__name__}: {exc}"
        seen.append(result)
    assert seen[0] == seen[1]


def _train(lib: Any) -> list[float]:
    """A tiny character model (embedding, flatten, GELU MLP) trained for a few Adam steps."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Embedding(11, 4, padding_idx=0), nn.Flatten(), nn.Linear(12, 16),
                          nn.GELU(approximate="tanh"), nn.Dropout(0.1), nn.Linear(16, 16),
                          nn.SiLU(), nn.Linear(16, 11))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    data = L(lib, [[1, 2, 3], [0, 4, 5], [6, 7, 8], [9, 10, 0]])
    target = L(lib, [4, 6, 9, 1])
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(data), target, label_smoothing=0.05)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_training_a_small_model_matches_torch() -> None:
    ours, theirs = (_train(lib) for lib in LIBS)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
