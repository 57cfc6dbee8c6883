"""Convolution, pooling and batch normalisation without PyTorch.

Gradients of every functional form (first order, and second order through a gradient
built with ``create_graph=True``) are checked against central differences in float64.
Values, indices, initial weights, reprs, node names and messages are compared with
reference output produced by PyTorch 2.13 (CPU) and stored below; the inputs are
deterministic (``sin``/``cos`` of ``arange``) so no random draw is involved except the
seeded initialisation, which follows PyTorch's generator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
import st_autodiff.nn.functional as F
from st_autodiff.testing import check_grads, check_vjp

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")

_rng = np.random.default_rng(12)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def spread(*shape: int) -> np.ndarray:
    """Distinct values at least 0.05 apart: no near-ties for a max pool to flip."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.05 - n * 0.025).reshape(shape)


CASES: list[tuple[str, Callable[..., Any], tuple, bool]] = []


def case(name: str, fn: Callable[..., Any], *inputs: np.ndarray, second: bool = True) -> None:
    CASES.append((name, fn, inputs, second))


# convolutions: every setting, with and without bias, batched and not
case("conv2d", F.conv2d, normal(2, 2, 5, 4), normal(3, 2, 3, 2), normal(3))
case("conv2d stride padding dilation groups",
     lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1),
                              groups=2), normal(1, 4, 6, 5), normal(4, 2, 2, 3), normal(4))
case("conv2d same even kernel", lambda x, w: F.conv2d(x, w, padding="same"),
     normal(1, 2, 4, 5), normal(2, 2, 2, 3))
case("conv2d valid unbatched", lambda x, w, b: F.conv2d(x, w, b, padding="valid"),
     normal(2, 4, 4), normal(3, 2, 2, 2), normal(3))
case("conv2d depthwise", lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=3),
     normal(2, 3, 5, 5), normal(6, 1, 3, 3))
case("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2),
     normal(2, 3, 9), normal(4, 3, 3), normal(4))
case("conv1d same groups unbatched", lambda x, w: F.conv1d(x, w, padding="same", groups=2),
     normal(4, 7), normal(2, 2, 4))

# pools
case("max_pool2d", lambda x: F.max_pool2d(x, 2), spread(2, 2, 4, 6))
case("max_pool2d padding ceil dilation",
     lambda x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2),
                            ceil_mode=True), spread(1, 2, 6, 7))
case("max_pool2d unbatched overlapping", lambda x: F.max_pool2d(x, 3, stride=1),
     spread(2, 5, 5))
case("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1, ceil_mode=True),
     spread(2, 3, 8))
case("avg_pool2d", lambda x: F.avg_pool2d(x, 2), normal(2, 2, 4, 6))
case("avg_pool2d padding ceil count_include_pad=False",
     lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                            count_include_pad=False), normal(1, 2, 6, 7))
case("avg_pool2d divisor_override", lambda x: F.avg_pool2d(x, (2, 3), divisor_override=4),
     normal(2, 5, 6))
case("avg_pool1d", lambda x: F.avg_pool1d(x, 4, stride=3, padding=2, ceil_mode=True),
     normal(2, 3, 10))
case("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), normal(2, 2, 7, 9))
case("adaptive_avg_pool2d upsampling", lambda x: F.adaptive_avg_pool2d(x, (5, None)),
     normal(1, 2, 3, 4))
case("adaptive_avg_pool2d global", lambda x: F.adaptive_avg_pool2d(x, 1), normal(2, 3, 4, 4))
case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), normal(2, 3, 7))
case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 2)), spread(2, 2, 7, 5))
case("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 4), spread(2, 3, 7))

# batch normalisation (the running statistics are copies: updating them is not differentiated)
_RM, _RV = normal(3), np.abs(normal(3)) + 0.5


def _bn(training: bool, affine: bool) -> Callable[..., Any]:
    def fn(x: Any, *wb: Any) -> Any:
        rm = torch.tensor(_RM, dtype=torch.float64)
        rv = torch.tensor(_RV, dtype=torch.float64)
        return F.batch_norm(x, rm, rv, *wb, training=training, momentum=0.3)

    return fn


for _training in (True, False):
    case(f"batch_norm training={_training}", _bn(_training, True), normal(4, 3, 2),
         normal(3), normal(3))
    case(f"batch_norm training={_training} no affine", _bn(_training, False),
         normal(2, 3, 2, 3))
case("batch_norm no running stats",
     lambda x, w: F.batch_norm(x, None, None, w, None, training=True), normal(5, 3), normal(3))


def _cnn(x: Any) -> Any:
    torch.manual_seed(2)
    model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.MaxPool2d(2),
                          nn.Conv2d(3, 4, 2), nn.AdaptiveAvgPool2d(1)).double()
    return model(x)


def _cnn1d(x: Any) -> Any:
    torch.manual_seed(3)
    model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3), nn.AvgPool1d(2),
                          nn.MaxPool1d(2, 1), nn.AdaptiveAvgPool1d(2)).double()
    return model(x)


case("Conv2d BatchNorm2d MaxPool2d AdaptiveAvgPool2d", _cnn, spread(2, 2, 4, 4))


def _padded(nd: int, mode: str, padding: Any) -> Callable[..., Any]:
    def fn(x: Any) -> Any:
        torch.manual_seed(4)
        conv = (nn.Conv1d if nd == 1 else nn.Conv2d)(2, 2, 3, padding=padding,
                                                     padding_mode=mode).double()
        return conv(x)

    return fn


for _mode in ("reflect", "replicate", "circular"):
    case(f"Conv2d padding_mode={_mode}", _padded(2, _mode, (1, 2)), normal(1, 2, 4, 5))
    case(f"Conv1d padding_mode={_mode} same", _padded(1, _mode, "same"), normal(2, 2, 5))
case("Conv1d BatchNorm1d AvgPool1d MaxPool1d AdaptiveAvgPool1d", _cnn1d, spread(2, 2, 9))
# (averages of ``spread`` values can tie, so this one takes generic values)
case("AvgPool2d AdaptiveMaxPool2d", lambda x: nn.AdaptiveMaxPool2d(2)(nn.AvgPool2d(2, 1)(x)),
     normal(1, 2, 5, 5))

#: The names these tests cover (``test_nn_grads`` checks every public name is covered).
COVERED = " ".join(name for name, *_ in CASES)


def _tensors(arrays: tuple, requires_grad: bool) -> list:
    return [torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad) for a in arrays]


def _value(fn: Callable[..., Any]) -> Callable[..., np.ndarray]:
    def f(*arrays: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return np.asarray(fn(*_tensors(arrays, False)).numpy(), dtype=np.float64)

    return f


@pytest.mark.parametrize("c", CASES, ids=[c[0] for c in CASES])
def test_first_order(c: tuple) -> None:
    _, fn, inputs, _ = c
    g = np.random.default_rng(5).standard_normal(np.shape(_value(fn)(*inputs)))

    def vjp(arrays: tuple, cot: np.ndarray) -> list:
        xs = _tensors(arrays, True)
        fn(*xs).backward(torch.tensor(np.asarray(cot, dtype=np.float64)))
        return [x.grad.numpy() for x in xs]

    check_vjp(_value(fn), lambda cot: vjp(inputs, cot), inputs)
    check_grads(lambda *a: float(np.sum(_value(fn)(*a) * g)), inputs,
                lambda *a: vjp(a, g))


_SECOND = [c for c in CASES if c[3]]


@pytest.mark.parametrize("c", _SECOND, ids=[c[0] for c in _SECOND])
def test_second_order(c: tuple) -> None:
    """A gradient built with ``create_graph=True`` is differentiable, and correctly so."""
    _, fn, inputs, _ = c
    g = np.random.default_rng(6).standard_normal(np.shape(_value(fn)(*inputs)))

    def grads(arrays: tuple, create_graph: bool) -> tuple:
        xs = _tensors(arrays, True)
        gs = torch.autograd.grad(fn(*xs), xs, torch.tensor(g), create_graph=create_graph,
                                 allow_unused=True, materialize_grads=True)
        return xs, gs

    def first(*arrays: np.ndarray) -> np.ndarray:
        return np.concatenate([np.ravel(x.detach().numpy()) for x in grads(arrays, False)[1]])

    def first_vjp(h: np.ndarray) -> list:
        xs, gs = grads(inputs, True)
        flat = torch.cat([x.reshape(-1) for x in gs])
        if not flat.requires_grad:
            return [np.zeros_like(a) for a in inputs]
        second = torch.autograd.grad(flat, xs, torch.tensor(h), allow_unused=True,
                                     materialize_grads=True)
        return [x.numpy() for x in second]

    check_vjp(first, first_vjp, inputs, atol=1e-5, rtol=1e-4, eps=1e-5)


# --- reference values produced by PyTorch 2.13 (CPU) -----------------------------------------

def _x4() -> Any:
    return torch.tensor(np.sin(np.arange(50.0) * 1.7).reshape(1, 2, 5, 5))


def test_default_initialisation_matches_torch_bit_for_bit() -> None:
    torch.manual_seed(0)
    c = nn.Conv2d(1, 2, 2)
    assert c.weight.detach().numpy().ravel().tolist() == [
        -0.003743410110473633, 0.26822179555892944, -0.4115225672721863, -0.3679695129394531,
        -0.19257718324661255, 0.13407868146896362, -0.009906589984893799, 0.39644473791122437]
    assert c.bias.detach().numpy().tolist() == [-0.04437202215194702, 0.1323062777519226]
    torch.manual_seed(0)
    c1 = nn.Conv1d(2, 2, 3, groups=2)
    assert c1.weight.detach().numpy().ravel().tolist() == [
        -0.004322517663240433, 0.3097158372402191, -0.4751853346824646, -0.4248946011066437,
        -0.2223689705133438, 0.15482072532176971]
    assert c1.bias.detach().numpy().tolist() == [-0.011439144611358643, 0.45777493715286255]


def test_conv2d_values() -> None:
    x = torch.tensor(np.sin(np.arange(40.0)).reshape(2, 1, 4, 5))
    w = torch.tensor(np.cos(np.arange(8.0)).reshape(2, 1, 2, 2))
    b = torch.tensor([0.5, -0.25], dtype=torch.float64)
    y = F.conv2d(x, w, b, stride=(2, 1), padding=1)
    assert tuple(y.shape) == (2, 2, 3, 6)
    np.testing.assert_allclose(y.numpy()[0, 0].ravel(), [
        0.5, -0.33304996106680496, -0.7503731181095321, -0.018108996753427066,
        1.1905021468357218, 0.8149409643133779, 0.5204678210192878, 0.6064823528352864,
        1.5229017997469376, 1.4988700493245948, 0.5564817820784643, 0.49988036790900636,
        0.8513520195149025, 0.9947330142958968, -0.30734859838343603, -0.8671576329878591,
        -0.17000824479370027, 0.6498772096629524], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(y.numpy()[1, 1].ravel()[-15:], [
        -0.8964662345575617, -1.745233256647573, -1.119509435432269, -1.032422455448702,
        -1.2004636256054493, -0.4493769043502183, 0.48501602329090027, 0.7436386088184257,
        0.691789529398356, -0.3714592318067565, -0.2514512865833756, 0.21572248752354808,
        0.25471315439061354, -0.17032712528508628, -0.8799787060623747], rtol=1e-13,
        atol=1e-15)


def test_pool_values_and_indices() -> None:
    x = _x4()
    v, i = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    assert i.dtype == torch.int64 and tuple(v.shape) == (1, 2, 3, 3)
    assert i.numpy().ravel().tolist() == [1, 1, 8, 16, 12, 8, 16, 23, 23, 5, 2, 9, 5, 13, 13,
                                          20, 17, 24]
    np.testing.assert_array_equal(v.numpy().ravel()[:4], [
        0.9916648104524686, 0.9916648104524686, 0.8591618148564958, 0.8792730616507243])
    _, i = F.max_pool2d(x, 2, stride=1, dilation=2, return_indices=True)
    assert i.numpy().ravel().tolist() == [12, 1, 12, 5, 16, 19, 12, 23, 12, 2, 13, 2, 17, 6, 9,
                                          20, 13, 24]
    np.testing.assert_allclose(
        F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                     count_include_pad=False).numpy().ravel()[:6],
        [0.27256930887060415, -0.10809015981269582, 0.2060502641994963, 0.03775788716818081,
         -0.016824194691650543, 0.036739078092299114], rtol=1e-13)
    np.testing.assert_allclose(
        F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True).numpy().ravel()[:6],
        [0.12114191505360185, -0.07206010654179722, 0.09157789519977613, 0.025171924778787207,
         -0.016824194691650543, 0.024492718728199407], rtol=1e-13)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, (2, 3)).numpy().ravel()[:6], [
        -0.0033532137018898317, 0.01040181333646881, -0.042705664061659064,
        -0.04210818128906072, 0.009854917578452804, -0.0015290605488027683], rtol=1e-12)
    v, i = F.adaptive_max_pool2d(x, (3, 2), return_indices=True)
    assert i.numpy().ravel().tolist() == [1, 8, 12, 12, 16, 23, 2, 9, 17, 13, 20, 24]
    assert v.numpy().ravel()[2] == 0.9997929001426692


def test_batch_norm_running_statistics_cumulative() -> None:
    x = _x4()
    bn = nn.BatchNorm2d(2, momentum=None).double()
    for k in range(2):
        y = bn(x * (k + 1) + k)
    assert int(bn.num_batches_tracked) == 2 and bn.num_batches_tracked.dtype == torch.int64
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.5539076351394482,
                                                         0.5036715573811765], rtol=1e-13)
    np.testing.assert_allclose(bn.running_var.numpy(), [1.246447637237954, 1.3538981409680793],
                               rtol=1e-13)
    np.testing.assert_allclose(y.detach().numpy().ravel()[:3], [
        -0.051946376094633706, 1.38143295144374, -0.4213124452753156], rtol=1e-12)
    bn.eval()
    np.testing.assert_allclose(bn(x).detach().numpy().ravel()[:3], [
        -0.49613354292508144, 0.3920978960224072, -0.7250210040622321], rtol=1e-12)


def test_reprs_and_state_dict_keys() -> None:
    expected = {
        "Conv2d(1, 6, 5)": "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))",
        "Conv2d(3, 6, 3, stride=2, padding=1, dilation=2, groups=3, bias=False)":
            "Conv2d(3, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
            "groups=3, bias=False)",
        "Conv2d(2, 2, 3, padding='same')":
            "Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=same)",
        "Conv1d(2, 4, 3)": "Conv1d(2, 4, kernel_size=(3,), stride=(1,))",
        "MaxPool2d(2)": "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, "
                        "ceil_mode=False)",
        "MaxPool2d((2, 3), stride=1, padding=1, ceil_mode=True)":
            "MaxPool2d(kernel_size=(2, 3), stride=1, padding=1, dilation=1, ceil_mode=True)",
        "MaxPool1d(2)": "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, "
                        "ceil_mode=False)",
        "AvgPool2d(3, 2, 1, ceil_mode=True)": "AvgPool2d(kernel_size=3, stride=2, padding=1)",
        "AvgPool1d(2)": "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))",
        "AdaptiveAvgPool2d((1, 1))": "AdaptiveAvgPool2d(output_size=(1, 1))",
        "AdaptiveAvgPool1d(3)": "AdaptiveAvgPool1d(output_size=3)",
        "AdaptiveMaxPool2d((2, None))": "AdaptiveMaxPool2d(output_size=(2, None))",
        "BatchNorm1d(4)": "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                          "track_running_stats=True)",
        "BatchNorm2d(3, momentum=None, affine=False, track_running_stats=False)":
            "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, "
            "track_running_stats=False)",
    }
    for code, text in expected.items():
        assert repr(eval("nn." + code)) == text  # noqa: S307 (our own literal strings)
    assert list(nn.BatchNorm2d(3).state_dict()) == ["weight", "bias", "running_mean",
                                                    "running_var", "num_batches_tracked"]
    assert list(nn.BatchNorm2d(3, affine=False, track_running_stats=False).state_dict()) == []
    assert list(nn.Conv2d(1, 2, 3, bias=False).state_dict()) == ["weight"]


def _chain(fn: Any) -> list[str]:
    names = []
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def test_node_names_and_saved_values() -> None:
    x = torch.randn(2, 3, 6, 6, requires_grad=True)
    w = torch.randn(4, 3, 3, 3, requires_grad=True)
    y = F.conv2d(x, w, stride=2, padding=1)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert (y.grad_fn._saved_stride, y.grad_fn._saved_padding, y.grad_fn._saved_dilation,
            y.grad_fn._saved_groups, y.grad_fn._saved_transposed,
            y.grad_fn._saved_bias_sym_sizes_opt) == ((2, 2), (1, 1), (1, 1), 1, False, (0,))
    gx, gw = torch.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    assert gx.grad_fn.name() == gw.grad_fn.name() == "ConvolutionBackwardBackward0"
    x1 = torch.randn(2, 3, 9, requires_grad=True)
    assert F.conv1d(x1, torch.randn(4, 3, 3)).grad_fn._saved_stride == (1,)
    assert _chain(F.max_pool1d(x1, 2).grad_fn) == [
        "SqueezeBackward1", "MaxPool2DWithIndicesBackward0", "UnsqueezeBackward0",
        "torch::autograd::AccumulateGrad"]
    assert _chain(F.avg_pool1d(x1, 2).grad_fn)[1] == "AvgPool2DBackward0"
    assert _chain(F.adaptive_avg_pool1d(x1, 4).grad_fn)[1] == "AdaptiveAvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"
    mp = F.max_pool2d(x, 2)
    assert mp.grad_fn._saved_stride == () and mp.grad_fn._saved_kernel_size == (2, 2)
    for y, name in ((mp, "MaxPool2DWithIndices"), (F.avg_pool2d(x, 2), "AvgPool2D"),
                    (F.adaptive_avg_pool2d(x, 4), "AdaptiveAvgPool2D"),
                    (F.adaptive_max_pool2d(x, 4), "AdaptiveMaxPool2D")):
        assert y.grad_fn.name() == f"{name}Backward0"
        (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
        assert g.grad_fn.name() == f"{name}BackwardBackward0"
    bn = F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(3, requires_grad=True),
                      None, training=True)
    assert bn.grad_fn.name() == "NativeBatchNormBackward0"
    assert bn.grad_fn._saved_eps == 1e-5 and bn.grad_fn._saved_training is True
    assert tuple(bn.grad_fn._saved_result1.shape) == (3,)
    (g,) = torch.autograd.grad((bn ** 3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "NativeBatchNormBackwardBackward0"


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.conv2d(torch.randn(2, 5, 7, 7), torch.randn(4, 3, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 7, 7] to have 3 "
     "channels, but got 5 channels instead"),
    (lambda: F.conv2d(torch.randn(2, 3, 2, 2), torch.randn(4, 3, 3, 3)), RuntimeError,
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
     "can't be greater than actual input size"),
    (lambda: F.conv2d(torch.randn(7, 7), torch.randn(4, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [7, 7]"),
    (lambda: F.conv2d(torch.randn(1, 3, 7, 7), torch.randn(4, 3, 3, 3), stride=2,
                      padding="same"), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.BatchNorm2d(3)(torch.randn(2, 3, 4)), ValueError,
     "expected 4D input (got 3D input)"),
    (lambda: nn.BatchNorm1d(3)(torch.randn(1, 3)), ValueError,
     "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"),
    (lambda: F.max_pool2d(torch.randn(1, 1, 4, 4), 2, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
     "dilation=1"),
    (lambda: F.max_pool2d(torch.randn(1, 2, 8, 9), (3, 4), 1, 2, 2), RuntimeError,
     "pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, "
     "kW = 4, kH = 3"),
    (lambda: F.max_pool2d(torch.randn(1, 1, 1, 1), 2), RuntimeError,
     "Given input size: (1x1x1). Calculated output size: (1x0x0). Output size is too small"),
    (lambda: nn.BatchNorm1d(3)(torch.randn(2, 4)), RuntimeError,
     "running_mean should contain 4 elements not 3"),
    (lambda: F.adaptive_avg_pool2d(torch.randn(2, 3, 4, 4), (2, 2, 2)), RuntimeError,
     "adaptive_avg_pool2d: output_size must be 2"),
])
def test_errors_as_torch(call: Callable[[], Any], error: type, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_top_level_functions() -> None:
    """``torch.conv2d``, ``torch.max_pool2d`` ... with PyTorch's top-level signatures."""
    x = torch.tensor(np.sin(np.arange(2 * 3 * 9.0)).reshape(2, 3, 9))
    x4 = torch.tensor(np.sin(np.arange(2 * 3 * 6 * 6.0)).reshape(2, 3, 6, 6))
    np.testing.assert_array_equal(torch.max_pool2d(x4, 2, [], 0, 1, False).numpy(),
                                  F.max_pool2d(x4, 2).numpy())
    values, indices = torch.max_pool1d_with_indices(x, 3, 2)
    assert tuple(values.shape) == tuple(indices.shape) == (2, 3, 4)
    assert torch.adaptive_max_pool1d(x, 3)[1].dtype == torch.int64
    np.testing.assert_array_equal(torch.avg_pool1d(x, 3).numpy(), F.avg_pool1d(x, 3).numpy())
    w, b = torch.ones(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    np.testing.assert_array_equal(
        torch.batch_norm(x4, w, b, rm, rv, False, 0.1, 1e-5, False).numpy(),
        F.batch_norm(x4, rm, rv, w, b, False, 0.1, 1e-5).numpy())
    assert torch.conv1d is F.conv1d and torch.conv2d is F.conv2d


def _third(kind: str, xa: np.ndarray) -> tuple[float, np.ndarray]:
    """A scalar built from second derivatives, and its gradient by ``x`` (third order)."""
    rs = np.random.default_rng(0)
    x = torch.tensor(xa, requires_grad=True)
    w = torch.tensor(rs.uniform(0.5, 1.5, 2), requires_grad=True)
    b = torch.tensor(rs.standard_normal(2), requires_grad=True)
    if kind == "conv":
        w = torch.tensor(rs.standard_normal((2, 2, 2)), requires_grad=True)
        y = F.conv1d(x, w, b, padding=1)
    else:
        y = F.batch_norm(x, None, None, w, b, training=kind == "bn")
    cot = torch.tensor(rs.standard_normal(tuple(y.shape)))
    gs = torch.autograd.grad((y * y * cot).sum(), (x, w, b), create_graph=True)
    g2 = torch.autograd.grad((gs[0] ** 3).sum(), (x, w), create_graph=True)
    t = (g2[0] ** 2).sum() + (g2[1] ** 2).sum()
    return float(t.detach()), torch.autograd.grad(t, x)[0].numpy()


@pytest.mark.parametrize("kind", ["bn", "conv"])
def test_third_order_by_differences(kind: str) -> None:
    """Third derivatives through ``...BackwardBackward0`` nodes match central differences
    (PyTorch 2.13's own third derivative of training batch norm does not)."""
    xa = np.random.default_rng(1).standard_normal((3, 2, 4))
    v = np.random.default_rng(2).standard_normal(xa.shape)
    eps = 1e-5
    fd = (_third(kind, xa + eps * v)[0] - _third(kind, xa - eps * v)[0]) / (2 * eps)
    got = float(np.sum(_third(kind, xa)[1] * v))
    assert abs(got - fd) <= 1e-6 * max(1.0, abs(fd))


def test_conv_pool_bn_padding_run_on_the_device_standin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15: the kernels follow their input's namespace; on the CPU device stand-in
    (``cuda`` tensors that refuse every silent host conversion) values and gradients
    equal the host's."""
    from st_autodiff.runtime import device

    monkeypatch.setitem(device._STATE, "standin", True)
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((2, 2, 5, 5))
    wa = rng.standard_normal((2, 2, 2, 2))
    calls = {"conv2d": lambda x, w: F.conv2d(x, w, padding=1, stride=2),
             "max_pool2d": lambda x, w: F.max_pool2d(x * w.sum(), 2, padding=1),
             "avg_pool2d": lambda x, w: F.avg_pool2d(x * w.sum(), 3, stride=1),
             "adaptive_avg_pool2d": lambda x, w: F.adaptive_avg_pool2d(x * w.sum(), 3),
             "adaptive_max_pool2d": lambda x, w: F.adaptive_max_pool2d(x * w.sum(), 2),
             "batch_norm": lambda x, w: F.batch_norm(x * w.sum(), None, None, training=True),
             "reflect padding": lambda x, w: F.pad(x * w.sum(), (1, 1, 2, 0), mode="reflect")}
    for name, call in calls.items():
        got = []
        for dev in ("cpu", "cuda"):
            x = torch.tensor(xa, device=dev, requires_grad=True)
            w = torch.tensor(wa, device=dev, requires_grad=True)
            y = call(x, w)
            assert y.device.type == dev, name
            (y.sin().sum()).backward()
            got.append([t.detach().cpu().numpy() for t in (y, x.grad, w.grad)])
        for a, b in zip(*got):
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=name)


def test_train_cnn_example_learns() -> None:
    """``examples/train_cnn.py`` (run in full by ``test_conv_pool_bn_torch``) learns its task."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "train_cnn.py"
    spec = importlib.util.spec_from_file_location("train_cnn", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(epochs=3, verbose=False) >= example.TARGET_ACCURACY


def test_docstring_examples() -> None:
    import doctest

    from st_autodiff.runtime.nn import batchnorm, conv, pooling

    for module in (conv, pooling, batchnorm):
        assert doctest.testmod(module).failed == 0


def test_asymmetric_same_padding_pads_first() -> None:
    """An even kernel with ``padding='same'`` pads the remainder first, as PyTorch does."""
    x = torch.randn(1, 2, 6, 6, requires_grad=True)
    with pytest.warns(UserWarning, match="^Using padding='same' with even kernel lengths and "
                      "odd dilation may require a zero-padded copy of the input be created$"):
        y = F.conv2d(x, torch.randn(3, 2, 2, 3), padding="same")
    assert tuple(y.shape) == (1, 3, 6, 6) and y.grad_fn._saved_padding == (0, 1)
    pad = y.grad_fn.next_functions[0][0]
    assert pad.name() == "ConstantPadNdBackward0" and pad._saved_pad == (0, 0, 0, 1)
    (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ConstantPadNdBackward0"
