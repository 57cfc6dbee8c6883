"""The bridge: a compiled NumPy function as one node of the eager autograd graph."""

import numpy as np
import pytest

import st_autodiff as st
import st_autodiff as torch
from st_autodiff.testing import check_grads


@st.function
def mlp_loss(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2)


@st.function
def scaled_norm(x, k):
    return np.sqrt(np.sum(x * x)) * k


def eager_mlp_loss(w, x, y):
    return ((torch.tanh(x @ w) - y) ** 2).mean()


def data(dtype=np.float64):
    rng = np.random.default_rng(0)
    return (rng.normal(size=(3, 2)).astype(dtype), rng.normal(size=(4, 3)).astype(dtype),
            rng.normal(size=(4, 2)).astype(dtype))


def test_numpy_arguments_call_the_function_itself():
    w, x, y = data()
    expected = np.mean((np.tanh(x @ w) - y) ** 2)
    assert mlp_loss(w, x, y) == expected


def test_one_node_named_after_the_function():
    w, x, y = data()
    wt = torch.tensor(w, requires_grad=True)
    out = mlp_loss(wt, torch.tensor(x), torch.tensor(y))
    assert type(out.grad_fn).__name__ == "MlpLossBackward0"
    assert out.grad_fn.name() == "MlpLossBackward0"
    (edge_w, edge_x, edge_y) = out.grad_fn.next_functions
    assert type(edge_w[0]).__name__ == "AccumulateGrad" and edge_w[0].variable is wt
    assert edge_x == (None, 0) and edge_y == (None, 0)
    assert out.requires_grad and not out.is_leaf


def test_gradients_match_the_eager_tape_and_finite_differences():
    w, x, y = data()
    wt, xt = torch.tensor(w, requires_grad=True), torch.tensor(x, requires_grad=True)
    (mlp_loss(wt, xt, torch.tensor(y)) * 3.0).backward()
    we, xe = torch.tensor(w, requires_grad=True), torch.tensor(x, requires_grad=True)
    (eager_mlp_loss(we, xe, torch.tensor(y)) * 3.0).backward()
    np.testing.assert_allclose(wt.grad.numpy(), we.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(xt.grad.numpy(), xe.grad.numpy(), rtol=1e-12)

    def f(w_, x_):
        return 3.0 * np.mean((np.tanh(x_ @ w_) - y) ** 2)

    check_grads(f, (w, x), lambda *a: (wt.grad.numpy(), xt.grad.numpy()))


def test_float32_stays_float32():
    w, x, y = data(np.float32)
    wt = torch.tensor(w, requires_grad=True)
    out = mlp_loss(wt, torch.tensor(x), torch.tensor(y))
    out.backward()
    assert out.dtype == torch.float32 and wt.grad.dtype == torch.float32


def test_int_arguments_and_accumulation_over_two_calls():
    xt = torch.tensor([3.0, 4.0], requires_grad=True)
    (scaled_norm(xt, 2) + scaled_norm(xt, 3)).backward()
    np.testing.assert_allclose(xt.grad.numpy(), 5 * np.array([3.0, 4.0]) / 5.0)


def test_no_grad_records_nothing():
    w, x, y = data()
    with torch.no_grad():
        out = mlp_loss(torch.tensor(w, requires_grad=True), torch.tensor(x), torch.tensor(y))
    assert out.grad_fn is None and not out.requires_grad
    assert float(out) == pytest.approx(float(np.mean((np.tanh(x @ w) - y) ** 2)))


def test_second_backward_needs_retain_graph():
    w, x, y = data()
    wt = torch.tensor(w, requires_grad=True)
    out = mlp_loss(wt, torch.tensor(x), torch.tensor(y))
    out.backward(retain_graph=True)
    first = wt.grad.numpy().copy()
    out.backward()
    np.testing.assert_allclose(wt.grad.numpy(), 2 * first)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        out.backward()


def test_hooks_on_the_node_and_on_the_input():
    w, x, y = data()
    wt = torch.tensor(w, requires_grad=True)
    out = mlp_loss(wt, torch.tensor(x), torch.tensor(y))
    calls = []
    out.grad_fn.register_prehook(lambda grads: calls.append("pre") or None)
    out.grad_fn.register_hook(lambda gin, gout: calls.append("post") or None)
    wt.register_hook(lambda g: calls.append("tensor") or g * 0.0)
    out.backward()
    assert calls == ["pre", "post", "tensor"]
    assert np.all(wt.grad.numpy() == 0.0)


def test_changing_an_input_in_place_after_the_call_is_an_error():
    w, x, y = data()
    wt = torch.tensor(w, requires_grad=True)
    xt = torch.tensor(x)
    out = mlp_loss(wt, xt, torch.tensor(y))
    xt.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_create_graph_gives_second_derivatives():
    w, x, y = data()
    v = np.random.default_rng(1).normal(size=w.shape)
    wt = torch.tensor(w, requires_grad=True)
    (g,) = torch.autograd.grad(mlp_loss(wt, torch.tensor(x), torch.tensor(y)), wt,
                               create_graph=True)
    (hv,) = torch.autograd.grad((g * torch.tensor(v)).sum(), wt)
    we = torch.tensor(w, requires_grad=True)
    (ge,) = torch.autograd.grad(eager_mlp_loss(we, torch.tensor(x), torch.tensor(y)), we,
                                create_graph=True)
    (hve,) = torch.autograd.grad((ge * torch.tensor(v)).sum(), we)
    np.testing.assert_allclose(hv.numpy(), hve.numpy(), rtol=1e-10)

    def grad_dot_v(w_):  # finite differences of <grad, v>
        wt_ = torch.tensor(w_, requires_grad=True)
        mlp_loss(wt_, torch.tensor(x), torch.tensor(y)).backward()
        return float(np.sum(wt_.grad.numpy() * v))

    check_grads(grad_dot_v, (w,), lambda w_: (hv.numpy(),), rtol=1e-5, atol=1e-7)


@st.function
def horner_square(c, x):
    p = c[2]
    p = p * x + c[1]
    p = p * x + c[0]
    return np.sum(p * p)


def test_create_graph_through_in_place_index_adds():
    x = torch.tensor(np.linspace(0.0, 1.0, 4))
    c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = torch.autograd.grad(horner_square(c, x), c, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), c)
    ce = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    p = (ce[2] * x + ce[1]) * x + ce[0]
    (ge,) = torch.autograd.grad((p * p).sum(), ce, create_graph=True)
    (he,) = torch.autograd.grad(ge.sum(), ce)
    np.testing.assert_allclose(g.detach().numpy(), ge.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), he.numpy(), rtol=1e-12)
