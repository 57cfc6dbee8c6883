"""Hooks (order, replacement, removal) and grad modes (context, decorator, per thread).

The hook order asserted here is the one PyTorch 2.13 produces for the same program.
"""

from __future__ import annotations

import threading

import pytest

import st_autodiff as torch


def test_hook_order_matches_pytorch() -> None:
    log: list = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: log.append(("x.hook1", g.tolist())))
    x.register_hook(lambda g: (log.append(("x.hook2", g.tolist())), g * 10)[1])
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x.post", t.grad.tolist())))
    y = x * 2
    y.register_hook(lambda g: log.append(("y.hook", g.tolist())))
    y.retain_grad()
    y.register_hook(lambda g: (log.append(("y.hook2", g.tolist())), g + 1)[1])
    fn = y.grad_fn
    fn.register_prehook(lambda gout: log.append(("fn.pre", [t.tolist() for t in gout])))
    fn.register_hook(lambda gin, gout: log.append(
        ("fn.post", [None if t is None else t.tolist() for t in gin],
         [t.tolist() for t in gout])))
    acc = fn.next_functions[0][0]
    acc.register_prehook(lambda gout: log.append(("acc.pre", [t.tolist() for t in gout])))
    acc.register_hook(lambda gin, gout: log.append(("acc.post", list(gin),
                                                    [t.tolist() for t in gout])))
    y.sum().backward()
    assert log == [
        ("y.hook", [1.0, 1.0]),
        ("y.hook2", [1.0, 1.0]),
        ("fn.pre", [[2.0, 2.0]]),
        ("fn.post", [[4.0, 4.0], None], [[2.0, 2.0]]),
        ("x.hook1", [4.0, 4.0]),
        ("x.hook2", [4.0, 4.0]),
        ("acc.pre", [[40.0, 40.0]]),
        ("x.post", [40.0, 40.0]),
        ("acc.post", [], [[40.0, 40.0]]),
    ]
    assert x.grad.tolist() == [40.0, 40.0] and y.grad.tolist() == [2.0, 2.0]


def test_seed_hook_example() -> None:
    seen = []
    w = torch.randn(2, 2).requires_grad_()
    w.register_hook(lambda g: (seen.append(g.clone()), g / 2)[1])
    ((w - 1) ** 2).mean().backward()
    assert torch.allclose(w.grad, seen[0] / 2)
    order: list = []
    w2 = torch.randn(2, 2).requires_grad_()
    w2.register_hook(lambda g: order.append("parameter hook"))
    y = w2 + 1
    y.grad_fn.register_hook(lambda *grads: order.append("operator hook"))
    y.sum().backward()
    (w2 + 1).sum().backward()
    assert order == ["operator hook", "parameter hook", "parameter hook"]


def test_node_hooks_replace_gradients() -> None:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    b.grad_fn.register_prehook(lambda gout: (gout[0] * 100,))
    b.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, None))
    b.sum().backward()
    assert a.grad.tolist() == [301.0, 301.0]


def test_tensor_hook_replaces_and_is_removable() -> None:
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert repr(v.grad) == "tensor([2., 4., 6.])"
    h.remove()
    v.grad = None
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert v.grad.tolist() == [1.0, 2.0, 3.0]
    with v.register_hook(lambda g: g * 0):
        pass
    v.grad = None
    v.backward(torch.tensor([1.0, 1.0, 1.0]))
    assert v.grad.tolist() == [1.0, 1.0, 1.0]


def test_non_leaf_hook_sees_the_summed_gradient_once() -> None:
    log = []
    p = torch.tensor(1.0, requires_grad=True)
    q = p * 2
    q.register_hook(lambda g: log.append(g.item()))
    (q * q + q).backward()
    assert log == [5.0] and p.grad.item() == 10.0


def test_leaf_hooks_run_as_soon_as_the_leaf_is_complete() -> None:
    log = []
    x = torch.tensor(1.0, requires_grad=True)
    y = torch.tensor(2.0, requires_grad=True)
    x.register_hook(lambda g: log.append("x"))
    y.register_hook(lambda g: log.append("y"))
    ((x * 2) * (y * 3)).backward()
    assert log == ["y", "x"]


def test_retain_grad_sees_the_final_gradient() -> None:
    c = torch.tensor([1.0], requires_grad=True)
    d = c * 1
    d.register_hook(lambda g: g * 2)
    d.retain_grad()
    d.register_hook(lambda g: g * 3)
    d.sum().backward()
    assert d.grad.tolist() == [6.0] and c.grad.tolist() == [6.0]


def test_hooks_apply_to_autograd_grad() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    assert torch.autograd.grad(x * 3, x)[0].item() == 30.0
    y = x * 1
    y.register_hook(lambda g: g * 100)
    assert torch.autograd.grad(y * 3, y)[0].item() == 300.0


def test_post_accumulate_hook_errors() -> None:
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered "
                                           "on non-leaf tensors$"):
        (torch.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)


# --- grad modes --------------------------------------------------------------------------------

def test_modes_as_context_managers() -> None:
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = x * 2
        assert not torch.is_grad_enabled()
        with torch.enable_grad():
            assert (x * 2).requires_grad
        with torch.set_grad_enabled(True):
            assert torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf and torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        y.sum().backward()


def test_modes_as_decorators() -> None:
    @torch.no_grad()
    def f(x):
        return x * 2

    @torch.no_grad
    def g(x):
        return x * 2

    @torch.enable_grad()
    def h(x):
        return x * 2

    @torch.set_grad_enabled(False)
    def k(x):
        return x * 2

    x = torch.ones(2, requires_grad=True)
    assert not f(x).requires_grad and not g(x).requires_grad and torch.is_grad_enabled()
    with torch.no_grad():
        assert h(x).requires_grad
    assert not k(x).requires_grad and torch.is_grad_enabled()

    @torch.no_grad()
    def gen():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    assert list(gen()) == [False, False] and torch.is_grad_enabled()


def test_modes_are_per_thread() -> None:
    seen = {}

    def worker() -> None:
        seen["grad"] = torch.is_grad_enabled()
        seen["inference"] = torch.is_inference_mode_enabled()
        with torch.no_grad():
            seen["inner"] = torch.is_grad_enabled()

    with torch.no_grad(), torch.inference_mode():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not torch.is_grad_enabled()
    assert seen == {"grad": True, "inference": False, "inner": False}
    assert torch.is_grad_enabled()


def test_inference_mode() -> None:
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        y = x * 2
        i = torch.ones(2)
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    assert not y.requires_grad and i.is_inference() and not x.is_inference()
    assert (torch.ones(2, requires_grad=True) + i).requires_grad  # add saves nothing
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        torch.ones(2, requires_grad=True) * i
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        i.add_(1)
    with pytest.raises(RuntimeError, match="^Setting requires_grad=True on inference tensor "
                                           "outside InferenceMode is not allowed.$"):
        i.requires_grad_()

    @torch.inference_mode()
    def f():
        return torch.is_inference_mode_enabled()

    @torch.inference_mode(False)
    def g():
        return torch.is_inference_mode_enabled()

    assert f() and not g()
