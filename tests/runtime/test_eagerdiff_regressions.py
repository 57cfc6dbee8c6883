"""Differences from PyTorch 2.13 found by differential testing (``test_eagerdiff_torch.py``
and hand-written tutorial/forum cases), each fixed; the expectations are what PyTorch 2.13
(CPU) gives, stored here so that these tests run without PyTorch."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn.functional as F


def _names(fn: object) -> list[object]:
    """``[name, [child names]]`` of a node and its next functions (``None`` for no edge)."""
    return [type(fn).__name__,
            [None if f is None else type(f).__name__ for f, _ in fn.next_functions]]  # type: ignore[attr-defined]


def _raises(exc: type[BaseException], message: str, f: object) -> None:
    with pytest.raises(exc, match=f"^{re.escape(message)}$"):
        f()  # type: ignore[operator]


# --- wrong values and gradients -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_mode_is_one_node_with_zero_gradient(mode: str) -> None:
    # was: floor/trunc(a / b): 0 * inf = NaN where b == 0, names TruncBackward0 -> DivBackward0
    a = torch.tensor([1.0, 2.0, -3.5], requires_grad=True)
    b = torch.tensor([0.0, 2.0, 2.0], requires_grad=True)
    r = torch.div(a, b, rounding_mode=mode)
    assert _names(r.grad_fn) == ["DivBackward2", ["AccumulateGrad", "AccumulateGrad"]]
    assert r.tolist() == ([math.inf, 1.0, -1.0] if mode == "trunc" else [math.inf, 1.0, -2.0])
    r.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0] and b.grad.tolist() == [0.0, 0.0, 0.0]
    s = torch.div(a, 2, rounding_mode=mode)
    assert _names(s.grad_fn) == ["DivBackward2", ["AccumulateGrad", None]]


def test_div_rounding_mode_of_integers_stays_integer() -> None:
    # was: float results
    a, b = torch.tensor([5, -5, 7]), torch.tensor([2, 2, -3])
    f = torch.div(a, b, rounding_mode="floor")
    t = torch.div(a, b, rounding_mode="trunc")
    assert f.dtype == torch.int64 and f.tolist() == [2, -3, -3]
    assert t.dtype == torch.int64 and t.tolist() == [2, -2, -2]
    assert torch.div(a, 2, rounding_mode="floor").tolist() == [2, -3, 3]
    assert torch.div(a, 2.5, rounding_mode="floor").tolist() == [2.0, -2.0, 2.0]
    _raises(RuntimeError, "ZeroDivisionError",
            lambda: torch.div(a, torch.tensor([0, 1, 1]), rounding_mode="floor"))
    _raises(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            "but found 'round'", lambda: torch.div(a, 2, rounding_mode="round"))


def test_full_max_min_share_the_gradient_between_nans() -> None:
    # was: NaN everywhere (the tie mask compared with ==)
    a = torch.tensor([0.5, math.nan, 1.0, math.nan], requires_grad=True)
    a.max().backward()
    assert a.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    b = torch.tensor([[0.5, math.nan], [math.inf, 2.0]], requires_grad=True)
    b.min().backward()
    assert b.grad.tolist() == [[0.0, 1.0], [0.0, 0.0]]
    c = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    c.max().backward()
    assert c.grad.tolist() == [0.0, 0.5, 0.5]


@pytest.mark.parametrize("make", [
    lambda x: x.std(), lambda x: x.var(), lambda x: torch.std_mean(x)[0],
    lambda x: torch.var_mean(x)[0]])
def test_no_degrees_of_freedom_give_nan_gradient(make: object) -> None:
    # was: ZeroDivisionError in backward (and NumPy's RuntimeWarnings, not PyTorch's warning)
    x = torch.tensor([1.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        make(x).backward()  # type: ignore[operator]
    assert math.isnan(x.grad.item())
    assert [type(w.message) for w in seen] == [UserWarning]
    assert "(): degrees of freedom is <= 0. Correction should be strictly less than the " \
        "reduction factor (input numel divided by output numel)." in str(seen[0].message)
    assert seen[0].filename == __file__


def test_scatter_gather_on_zero_dim_tensors() -> None:
    # was: IndexError: list assignment index out of range
    a = torch.tensor(1.5, requires_grad=True)
    s = a.scatter_add(0, torch.tensor(0), a)
    assert s.item() == 3.0 and _names(s.grad_fn)[0] == "ScatterAddBackward0"
    s.backward()
    assert a.grad.item() == 2.0
    assert a.gather(0, torch.tensor(0)).item() == 1.5
    assert a.scatter(0, torch.tensor(0), 2.0).item() == 2.0


def test_masked_fill_of_a_bool_tensor_casts_the_value() -> None:
    # was: int(0.5) == 0, so False
    a = torch.tensor([False, True])
    assert a.masked_fill(torch.tensor([True, False]), 0.5).tolist() == [True, True]
    a.masked_fill_(torch.tensor([True, False]), 0.5)
    assert a.tolist() == [True, True]
    assert torch.tensor([1, 2]).masked_fill(torch.tensor([True, False]), -2.7).tolist() == [-2, 2]


def test_cumsum_cumprod_of_zero_dim_stay_zero_dim() -> None:
    # was: shape [1]
    a = torch.tensor(1.5, requires_grad=True)
    c, p = a.cumsum(0), a.cumprod(-1)
    assert c.shape == () and p.shape == () and c.item() == 1.5 and p.item() == 1.5
    (c + p).backward()
    assert a.grad.item() == 2.0


def test_bool_max_min_keep_bool_and_clamp_promotes_like_torch() -> None:
    # was: int64; float64
    assert torch.tensor([True, False]).max().dtype == torch.bool
    assert torch.tensor([True, False]).amin().dtype == torch.bool
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = a.clamp(max=torch.tensor([1, 3]))
    assert c.dtype == torch.float32 and c.tolist() == [1.0, 2.0]
    assert a.clamp(min=torch.tensor([1.5, 3.0], dtype=torch.float64)).dtype == torch.float64
    assert torch.tensor([1, 5]).clamp(max=torch.tensor([2.0, 3.0])).dtype == torch.float32


def test_smooth_l1_and_huber_second_derivative_is_zero_on_the_bounds() -> None:
    # was: 1/n at |d| == beta (PyTorch's double backward uses |d| < beta)
    for loss in (F.smooth_l1_loss, F.huber_loss):
        x = torch.tensor([0.5, -1.0, 2.0, -0.25], dtype=torch.float64, requires_grad=True)
        y = loss(x, torch.zeros(4, dtype=torch.float64))
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        assert g.tolist() == [0.125, -0.25, 0.25, -0.0625]
        (gg,) = torch.autograd.grad(g.sum(), x)
        assert gg.tolist() == [0.25, 0.0, 0.0, 0.25]


def test_fill_with_a_tensor_value_records_fill3() -> None:
    # was: the value's gradient lost (``value.item()``), FillBackward2
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor(3.0, requires_grad=True)
    y = x * 1
    y.fill_(v)
    assert _names(y.grad_fn) == ["FillBackward3", ["MulBackward0", "AccumulateGrad"]]
    (y * torch.tensor([2.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and v.grad.item() == 7.0
    _raises(RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with "
            "1 dimensions.", lambda: torch.tensor([1.0, 2.0]).fill_(torch.tensor([1.0, 2.0])))


# --- create_graph: gradients that stay connected (requires_grad as PyTorch) ----------------

@pytest.mark.parametrize("fn", [
    torch.relu, F.relu, lambda x: F.leaky_relu(x, 0.1), F.hardtanh, F.relu6,
    lambda x: F.threshold(x, 0.1, 0.0), F.softshrink, F.hardshrink, torch.abs,
    lambda x: x.norm(p=1), lambda x: torch.copysign(x, x)])
def test_piecewise_linear_double_backward_is_connected(fn: object) -> None:
    # was: the gradient did not require grad, so a second autograd.grad raised
    x = torch.tensor([0.5, -1.0, 2.0, -0.25], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)  # type: ignore[operator]
    assert g.requires_grad and not g.is_leaf
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert tuple(gg.shape) == (4,) and not bool(gg.any())  # (PyTorch: a storage-less zero)


def test_relu_double_backward_node() -> None:
    x = torch.tensor([0.16, 0.21, -0.16], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.relu(x).sum(), x, create_graph=True)
    assert _names(g.grad_fn) == ["ThresholdBackwardBackward0", [None, "ReluBackward0"]]
    assert g.tolist() == [1.0, 1.0, 0.0]
    y = torch.tensor([1.9], requires_grad=True)
    (h,) = torch.autograd.grad(torch.abs(y).sum(), y, create_graph=True)
    assert h.requires_grad and h.tolist() == [1.0]


def test_mse_loss_with_a_bool_target_under_create_graph() -> None:
    # the bool-subtraction error must not reach the rules' own subtractions
    x = torch.tensor([-0.6, -1.8, 1.35, 1.63], requires_grad=True)
    y = F.mse_loss(x, torch.tensor([True, False, False, True]))
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.tolist(), [-0.8, -0.9, 0.675, 0.315], rtol=1e-6)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert gg.tolist() == [0.5, 0.5, 0.5, 0.5]


# --- errors and names ------------------------------------------------------------------------

_SUB1 = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
         "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_SUB2 = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
         "or `logical_xor()` operator instead.")
_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.")


def test_bool_subtraction_and_negation_errors() -> None:
    # was: NumPy's TypeError text, or an int64 result for ``1 - mask``
    m = torch.tensor([True, False])
    _raises(RuntimeError, _NEG, lambda: -m)
    _raises(RuntimeError, _NEG, lambda: m.neg())
    _raises(RuntimeError, _SUB2, lambda: m - m)
    _raises(RuntimeError, _SUB2, lambda: torch.sub(m, m))
    _raises(RuntimeError, _SUB1, lambda: m - 1)
    _raises(RuntimeError, _SUB1, lambda: 1 - m)
    _raises(RuntimeError, _SUB1, lambda: m - torch.tensor([1.0, 2.0]))
    _raises(RuntimeError, _SUB1, lambda: torch.tensor([1.0, 2.0]) - m)
    assert (m + m).tolist() == [True, False] and (~m).tolist() == [False, True]
    _raises(TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type "
            "tensors", lambda: ~torch.tensor([1.5]))


_MULTI = ("Output {} of {} is a view and is being modified inplace. This view is the output of "
          "a function that returns multiple views. Such functions do not allow the output views "
          "to be modified inplace. You should replace the inplace operation by an out-of-place "
          "one.")


def test_inplace_on_outputs_of_multi_view_functions() -> None:
    # was: allowed (or the leaf-view message)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _raises(RuntimeError, _MULTI.format(0, "Unbind"), lambda: x.unbind(0)[0].mul_(2))
    _raises(RuntimeError, _MULTI.format(0, "Split"), lambda: x.split(1)[0].mul_(2))
    _raises(RuntimeError, _MULTI.format(1, "Split"), lambda: (x * 1).chunk(2)[1].add_(2))
    pieces = (x * 1).split([1, 2])
    assert type(pieces[1].grad_fn).__name__ == "SplitWithSizesBackward0"
    _raises(RuntimeError, _MULTI.format(1, "SplitWithSizes"), lambda: pieces[1].add_(2))
    plain = torch.tensor([1.0, 2.0, 3.0])
    plain.split(1)[1].add_(2)  # no autograd: allowed
    assert plain.tolist() == [1.0, 4.0, 3.0]
    with torch.no_grad():
        x.split(1)[1].add_(2)
    assert x.tolist() == [1.0, 4.0, 3.0]


@pytest.mark.parametrize(("change", "name"), [
    (lambda y: y.fill_(2.0), "Fill2"), (lambda y: y.fill_(torch.tensor(2.0)), "Fill3"),
    (lambda y: y.clamp_(0, 1), "Clamp1"), (lambda y: y.add_(1), "Add"),
    (lambda y: y.zero_(), "Zero"), (lambda y: y.pow_(2), "Pow"),
    (lambda y: y.copy_(torch.tensor([3.0, 4.0])), "torch::autograd::CopyBackwards")])
def test_version_error_names_the_node_as_pytorch(change: object, name: str) -> None:
    # was: Fill, Clamp, CopyBackwards
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    change(y)  # type: ignore[operator]
    with pytest.raises(RuntimeError, match=re.escape(f"which is output 0 of {name}, is at")):
        z.sum().backward()


# --- missing methods -------------------------------------------------------------------------

def test_tile() -> None:
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert a.tile((2,)).tolist() == [[1.0, 2.0, 1.0, 2.0], [3.0, 4.0, 3.0, 4.0]]
    b = torch.tile(a, (2, 1, 3))
    assert tuple(b.shape) == (2, 2, 6) and type(b.grad_fn).__name__ == "RepeatBackward0"
    assert tuple(a.tile(2, 2).shape) == (4, 4)
    b.sum().backward()
    assert a.grad.tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert torch.tensor(3.0).tile((2,)).tolist() == [3.0, 3.0]


def test_data_ptr_is_shared_by_detach_and_views() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.detach().data_ptr() == x.data_ptr()
    assert x[1:].data_ptr() - x.data_ptr() == 4
    assert x.clone().data_ptr() != x.data_ptr()


# --- found in the second round ---------------------------------------------------------------

def test_relu_backward_of_an_infinite_gradient_where_off() -> None:
    # was: NaN (inf * 0); PyTorch's threshold_backward writes 0
    x = torch.tensor([1.0, -1.0, 0.0, 2.0], requires_grad=True)
    torch.log(torch.relu(x)).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 0.5]
    y = torch.tensor([1.0, -1.0, 0.0, 4.0], requires_grad=True)
    torch.sqrt(F.relu(y)).sum().backward()
    assert y.grad.tolist() == [0.5, 0.0, 0.0, 0.25]


def test_full_max_backward_with_a_nan_gradient_stays_on_the_maximum() -> None:
    # was: NaN everywhere (the mask multiplied a NaN share)
    a = torch.tensor([[1.53, -1.3], [1.23, -0.76]], dtype=torch.float64, requires_grad=True)
    torch.sigmoid(torch.log(a).min()).backward()
    g = a.grad.tolist()
    assert g[0][0] == 0.0 and g[1][0] == 0.0 and math.isnan(g[0][1]) and math.isnan(g[1][1])


def test_sign_of_nan_is_zero() -> None:
    # was: NaN (np.sign); PyTorch's kernel is (0 < x) - (x < 0)
    assert torch.sign(torch.tensor([math.nan, -2.0, 0.0, 3.0])).tolist() == [0.0, -1.0, 0.0, 1.0]
    assert torch.sgn(torch.tensor([math.nan])).tolist() == [0.0]
    assert torch.sign(torch.tensor(math.nan)).item() == 0.0


def test_dtypes_of_integer_and_bool_operands() -> None:
    # was: float64 (atan2 of ints), int8 (bool ** 2)
    a = torch.tensor([1, 2])
    assert torch.atan2(a, a).dtype == torch.float32
    m = torch.tensor([True, False])
    assert (m ** 2).dtype == torch.int64 and torch.square(m).tolist() == [1, 0]
    assert (m ** 2.0).dtype == torch.float32


def test_copysign_promotion_and_gradient_of_the_sign_source() -> None:
    # was: float64 from a 0-d float64 operand; no node when only ``other`` requires grad
    x = torch.tensor([-0.63, 1.27, -0.09], requires_grad=True)
    s = torch.tensor(-1.09, dtype=torch.float64, requires_grad=True)
    v = torch.copysign(s, x)
    assert v.dtype == torch.float32 and v.tolist() == pytest.approx([-1.09, 1.09, -1.09])
    v.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and s.grad.item() == pytest.approx(1.0)
    y = torch.copysign(torch.tensor([[-0.86], [0.53]]), x)
    assert type(y.grad_fn).__name__ == "CopysignBackward0"


def test_norm_of_a_zero_dim_tensor_over_its_dim() -> None:
    # was: ValueError: Improper number of dimensions to norm.
    a = torch.tensor(-1.5, requires_grad=True)
    assert a.norm(dim=-1).item() == 1.5
    n = F.normalize(a, dim=0)
    assert n.item() == -1.0
    n.backward()
    assert a.grad.item() == 0.0


def test_binary_cross_entropy_checks_the_target_range() -> None:
    # was: a negative loss
    x = torch.tensor([[0.2, 0.9]], requires_grad=True)
    _raises(RuntimeError, "all elements of target should be between 0 and 1",
            lambda: F.binary_cross_entropy(x, torch.tensor([[1.0, 2.0]])))
    _raises(RuntimeError, "all elements of input should be between 0 and 1",
            lambda: F.binary_cross_entropy(torch.tensor([[1.2, 0.9]]), torch.tensor([[1.0, 0.0]])))


def test_views_taken_before_an_inplace_change_are_regenerated() -> None:
    # was: the old grad_fn kept, so the gradient missed the change (x.grad [[1, 0], [1, 0]])
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    v1, v2 = b[0], b[:, 0]
    v1.mul_(2)
    assert _names(v2.grad_fn) == ["AsStridedBackward0", ["CopySlices"]]
    assert v2.tolist() == [2.0, 3.0]
    (v2 * 1).sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0], [1.0, 0.0]]
    y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    c = y * 1
    w = c[:, 0]
    c.mul_(3)  # the base itself
    (w * w).sum().backward()
    assert y.grad.tolist() == [[18.0, 0.0], [54.0, 0.0]]


def test_inplace_on_a_view_taken_under_no_grad() -> None:
    # was: "a view of a leaf Variable ..." (leaf base) or allowed (non-leaf base)
    msg = ("A view was created in no_grad mode and is being modified inplace with grad mode "
           "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
           "You can clarify your code by moving both the view and the inplace either both "
           "inside the no_grad block (if you don't want the inplace to be tracked) or both "
           "outside (if you want the inplace to be tracked).")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        y = x[1:]
    _raises(RuntimeError, msg, lambda: y.mul_(2))
    b = x * 1
    with torch.no_grad():
        z = b[1:]
    _raises(RuntimeError, msg, lambda: z.mul_(2))
    with torch.no_grad():
        w = x[1:]
        w.mul_(2)  # both inside: allowed
    assert x.tolist() == [1.0, 4.0, 6.0]
    n = torch.tensor([1.0, 2.0])
    with torch.no_grad():
        m = n[1:]
    m.mul_(2)  # no autograd involved: allowed
    assert n.tolist() == [1.0, 4.0]
