"""Tensors without autograd: creation, dtypes, metadata, printing, NumPy sharing, RNG.

Expected texts and values were taken from PyTorch 2.13; these tests do not need it.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as torch


@pytest.mark.parametrize("expr, text", [
    ("torch.tensor(7.)", "tensor(7.)"),
    ("torch.tensor(3.7183)", "tensor(3.7183)"),
    ("torch.tensor([1., 2.], requires_grad=True)", "tensor([1., 2.], requires_grad=True)"),
    ("torch.tensor([1.5, 1.5])", "tensor([1.5000, 1.5000])"),
    ("torch.tensor([1., 2.], dtype=torch.float16)", "tensor([1., 2.], dtype=torch.float16)"),
    ("torch.tensor([1., 2.], dtype=torch.float64)", "tensor([1., 2.], dtype=torch.float64)"),
    ("torch.tensor([1, 2])", "tensor([1, 2])"),
    ("torch.tensor([True, False])", "tensor([ True, False])"),
    ("torch.tensor([1e-5, 1.])", "tensor([1.0000e-05, 1.0000e+00])"),
    ("torch.tensor([float('nan'), 1.5, float('inf')])", "tensor([   nan, 1.5000,    inf])"),
    ("torch.tensor([])", "tensor([])"),
    ("torch.zeros(0, 3)", "tensor([], size=(0, 3))"),
    ("torch.zeros(0, dtype=torch.int64)", "tensor([], dtype=torch.int64)"),
    ("torch.tensor([[6., 6.], [7., 9.]])", "tensor([[6., 6.],\n        [7., 9.]])"),
    ("torch.tensor([[-1.5, 2.], [3., -4.25]])",
     "tensor([[-1.5000,  2.0000],\n        [ 3.0000, -4.2500]])"),
    ("torch.arange(8.).reshape(2, 2, 2)",
     "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])"),
    ("torch.tensor(2., requires_grad=True) * 3", "tensor(6., grad_fn=<MulBackward0>)"),
])
def test_repr(expr: str, text: str) -> None:
    assert repr(eval(expr)) == text


def test_repr_wraps_and_summarises() -> None:
    text = repr(torch.arange(30.) / 7)
    lines = text.splitlines()
    assert lines[0].startswith("tensor([0.0000, 0.1429,") and len(lines) == 4
    assert all(len(line) <= 80 for line in lines)
    big = repr(torch.arange(2000.))
    assert big == "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n" \
                  "        1.9990e+03])"


def test_size_dtype_device_print_like_pytorch() -> None:
    x = torch.ones(2, 3)
    assert repr(x.shape) == "torch.Size([2, 3])" and x.shape == (2, 3)
    assert x.size() == torch.Size([2, 3]) and x.size(1) == 3 and x.size(-1) == 3
    assert repr(x.dtype) == "torch.float32" and x.dtype is torch.float32 is torch.float
    assert repr(x.device) == "device(type='cpu')" and str(x.device) == "cpu"
    assert (x.ndim, x.dim(), x.numel()) == (2, 2, 6)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\], but got 2\)"):
        x.size(2)


def test_dtype_inference() -> None:
    assert torch.tensor([1, 2.5]).dtype is torch.float32
    assert torch.tensor([[1, 2]]).dtype is torch.int64
    assert torch.tensor(True).dtype is torch.bool
    assert torch.tensor(np.array([1.0])).dtype is torch.float64
    assert torch.full((2,), 3).dtype is torch.int64
    assert torch.full((2,), 3.0).dtype is torch.float32
    assert torch.arange(3).dtype is torch.int64 and torch.arange(0, 1, 0.5).dtype is torch.float32
    assert torch.HalfTensor([1.0]).dtype is torch.float16
    assert torch.DoubleTensor([1.0]).dtype is torch.float64
    assert isinstance(torch.ones(2), torch.FloatTensor)
    assert not isinstance(torch.ones(2), torch.DoubleTensor)


def test_type_promotion_follows_pytorch() -> None:
    f = torch.ones(2)
    assert (torch.tensor([1, 2]) * 2.5).dtype is torch.float32
    assert (torch.tensor([1, 2]) / torch.tensor([2, 2])).dtype is torch.float32
    assert (f * torch.tensor(2.0, dtype=torch.float64)).dtype is torch.float32
    assert (f * torch.ones(2, dtype=torch.float64)).dtype is torch.float64
    assert (torch.ones(2, dtype=torch.int64) * f).dtype is torch.float32
    assert (torch.tensor([True]) + 1).dtype is torch.int64
    assert torch.exp(torch.tensor([1, 2])).dtype is torch.float32
    assert torch.abs(torch.tensor([-1, 2])).dtype is torch.int64


def test_numpy_shares_memory_both_ways() -> None:
    a = np.array([1.0, 2.0])
    t = torch.from_numpy(a)
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    n = t.numpy()
    n[1] = 7.0
    assert t.tolist() == [5.0, 7.0]
    s = torch.tensor(3.0)
    view = s.numpy()
    view[()] = 4.0
    assert s.item() == 4.0


def test_numpy_of_tensor_requiring_grad() -> None:
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad\. "
                                           r"Use tensor\.detach\(\)\.numpy\(\) instead\.$"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_conversions() -> None:
    x = torch.tensor([1.5, -2.5])
    assert x.double().dtype is torch.float64 and x.half().dtype is torch.float16
    assert x.float() is x and x.to(torch.float32) is x and x.cpu() is x
    assert x.int().tolist() == [1, -2] and x.long().dtype is torch.int64
    assert x.type() == "torch.FloatTensor" and x.double().type() == "torch.DoubleTensor"
    assert x.to(torch.ones(1, dtype=torch.float64)).dtype is torch.float64
    assert torch.tensor(2.5).item() == 2.5 and torch.tensor([[1, 2]]).tolist() == [[1, 2]]
    assert int(torch.tensor(2.7)) == 2 and float(torch.tensor(2)) == 2.0
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted to "
                                           "Scalar$"):
        x.item()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value "
                                           "is ambiguous$"):
        bool(x)


def test_cuda_without_gpu_raises_like_pytorch() -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        torch.ones(2).cuda()
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        torch.zeros(2, device="cuda")


@pytest.mark.gpu
def test_cuda_round_trip_and_gradient() -> None:
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU with CuPy")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.cuda()
    assert y.is_cuda and str(y.device) == "cuda:0" and y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and not x.grad.is_cuda
    z = torch.ones(3, device="cuda", requires_grad=True)
    (z.exp() * 2).sum().backward()
    assert z.grad.is_cuda and np.allclose(z.grad.cpu().numpy(), 2 * np.e)


def test_copy_constructing_from_a_tensor_warns() -> None:
    with pytest.warns(UserWarning, match=r"^To copy construct from a tensor, it is recommended "
                                         r"to use sourceTensor\.detach\(\)\.clone\(\)"):
        torch.tensor(torch.ones(2))


@pytest.mark.parametrize("seed, draw, expected", [
    (0, lambda: torch.rand(4), [0.49625658988952637, 0.7682217955589294, 0.08847743272781372,
                                0.13203048706054688]),
    (0, lambda: torch.randn(3), [1.5409960746765137, -0.293428897857666, -2.1787893772125244]),
    (6, lambda: torch.randn(16)[:4], [-1.2113045454025269, 0.6303585767745972,
                                      -1.471303939819336, -1.335198998451233]),
    (1, lambda: torch.rand(2, dtype=torch.float64), [0.06105327471962363, 0.2245545065676504]),
    (1, lambda: torch.randn(17, dtype=torch.float64)[-2:], [0.8896745158287568,
                                                            -1.928583354008078]),
    (3, lambda: torch.randint(0, 10, (6,)), [6, 8, 7, 7, 0, 0]),
    (0, lambda: torch.randperm(10), [4, 1, 7, 5, 3, 9, 0, 8, 6, 2]),
    (2**40 + 5, lambda: torch.rand(2), [0.8302518725395203, 0.12611091136932373]),
])
def test_random_streams_match_pytorch(seed: int, draw, expected: list) -> None:
    torch.manual_seed(seed)
    np.testing.assert_allclose(draw().tolist(), expected, rtol=2e-6, atol=1e-6)


def test_factories() -> None:
    assert torch.zeros(2, 3).shape == (2, 3) and torch.zeros((2, 3)).shape == (2, 3)
    assert torch.ones([2]).tolist() == [1.0, 1.0] and torch.empty(2).shape == (2,)
    assert torch.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert torch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert torch.arange(1, 2.5, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert torch.zeros_like(torch.ones(2, dtype=torch.int32)).dtype is torch.int32
    assert torch.full_like(torch.ones(2), 7).tolist() == [7.0, 7.0]
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor([1, 2]).dtype is torch.float32
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                           "can require gradients$"):
        torch.tensor([1, 2], requires_grad=True)


def test_any_and_all_reduce_to_bool_tensors():
    import st_autodiff as torch

    m = torch.tensor([[0.0, 1.0], [0.0, 0.0]])
    assert repr(m.any()) == "tensor(True)" and repr(m.all()) == "tensor(False)"
    assert repr(torch.any(m, dim=1)) == "tensor([ True, False])"
    assert repr(torch.all(m > -1.0, dim=0, keepdim=True)) == "tensor([[True, True]])"


def test_python_floats_round_once_to_the_requested_dtype() -> None:
    """``tensor(0.7, dtype=float64)`` holds the double 0.7: the data is not rounded to the
    default float32 first (it held 0.699999988 before)."""
    import st_autodiff as torch

    assert torch.tensor([0.1, 0.7], dtype=torch.float64).numpy().tolist() == [0.1, 0.7]
    assert torch.tensor(0.7, dtype=torch.float64).item() == 0.7
    assert torch.tensor([16777217.0], dtype=torch.int64).tolist() == [16777217]
    assert torch.tensor([0.7]).dtype is torch.float32
    assert torch.DoubleTensor([0.7]).tolist() == [0.7]
