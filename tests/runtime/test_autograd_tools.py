"""The autograd tools without PyTorch: stored torch output, finite differences, structure.

* every script of ``autograd_tools_scripts`` prints what PyTorch 2.13 printed (stored in
  ``autograd_tools_reference.json``, produced by torch 2.13.0);
* ``autograd.functional`` results agree with central differences in float64, including
  second derivatives through ``create_graph``;
* ``gradcheck`` accepts right gradients and rejects wrong ones; module backward hooks see
  the gradients the engine computes; the profiler's events nest and add up.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.autograd import functional as AF

from .autograd_tools_scripts import SCRIPTS, reference, run


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_prints_what_torch_printed(name: str) -> None:
    assert run(SCRIPTS[name], torch).splitlines() == reference()[name].splitlines()


# --- autograd.functional against central differences ---------------------------------------

def _fd_jacobian(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray,
                 eps: float = 1e-6) -> np.ndarray:
    """d f / d x by central differences: shape f(x).shape + x.shape."""
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        jac[(...,) + idx] = (np.asarray(f(hi)) - np.asarray(f(lo))) / (2 * eps)
    return jac


def _f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.sin() * b).exp() + a * a * b


def _f_np(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.exp(np.sin(a) * b) + a * a * b


rng = np.random.default_rng(12)
A = rng.uniform(-1, 1, (2, 3))
B = rng.uniform(-1, 1, (2, 3))


def t64(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float64)


def test_jacobian_matches_central_differences() -> None:
    ja, jb = AF.jacobian(_f, (t64(A), t64(B)))
    assert tuple(ja.shape) == (2, 3, 2, 3)
    np.testing.assert_allclose(ja.numpy(), _fd_jacobian(lambda a: _f_np(a, B), A), atol=1e-7)
    np.testing.assert_allclose(jb.numpy(), _fd_jacobian(lambda b: _f_np(A, b), B), atol=1e-7)
    for strategy in ("reverse-mode", "forward-mode"):
        j = AF.jacobian(lambda a: _f(a, t64(B)), t64(A), vectorize=True, strategy=strategy)
        np.testing.assert_allclose(j.numpy(), ja.numpy(), rtol=1e-12)


def test_products_match_the_jacobian() -> None:
    ja, jb = (j.numpy().reshape(6, 6) for j in AF.jacobian(_f, (t64(A), t64(B))))
    u, va, vb = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    out, (ga, gb) = AF.vjp(_f, (t64(A), t64(B)), t64(u))
    np.testing.assert_allclose(out.numpy(), _f_np(A, B), rtol=1e-12)
    np.testing.assert_allclose(ga.numpy().ravel(), u.ravel() @ ja, rtol=1e-10)
    np.testing.assert_allclose(gb.numpy().ravel(), u.ravel() @ jb, rtol=1e-10)
    _, jv = AF.jvp(_f, (t64(A), t64(B)), (t64(va), t64(vb)))
    np.testing.assert_allclose(jv.numpy().ravel(), ja @ va.ravel() + jb @ vb.ravel(),
                               rtol=1e-10)


def _scalar(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _f(a, b).sum()


def test_hessian_and_hessian_products_match_central_differences() -> None:
    ((haa, hab), (hba, hbb)) = AF.hessian(_scalar, (t64(A), t64(B)))

    def grad_a(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return AF.vjp(_scalar, (t64(a), t64(b)))[1][0].numpy()

    np.testing.assert_allclose(haa.numpy(), _fd_jacobian(lambda a: grad_a(a, B), A), atol=1e-6)
    np.testing.assert_allclose(hab.numpy(), _fd_jacobian(lambda b: grad_a(A, b), B), atol=1e-6)
    np.testing.assert_allclose(hab.numpy().reshape(6, 6), hba.numpy().reshape(6, 6).T,
                               rtol=1e-10)
    va, vb = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    h = np.block([[haa.numpy().reshape(6, 6), hab.numpy().reshape(6, 6)],
                  [hba.numpy().reshape(6, 6), hbb.numpy().reshape(6, 6)]])
    v = np.concatenate([va.ravel(), vb.ravel()])
    _, (pa, pb) = AF.hvp(_scalar, (t64(A), t64(B)), (t64(va), t64(vb)))
    np.testing.assert_allclose(np.concatenate([pa.numpy().ravel(), pb.numpy().ravel()]),
                               h @ v, rtol=1e-9)
    _, (qa, qb) = AF.vhp(_scalar, (t64(A), t64(B)), (t64(va), t64(vb)))
    np.testing.assert_allclose(np.concatenate([qa.numpy().ravel(), qb.numpy().ravel()]),
                               v @ h, rtol=1e-9)


def test_create_graph_results_are_differentiable() -> None:
    x = t64(A[0]).requires_grad_()
    jac = AF.jacobian(lambda a: a.sin() * a, x, create_graph=True)
    assert jac.grad_fn is not None and jac.grad_fn.name() == "ViewBackward0"
    (g,) = torch.autograd.grad(jac.diagonal().sum(), x)  # d/dx of the Jacobian's trace
    fd = _fd_jacobian(lambda a: np.diag(_fd_jacobian(lambda b: np.sin(b) * b, a)), A[0],
                      eps=1e-4).sum(0)
    np.testing.assert_allclose(g.numpy(), fd, atol=1e-5)
    out, _ = AF.vjp(lambda a: a ** 3, x, torch.ones(3, dtype=torch.float64))
    assert not out.requires_grad and x.grad is None


# --- gradcheck ------------------------------------------------------------------------------

class _WrongBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # noqa: ANN001, ANN205
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return g * x.exp() * 1.01


def test_gradcheck_accepts_right_and_rejects_wrong_gradients() -> None:
    x = t64(A).requires_grad_()
    y = t64(B).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: (a * b).tanh() @ b.t(), (x, y))
    assert torch.autograd.gradgradcheck(lambda a, b: (a * b).tanh().sum(1), (x, y))
    assert not torch.autograd.gradcheck(_WrongBackward.apply, (x,), raise_exception=False)
    with pytest.raises(RuntimeError, match=r"^Jacobian mismatch for output 0 with respect to "
                       r"input 0,\nnumerical:tensor\(\[\["):
        torch.autograd.gradcheck(_WrongBackward.apply, (x,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, requires_grad=True),),
                                 eps=1e-2, atol=1e-2, rtol=1e-2)
    assert [str(w.message) for w in caught] == [
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "]


# --- semantics ------------------------------------------------------------------------------

def test_create_graph_replaces_grad_out_of_place() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward(create_graph=True)
        first = x.grad
        (x * 3).sum().backward(create_graph=True)
        assert x.grad is not first and first.tolist() == [3.0, 3.0]
        (x * 3).sum().backward()
        second = x.grad
        (x * 3).sum().backward()
        assert x.grad is second and second.tolist() == [12.0, 12.0]


def test_backward_inputs_retain_non_leaf_grads() -> None:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    (b * 3).sum().backward(inputs=[b])
    assert b.retains_grad and b.grad.tolist() == [3.0, 3.0] and a.grad is None


# --- module backward hooks ------------------------------------------------------------------

def test_full_backward_hook_sees_the_engines_gradients() -> None:
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2).double()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    x = t64(A[:, :3]).requires_grad_()
    w = t64(B[:, :2])
    out = lin(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    (out * w).sum().backward()
    (gi,), (go,) = seen[0]
    np.testing.assert_allclose(go.numpy(), w.numpy())
    np.testing.assert_allclose(gi.numpy(), w.numpy() @ lin.weight.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), gi.numpy())
    assert torch.autograd.gradcheck(lambda a: lin(a), (x,))


# --- profiler -------------------------------------------------------------------------------

def _profiled() -> torch.autograd.profiler.profile:
    x = torch.ones(8, 8, requires_grad=True)
    with torch.autograd.profiler.profile(record_shapes=True) as prof:
        with torch.autograd.profiler.record_function("block"):
            y = (x * 2 + 1).relu().sum()
        y.backward()
        _decorated(x)
        _decorated(x)
    return prof


@torch.autograd.profiler.record_function("decorated")
def _decorated(x: torch.Tensor) -> torch.Tensor:
    return x * 3


def test_profiler_records_ops_nodes_and_ranges() -> None:
    mul_before = torch.Tensor.__mul__
    prof = _profiled()
    assert torch.Tensor.__mul__ is mul_before  # wrappers removed on exit
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].count == 3 and avg["decorated"].count == 2
    for key in ("block", "aten::add", "aten::relu", "aten::sum", "MulBackward0",
                "autograd::engine::evaluate_function: ReluBackward0",
                "torch::autograd::AccumulateGrad"):
        assert avg[key].count == 1, key
    events = prof.function_events
    block = next(e for e in events if e.name == "block")
    assert {c.name for c in block.cpu_children} == {"aten::mul", "aten::add", "aten::relu",
                                                    "aten::sum"}
    for e in events:
        assert e.self_cpu_time_total >= 0 and e.cpu_time_total >= e.self_cpu_time_total
    top = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert abs(prof.self_cpu_time_total - top) < 1e-6
    shapes = prof.key_averages(group_by_input_shape=True)
    assert [[8, 8], []] in [e.input_shapes for e in shapes if e.key == "aten::mul"]


def test_profiler_table_layout() -> None:
    prof = _profiled()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=4)
    lines = table.splitlines()
    # the longest key ("autograd::engine::evaluate_function: torch::autograd::
    # AccumulateGrad") plus 4 is over the cap of 55
    name_width = 55
    sep = "-" * name_width + "  " + ("-" * 12 + "  ") * 6
    assert lines[0] == lines[2] == lines[7] == sep
    assert lines[1] == "".join(f"{h:>{w}}  " for h, w in zip(
        ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
         "# of Calls"], [name_width] + [12] * 6, strict=True))
    assert len(lines) == 9 and lines[8].startswith("Self CPU time total: ")
    selfs = [e.self_cpu_time_total for e in prof.key_averages()]
    first = max(selfs)
    assert lines[3].split()[2] == _fmt(first)
    with torch.autograd.profiler.profile() as running:
        assert len(running.key_averages()) == 0  # as torch: empty until it stops
    assert str(torch.autograd.profiler.profile()) == "<unfinished torch.autograd.profile>"


def _fmt(us: float) -> str:
    return f"{us / 1e3:.3f}ms" if us >= 1e3 else f"{us:.3f}us"


def test_torch_profiler_schedule() -> None:
    saved = []
    sched = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    x = torch.ones(3)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=sched,
                                on_trace_ready=lambda p: saved.append(p.key_averages())
                                ) as prof:
        for step in range(6):
            x = x * (step + 1)
            prof.step()
    assert len(saved) == 1
    assert {e.key: e.count for e in saved[0]} == {"aten::mul": 2}


def test_profiler_names_custom_functions_and_restores_everything() -> None:
    apply_before = vars(torch.autograd.Function)["apply"]
    mul_before = vars(torch.Tensor)["__mul__"]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.profiler.profile() as prof:
        _WrongBackward.apply(x).sum().backward()
    keys = {e.key for e in prof.key_averages()}
    assert {"_WrongBackward", "_WrongBackwardBackward",
            "autograd::engine::evaluate_function: _WrongBackwardBackward"} <= keys
    assert vars(torch.autograd.Function)["apply"] is apply_before
    assert vars(torch.Tensor)["__mul__"] is mul_before
    y = _WrongBackward.apply(x)  # the restored classmethod still binds the subclass
    assert y.grad_fn.name() == "_WrongBackwardBackward"
