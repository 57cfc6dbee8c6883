"""The nn pieces added by the eagernn part, without PyTorch: first and second derivatives
against central differences in float64 (the runtime's ``gradcheck``/``gradgradcheck``),
and small values stored from PyTorch 2.13 (``test_nn_more_torch.py`` compares live)."""

from __future__ import annotations

import doctest
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn.functional as F
from st_autodiff.autograd import gradcheck, gradgradcheck
from st_autodiff.nn.utils import rnn as U

R = np.random.RandomState(3)


def _t(*shape: int, positive: bool = False) -> Any:
    """A float64 array; the tests make the tensors (on the default device) when they run."""
    a = R.randn(*shape)
    return np.abs(a) + 0.5 if positive else a


def _leaves(arrays: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays)


X = _t(2, 4, 3, 5)
X3 = _t(2, 4, 5)
TARGET = np.abs(R.randn(3, 4)) * 3  # (values above and below 1: Stirling's term)

CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), (X, _t(4), _t(4))),
    "instance_norm": (lambda x, w: F.instance_norm(x, weight=w), (X3, _t(4))),
    "rms_norm": (lambda x, w: F.rms_norm(x, [5], w), (X, _t(5))),
    "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear"), (X,)),
    "interpolate_bilinear_corners": (
        lambda x: F.interpolate(x, size=(4, 7), mode="bilinear", align_corners=True), (X,)),
    "interpolate_linear": (lambda x: F.interpolate(x, size=8, mode="linear"), (X3,)),
    "interpolate_bicubic": (lambda x: F.interpolate(x, size=(5, 4), mode="bicubic"), (X,)),
    "interpolate_area": (lambda x: F.interpolate(x, size=(2, 3), mode="area"), (X,)),
    "interpolate_trilinear": (lambda x: F.interpolate(x, size=(3, 2, 4), mode="trilinear"),
                              (_t(1, 2, 2, 3, 3),)),
    "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=2), (X,)),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), (X,)),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x[..., :4], 2), (_t(1, 2, 4, 5),)),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                            output_padding=1, groups=2),
                         (X, _t(4, 2, 3, 2), _t(4))),
    "conv_transpose2d_dilation": (lambda x, w: F.conv_transpose2d(x, w, stride=(1, 2),
                                                                  dilation=2),
                                  (X, _t(4, 3, 2, 2))),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=2),
                         (X3, _t(4, 2, 3))),
    "glu": (lambda x: F.glu(x, 1), (X,)),
    "bilinear": (lambda a, b, w, c: F.bilinear(a, b, w, c), (_t(3, 4), _t(3, 2), _t(5, 4, 2),
                                                            _t(5))),
    "unfold": (lambda x: F.unfold(x, (2, 3), padding=1, stride=(1, 2)), (X,)),
    "fold": (lambda c: F.fold(c, (4, 5), 2, stride=2, padding=1), (_t(2, 8, 9),)),
    "embedding_bag_mean": (lambda w: F.embedding_bag(torch.tensor([0, 2, 2, 4, 1]), w,
                                                     torch.tensor([0, 3])), (_t(5, 3),)),
    "embedding_bag_max": (lambda w: F.embedding_bag(torch.tensor([[0, 2], [4, 1]]), w,
                                                    mode="max"), (_t(5, 3),)),
    "embedding_bag_weights": (lambda w, p: F.embedding_bag(torch.tensor([0, 2, 2, 4]), w,
                                                           torch.tensor([0, 1]), mode="sum",
                                                           per_sample_weights=p),
                              (_t(5, 3), _t(4))),
    "poisson_nll": (lambda x: F.poisson_nll_loss(x, torch.tensor(TARGET), log_input=False,
                                                 full=True),
                    (_t(3, 4, positive=True),)),
    "gaussian_nll": (lambda x, v: F.gaussian_nll_loss(x, torch.ones(3, 4), v, full=True),
                     (_t(3, 4), _t(3, 4, positive=True))),
    "triplet": (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, swap=True),
                (_t(3, 4), _t(3, 4), _t(3, 4))),
    "cosine_embedding": (lambda a, b: F.cosine_embedding_loss(a, b, torch.tensor([1.0, -1, -1]),
                                                              margin=-0.5),
                         (_t(3, 4), _t(3, 4))),
    "hinge_embedding": (lambda a: F.hinge_embedding_loss(a, torch.tensor([1.0, -1, 1, -1]),
                                                         margin=2.0), (_t(4),)),
    "multi_margin": (lambda a: F.multi_margin_loss(a, torch.tensor([0, 2, 1]), p=2, margin=2.0),
                     (_t(3, 4),)),
    "multilabel_soft_margin": (lambda a: F.multilabel_soft_margin_loss(
        a, torch.tensor([[1.0, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]])), (_t(3, 4),)),
    "lp_pool2d": (lambda x: F.lp_pool2d(x, 2, 2, stride=1), (X,)),
    "lp_pool1d": (lambda x: F.lp_pool1d(x, 3, 2), (_t(2, 3, 6, positive=True),)),
    "triplet_with_distance": (lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=torch.nn.PairwiseDistance(p=1.5), margin=2.0, swap=True),
        (_t(3, 4), _t(3, 4), _t(3, 4))),
    "cosine_similarity_module": (lambda a, b: torch.nn.CosineSimilarity(dim=0)(a, b),
                                 (_t(3, 4), _t(3, 4))),
    "pack_and_pad": (lambda a, b: U.pad_packed_sequence(
        U.pack_sequence([a, b], enforce_sorted=False), batch_first=True)[0],
        (_t(2, 3), _t(4, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_agree_with_central_differences(name: str) -> None:
    f, arrays = CASES[name]
    assert gradcheck(f, _leaves(arrays), eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_agree_with_central_differences(name: str) -> None:
    f, arrays = CASES[name]
    assert gradgradcheck(f, _leaves(arrays), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_packed_gru_gradients_agree_with_central_differences() -> None:
    torch.manual_seed(0)
    gru = torch.nn.GRU(3, 2, bidirectional=True).double()

    def f(a: Any, b: Any) -> Any:
        out, h = gru(U.pack_sequence([a, b], enforce_sorted=False))
        return U.pad_packed_sequence(out)[0].sum() + (h ** 2).sum()

    assert gradcheck(f, _leaves((_t(2, 3), _t(4, 3))))


def test_packed_lstm_second_derivatives_agree_with_central_differences() -> None:
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 2, num_layers=2).double()

    def f(a: Any, b: Any, c: Any) -> Any:
        out, (h, _) = lstm(U.pack_sequence([a, b, c], enforce_sorted=False))
        return out.data.sum() + h.sum()

    assert gradgradcheck(f, _leaves((_t(2, 2), _t(3, 2), _t(1, 2))))


# --- values stored from PyTorch 2.13 -----------------------------------------------------------

def _close(t: Any, want: list[Any], tol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(t.detach().tolist()).ravel(), np.ravel(want),
                               rtol=tol, atol=tol)


def test_stored_resampling_values() -> None:
    x = torch.arange(6.0).reshape(1, 1, 2, 3)
    _close(F.interpolate(x, size=(3, 4), mode="bilinear"),
           [0.0, 0.625, 1.375, 2.0, 1.5, 2.125, 2.875, 3.5, 3.0, 3.625, 4.375, 5.0])
    _close(F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=True),
           [0.0, 2 / 3, 4 / 3, 2.0, 1.5, 13 / 6, 17 / 6, 3.5, 3.0, 11 / 3, 13 / 3, 5.0])
    _close(F.interpolate(x, scale_factor=1.5),
           [0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 4.0, 5.0])
    _close(F.pixel_shuffle(torch.arange(8.0).reshape(1, 4, 1, 2), 2),
           [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0])
    _close(F.unfold(x, 2), [0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0])
    _close(F.fold(torch.ones(1, 4, 2), (2, 3), 2), [1.0, 2.0, 1.0, 1.0, 2.0, 1.0])


def test_stored_conv_transpose_values_and_init() -> None:
    x = torch.arange(6.0).reshape(1, 1, 2, 3)
    w = torch.arange(8.0).reshape(1, 2, 2, 2) / 4
    y = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert tuple(y.shape) == (1, 2, 3, 5)
    _close(y, [0.0, 0.5, 0.75, 1.0, 1.5, 0.75, 0.0, 1.0, 0.0, 1.25, 2.25, 2.0, 3.0, 2.5, 3.75,
               0.0, 1.5, 1.75, 3.0, 3.5, 3.75, 4.0, 5.0, 5.0, 6.25, 5.25, 6.0, 7.0, 7.5, 8.75])
    torch.manual_seed(0)
    m = torch.nn.ConvTranspose2d(2, 3, 2)
    assert m.weight.flatten().tolist()[:6] == [
        -0.0021612588316202164, 0.15485791862010956, -0.2375926673412323,
        -0.21244730055332184, -0.1111844852566719, 0.07741036266088486]
    assert m.bias.tolist() == [-0.046529628336429596, 0.030545899644494057, 0.2613884508609772]
    torch.manual_seed(0)
    b = torch.nn.Bilinear(2, 3, 2)
    assert b.weight.flatten().tolist()[:4] == [-0.005293981172144413, 0.37932288646698,
                                               -0.5819807648658752, -0.5203874707221985]
    assert b.bias.tolist() == [-0.6755334138870239, -0.4683041572570801]


def test_stored_normalisation_values() -> None:
    g = torch.arange(12.0).reshape(1, 4, 3) ** 1.5
    _close(F.group_norm(g, 2), [-1.19779027, -0.94298577, -0.47709423, 0.12621291, 0.84064609,
                                1.65101111, -1.403543, -0.89059287, -0.33956242, 0.2470786,
                                0.86728632, 1.51933372], 1e-6)
    _close(F.instance_norm(g), [-1.08969724, -0.23579776, 1.32549512, -1.19826913,
                                -0.05133581, 1.24960423, -1.20987463, -0.02921658, 1.23909104,
                                -1.21440077, -0.02043154, 1.23483264], 1e-6)
    _close(F.rms_norm(torch.tensor([[3.0, 4.0]]), [2]), [0.8485281467437744, 1.1313709020614624])
    _close(F.glu(torch.tensor([1.0, 2.0, 0.0, 3.0])), [0.5, 1.9051482677459717])


def test_stored_loss_values() -> None:
    a = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
    b = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]])
    got = [F.poisson_nll_loss(a, b.abs()), F.gaussian_nll_loss(a, b, b.abs() + 0.5),
           F.triplet_margin_loss(a, b, a * 2),
           F.cosine_embedding_loss(a, b, torch.tensor([1.0, -1])),
           F.hinge_embedding_loss(a, torch.tensor([[1.0, -1, 1], [-1, 1, -1]])),
           F.multi_margin_loss(a, torch.tensor([0, 1])),
           F.multi_margin_loss(a, torch.tensor([0, 1]), p=2, weight=torch.tensor([1.0, 2, 3])),
           F.multilabel_soft_margin_loss(a, (b > 0).float())]
    want = [2.332312822341919, 1.454683780670166, 2.2171077728271484, 0.7909572124481201, 1.0,
            0.9166666269302368, 3.2083334922790527, 1.2138173580169678]
    np.testing.assert_allclose([v.item() for v in got], want, rtol=1e-6)


def test_stored_embedding_bag_and_packing_values() -> None:
    w = torch.arange(12.0).reshape(6, 2)
    idx, offsets = torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2])
    assert F.embedding_bag(idx, w, offsets, mode="max").tolist() == [[4.0, 5.0], [10.0, 11.0]]
    _close(F.embedding_bag(idx, w, offsets), [3.0, 4.0, 26 / 3, 29 / 3])
    p = U.pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0]),
                         torch.tensor([6.0])], enforce_sorted=False)
    assert p.data.tolist() == [3.0, 1.0, 6.0, 4.0, 2.0, 5.0]
    assert p.batch_sizes.tolist() == [3, 2, 1]
    assert p.sorted_indices.tolist() == [1, 0, 2] and p.unsorted_indices.tolist() == [1, 0, 2]
    padded, lengths = U.pad_packed_sequence(p, batch_first=True)
    assert lengths.tolist() == [2, 3, 1]
    assert padded.tolist() == [[1.0, 2.0, 0.0], [3.0, 4.0, 5.0], [6.0, 0.0, 0.0]]


def test_module_surface() -> None:
    assert repr(torch.nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(torch.nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1)) == (
        "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))")
    assert repr(torch.nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert list(torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
                .state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                   "num_batches_tracked"]
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.GLU()))
    assert net.get_submodule("1.0").dim == -1
    with pytest.raises(AttributeError, match="Sequential has no attribute `3`"):
        net.get_submodule("3")
    y = F.interpolate(torch.ones(1, 1, 2, 2, requires_grad=True), scale_factor=2,
                      mode="bilinear")
    assert type(y.grad_fn).__name__ == "UpsampleBilinear2DBackward0"
    assert type(F.conv_transpose2d(torch.ones(1, 1, 2, 2, requires_grad=True),
                                   torch.ones(1, 1, 2, 2)).grad_fn).__name__ == (
        "ConvolutionBackward0")


def test_channel_dropout_drops_whole_channels() -> None:
    torch.manual_seed(1)
    y = F.dropout2d(torch.ones(8, 16, 3, 3), 0.5)
    per_channel = y.reshape(8, 16, 9)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())
    assert 0 < int((per_channel == 0).all(-1).sum()) < 128
    assert F.dropout1d(torch.ones(3, 4), 0.5, training=False).tolist() == [[1.0] * 4] * 3


def test_every_new_public_name_is_tested() -> None:
    """Each name the eagernn part adds to ``nn`` and ``nn.functional`` is exercised here or
    in the live comparison with PyTorch."""
    from st_autodiff.runtime.nn import MORE_PART as MODULES
    from st_autodiff.runtime.nn.functional import MORE_PART as FUNCTIONS

    here = Path(__file__).parent
    text = (here / "test_nn_more.py").read_text() + (here / "test_nn_more_torch.py").read_text()
    for name in [*MODULES, *FUNCTIONS]:
        assert f"{name}(" in text, name
        assert hasattr(torch.nn, name) or hasattr(F, name), name


@pytest.mark.parametrize("name", ["conv_transpose", "embedding_bag", "layers_more",
                                  "losses_extra", "norm_more", "unfold_fold", "upsample",
                                  "utils.rnn"])
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(f"st_autodiff.runtime.nn.{name}"))
    assert result.failed == 0 and result.attempted > 0


def test_what_is_not_provided_says_so() -> None:
    with pytest.raises(NotImplementedError, match="'area' of 5-d inputs"):
        F.interpolate(torch.ones(1, 1, 2, 2, 2), scale_factor=2, mode="area")
    with pytest.raises(NotImplementedError, match="antialias"):
        F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2, mode="bilinear", antialias=True)


def test_sign_and_lp_pool_of_device_tensors_on_the_standin() -> None:
    """``sign`` of a float device array went through the host-scalar branch (found by the
    device stand-in survey of ``lp_pool``)."""
    from st_autodiff.runtime import device

    old = device.standin_active()
    device.use_standin(True)
    try:
        x = torch.tensor([-2.0, 0.0, float("nan"), 3.0], device="cuda")
        assert torch.sign(x).cpu().tolist() == [-1.0, 0.0, 0.0, 1.0]
        y = F.lp_pool1d(torch.tensor([[[3.0, 4.0, 1.0, 1.0]]], device="cuda"), 2, 2)
        np.testing.assert_allclose(y.cpu().tolist(), [[[5.0, 2.0 ** 0.5]]])
    finally:
        device.use_standin(old)
