"""Autograd: values, node names and structure, saved values, messages, the engine.

Expected texts are PyTorch 2.13's.  ``test_vs_torch.py`` checks many of the same
behaviours differentially when PyTorch is installed; these tests do not need it.
"""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import pytest

import st_autodiff as torch


def names(fn) -> list:
    return [(None if n is None else type(n).__name__, i) for n, i in fn.next_functions]


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


def test_scalar_backward_seed_example() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = x**2 + y
    z.backward()
    assert repr(z) == "tensor(7., grad_fn=<AddBackward0>)"
    assert (repr(x.grad), repr(y.grad)) == ("tensor(4.)", "tensor(1.)")


def test_leaves_and_grad_fn_chain() -> None:
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    e = torch.tensor(1.0, requires_grad=True)
    c = a * b
    d = c.exp()
    f = d + e
    assert [t.is_leaf for t in (a, b, c, d, e, f)] == [True, True, False, False, True, False]
    assert [type(t.grad_fn).__name__ for t in (f, d, c)] == ["AddBackward0", "ExpBackward0",
                                                             "MulBackward0"]
    assert names(f.grad_fn) == [("ExpBackward0", 0), ("AccumulateGrad", 0)]
    assert f.grad_fn.next_functions[1][0].variable is e
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-f]+>", repr(f.grad_fn))
    f.backward(retain_graph=True)
    assert [round(t.grad.item(), 4) for t in (a, b, e)] == [1.3591, 5.4366, 1.0]


@pytest.mark.parametrize("build, name, edges", [
    (lambda x, y: x + 1, "AddBackward0", [("AccumulateGrad", 0), (None, 0)]),
    (lambda x, y: 1 - x, "RsubBackward1", [("AccumulateGrad", 0)]),
    (lambda x, y: y * x, "MulBackward0", [("AccumulateGrad", 0), ("AccumulateGrad", 0)]),
    (lambda x, y: 2 / x, "MulBackward0", [("ReciprocalBackward0", 0), (None, 0)]),
    (lambda x, y: x**2, "PowBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x**y, "PowBackward1", [("AccumulateGrad", 0), ("AccumulateGrad", 0)]),
    (lambda x, y: 2**x, "PowBackward2", [("AccumulateGrad", 0)]),
    (lambda x, y: x.sum(), "SumBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.sum(0), "SumBackward1", [("AccumulateGrad", 0)]),
    (lambda x, y: x.mean(), "MeanBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.max(), "MaxBackward1", [("AccumulateGrad", 0)]),
    (lambda x, y: x.max(0).values, "MaxBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.norm(), "LinalgVectorNormBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x @ y, "DotBackward0", [("AccumulateGrad", 0), ("AccumulateGrad", 0)]),
    (lambda x, y: x.view(3, 1), "ViewBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x[0], "SelectBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x[1:], "SliceBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x[[0, 1]], "IndexBackward0", [("AccumulateGrad", 0)]),
    # a NumPy index array (once compared with () and raised a broadcast error)
    (lambda x, y: x[np.array([0, 2])], "IndexBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x[np.array([True, False, True])], "IndexBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: torch.cat([x, y]), "CatBackward0", [("AccumulateGrad", 0),
                                                      ("AccumulateGrad", 0)]),
    (lambda x, y: torch.where(x > 1, x, 0.0), "WhereBackward0", [("AccumulateGrad", 0),
                                                                 (None, 0)]),
    (lambda x, y: x.clamp(0, 1), "ClampBackward1", [("AccumulateGrad", 0)]),
    (lambda x, y: x.softmax(0), "SoftmaxBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.double(), "ToCopyBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.clone(), "CloneBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.relu(), "ReluBackward0", [("AccumulateGrad", 0)]),
    (lambda x, y: x.sigmoid(), "SigmoidBackward0", [("AccumulateGrad", 0)]),
])
def test_node_names_and_edges(build, name, edges) -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    out = build(x, y)
    assert type(out.grad_fn).__name__ == name and out.grad_fn.name() == name
    assert names(out.grad_fn) == edges


def test_matmul_nodes_follow_pytorch() -> None:
    v = torch.ones(3, requires_grad=True)
    m = torch.ones(3, 3, requires_grad=True)
    b = torch.ones(2, 3, 3, requires_grad=True)
    assert type((m @ m).grad_fn).__name__ == "MmBackward0"
    assert type((m @ v).grad_fn).__name__ == "MvBackward0"
    assert names((v @ m).grad_fn) == [("MmBackward0", 0)]
    assert type((v @ m).grad_fn).__name__ == "SqueezeBackward4"
    assert names((b @ m).grad_fn) == [("MmBackward0", 0)]
    assert type(b.bmm(b).grad_fn).__name__ == "BmmBackward0"


def test_saved_values() -> None:
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self) and x is y.grad_fn._saved_self
    assert y.grad_fn._saved_exponent == 2
    e = x.exp()
    r = e.grad_fn._saved_result
    assert e.equal(r) and r is not e and r.grad_fn is e.grad_fn
    m = x * 2
    assert repr(m.grad_fn._saved_other) == "tensor(2)" and m.grad_fn._saved_self is None
    s = x.sum(0)
    assert (s.grad_fn._saved_dim, s.grad_fn._saved_keepdim) == ((0,), False)
    assert s.grad_fn._saved_self_sym_sizes == (5,)
    with pytest.raises(AttributeError):
        _ = s.grad_fn._saved_nothing


FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


def test_second_backward_through_freed_graph() -> None:
    x = torch.ones(2, requires_grad=True)
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        z.backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        _ = z.grad_fn.next_functions[0][0]._saved_self
    w = (x + x).sum()  # AddBackward0 saves nothing: a second backward is fine
    x.grad = None
    w.backward()
    w.backward()
    assert x.grad.tolist() == [4.0, 4.0]
    k = (x * 2).sum()  # the wrapped scalar is saved, so this one fails
    k.backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        k.backward()


def test_retain_graph_allows_second_backward() -> None:
    x = torch.ones(2, requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("code, message", [
    ("torch.tensor(1.).backward()",
     "element 0 of tensors does not require grad and does not have a grad_fn"),
    ("(torch.ones(2, requires_grad=True) + 2).backward()",
     "grad can be implicitly created only for scalar outputs"),
    ("(torch.ones(2, requires_grad=True) * 2).backward(torch.ones(3))",
     "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
     "shape of torch.Size([2])."),
    ("(torch.ones(2, requires_grad=True) * 2).sum().backward(torch.ones(1))",
     "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a "
     "shape of torch.Size([])."),
    ("y = torch.rand(3, requires_grad=True) * 2; y.requires_grad = False",
     "you can only change requires_grad flags of leaf variables. If you want to use a "
     "computed variable in a subgraph that doesn't require differentiation use var_no_grad = "
     "var.detach()."),
    ("y = torch.rand(3, requires_grad=True) * 2; y.requires_grad = True",
     "you can only change requires_grad flags of leaf variables."),
    ("torch.tensor([1, 2], requires_grad=True)",
     "Only Tensors of floating point and complex dtype can require gradients"),
    ("torch.tensor([1, 2]).requires_grad_()",
     "only Tensors of floating point dtype can require gradients"),
    ("t = torch.tensor([1, 2]); t.requires_grad = True",
     "only Tensors of floating point and complex dtype can require gradients"),
    ("torch.ones(1).retain_grad()", "can't retain_grad on Tensor that has requires_grad=False"),
    ("torch.ones(1).register_hook(print)",
     "cannot register a hook on a tensor that doesn't require gradient"),
    ("x = torch.ones(1, requires_grad=True); torch.autograd.grad(x * 2, [x, torch.ones(1, "
     "requires_grad=True)])",
     "The differentiated Tensor at index 1 appears to not have been used in the graph. Set "
     "allow_unused=True if this is the desired behavior."),
    ("x = torch.ones(1, requires_grad=True); torch.autograd.grad(x * 2, [torch.ones(1)])",
     "One of the differentiated Tensors does not require grad"),
    ("torch.ones(1, requires_grad=True).sum().backward(inputs=[])",
     "`inputs` argument to `backward()` cannot be empty."),
])
def test_error_messages(code: str, message: str) -> None:
    with pytest.raises(RuntimeError, match=exact(message)):
        exec(code, {"torch": torch})


NON_LEAF = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
            ".grad attribute won't be populated during autograd.backward(). If you indeed want "
            "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
            "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you "
            "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
            "more information.")


def test_non_leaf_grad_warning() -> None:
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match=exact(NON_LEAF)):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None and x.grad is None


def test_accumulation_in_place_and_retain_grad() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    first = x.grad
    (x * x).sum().backward()
    assert first is x.grad and x.grad.tolist() == [4.0, 8.0]
    y = x * 2
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    (y * y).sum().backward(retain_graph=True)
    (y * y).sum().backward()
    assert y.grad.tolist() == [8.0, 16.0]


def test_detach_shares_storage_and_version() -> None:
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    new = v.detach()
    new[0] = 5
    assert repr(v) == "tensor([5., 0., 0.], requires_grad=True)"
    assert repr(new) == "tensor([5., 0., 0.])" and v._version == 1
    y = v * 2
    y.detach_()
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad
    with pytest.raises(RuntimeError, match="^Can't detach views in-place"):
        (v * 1)[0:1].detach_()


def test_backward_inputs_and_autograd_grad() -> None:
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [1.0, 1.0] and b.grad is None
    x = torch.tensor(2.0, requires_grad=True)
    assert repr(torch.autograd.grad(outputs=x**2, inputs=x)) == "(tensor(4.),)"
    assert x.grad is None
    gx, gy = torch.autograd.grad((x * 2).sum(), [x, b], allow_unused=True)
    assert gx.item() == 2.0 and gy is None
    _, gz = torch.autograd.grad(x * 2, [x, b], allow_unused=True, materialize_grads=True)
    assert gz.tolist() == [0.0, 0.0]
    torch.autograd.backward([x * 1, x * 3], grad_tensors=[torch.tensor(1.0), torch.tensor(2.0)])
    assert x.grad.item() == 7.0


def test_higher_order_derivatives() -> None:
    x = torch.tensor(3.0, requires_grad=True)
    g, = torch.autograd.grad(x**3, x, create_graph=True)
    assert repr(g) == "tensor(27., grad_fn=<MulBackward0>)"
    g2, = torch.autograd.grad(g, x, create_graph=True)
    g3, = torch.autograd.grad(g2, x)
    assert (g2.item(), g3.item()) == (18.0, 6.0)
    y = torch.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (y**3).backward(create_graph=True)
    assert repr(y.grad) == "tensor(12., grad_fn=<CopyBackwards>)"
    grad = y.grad
    y.grad = None
    grad.backward()
    assert y.grad.item() == 12.0


def test_create_graph_backward_warns_once() -> None:
    from st_autodiff.runtime import engine

    engine._warned_cycle[0] = False
    x = torch.tensor(1.0, requires_grad=True)
    with pytest.warns(UserWarning, match=exact(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after "
            "use to break the cycle and avoid the leak.")):
        (x * x).backward(create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * x).backward(create_graph=True)


def test_calling_nodes_by_hand() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    loss = (x * y).sum()
    dz = loss.grad_fn(torch.tensor(1.0))
    assert dz.tolist() == [1.0, 1.0]
    back_mul = loss.grad_fn.next_functions[0][0]
    dx, dy = back_mul(dz)
    assert dx.tolist() == [3.0, 4.0] and dx.grad_fn.name() == "MulBackward0"
    acc = back_mul.next_functions[0][0]
    assert acc(dx) == () and acc.name() == "torch::autograd::AccumulateGrad"
    assert repr(x.grad) == "tensor([3., 4.], grad_fn=<CopyBackwards>)"
    with pytest.raises(TypeError, match="^expected 1 arguments, got 2 instead$"):
        back_mul(dz, dz)


def test_shared_inputs_are_summed() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + x.exp() * x + x
    y.backward()
    expected = 2 * 2.0 + np.exp(2.0) * (1 + 2.0) + 1
    assert x.grad.item() == pytest.approx(expected, rel=1e-6)


def test_long_chain_needs_no_recursion() -> None:
    limit = sys.getrecursionlimit()
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward(retain_graph=True)
    assert x.grad.item() == 1.0 and sys.getrecursionlimit() == limit
    g, = torch.autograd.grad(y, x)
    assert g.item() == 1.0
    del y  # freeing the chain must not overflow the C stack either


def test_each_node_runs_once() -> None:
    calls = []
    x = torch.tensor(1.0, requires_grad=True)
    shared = x * 3
    shared.grad_fn.register_prehook(lambda g: calls.append(1))
    total = shared * shared + shared.exp() + shared.sin()
    total.backward()
    assert len(calls) == 1
    assert x.grad.item() == pytest.approx(3 * (2 * 3 + np.exp(3) + np.cos(3)), rel=1e-5)


def test_custom_function() -> None:
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert type(y.grad_fn).__name__ == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_custom_node_protocol_from_the_docstring() -> None:
    """A node whose backward is arbitrary Python, as the compiled-function bridge needs."""
    from st_autodiff.runtime.function import Node, fit, next_seq
    from st_autodiff.runtime.tensor import edge_of, make

    class SquareSumBackward(Node):
        __slots__ = ("_x",)

        def __init__(self, x):
            self._x = x
            self.next_functions = (edge_of(x),)
            self._seq = next_seq()
            self._hooks = None

        def backward(self, grads, ops):
            g = grads[0]
            if ops.tensors:  # recorded, so create_graph works
                return [g * 2 * self._x]
            return [fit(ops, g * 2 * np.asarray(self._x._data), self._x._data)]

        def _release(self):
            self._x = None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    node = SquareSumBackward(x)
    y = make(np.float32((x._data**2).sum()), node)
    assert repr(y) == "tensor(5., grad_fn=<SquareSumBackward>)"
    g, = torch.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and g.requires_grad
    g.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
