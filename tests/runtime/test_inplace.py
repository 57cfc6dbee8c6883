"""In-place ops, indexed writes, views and version counters (PyTorch 2.13's texts)."""

from __future__ import annotations

import re

import pytest

import st_autodiff as torch

HINT = (" Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
PREFIX = ("one of the variables needed for gradient computation has been modified by an "
          "inplace operation: ")


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


def test_inplace_rewrites_grad_fn_and_bumps_version() -> None:
    a = torch.ones(3, requires_grad=True)
    b = a.clone()
    b.mul_(2)
    assert b.grad_fn.name() == "MulBackward0" and b._version == 1
    assert b.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    b.add_(1)
    assert b.grad_fn.name() == "AddBackward0" and b._version == 2
    b.pow_(2)
    b.sum().backward()
    assert a.grad.tolist() == [12.0, 12.0, 12.0]


def test_augmented_assignment_is_in_place() -> None:
    y = torch.ones(2, requires_grad=True)
    z = y * 2
    before = id(z)
    z += 1
    z *= 3
    assert id(z) == before and z.grad_fn.name() == "MulBackward0"
    z.sum().backward()
    assert y.grad.tolist() == [6.0, 6.0]


@pytest.mark.parametrize("code, message", [
    ("x = torch.ones(2, requires_grad=True); x.add_(1)",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("x = torch.ones(2, requires_grad=True); x += 1",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("x = torch.ones(2, requires_grad=True); x[0] = 3",
     "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("x = torch.ones(2, requires_grad=True); x[0].mul_(2)",
     "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("torch.tensor([1, 2]).add_(1.5)",
     "result type Float can't be cast to the desired output type Long"),
])
def test_refused_inplace(code: str, message: str) -> None:
    with pytest.raises(RuntimeError, match=exact(message)):
        exec(code, {"torch": torch})


def test_inplace_on_leaf_allowed_without_grad() -> None:
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        x.add_(1)
        x.mul_(2)
    assert x.tolist() == [4.0, 4.0] and x._version == 2 and x.is_leaf
    x.data.add_(1)
    assert x.tolist() == [5.0, 5.0] and x._version == 2


@pytest.mark.parametrize("code, what", [
    ("x = torch.ones(2, requires_grad=True); z = x.exp(); z.add_(1); z.sum().backward()",
     "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1; expected version 0 "
     "instead."),
    ("x = torch.ones(2, requires_grad=True); y = x * 1; z = y * y; y.add_(1); "
     "z.sum().backward()",
     "[torch.FloatTensor [2]], which is output 0 of Add, is at version 1; expected version 0 "
     "instead."),
    ("x = torch.ones(2, requires_grad=True); y = x.sin()\nwith torch.no_grad(): x.mul_(2)\n"
     "y.sum().backward()",
     "[torch.FloatTensor [2]] is at version 1; expected version 0 instead."),
    ("x = torch.ones(2, 2, requires_grad=True); y = x.double(); z = y.sin(); y[0, 0] = 3; "
     "z.sum().backward()",
     "[torch.DoubleTensor [2, 2]], which is output 0 of torch::autograd::CopySlices, is at "
     "version 1; expected version 0 instead."),
    ("x = torch.ones(2, requires_grad=True); y = x * 1; v = y[0:1]; z = v.sin(); v.mul_(2); "
     "z.sum().backward()",
     "[torch.FloatTensor [1]], which is output 0 of AsStrided, is at version 1; expected "
     "version 0 instead."),
])
def test_modified_saved_tensor_is_detected(code: str, what: str) -> None:
    with pytest.raises(RuntimeError, match=exact(PREFIX + what + HINT)):
        exec(code, {"torch": torch})


def test_unsaved_input_may_be_modified() -> None:
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    z = y + 1
    y.mul_(2)
    z.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_indexed_writes_record_copyslices() -> None:
    a = torch.ones(3, requires_grad=True)
    b = a.clone()
    b[0] = 5
    assert type(b.grad_fn).__name__ == "CopySlices"
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    c = torch.tensor([10.0, 20.0], requires_grad=True)
    b[1:] = c
    assert [type(n).__name__ for n, _ in b.grad_fn.next_functions] == ["CopySlices",
                                                                       "AccumulateGrad"]
    (b * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0] and c.grad.tolist() == [2.0, 3.0]


def test_inplace_through_a_view_rewires_the_base() -> None:
    a = torch.ones(3, requires_grad=True)
    b = a.clone()
    v = b[0:2]
    v.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0" and b.grad_fn.name().endswith("CopySlices")
    assert v._version == b._version == 1 and b.tolist() == [3.0, 3.0, 1.0]
    b.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 1.0]


def test_views_share_storage_and_version() -> None:
    w = torch.zeros(2, 3)
    r = w[0]
    r[1] = 4
    assert w.tolist() == [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0]] and r._base is w
    t = w.t()
    t.add_(1)
    assert w._version == 2 and t._version == 2 and w[1, 2].item() == 1.0
    with pytest.raises(RuntimeError, match="^view size is not compatible"):
        w.t().view(6)
    assert w.t().reshape(6)._base is None  # a copy, not a view


def test_setitem_forms() -> None:
    x = torch.zeros(2, 3)
    x[0] = 1
    x[:, 1] = torch.tensor([7.0, 8.0])
    x[x > 7] = -1
    x[1, [0, 2]] = torch.tensor(5.0)
    assert x.tolist() == [[1.0, 7.0, 1.0], [5.0, -1.0, 5.0]] and x._version == 4


def test_zero_fill_copy() -> None:
    a = torch.ones(3, requires_grad=True)
    b = a * 1
    b.zero_()
    assert b.grad_fn.name() == "ZeroBackward0"
    b.fill_(2.0)
    assert b.grad_fn.name() == "FillBackward2"
    b.copy_(a * 4)
    assert type(b.grad_fn).__name__ == "CopyBackwards"
    b.sum().backward()
    assert a.grad.tolist() == [4.0, 4.0, 4.0]
