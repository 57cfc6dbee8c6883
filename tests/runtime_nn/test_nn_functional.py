"""``nn.functional``: node names and graph structure, values, saved tensors and errors.

The graph a call records must read as PyTorch's (the node names and ``next_functions``
below are PyTorch 2.x's), values are checked against NumPy formulas, and argument errors
carry PyTorch's exception types and messages.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn
import st_autodiff.nn.functional as F


def chain(fn, depth: int = 4) -> list:
    """The node names of a graph, depth first, as nested lists (``None`` for no edge)."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return [fn.name()] + [chain(f, depth - 1) for f, _ in fn.next_functions]


ACC = "torch::autograd::AccumulateGrad"


@pytest.fixture
def lin():
    torch.manual_seed(0)
    return nn.Linear(3, 5)


# --- linear -----------------------------------------------------------------------------------

def test_linear_matrix_input_is_one_addmm(lin):
    x = torch.randn(4, 3, requires_grad=True)
    y = F.linear(x, lin.weight, lin.bias)
    assert chain(y.grad_fn) == ["AddmmBackward0", [ACC], [ACC], ["TBackward0", [ACC]]]
    fn = y.grad_fn
    assert fn._saved_alpha == 1 and fn._saved_beta == 1
    assert fn._saved_mat1 is x and fn._saved_mat1_sym_sizes == (4, 3)
    assert fn._saved_mat2_sym_sizes == (3, 5)
    expected = x.detach().numpy() @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)


def test_linear_saves_only_what_the_active_inputs_need(lin):
    y = F.linear(torch.randn(4, 3), lin.weight, lin.bias)
    assert chain(y.grad_fn) == ["AddmmBackward0", [ACC], None, ["TBackward0", [ACC]]]
    assert y.grad_fn._saved_mat2 is None  # only needed for the input's gradient
    x = torch.randn(4, 3, requires_grad=True)
    y = F.linear(x, lin.weight.detach(), lin.bias.detach())
    assert chain(y.grad_fn) == ["AddmmBackward0", None, [ACC], None]
    assert y.grad_fn._saved_mat1 is None


@pytest.mark.parametrize("shape,bias,expected", [
    ((4, 3), False, ["MmBackward0", [ACC], ["TBackward0", [ACC]]]),
    ((3,), True, ["ViewBackward0", ["AddmmBackward0", [ACC], ["ViewBackward0", [ACC]],
                                    ["TBackward0", [ACC]]]]),
    ((3,), False, ["SqueezeBackward4", ["MmBackward0", ["UnsqueezeBackward0", [ACC]],
                                        ["TBackward0", [ACC]]]]),
    ((2, 4, 3), True, ["ViewBackward0", ["AddmmBackward0", [ACC], ["ViewBackward0", [ACC]],
                                         ["TBackward0", [ACC]]]]),
    ((2, 4, 3), False, ["UnsafeViewBackward0", ["MmBackward0", ["ViewBackward0", [ACC]],
                                                ["TBackward0", [ACC]]]]),
])
def test_linear_other_ranks_view_to_a_matrix_as_pytorch_does(lin, shape, bias, expected):
    x = torch.randn(*shape, requires_grad=True)
    y = F.linear(x, lin.weight, lin.bias if bias else None)
    assert y.shape == shape[:-1] + (5,)
    assert chain(y.grad_fn) == expected


def test_linear_errors(lin):
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(4x2 and 3x5\)"):
        F.linear(torch.randn(4, 2), lin.weight)
    with pytest.raises(RuntimeError, match=r"\(8x2 and 3x5\)"):
        F.linear(torch.randn(2, 4, 2), lin.weight, lin.bias)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: "
                                           "double != float"):
        F.linear(torch.randn(4, 3, dtype=torch.float64), lin.weight)
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                                           "Double and Float"):
        F.linear(torch.randn(3, dtype=torch.float64), lin.weight, lin.bias)
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype"):
        F.linear(torch.randn(4, 3), lin.weight, lin.bias.double())
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D"):
        F.linear(torch.tensor(1.0), lin.weight)


def test_stepping_a_weight_before_backward_is_detected(lin):
    x = torch.randn(2, 3, requires_grad=True)
    lin(x).sum().backward()
    loss = lin(x).sum()
    torch.optim.SGD(lin.parameters(), lr=0.1).step()  # changes the saved weight in place
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient "
                                           "computation has been modified by an inplace "
                                           "operation: \\[torch.FloatTensor \\[3, 5\\]\\], "
                                           "which is output 0 of .*, is at version 2; expected "
                                           "version 1 instead"):
        loss.backward()


# --- activations --------------------------------------------------------------------------------

def test_activations_nodes_and_inplace_relu():
    x = torch.tensor([-1.0, 0.5], requires_grad=True)
    assert F.relu(x).grad_fn.name() == "ReluBackward0"
    assert F.sigmoid(x).grad_fn.name() == "SigmoidBackward0"
    assert F.tanh(x).grad_fn.name() == "TanhBackward0"
    h = x * 1
    out = F.relu(h, inplace=True)
    assert out is h and h.tolist() == [0.0, 0.5] and h.grad_fn.name() == "ReluBackward0"
    assert nn.ReLU(inplace=True)(x * 1).grad_fn.name() == "ReluBackward0"


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    x = torch.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been "
                                         "deprecated"):
        y = F.softmax(x)
    np.testing.assert_allclose(y.sum(1).numpy(), [1.0, 1.0], rtol=1e-6)
    with pytest.warns(UserWarning, match="log_softmax"):
        F.log_softmax(torch.randn(3))
    assert nn.LogSoftmax(dim=1)(x).grad_fn is None
    y = nn.Softmax(dim=0)(x.requires_grad_())
    assert y.grad_fn.name() == "SoftmaxBackward0" and y.grad_fn._saved_dim == 0


# --- dropout ------------------------------------------------------------------------------------

def test_dropout_scales_kept_values_and_records_a_product():
    torch.manual_seed(0)
    x = torch.ones(50, 40, requires_grad=True)
    y = F.dropout(x, 0.2)
    assert y.grad_fn.name() == "MulBackward0"
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values == {0.0, np.float32(1 / 0.8).item()}
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())  # grad = mask / (1 - p)


def test_dropout_identity_and_extremes():
    x = torch.randn(3, 3, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    zeroed = F.dropout(x, 1.0)
    assert zeroed.grad_fn.name() == "MulBackward0" and not np.any(zeroed.detach().numpy())
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                                         "got -0.1"):
        F.dropout(x, -0.1)
    h = x * 1
    assert F.dropout(h, 0.5, inplace=True) is h


# --- regression losses ---------------------------------------------------------------------------

def test_mse_loss_node_values_and_saved_tensors():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    t = torch.tensor([[0.0, 2.0], [1.0, 0.0]])
    loss = F.mse_loss(x, t)
    assert loss.item() == pytest.approx((1 + 0 + 4 + 16) / 4)
    fn = loss.grad_fn
    assert fn.name() == "MseLossBackward0" and chain(fn) == ["MseLossBackward0", [ACC], None]
    assert fn._saved_reduction == 1 and fn._saved_self is x and fn._saved_target is t
    assert F.mse_loss(x, t, reduction="sum").item() == 21.0
    assert F.mse_loss(x, t, reduction="none").grad_fn._saved_reduction == 0
    loss.backward()
    assert x.grad.tolist() == [[0.5, 0.0], [1.0, 2.0]]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_mse_loss_broadcast_warns_and_expands():
    x = torch.randn(2, 3, requires_grad=True)
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[3\]\)\) that is "
                                         r"different to the input size \(torch.Size\(\[2, 3\]\)\)"):
        loss = F.mse_loss(x, torch.zeros(3))
    assert loss.grad_fn.name() == "MseLossBackward0"
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(4\\) at non-singleton dimension 1"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F.mse_loss(x, torch.zeros(2, 4))


def test_weighted_regression_losses_follow_pytorchs_formula():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    t = torch.zeros(2)
    w = torch.tensor([1.0, 3.0])
    loss = F.mse_loss(x, t, weight=w)
    assert loss.item() == pytest.approx((1 + 12) / 4) and loss.grad_fn.name() == "DivBackward0"
    assert F.l1_loss(x, t, weight=w, reduction="sum").item() == 7.0
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        F.mse_loss(x, t, weight=torch.ones(3))


def test_l1_loss_is_composed_like_pytorch_2():
    x = torch.randn(2, 3, requires_grad=True)
    t = torch.randn(2, 3)
    assert chain(F.l1_loss(x, t).grad_fn) == [
        "MeanBackward0", ["AbsBackward0", ["SubBackward0", [ACC], None]]]
    assert chain(F.l1_loss(x, t, reduction="sum").grad_fn)[0] == "SumBackward0"
    assert F.l1_loss(x, t, reduction="none").grad_fn.name() == "AbsBackward0"


def test_reduction_errors_and_legacy_flags():
    x = torch.randn(2, requires_grad=True)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(x, x.detach(), reduction="foo")
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, "
                                         "please use reduction='sum' instead."):
        loss = F.l1_loss(x, torch.zeros(2), size_average=False)
    assert loss.grad_fn.name() == "SumBackward0"


# --- classification losses ------------------------------------------------------------------------

def test_cross_entropy_is_nll_over_log_softmax():
    x = torch.tensor([[2.0, 0.0, -1.0], [0.5, 0.5, 0.5]], requires_grad=True)
    target = torch.tensor([0, 2])
    loss = F.cross_entropy(x, target)
    assert chain(loss.grad_fn) == ["NllLossBackward0", ["LogSoftmaxBackward0", [ACC]]]
    logp = x.detach().numpy() - np.log(np.exp(x.detach().numpy()).sum(1, keepdims=True))
    assert loss.item() == pytest.approx(-(logp[0, 0] + logp[1, 2]) / 2, rel=1e-6)
    fn = loss.grad_fn
    assert fn._saved_reduction == 1 and fn._saved_target is target and fn._saved_weight is None
    assert fn._saved_total_weight.item() == 2.0
    assert fn._saved_ignore_index == 2**64 - 100  # PyTorch shows the index as unsigned
    assert fn.next_functions[0][0]._saved_dim == 1
    loss.backward()
    soft = np.exp(logp)
    soft[[0, 1], [0, 2]] -= 1
    np.testing.assert_allclose(x.grad.numpy(), soft / 2, rtol=1e-5, atol=1e-7)


def test_cross_entropy_weights_ignore_index_and_reductions():
    x = torch.randn(4, 3, requires_grad=True)
    logp = F.log_softmax(x, 1).detach().numpy()
    target = torch.tensor([0, -100, 2, 1])
    w = torch.tensor([1.0, 2.0, 0.5])
    loss = F.cross_entropy(x, target, weight=w)
    picked = [1.0 * logp[0, 0], 0.5 * logp[2, 2], 2.0 * logp[3, 1]]
    assert loss.item() == pytest.approx(-sum(picked) / 3.5, rel=1e-6)
    assert loss.grad_fn._saved_total_weight.item() == 3.5
    none = F.cross_entropy(x, target, weight=w, reduction="none")
    assert none.shape == (4,) and none[1].item() == 0.0
    assert str(none[1].item()) == "0.0"  # not -0.0
    everything_ignored = F.cross_entropy(x, torch.full((4,), -100, dtype=torch.int64))
    assert math.isnan(everything_ignored.item())


def test_cross_entropy_probability_targets_and_label_smoothing_structure():
    x = torch.randn(4, 3, requires_grad=True)
    p = F.softmax(torch.randn(4, 3), 1)
    assert chain(F.cross_entropy(x, p).grad_fn, 3) == [
        "DivBackward1", ["NegBackward0", ["SumBackward0", "MulBackward0"]]]
    assert F.cross_entropy(x, p).grad_fn._saved_other == 4
    assert chain(F.cross_entropy(x, p, reduction="none").grad_fn, 2) == [
        "NegBackward0", ["SumBackward1", "MulBackward0"]]
    smooth = F.cross_entropy(x, torch.tensor([0, 1, 2, 0]), label_smoothing=0.1)
    assert chain(smooth.grad_fn, 2) == [
        "AddBackward0", ["MulBackward1", "NllLossBackward0"], ["MulBackward1", "DivBackward0"]]
    logp = F.log_softmax(x, 1).detach().numpy()
    onehot = np.eye(3)[[0, 1, 2, 0]] * 0.9 + 0.1 / 3
    assert smooth.item() == pytest.approx(-(onehot * logp).sum() / 4, rel=1e-5)


def test_cross_entropy_and_nll_errors():
    x = torch.randn(4, 3, requires_grad=True)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        F.cross_entropy(x, torch.tensor([0, 1, 3, 0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target "
                                         r"batch_size \(3\)."):
        F.cross_entropy(x, torch.tensor([0, 1, 0]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got "
                                           "Float"):
        F.cross_entropy(x, torch.tensor([0.0, 1, 0, 1]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                           "'weight'"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 0]), weight=torch.ones(3, requires_grad=True))
    with pytest.raises(ValueError, match="For 1D input, 1D target must have size 1"):
        F.nll_loss(x[0], torch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 0]), label_smoothing=1.5)


def test_bce_with_logits_single_node_and_values():
    x = torch.tensor([[-30.0, 0.0, 2.0]], requires_grad=True)
    t = torch.tensor([[0.0, 1.0, 0.25]])
    loss = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    xs, ts = x.detach().numpy().astype(np.float64), t.numpy()
    expected = np.maximum(xs, 0) - xs * ts + np.log1p(np.exp(-np.abs(xs)))
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=1e-6, atol=1e-6)
    fn = F.binary_cross_entropy_with_logits(x, t).grad_fn
    assert chain(fn) == ["BinaryCrossEntropyWithLogitsBackward0", [ACC], None]
    assert fn._saved_pos_weight is None and fn._saved_weight is None
    assert fn._saved_self is x and fn._saved_target is t and fn._saved_reduction == 1
    pw = torch.tensor([2.0, 2.0, 2.0])
    loss = F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="sum")
    lw = 1 + (2.0 - 1) * ts
    assert loss.item() == pytest.approx(float(((1 - ts) * xs + lw * np.log1p(np.exp(-xs))).sum()),
                                        rel=1e-5)


def test_bce_with_logits_errors():
    x = torch.randn(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match=r"Target size \(torch.Size\(\[3\]\)\) must be the same "
                                         r"as input size \(torch.Size\(\[2, 3\]\)\)"):
        F.binary_cross_entropy_with_logits(x, torch.rand(3))
    with pytest.raises(RuntimeError, match="The function 'binary_cross_entropy_with_logits' is "
                                           "not differentiable with respect to argument "
                                           "'pos_weight'"):
        F.binary_cross_entropy_with_logits(x, torch.rand(2, 3),
                                           pos_weight=torch.ones(3, requires_grad=True))


def test_losses_without_grad_record_nothing():
    x, t = torch.randn(2, 3), torch.rand(2, 3)
    for loss in (F.mse_loss(x, t), F.binary_cross_entropy_with_logits(x, t),
                 F.cross_entropy(x, torch.tensor([0, 2])), F.l1_loss(x, t)):
        assert loss.grad_fn is None and not loss.requires_grad
    with torch.no_grad():
        assert F.mse_loss(x.requires_grad_(), t).grad_fn is None


def test_float64_inputs_stay_float64():
    x = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    for loss in (F.mse_loss(x, torch.zeros(3, 2, dtype=torch.float64)),
                 F.cross_entropy(x, torch.tensor([0, 1, 1])),
                 F.binary_cross_entropy_with_logits(x, torch.zeros(3, 2, dtype=torch.float64))):
        assert loss.dtype is torch.float64
        loss.backward()
        assert x.grad.dtype is torch.float64
        x.grad = None
