"""The cheaper node backwards of ``runtime/fast_nodes.py`` give the generic path's bits.

Each fast class subclasses the generic node class of its op; here both backwards run on the
same node and gradient and must agree bit for bit (``None`` where no gradient is needed),
and the cases the fast path hands back (a freed graph, an input modified in place,
broadcasting, ``create_graph``) keep the generic behaviour.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.runtime.tensor_ops import ARRAY_OPS

RNG = np.random.default_rng(7)


def _leaf(shape: tuple, dtype: str = "float32", grad: bool = True) -> torch.Tensor:
    return torch.tensor(RNG.standard_normal(shape).astype(dtype), requires_grad=grad)


def _both(node: object, g: np.ndarray) -> tuple[list, list]:
    """The node's own backward and its generic base class's, on the same gradient."""
    fast = list(node.backward([g], ARRAY_OPS))  # type: ignore[attr-defined]
    base = type(node).__mro__[1]
    assert base.__name__ == type(node).__name__  # the same PyTorch name
    slow = list(base.backward(node, [g], ARRAY_OPS))
    return fast, slow


def _same(fast: list, slow: list) -> None:
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        if a is None or b is None:
            assert a is None and b is None
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_binary_nodes_match_the_generic_rule(op: str, dtype: str) -> None:
    x, y, c = _leaf((5, 4), dtype), _leaf((5, 4), dtype), _leaf((5, 4), dtype, grad=False)
    fn = {"add": torch.add, "sub": torch.sub, "mul": torch.mul}[op]
    g = RNG.standard_normal((5, 4)).astype(dtype)
    for out in (fn(x, y), fn(x, c), fn(c, x), fn(x, 2.5), fn(x, 3)):
        fast, slow = _both(out.grad_fn, g)
        _same(fast, slow)


def test_a_constant_operand_gets_no_gradient_computed() -> None:
    x, c = _leaf((3,)), _leaf((3,), grad=False)
    fast, _ = _both((x * c).grad_fn, np.ones(3, np.float32))
    assert fast[1] is None and fast[0] is not None


def test_unary_transpose_and_addmm_nodes_match() -> None:
    x = _leaf((6, 3))
    g = RNG.standard_normal((6, 3)).astype(np.float32)
    for out in (torch.tanh(x), torch.sigmoid(x), torch.exp(x), torch.log(x.abs() + 1),
                torch.relu(x)):
        _same(*_both(out.grad_fn, g))
    _same(*_both(x.t().grad_fn, g.T.copy()))
    lin = torch.nn.Linear(3, 4)
    y = lin(x)
    _same(*_both(y.grad_fn, RNG.standard_normal((6, 4)).astype(np.float32)))


def test_broadcasting_still_sums_to_the_input_shape() -> None:
    x, b = _leaf((4, 3)), _leaf((3,))
    (x * b).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), x.detach().numpy().sum(0))


def test_freed_graph_and_in_place_change_still_raise() -> None:
    x = _leaf((3,))
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    z = x.detach().clone().requires_grad_(True)
    w = z * 1.0
    v = w * x
    with torch.no_grad():
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()


def test_double_backward_goes_through_the_generic_rules() -> None:
    x = _leaf((4,), "float64")
    (g,) = torch.autograd.grad((torch.tanh(x) * x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    t = np.tanh(x.detach().numpy())
    d = x.detach().numpy()
    expected = 2 * (1 - t * t) - 2 * d * t * (1 - t * t)
    np.testing.assert_allclose(gg.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bit_select_is_np_where_bit_for_bit(dtype: str) -> None:
    from st_autodiff.runtime import select_bits as bits
    from st_autodiff.runtime.nn import activations as A

    x = (RNG.standard_normal((30, 20)) * 3).astype(dtype)
    for step, value in ((7, 0.0), (11, -0.0), (13, np.inf), (17, -np.inf), (19, np.nan)):
        x.flat[::step] = value
    g = RNG.standard_normal(x.shape).astype(dtype)
    g.flat[::23] = np.nan
    uint = np.uint32 if dtype == "float32" else np.uint64

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return a.dtype == b.dtype and a.shape == b.shape and bool(
            (a.view(uint) == b.view(uint)).all())

    assert bits.fits(x, g) and not bits.fits(x, g[:2]) and not bits.fits(x[0, 0], g[0, 0])
    assert same(bits.select(x > 0, g, g * 0.1), np.where(x > 0, g, g * 0.1))
    assert same(bits.keep(x < 0, x), np.where(x < 0, x, 0.0).astype(dtype))
    with np.errstate(all="ignore"):
        assert same(A._rule_leaky(ARRAY_OPS, g, None, x, 0.2)[0], np.where(x > 0, g, g * 0.2))
        slope = np.exp(np.where(x < 0, x, 0.0).astype(dtype) * 1.5) * (1.5 * 1.3 * 1.1)
        assert same(A._rule_elu(ARRAY_OPS, g, None, x, 1.3, 1.1, 1.5)[0],
                    np.where(x > 0, g * 1.1, g * slope))


# --- part "speed2": SelectBackward0 and MseLossBackward0 ---------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_select_nodes_match_the_generic_rule(dtype: str) -> None:
    x = _leaf((3, 4, 2), dtype)
    for out in (x[1], x[:, -1], x.select(2, 0), x[0][3], x[-1, 2, 1]):
        g = np.asarray(RNG.standard_normal(out.shape).astype(dtype))
        g.reshape(-1)[0] = -0.0  # (zeros + -0.0 is +0.0 in both)
        fast, slow = _both(out.grad_fn, g)
        assert out.grad_fn.name() == "SelectBackward0"
        _same(fast, slow)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mse_nodes_match_the_generic_rule(reduction: str, dtype: str) -> None:
    x, y, c = _leaf((5, 3), dtype), _leaf((5, 3), dtype), _leaf((5, 3), dtype, grad=False)
    for a, b in ((x, y), (x, c), (c, x)):
        out = torch.nn.functional.mse_loss(a, b, reduction=reduction)
        g = RNG.standard_normal(out.shape).astype(dtype)
        fast, slow = _both(out.grad_fn, g)
        _same(fast, slow)


def test_mse_after_an_in_place_change_and_a_freed_graph_still_raise() -> None:
    x, y = _leaf((4,)), _leaf((4,))
    loss = torch.nn.functional.mse_loss(x * 1, y)
    with torch.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    loss = torch.nn.functional.mse_loss(x * 1, y)
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_softmax_nodes_match_the_generic_rule(dtype: str) -> None:
    x = _leaf((4, 5, 3), dtype)
    for dim in (0, 1, -1):
        out = torch.log_softmax(x, dim)
        g = RNG.standard_normal(out.shape).astype(dtype)
        fast, slow = _both(out.grad_fn, g)
        assert out.grad_fn.name() == "LogSoftmaxBackward0"
        _same(fast, slow)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mm_nodes_match_the_generic_rule(dtype: str) -> None:
    a, b, c = _leaf((4, 3), dtype), _leaf((3, 5), dtype), _leaf((3, 5), dtype, grad=False)
    for out in (a @ b, a.mm(b), a @ c, _leaf((2, 4), dtype, grad=False) @ a, a @ b.t()[:, :3].t()):
        g = RNG.standard_normal(out.shape).astype(dtype)
        fast, slow = _both(out.grad_fn, g)
        assert out.grad_fn.name() == "MmBackward0"
        _same(fast, slow)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reshape_nodes_match_the_generic_rule(dtype: str) -> None:
    x = _leaf((4, 1, 6), dtype)
    for out in (x.view(24), x.reshape(2, 12), x.squeeze(1), x.squeeze(), x.t().reshape(-1)
                if x.ndim == 2 else x.transpose(0, 2).reshape(6, 4)):
        g = RNG.standard_normal(out.shape).astype(dtype)
        fast, slow = _both(out.grad_fn, g)
        _same(fast, slow)
