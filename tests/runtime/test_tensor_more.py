"""Issue 12, tensor part: index ops, ``einsum``, ``Tensor.type``, default device/dtype,
``torch.testing.assert_close`` and the ``pow`` fast path.

Without torch: node names against ``NODE_NAMES`` (recorded from torch 2.13), first and
second derivatives against central differences in float64, stored torch messages.
With torch: values, node names and gradients of every case compared with torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from tests.runtime.tensor_more_cases import I2, NODE_NAMES, cases

_rng = np.random.default_rng(7)
X = _rng.standard_normal((3, 4))
S = _rng.standard_normal((3, 4))
CASES = cases(torch)


def _loss(name: str, x: Any, s: Any, w: np.ndarray) -> Any:
    """A nonlinear scalar of the case's result (so its second derivative is not zero)."""
    r = CASES[name](x, s)
    return ((r * torch.tensor(w)) ** 2).sum() * 0.5 + (r * torch.tensor(w)).sum()


def _weights(name: str) -> np.ndarray:
    r = CASES[name](torch.tensor(X), torch.tensor(S))
    return np.random.default_rng(len(name)).standard_normal(tuple(r.shape))


def _numeric(fn: Any, arrays: list[np.ndarray], k: int, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar ``fn(*arrays)`` with respect to ``arrays[k]``."""
    out = np.zeros_like(arrays[k])
    for i in np.ndindex(out.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[k][i] += eps
        minus[k][i] -= eps
        out[i] = (fn(*plus) - fn(*minus)) / (2 * eps)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_name_as_torch(name: str) -> None:
    x = torch.tensor(X, requires_grad=True)
    s = torch.tensor(S, requires_grad=True)
    assert type(CASES[name](x, s).grad_fn).__name__ == NODE_NAMES[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_finite_differences(name: str) -> None:
    w = _weights(name)

    def value(xa: np.ndarray, sa: np.ndarray) -> float:
        with torch.no_grad():
            return _loss(name, torch.tensor(xa), torch.tensor(sa), w).item()

    x = torch.tensor(X, requires_grad=True)
    s = torch.tensor(S, requires_grad=True)
    _loss(name, x, s, w).backward()
    for k, t in enumerate((x, s)):
        want = _numeric(value, [X, S], k)
        got = np.zeros_like(X) if t.grad is None else t.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"input {k}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_finite_differences(name: str) -> None:
    """``create_graph`` gradients (the rules' Tensor path) differentiated once more."""
    w = _weights(name)
    v = np.random.default_rng(3).standard_normal((2, 3, 4))

    def first(xa: np.ndarray, sa: np.ndarray, create: bool = False) -> Any:
        x = torch.tensor(xa, requires_grad=True)
        s = torch.tensor(sa, requires_grad=True)
        gs = torch.autograd.grad(_loss(name, x, s, w), (x, s), create_graph=create,
                                 allow_unused=True, materialize_grads=True)
        total = sum((g * torch.tensor(v[i])).sum() for i, g in enumerate(gs))
        return (x, s, total) if create else total.item()

    x, s, total = first(X, S, create=True)
    if not total.requires_grad:
        return
    got = torch.autograd.grad(total, (x, s), allow_unused=True, materialize_grads=True)
    for k in range(2):
        want = _numeric(first, [X, S], k)
        np.testing.assert_allclose(got[k].numpy(), want, rtol=1e-5, atol=1e-5,
                                   err_msg=f"input {k}")


def test_prod_with_zeros_matches_finite_differences() -> None:
    xa = np.array([[0.0, 2.0, 3.0], [1.5, 0.0, -1.0]])
    sa = np.array([[0.0, 4.0], [2.0, -3.0]])
    idx = torch.tensor([[0, 0], [1, 2]])

    def value(x: np.ndarray, s: np.ndarray) -> float:
        r = torch.tensor(x).scatter_reduce(1, idx, torch.tensor(s), "prod")
        return (r * torch.tensor(np.arange(6.0).reshape(2, 3))).sum().item()

    x = torch.tensor(xa, requires_grad=True)
    s = torch.tensor(sa, requires_grad=True)
    r = x.scatter_reduce(1, idx, s, "prod")
    (r * torch.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _numeric(value, [xa, sa], 0), atol=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), _numeric(value, [xa, sa], 1), atol=1e-6)


def test_inplace_forms_and_values() -> None:
    x = torch.zeros(3, 4)
    assert x.scatter_(1, torch.tensor(I2), 1.0) is x
    assert x.sum().item() == 5.0
    x.index_add_(0, torch.tensor([0, 0]), torch.ones(2, 4))
    assert x[0].tolist() == [3.0, 3.0, 2.0, 2.0]
    x.masked_fill_(x > 2, -1.0)
    assert x[0].tolist() == [-1.0, -1.0, 2.0, 2.0]
    x.put_(torch.tensor([0, 11]), torch.tensor([5.0, 6.0]))
    assert x.take(torch.tensor([0, 11])).tolist() == [5.0, 6.0]
    y = torch.ones(3, requires_grad=True) * 1.0
    y.index_fill_(0, torch.tensor([1]), 0.0)
    assert type(y.grad_fn).__name__ == "IndexFillBackward0"
    assert torch.tensor([1, 2, 3]).scatter_reduce(
        0, torch.tensor([0, 0]), torch.tensor([4, 5]), "mean").tolist() == [3, 2, 3]


# error messages and reprs printed by torch 2.13.0
def test_messages_as_torch() -> None:
    x = torch.randn(3, 4)
    cases_ = [
        (lambda: x.gather(1, torch.tensor([[5]])), RuntimeError,
         "index 5 is out of bounds for dimension 1 with size 4"),
        (lambda: x.gather(1, torch.tensor([5])), RuntimeError,
         "Index tensor must have the same number of dimensions as input tensor"),
        (lambda: x.gather(0, torch.zeros(3, 5, dtype=torch.long)), RuntimeError,
         "Size does not match at dimension 1 expected index [3, 5] to be no larger than self "
         "[3, 4] apart from dimension 0"),
        (lambda: x.index_select(0, torch.tensor([5])), IndexError, "index out of range in self"),
        (lambda: x.index_select(0, torch.tensor([[0]])), IndexError,
         "index_select(): Index is supposed to be a vector"),
        (lambda: x.take(torch.tensor([12])), IndexError,
         "out of range: tried to access index 12 on a tensor of 12 elements."),
        (lambda: x.masked_fill(torch.ones(3, 4), 1.0), RuntimeError,
         "masked_fill_ only supports boolean masks, but got mask with dtype float"),
        (lambda: x.index_copy(0, torch.tensor([0]), torch.ones(2, 4)), IndexError,
         "index_copy_(): Number of indices (1) should be equal to source.size(dim) (2)"),
        (lambda: torch.einsum("ij,jk", x), RuntimeError,
         "einsum(): fewer operands were provided than specified in the equation"),
        (lambda: torch.einsum("ij,jk->ik", x, torch.ones(5, 2)), RuntimeError,
         "einsum(): subscript j has size 5 for operand 1 which does not broadcast with "
         "previously seen size 4"),
        (lambda: x.put_(torch.tensor([0, 1]), torch.ones(3)), IndexError,
         "put_(): Expected source and index to have the same number of elements, but got "
         "source.numel() = 3, index.numel() = 2"),
        (lambda: x.type("foo"), ValueError, "invalid type: 'foo'"),
        (lambda: x.index_select(1, torch.tensor([-1])), RuntimeError,
         "INDICES element is out of DATA bounds, id=-1 axis_dim=4"),
        (lambda: torch.ones(4).masked_fill_(torch.ones(2, 4, dtype=torch.bool), 5.0),
         RuntimeError, "output with shape [4] doesn't match the broadcast shape [2, 4]"),
        (lambda: x.scatter_add(1, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64)),
         RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda: x.index_add(0, torch.tensor([0]), torch.ones(1, 4, dtype=torch.float64)),
         RuntimeError, "index_add_(): self (Float) and source (Double) must have the same "
         "scalar type"),
        (lambda: x.index_add(0, torch.tensor([3]), torch.ones(1, 4)), RuntimeError,
         "index 3 is out of bounds for dimension 0 with size 3"),
        (lambda: x.index_copy(0, torch.tensor([-1]), torch.ones(1, 4)), IndexError,
         "index_copy_(): index -1 is out of bounds for dimension 0 with size 3"),
        (lambda: x.put(torch.tensor([0]), torch.ones(1, dtype=torch.float64)), RuntimeError,
         "put_(): self and source expected to have the same dtype, but got self.dtype = Float "
         "and source.dtype = Double"),
        (lambda: torch.einsum("ij->k", x), RuntimeError,
         "einsum(): output subscript k does not appear in the equation for any input operand"),
        (lambda: torch.einsum("ij->jj", x), RuntimeError,
         "einsum(): output subscript j appears more than once in the output"),
    ]
    for fn, kind, message in cases_:
        with pytest.raises(kind) as info:
            fn()
        assert str(info.value) == message
    y = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="reduce argument of torch.scatter"):
        r = y.scatter(0, torch.tensor([0]), torch.ones(1), reduce="add")
    assert r.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        r.sum().backward()


def test_type_and_legacy_constructors() -> None:
    x = torch.ones(2)
    assert x.type() == "torch.FloatTensor"
    assert x.type(torch.LongTensor).dtype == torch.int64
    assert x.type("torch.DoubleTensor").dtype == torch.float64
    assert x.type(torch.int32).dtype == torch.int32
    assert isinstance(x, torch.FloatTensor) and not isinstance(x, torch.LongTensor)
    assert torch.FloatTensor(2, 3).shape == (2, 3)
    assert torch.LongTensor([1, 2]).dtype == torch.int64
    assert torch.FloatTensor().shape == (0,)
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.FloatTensor(2).dtype == torch.float32
        assert torch.Tensor(2).dtype == torch.float64
        assert torch.tensor([1.0]).type() == "torch.DoubleTensor"
    finally:
        torch.set_default_dtype(torch.float32)
    with pytest.warns(UserWarning, match="set_default_tensor_type"):
        torch.set_default_tensor_type(torch.DoubleTensor)
    try:
        assert torch.get_default_dtype() == torch.float64 and torch.zeros(1).dtype == torch.float64
    finally:
        with pytest.warns(UserWarning):
            torch.set_default_tensor_type("torch.FloatTensor")
    assert torch.get_default_dtype() == torch.float32


def test_default_device() -> None:
    assert str(torch.get_default_device()) == "cpu"
    torch.set_default_device("cpu")
    assert torch.zeros(2).device.type == "cpu"
    if torch.cuda.is_available():
        return
    torch.set_default_device("cuda")
    try:
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            torch.zeros(2)
    finally:
        torch.set_default_device(None)
    assert torch.zeros(2).device.type == "cpu"


# torch.testing.assert_close messages printed by torch 2.13.0
_CLOSE = [
    ((torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0])), {},
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute "
     "difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: "
     "0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"),
    ((torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4])), {},
     "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute "
     "difference: 1 at index (2,)\nGreatest relative difference: 0.25 at index (2,)"),
    ((torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0], dtype=torch.float64)), {},
     "The values for attribute 'dtype' do not match: torch.float32 != torch.float64."),
    ((torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0])), {},
     "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3])."),
    ((torch.tensor(1.0), torch.tensor(1.5)), {},
     "Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to "
     "1e-05 allowed)\nRelative difference: 0.3333333333333333 (up to 1.3e-06 allowed)"),
    (({"a": torch.tensor(1.0)}, {"a": torch.tensor(2.0)}), {},
     "Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to "
     "1e-05 allowed)\nRelative difference: 0.5 (up to 1.3e-06 allowed)\n\nThe failure "
     "occurred for item ['a']"),
    ((torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")])), {},
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute "
     "difference: nan at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan "
     "at index (1,) (up to 1.3e-06 allowed)"),
    ((torch.tensor([1, 2]), torch.tensor([1.0, 2.1])), {"check_dtype": False},
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute "
     "difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\nGreatest relative "
     "difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)"),
]


def test_assert_close_messages_as_torch() -> None:
    for args, kwargs, message in _CLOSE:
        with pytest.raises(AssertionError) as info:
            torch.testing.assert_close(*args, **kwargs)
        assert str(info.value) == message
    torch.testing.assert_close(torch.tensor([1.0, float("nan")]),
                               torch.tensor([1.0, float("nan")]), equal_nan=True)
    torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0000001]))
    torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0]).double(),
                               check_dtype=False)
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        torch.testing.assert_close(torch.ones(1), torch.ones(1), rtol=0.1)
    with pytest.raises(TypeError, match="No comparison pair"):
        torch.testing.assert_close(torch.ones(1), [1.0])


# float32 x ** 3 as torch 2.13 computes it (x * x * x); NumPy's power differs in the last
# bit for -2.7 and 3.3 (bits below printed by torch 2.13.0)
def test_pow_small_integer_exponents_match_torch_bits() -> None:
    x = np.array([1.1, -2.7, 3.3, 0.123456], dtype=np.float32)
    got = (torch.tensor(x) ** 3).numpy()
    want = np.array([0x3FAA5E36, 0xC19D76CA, 0x420FBF7C, 0x3AF6A160], dtype=np.uint32)
    assert got.view(np.uint32).tolist() == want.tolist()
    for e in (2, 3, -2, -0.5):
        y = torch.tensor(np.abs(x), requires_grad=True)
        assert type((y ** e).grad_fn).__name__ == "PowBackward0"


@pytest.mark.torch
def test_cases_match_torch() -> None:
    real = pytest.importorskip("torch")
    w_rng = [np.random.default_rng(1), np.random.default_rng(1)]
    results = []
    for lib, rng in zip((real, torch), w_rng, strict=True):
        out = {}
        for name, fn in cases(lib).items():
            x = lib.tensor(X, requires_grad=True)
            s = lib.tensor(S, requires_grad=True)
            r = fn(x * 1.0, s * 1.0)
            (r * lib.tensor(rng.standard_normal(tuple(r.shape)))).sum().backward()
            out[name] = (r.detach().numpy(), type(r.grad_fn).__name__,
                         x.grad.numpy() if x.grad is not None else None,
                         s.grad.numpy() if s.grad is not None else None)
        results.append(out)
    for name, (want, got) in {k: (results[0][k], results[1][k]) for k in results[0]}.items():
        assert want[1] == got[1], name
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12, err_msg=name)
        for a, b in zip(want[2:], got[2:], strict=True):
            assert (a is None) == (b is None), name
            if a is not None:
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.torch
def test_pow_bits_match_torch() -> None:
    real = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal(5000).astype(np.float32) * 4
    for e in (2, 3, -2, -0.5, 2.0, 3.0):
        want = (real.tensor(x) ** e).numpy()
        got = (torch.tensor(x) ** e).numpy()
        np.testing.assert_array_equal(got, want)


# saved attributes as torch 2.13.0 shows them
def test_saved_attributes_as_torch() -> None:
    x = torch.randn(3, 4, requires_grad=True)
    idx = torch.tensor(I2)
    g = x.gather(1, idx).grad_fn
    assert g._saved_dim == 1 and g._saved_index.tolist() == I2.tolist()
    assert g._saved_sparse_grad is False
    a = x.index_add(0, torch.tensor([0]), torch.ones(1, 4), alpha=2).grad_fn
    assert (a._saved_alpha, a._saved_dim, a._saved_index, a._saved_source_dim) == (2, 0, None, 2)
    s = x.index_select(0, torch.tensor([0, 2])).grad_fn
    assert s._saved_self_sym_sizes == (3, 4) and s._saved_index.tolist() == [0, 2]
    r = x.scatter_reduce(1, idx, torch.ones(3, 2), "amax").grad_fn
    assert (r._saved_dim, r._saved_include_self, r._saved_reduce) == (1, True, "amax")
    p = x.put(torch.tensor([1]), torch.ones(1)).grad_fn
    assert p._saved_accumulate is False and p._saved_index.tolist() == [1]


def test_prod_with_zeros_second_derivative() -> None:
    """The create_graph gradient of a product holding zeros, differentiated again."""
    xa = np.array([[0.0, 2.0, 3.0], [1.5, 0.0, -1.0]])
    sa = np.array([[0.0, 4.0], [2.0, -3.0]])
    idx = torch.tensor([[0, 0], [1, 2]])
    w = torch.tensor(np.arange(6.0).reshape(2, 3))
    v = [np.random.default_rng(1).standard_normal((2, 3)),
         np.random.default_rng(2).standard_normal((2, 2))]

    def first(x_: np.ndarray, s_: np.ndarray, create: bool = False) -> Any:
        x = torch.tensor(x_, requires_grad=True)
        s = torch.tensor(s_, requires_grad=True)
        r = x.scatter_reduce(1, idx, s, "prod")
        gs = torch.autograd.grad(((r * w) ** 2).sum(), (x, s), create_graph=create)
        total = sum((g * torch.tensor(v[i])).sum() for i, g in enumerate(gs))
        return (x, s, total) if create else total.item()

    x, s, total = first(xa, sa, create=True)
    got = torch.autograd.grad(total, (x, s))
    for k in range(2):
        np.testing.assert_allclose(got[k].numpy(), _numeric(first, [xa, sa], k), atol=1e-6)
