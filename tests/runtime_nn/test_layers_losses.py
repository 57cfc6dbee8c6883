"""Activations, losses, embedding, padding, distances and containers, without PyTorch.

Gradients: every differentiable call is checked in float64 against central differences
(``check_vjp``, the dot-product test, and ``check_grads`` for a fixed cotangent), and its
``create_graph`` gradient is differentiated again and checked the same way.  Values,
node names, reprs and messages that PyTorch shows are compared with reference output
produced by torch 2.13.0 (CPU), stored below.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
import st_autodiff.nn.functional as F
from st_autodiff.runtime.nn.functional import LAYERS_PART as F_PART
from st_autodiff.testing import check_grads, check_vjp

_rng = np.random.default_rng(12)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def away(*shape: int, lo: float = 0.3, hi: float = 1.5) -> np.ndarray:
    """|x| in [lo, hi] with random signs: away from kinks at 0."""
    return _rng.uniform(lo, hi, shape) * _rng.choice([-1.0, 1.0], shape)


def unit(*shape: int) -> np.ndarray:
    return _rng.uniform(0.1, 0.9, shape)


def long(values: Any) -> Any:
    return torch.tensor(values, dtype=torch.int64)


@dataclass
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: tuple


CASES: list[Case] = []


def case(name: str, fn: Callable[..., Any], *inputs: np.ndarray) -> None:
    CASES.append(Case(name, fn, inputs))


# --- activations (inputs kept off the kinks) ----------------------------------------------------
case("gelu", F.gelu, normal(3, 4))
case("gelu tanh", lambda x: F.gelu(x, approximate="tanh"), normal(3, 4))
case("silu", F.silu, normal(3, 4))
case("mish", F.mish, normal(3, 4))
case("elu", lambda x: F.elu(x, 0.7), away(3, 4))
case("selu", F.selu, away(3, 4))
case("celu", lambda x: F.celu(x, 1.3), away(3, 4))
case("leaky_relu", lambda x: F.leaky_relu(x, 0.2), away(3, 4))
case("softplus", F.softplus, normal(3, 4))
case("softplus beta threshold", lambda x: F.softplus(x, 2.0, 1.0),
     np.array([[-1.2, -0.2, 0.3], [0.8, 1.1, 2.0]]))
case("hardtanh", lambda x: F.hardtanh(x, -0.8, 0.9), np.array([[-1.5, -0.3, 0.2, 1.4]]))
case("relu6", F.relu6, np.array([[-1.0, 0.5, 3.0, 5.5, 7.0]]))
case("threshold", lambda x: F.threshold(x, 0.1, 2.0), np.array([[-1.0, 0.5, 0.05, 0.3]]))
case("softshrink", F.softshrink, np.array([[-1.0, 0.2, -0.3, 0.9]]))
case("hardshrink", F.hardshrink, np.array([[-1.0, 0.2, -0.3, 0.9]]))
case("hardsigmoid", F.hardsigmoid, np.array([[-4.0, -2.0, 0.5, 2.5, 4.0]]))
case("hardswish", F.hardswish, np.array([[-4.0, -2.0, 0.5, 2.5, 4.0]]))
case("logsigmoid", F.logsigmoid, normal(3, 4) * 3)
case("softsign", F.softsign, away(3, 4))
case("tanhshrink", F.tanhshrink, normal(3, 4))
case("softmin", lambda x: F.softmin(x, dim=1), normal(3, 4))
case("prelu shared", F.prelu, away(2, 3, 2), np.array([0.3]))
case("prelu per channel", F.prelu, away(2, 3, 2), np.array([0.3, -0.2, 0.5]))

# --- losses -------------------------------------------------------------------------------------
for _r in ("mean", "sum", "none"):
    case(f"binary_cross_entropy {_r}",
         lambda x, t, r=_r: F.binary_cross_entropy(x, t, reduction=r), unit(3, 4), unit(3, 4))
    case(f"smooth_l1_loss {_r}", lambda x, t, r=_r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
         normal(3, 4), normal(3, 4))
    case(f"huber_loss {_r}", lambda x, t, r=_r: F.huber_loss(x, t, reduction=r, delta=0.7),
         normal(3, 4), normal(3, 4))
    case(f"kl_div {_r}", lambda x, t, r=_r: F.kl_div(x, t, reduction=r), normal(3, 4),
         unit(3, 4))
    case(f"nll_loss 3-d {_r}", lambda x, r=_r: F.nll_loss(x, long([[0, 2], [1, 1]]), reduction=r),
         normal(2, 3, 2))
    case(f"nll_loss 4-d {_r}",
         lambda x, r=_r: F.nll_loss(x, long([[[0, 2], [1, -100]]]), reduction=r),
         normal(1, 3, 2, 2))
    case(f"nll_loss 5-d {_r}",
         lambda x, r=_r: F.nll_loss(x, long([[[[0], [2]], [[1], [1]]]]), reduction=r),
         normal(1, 3, 2, 2, 1))
case("huber_loss weight", lambda x, t, w: F.huber_loss(x, t, weight=w), normal(3, 4) * 2,
     normal(3, 4), unit(3, 4))
case("binary_cross_entropy weight", lambda x, t: F.binary_cross_entropy(
    x, t, weight=torch.tensor([0.5, 2.0, 1.0, 0.2], dtype=torch.float64)), unit(3, 4), unit(3, 4))
case("kl_div batchmean", lambda x, t: F.kl_div(x, t, reduction="batchmean"), normal(3, 4),
     unit(3, 4))
case("kl_div log_target", lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True),
     normal(3, 4), normal(3, 4))
case("nll_loss 4-d weight", lambda x: F.nll_loss(
    x, long([[[0, 2], [1, 2]]]), weight=torch.tensor([0.2, 1.0, 3.0], dtype=torch.float64)),
     normal(1, 3, 2, 2))
case("cross_entropy 4-d", lambda x: F.cross_entropy(x, long([[[0, 2], [1, 2]]])),
     normal(1, 3, 2, 2))
_PM = np.array([1.0, -1.0, 1.0, -1.0])
for _r in ("mean", "none"):
    case(f"soft_margin_loss {_r}", lambda x, r=_r: F.soft_margin_loss(
        x, torch.tensor(_PM, dtype=torch.float64), reduction=r), normal(3, 4) * 2)
    case(f"margin_ranking_loss {_r}", lambda a, b, r=_r: F.margin_ranking_loss(
        a, b, torch.tensor(_PM, dtype=torch.float64), 0.3, reduction=r), away(4), normal(4) * 0.01)
case("SoftMarginLoss", lambda x: nn.SoftMarginLoss(reduction="sum")(x, torch.ones(2, 3)),
     normal(2, 3))
case("MarginRankingLoss", lambda a, b: nn.MarginRankingLoss(0.1)(
    a, b, torch.tensor(_PM, dtype=torch.float64)), away(4), normal(4) * 0.01)
case("BCELoss", lambda x, t: nn.BCELoss()(x, t), unit(2, 3), unit(2, 3))
case("NLLLoss", lambda x: nn.NLLLoss(reduction="sum")(x, long([1, 0])), normal(2, 3))
case("SmoothL1Loss", lambda x, t: nn.SmoothL1Loss()(x, t), normal(2, 3), normal(2, 3))
case("HuberLoss", lambda x, t: nn.HuberLoss(delta=0.5)(x, t), normal(2, 3), normal(2, 3))
case("KLDivLoss", lambda x, t: nn.KLDivLoss(reduction="batchmean")(x, t), normal(2, 3),
     unit(2, 3))

# --- embedding, padding, distances ------------------------------------------------------------
_IDX = [[0, 2, 3], [3, 3, 1]]
case("embedding", lambda w: F.embedding(long(_IDX), w), normal(5, 3))
# the padding row gets no gradient by design: its outputs are masked out for the check
_KEEP = torch.tensor((np.array(_IDX) != 3)[..., None] * 1.0, dtype=torch.float64)
case("embedding padding_idx", lambda w: F.embedding(long(_IDX), w, padding_idx=3) * _KEEP,
     normal(5, 3))
case("pad", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), normal(2, 3))
case("pad negative", lambda x: F.pad(x, (-1, 2, 1, -1)), normal(3, 4))
for _mode in ("reflect", "replicate", "circular"):
    case(f"pad {_mode}", lambda x, m=_mode: F.pad(x, (2, 1, 1, 0), mode=m), normal(1, 3, 3))
    case(f"pad {_mode} negative", lambda x, m=_mode: F.pad(x, (-1, 2), mode=m), normal(2, 4))
case("cosine_similarity", F.cosine_similarity, normal(3, 4), normal(3, 4))
case("cosine_similarity broadcast dim 0", lambda a, b: F.cosine_similarity(a, b, dim=0),
     normal(3, 4), normal(3, 1))
case("pairwise_distance", F.pairwise_distance, normal(3, 4), normal(3, 4))
case("pairwise_distance p=1", lambda a, b: F.pairwise_distance(a, b, p=1.0), normal(3, 4),
     normal(3, 4) + 5)
case("normalize", F.normalize, normal(3, 4))
case("normalize p=1 dim 0", lambda x: F.normalize(x, p=1.0, dim=0), away(3, 4))
case("one_hot as a constant", lambda x: x * F.one_hot(long([0, 2, 1]), 3), normal(3, 3))

# --- modules ----------------------------------------------------------------------------------


def _model(x: Any) -> Any:
    torch.manual_seed(4)
    model = nn.Sequential(nn.Flatten(), nn.Linear(6, 4), nn.GELU(), nn.Unflatten(1, (2, 2)),
                          nn.Flatten(0, -1), nn.SiLU(), nn.ELU(), nn.LeakyReLU(0.1),
                          nn.Softplus(), nn.Mish(), nn.Hardtanh(-3, 3), nn.Softsign(),
                          nn.Tanhshrink()).double()
    return model(x)


case("Sequential of activation modules", _model, normal(2, 2, 3))
case("PReLU", lambda x: nn.PReLU(3, 0.1).double()(x), away(2, 3))


def _tensors(arrays: tuple, requires_grad: bool) -> list:
    return [torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad) for a in arrays]


def _value(c: Case) -> Callable[..., np.ndarray]:
    def f(*arrays: np.ndarray) -> np.ndarray:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = c.fn(*_tensors(arrays, False))
        return np.asarray(out.numpy(), dtype=np.float64)

    return f


def _grads(c: Case, arrays: tuple, g: np.ndarray, create_graph: bool = False) -> tuple:
    xs = _tensors(arrays, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = c.fn(*xs)
    gs = torch.autograd.grad(out, xs, torch.tensor(np.asarray(g, dtype=np.float64)),
                             create_graph=create_graph, allow_unused=True,
                             materialize_grads=True)
    return xs, gs


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_first_order(c: Case) -> None:
    check_vjp(_value(c), lambda g: [x.numpy() for x in _grads(c, c.inputs, g)[1]], c.inputs)
    g = np.random.default_rng(5).standard_normal(np.shape(_value(c)(*c.inputs)))

    def scalar(*arrays: np.ndarray) -> float:
        return float(np.sum(_value(c)(*arrays) * g))

    check_grads(scalar, c.inputs, lambda *arrays: [x.numpy() for x in _grads(c, arrays, g)[1]])


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_second_order(c: Case) -> None:
    """The gradient built with create_graph is differentiable, and correctly so."""
    g = np.random.default_rng(6).standard_normal(np.shape(_value(c)(*c.inputs)))

    def first(*arrays: np.ndarray) -> np.ndarray:
        return np.concatenate([np.ravel(x.detach().numpy()) for x in _grads(c, arrays, g)[1]])

    def first_vjp(h: np.ndarray) -> list:
        xs, gs = _grads(c, c.inputs, g, create_graph=True)
        flat = torch.cat([x.reshape(-1) for x in gs])
        if not flat.requires_grad:  # the first gradient does not depend on the inputs
            return [np.zeros_like(a) for a in c.inputs]
        second = torch.autograd.grad(flat, xs, torch.tensor(h), allow_unused=True,
                                     materialize_grads=True)
        return [x.numpy() for x in second]

    check_vjp(first, first_vjp, c.inputs, atol=1e-5, rtol=1e-4, eps=1e-5)


def test_every_function_of_this_part_is_covered() -> None:
    covered = " ".join(c.name for c in CASES)
    for name in F_PART:
        assert name in covered, name


def test_a_wrong_rule_is_caught() -> None:
    """The checks above can fail: a gradient scaled by 1.01 is rejected."""
    c = next(c for c in CASES if c.name == "gelu")
    with pytest.raises(AssertionError):
        check_vjp(_value(c), lambda g: [1.01 * x.numpy() for x in _grads(c, c.inputs, g)[1]],
                  c.inputs)


# --- reference values produced by torch 2.13.0 (float32, x = torch.linspace(-3, 3, 7)) ---------
TORCH_VALUES = {
    "gelu": ([-0.0040502, -0.0455003, -0.1586553, 0.0, 0.8413447, 1.9544997, 2.9959497],
             [-0.0119456, -0.0852319, -0.0833154, 0.5, 1.0833154, 1.0852319, 1.0119456]),
    "gelu_tanh": ([-0.0036374, -0.0454023, -0.158808, 0.0, 0.841192, 1.9545977, 2.9963627],
                  [-0.0115843, -0.0860992, -0.0829641, 0.5, 1.0829641, 1.0860993, 1.0115843]),
    "silu": ([-0.1422776, -0.2384058, -0.2689414, 0.0, 0.7310586, 1.7615941, 2.8577225],
             [-0.0881041, -0.0907843, 0.0723295, 0.5, 0.9276705, 1.0907843, 1.0881041]),
    "mish": ([-0.1456475, -0.2525015, -0.3034014, 0.0, 0.8650984, 1.943959, 2.9865351],
             [-0.0933931, -0.1083551, 0.0592167, 0.6, 1.0490363, 1.0693179, 1.021107]),
    "elu": ([-0.950213, -0.8646647, -0.6321205, 0.0, 1.0, 2.0, 3.0],
            [0.0497871, 0.1353353, 0.3678795, 1.0, 1.0, 1.0, 1.0]),
    "selu": ([-1.6705687, -1.5201665, -1.1113307, 0.0, 1.050701, 2.101402, 3.1521029],
             [0.0875306, 0.2379329, 0.6467686, 1.7580993, 1.050701, 1.050701, 1.050701]),
    "celu": ([-1.5537397, -1.2642411, -0.7869387, 0.0, 1.0, 2.0, 3.0],
             [0.2231302, 0.3678795, 0.6065307, 1.0, 1.0, 1.0, 1.0]),
    "softplus": ([0.0012378, 0.009075, 0.063464, 0.3465736, 1.063464, 2.0090749, 3.0],
                 [0.0024726, 0.0179862, 0.1192029, 0.5, 0.8807971, 0.9820138, 1.0]),
    "logsigmoid": ([-3.0485873, -2.1269281, -1.3132617, -0.6931472, -0.3132617, -0.126928,
                    -0.0485874],
                   [0.9525741, 0.8807971, 0.7310586, 0.5, 0.2689414, 0.1192029, 0.0474259]),
    "hardswish": ([-0.0, -0.3333333, -0.3333333, 0.0, 0.6666667, 1.6666666, 3.0],
                  [0.0, -0.1666667, 0.1666667, 0.5, 0.8333334, 1.1666667, 1.0]),
    "hardsigmoid": ([0.0, 0.1666667, 0.3333333, 0.5, 0.6666667, 0.8333333, 1.0],
                    [0.0, 0.1666667, 0.1666667, 0.1666667, 0.1666667, 0.1666667, 0.0]),
    "softsign": ([-0.75, -0.6666667, -0.5, 0.0, 0.5, 0.6666667, 0.75],
                 [0.0625, 0.1111111, 0.25, 1.0, 0.25, 0.1111111, 0.0625]),
    "tanhshrink": ([-2.0049453, -1.0359724, -0.2384058, 0.0, 0.2384058, 1.0359724, 2.0049453],
                   [0.990134, 0.9293492, 0.5800257, 0.0, 0.5800257, 0.9293492, 0.990134]),
    "leaky_relu": ([-0.3, -0.2, -0.1, 0.0, 1.0, 2.0, 3.0], [0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0]),
    "hardtanh": ([-1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
    "relu6": ([0.0, 0.0, 0.0, 0.0, 2.5, 5.0, 6.0], [0.0, 0.0, 0.0, 0.0, 2.5, 2.5, 0.0]),
    "softshrink": ([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5], [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]),
    "hardshrink": ([-3.0, -2.0, 0.0, 0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
}
CALLS: dict[str, Callable[[Any], Any]] = {
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "celu": lambda x: F.celu(x, 2.0),
    "softplus": lambda x: F.softplus(x, 2.0, 4.0), "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "relu6": lambda x: F.relu6(x * 2.5), "hardshrink": lambda x: F.hardshrink(x, 1.0),
}


@pytest.mark.parametrize("name", sorted(TORCH_VALUES))
def test_values_and_gradients_at_the_kinks_match_torch(name: str) -> None:
    """Values and gradients on a grid that includes every kink (0, +-1, +-3), in float32."""
    x = torch.linspace(-3, 3, 7).requires_grad_(True)
    y = CALLS[name](x) if name in CALLS else getattr(F, name)(x)
    y.sum().backward()
    values, grads = TORCH_VALUES[name]
    assert y.dtype == torch.float32
    np.testing.assert_allclose(y.detach().numpy(), values, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), grads, rtol=2e-6, atol=1e-6)


def test_embedding_initial_weight_matches_torch() -> None:
    torch.manual_seed(0)
    e = nn.Embedding(5, 3, padding_idx=2)
    expected = [[1.5409960746765137, -0.293428897857666, -2.1787893772125244],
                [0.5684312582015991, -1.0845223665237427, -1.3985954523086548],
                [0.0, 0.0, 0.0],
                [-0.40334352850914, -0.5966353416442871, 0.18203648924827576],
                [-0.8566746115684509, 1.1006041765213013, -1.0711873769760132]]
    np.testing.assert_array_equal(e.weight.detach().numpy(), np.float32(expected))


def test_loss_values_match_torch() -> None:
    p = torch.tensor([[0.9, 0.2], [0.01, 0.5]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    assert abs(F.binary_cross_entropy(p, t).item() - 0.2579253911972046) < 1e-7
    clamped = F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]),
                                     reduction="none")
    assert clamped.tolist() == [100.0, 100.0]  # log clamped at -100
    a = torch.tensor([[0.5, -1.5, 2.0], [1.0, 0.2, -0.3]])
    b = torch.tensor([[1.0, 1.0, 0.0], [0.0, -0.2, 0.3]])
    np.testing.assert_allclose(F.smooth_l1_loss(a, b, beta=0.5, reduction="none").numpy(),
                               [[0.25, 2.25, 1.75], [0.75, 0.16000001, 0.35000002]], rtol=1e-6)
    np.testing.assert_allclose(F.huber_loss(a, b, delta=0.5, reduction="none").numpy(),
                               [[0.125, 1.125, 0.875], [0.375, 0.08000001, 0.17500001]],
                               rtol=1e-6)
    kl = F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1), reduction="batchmean")
    assert abs(kl.item() - 0.7734057903289795) < 1e-6
    np.testing.assert_allclose(F.cosine_similarity(a, b).numpy(),
                               [-0.2773500680923462, -0.33918172121047974], rtol=1e-6)
    np.testing.assert_allclose(F.pairwise_distance(a, b).numpy(),
                               [3.240370035171509, 1.2328834533691406], rtol=1e-6)
    np.testing.assert_allclose(F.normalize(a).numpy(),
                               [[0.1961161345243454, -0.588348388671875, 0.7844645380973816],
                                [0.9407208561897278, 0.18814416229724884, -0.28221625089645386]],
                               rtol=1e-6)


# --- node names, reprs and messages as torch 2.13.0 shows them ---------------------------------
NODE_NAMES = [
    (lambda x: F.gelu(x), "GeluBackward0"), (lambda x: F.silu(x), "SiluBackward0"),
    (lambda x: F.elu(x), "EluBackward0"), (lambda x: F.selu(x), "EluBackward0"),
    (lambda x: F.celu(x), "CeluBackward0"), (lambda x: F.leaky_relu(x), "LeakyReluBackward0"),
    (lambda x: F.softplus(x), "SoftplusBackward0"), (lambda x: F.mish(x), "MishBackward0"),
    (lambda x: F.hardtanh(x), "HardtanhBackward0"), (lambda x: F.relu6(x), "HardtanhBackward0"),
    (lambda x: F.softsign(x), "DivBackward0"), (lambda x: F.tanhshrink(x), "SubBackward0"),
    (lambda x: F.logsigmoid(x), "LogSigmoidBackward0"),
    (lambda x: F.hardswish(x), "HardswishBackward0"),
    (lambda x: F.hardsigmoid(x), "HardsigmoidBackward0"),
    (lambda x: F.softshrink(x), "SoftshrinkBackward0"),
    (lambda x: F.hardshrink(x), "HardshrinkBackward0"),
    (lambda x: F.threshold(x, 0.1, 2.0), "ThresholdBackward0"),
    (lambda x: F.prelu(x, torch.tensor([0.25])), "PreluKernelBackward0"),
    (lambda x: F.binary_cross_entropy(x.sigmoid(), torch.rand(3, 4)),
     "BinaryCrossEntropyBackward0"),
    (lambda x: F.smooth_l1_loss(x, torch.rand(3, 4)), "SmoothL1LossBackward0"),
    (lambda x: F.smooth_l1_loss(x, torch.rand(3, 4), beta=0.0), "MeanBackward0"),
    (lambda x: F.huber_loss(x, torch.rand(3, 4)), "HuberLossBackward0"),
    (lambda x: F.kl_div(x, torch.rand(3, 4), reduction="batchmean"), "DivBackward0"),
    (lambda x: F.kl_div(x, torch.rand(3, 4), reduction="sum"), "SumBackward0"),
    (lambda x: F.kl_div(x, torch.rand(3, 4), reduction="none"), "SubBackward0"),
    (lambda x: F.nll_loss(x.view(3, 2, 2), long([[0, 1], [1, 1], [0, 0]])),
     "NllLoss2DBackward0"),
    (lambda x: F.nll_loss(x.view(3, 2, 2), long([[0, 1], [1, 1], [0, 0]]), reduction="none"),
     "ViewBackward0"),
    (lambda x: F.nll_loss(x.view(1, 3, 2, 2), long([[[0, 1], [1, 1]]]), reduction="none"),
     "NllLoss2DBackward0"),
    (lambda x: F.embedding(long([0, 2]), x), "EmbeddingBackward0"),
    (lambda x: F.pad(x, (1, 2)), "ConstantPadNdBackward0"),
    (lambda x: F.cosine_similarity(x, torch.rand(3, 4)), "SumBackward1"),
    (lambda x: F.normalize(x), "DivBackward0"),
    (lambda x: nn.Flatten(0)(x), "ViewBackward0"),
    (lambda x: nn.Unflatten(1, (2, 2))(x), "ViewBackward0"),
]


@pytest.mark.parametrize("k", range(len(NODE_NAMES)))
def test_node_names(k: int) -> None:
    fn, name = NODE_NAMES[k]
    y = fn(torch.randn(3, 4, requires_grad=True))
    assert type(y.grad_fn).__name__ == name
    assert y.grad_fn.name() == name


def test_inplace_forms_record_from_the_result() -> None:
    x = torch.randn(3, 4, requires_grad=True)
    for fn, name in [(lambda t: F.elu(t, inplace=True), "EluBackward1"),
                     (lambda t: F.leaky_relu(t, inplace=True), "LeakyReluBackward1"),
                     (lambda t: F.celu(t, inplace=True), "CeluBackward1"),
                     (lambda t: F.threshold(t, 0.0, 1.0, inplace=True), "ThresholdBackward1"),
                     (lambda t: F.hardtanh(t, inplace=True), "HardtanhBackward0")]:
        y = x * 1.0
        out = fn(y)
        assert out is y and type(y.grad_fn).__name__ == name
        y.sum().backward()
    # the gradients of the in-place forms equal the out-of-place ones
    a = torch.randn(4, dtype=torch.float64, requires_grad=True)
    (g1,) = torch.autograd.grad(F.elu(a * 1.0, 0.5, inplace=True).sum(), a)
    (g2,) = torch.autograd.grad(F.elu(a, 0.5).sum(), a)
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-12)


def test_saved_values() -> None:
    x = torch.randn(3, 4, requires_grad=True)
    y = F.elu(x)
    assert (y.grad_fn._saved_alpha, y.grad_fn._saved_scale, y.grad_fn._saved_input_scale) == \
        (1.0, 1, 1)
    assert F.gelu(x).grad_fn._saved_approximate == "none"
    assert F.pad(x, (1, 2)).grad_fn._saved_pad == (1, 2)
    emb = F.embedding(long([0, 1]), x)
    assert emb.grad_fn._saved_padding_idx == 18446744073709551615
    assert F.embedding(long([0, 1]), x, padding_idx=-1).grad_fn._saved_padding_idx == 2
    assert F.embedding(long([0, 1]), x).grad_fn._saved_weight_sym_argsize_0 == 3


REPRS = [
    (lambda: nn.GELU(), "GELU(approximate='none')"),
    (lambda: nn.GELU("tanh"), "GELU(approximate='tanh')"),
    (lambda: nn.SiLU(inplace=True), "SiLU(inplace=True)"),
    (lambda: nn.ELU(0.5, True), "ELU(alpha=0.5, inplace=True)"),
    (lambda: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)"),
    (lambda: nn.Hardtanh(-2, 2, True), "Hardtanh(min_val=-2, max_val=2, inplace=True)"),
    (lambda: nn.ReLU6(), "ReLU6()"), (lambda: nn.PReLU(3, 0.1), "PReLU(num_parameters=3)"),
    (lambda: nn.Softshrink(), "Softshrink(0.5)"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.CELU(), "CELU(alpha=1.0)"), (lambda: nn.Softmin(1), "Softmin(dim=1)"),
    (lambda: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda: nn.Unflatten(1, (2, 2)), "Unflatten(dim=1, unflattened_size=(2, 2))"),
    (lambda: nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
     "Embedding(10, 3, padding_idx=0, max_norm=1.0)"),
    (lambda: nn.Embedding(10, 3, scale_grad_by_freq=True, sparse=True, norm_type=1.0,
                          max_norm=2),
     "Embedding(10, 3, max_norm=2, norm_type=1.0, scale_grad_by_freq=True, sparse=True)"),
    (lambda: nn.KLDivLoss(), "KLDivLoss()"), (lambda: nn.BCELoss(), "BCELoss()"),
    (lambda: nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(2, 3)}),
     "ModuleDict(\n  (a): ReLU()\n  (b): Linear(in_features=2, out_features=3, bias=True)\n)"),
    (lambda: nn.ParameterList([nn.Parameter(torch.ones(2, 3)),
                               nn.Parameter(torch.ones(3, dtype=torch.float64))]),
     "ParameterList(\n    (0): Parameter containing: [torch.float32 of size 2x3]\n"
     "    (1): Parameter containing: [torch.float64 of size 3]\n)"),
    (lambda: nn.ParameterDict({"b": nn.Parameter(torch.ones(3)), "a": torch.ones(2, 3)}),
     "ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2x3]\n"
     "    (b): Parameter containing: [torch.FloatTensor of size 3]\n)"),
    (lambda: nn.ModuleDict(), "ModuleDict()"), (lambda: nn.ParameterList(), "ParameterList()"),
]


@pytest.mark.parametrize("k", range(len(REPRS)))
def test_reprs(k: int) -> None:
    make, text = REPRS[k]
    assert repr(make()) == text


ERRORS = [
    (lambda: F.gelu(torch.ones(2), approximate="foo"), RuntimeError,
     "approximate argument must be either none or tanh."),
    (lambda: F.gelu(torch.tensor([1, 2])), NotImplementedError,
     "\"GeluKernelImpl\" not implemented for 'Long'"),
    (lambda: F.hardtanh(torch.ones(2), 2, 1), ValueError, "min_val cannot be greater than max_val"),
    (lambda: F.prelu(torch.ones(2, 4, 3), torch.ones(3)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and "
     "channel size = 4."),
    (lambda: F.binary_cross_entropy(torch.rand(3, 4), torch.rand(3, 3)), ValueError,
     "Using a target size (torch.Size([3, 3])) that is different to the input size "
     "(torch.Size([3, 4])) is deprecated. Please ensure they have the same size."),
    (lambda: F.binary_cross_entropy(torch.rand(2) * 3 + 1, torch.rand(2)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(torch.rand(2), torch.ones(2, dtype=torch.int64)),
     RuntimeError, "Found dtype Long but expected Float"),
    (lambda: F.binary_cross_entropy(torch.rand(3, 4), torch.rand(3, 4), weight=torch.ones(5)),
     RuntimeError, "Attempting to broadcast a dimension of length 5 at -1! Mismatching argument "
     "at index 1 had torch.Size([5]); but expected shape should be broadcastable to [3, 4]"),
    (lambda: F.smooth_l1_loss(torch.rand(2), torch.rand(2), beta=-1), RuntimeError,
     "smooth_l1_loss does not support negative values for beta."),
    (lambda: F.huber_loss(torch.rand(2), torch.rand(2), delta=0.0), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda: F.kl_div(torch.rand(2), torch.rand(2), reduction="foo"), ValueError,
     "foo is not a valid value for reduction"),
    (lambda: F.nll_loss(torch.rand(3, 4, 1), long([0, 1, 2])), RuntimeError,
     "Expected target size [3, 1], got [3]"),
    (lambda: F.nll_loss(torch.rand(3, 4), torch.tensor([0.0, 1.0, 2.0])), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda: F.one_hot(torch.tensor([0.0, 2.0])), RuntimeError,
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda: F.one_hot(long([0, -1])), RuntimeError, "Class values must be non-negative."),
    (lambda: F.one_hot(long([0, 2]), 2), RuntimeError,
     "Class values must be smaller than num_classes."),
    (lambda: F.one_hot(long([])), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
    (lambda: F.pad(torch.rand(3, 4), (1, 2, 3)), RuntimeError,
     "Padding length must be divisible by 2"),
    (lambda: F.pad(torch.rand(3, 4), (1, 2, 3, 4, 5, 6)), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got "
     "padding length 6 and input of dimension 2"),
    (lambda: F.pad(torch.rand(3, 4), (1, 1), mode="foo"), NotImplementedError,
     "Unrecognised padding mode foo"),
    (lambda: F.embedding(torch.tensor([0.0, 1.0]), torch.rand(3, 4)), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"),
    (lambda: F.embedding(long([0, 5]), torch.rand(3, 4)), IndexError, "index out of range in self"),
    (lambda: F.embedding(long([0, 1]), torch.rand(3, 4), padding_idx=3), AssertionError,
     "Padding_idx must be within num_embeddings"),
    (lambda: F.embedding(long([[0, 1]]), torch.rand(4)), RuntimeError, "'weight' must be 2-D"),
    (lambda: nn.Unflatten(1, (2.0, 2)), TypeError,
     "unflattened_size must be tuple of ints, but found element of type float at pos 0"),
    (lambda: nn.Unflatten(1, (3, 3))(torch.ones(3, 4)), RuntimeError,
     "unflatten: Provided sizes [3, 3] don't multiply up to the size of dim 1 (4) in the input "
     "tensor"),
    (lambda: nn.ParameterList([torch.ones(1)])(1), RuntimeError,
     "ParameterList should not be called."),
    (lambda: nn.ParameterList()[0], IndexError, "index 0 is out of range"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors(k: int) -> None:
    call, kind, message = ERRORS[k]
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_warnings() -> None:
    with pytest.warns(UserWarning) as record:
        F.kl_div(torch.rand(2, 3), torch.rand(2, 3))
    assert str(record[0].message).startswith("reduction: 'mean' divides the total loss by both "
                                             "the batch size and the support size.'batchmean'")
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\) that is "
                                         r"different to the input size"):
        F.huber_loss(torch.rand(3, 4), torch.rand(4))


# --- behaviour ----------------------------------------------------------------------------------

def test_embedding_padding_row_gets_no_gradient_and_max_norm_renormalises() -> None:
    emb = nn.Embedding(4, 3, padding_idx=1)
    assert emb.weight[1].tolist() == [0.0, 0.0, 0.0]
    emb(long([[1, 2], [1, 1]])).sum().backward()
    assert emb.weight.grad[1].tolist() == [0.0, 0.0, 0.0]
    assert emb.weight.grad[2].tolist() == [1.0, 1.0, 1.0]
    w = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    out = F.embedding(long([0, 1]), w, max_norm=1.0)
    np.testing.assert_allclose(w.numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), w.numpy())
    frozen = nn.Embedding.from_pretrained(torch.ones(2, 3))
    assert not frozen.weight.requires_grad
    assert F.embedding(long([1, 0]), torch.ones(2, 3), padding_idx=0).grad_fn is None


def test_embedding_scale_grad_by_freq_divides_by_the_count_in_the_batch() -> None:
    w = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)
    g = torch.randn(2, 3, 2, dtype=torch.float64)
    F.embedding(long(_IDX), w, scale_grad_by_freq=True).backward(g)
    expected = np.zeros((5, 2))
    idx = np.array(_IDX).ravel()
    counts = np.bincount(idx, minlength=5)
    for i, row in zip(idx, g.numpy().reshape(-1, 2)):
        expected[i] += row / counts[i]
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)


def test_flatten_unflatten_shapes() -> None:
    x = torch.ones(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(-1, (2, -1))(torch.ones(3, 4)).shape == (3, 2, 2)


def test_module_dict() -> None:
    d = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(2, 3)})
    assert list(d) == ["b", "a"] and len(d) == 2 and "a" in d
    d["c"] = nn.Tanh()
    d.update([("e", nn.Sigmoid())])
    assert list(d.keys()) == ["b", "a", "c", "e"]
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias"]
    assert isinstance(d.pop("c"), nn.Tanh) and "c" not in d
    with pytest.raises(KeyError):
        d["x"]
    with pytest.raises(TypeError):
        nn.ModuleDict({"a": 1})


def test_parameter_list_and_dict() -> None:
    plist = nn.ParameterList([torch.ones(2), nn.Parameter(torch.ones(3), requires_grad=False)])
    assert isinstance(plist[0], nn.Parameter) and not plist[1].requires_grad
    plist.append(torch.zeros(1))
    assert len(plist) == 3 and [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    assert len(plist[1:]) == 2
    pdict = nn.ParameterDict({"b": torch.ones(1), "a": torch.ones(2)})
    assert list(pdict) == ["a", "b"]  # a plain dict's keys are taken sorted
    ordered = nn.ParameterDict(OrderedDict([("b", torch.ones(1)), ("a", torch.ones(2))]))
    assert list(ordered) == ["b", "a"]
    assert list(pdict.state_dict()) == ["a", "b"]
    assert isinstance(pdict["a"], nn.Parameter)
    del pdict["a"]
    assert list(pdict.keys()) == ["b"]
    model = nn.Module()
    model.params = plist
    assert [n for n, _ in model.named_parameters()] == ["params.0", "params.1", "params.2"]


def test_one_hot_and_pad_values() -> None:
    assert F.one_hot(long([0, 2, 1])).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(long([]), 3).shape == (0, 3)
    assert F.one_hot(long([1])).dtype == torch.int64
    assert F.pad(torch.tensor([1, 2]), (1, 1), value=2.5).tolist() == [2, 1, 2, 2]
    assert F.pad(torch.arange(4.0).view(2, 2), (-1, 1)).tolist() == [[1.0, 0.0], [3.0, 0.0]]
    row = torch.arange(4.0).view(1, 4)  # reference rows printed by torch 2.13.0
    assert F.pad(row, (2, 3), mode="reflect").tolist() == [[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0,
                                                             1.0, 0.0]]
    assert F.pad(row, (2, 1), mode="replicate").tolist() == [[0.0, 0.0, 0.0, 1.0, 2.0, 3.0,
                                                               3.0]]
    assert F.pad(row, (2, 1), mode="circular").tolist() == [[2.0, 3.0, 0.0, 1.0, 2.0, 3.0,
                                                              0.0]]
    y = F.pad(torch.ones(1, 2, 3, requires_grad=True), (1, 1, 1, 0), mode="reflect")
    assert y.grad_fn.name() == "ReflectionPad2DBackward0" and y.grad_fn._saved_padding == \
        (1, 1, 1, 0)


def test_top_level_forms() -> None:
    """``torch.selu``, ``torch.embedding`` (ATen argument order), ``torch.kl_div`` (enum
    reduction, unreduced by default) and the Tensor methods, as torch 2.13.0 has them."""
    x = torch.tensor([[-1.0, 0.5], [2.0, -0.2]], requires_grad=True)
    assert type(torch.selu(x).grad_fn).__name__ == "EluBackward0"
    assert type(x.hardshrink(0.3).grad_fn).__name__ == "HardshrinkBackward0"
    assert type(x.prelu(torch.tensor([0.1, 0.2])).grad_fn).__name__ == "PreluKernelBackward0"
    assert torch.embedding(x, long([1, 1, 0])).shape == (3, 2)
    p = torch.tensor([[0.2, 0.8], [0.5, 0.5]])
    assert torch.kl_div(x, p).shape == (2, 2)
    np.testing.assert_allclose(torch.kl_div(x, p, 2).item(),
                               F.kl_div(x, p, reduction="sum").item(), rtol=1e-6)
    y = torch.tensor([-1.0, 3.0])
    assert torch.threshold_(y, 0.0, 7.0) is y and y.tolist() == [7.0, 3.0]
