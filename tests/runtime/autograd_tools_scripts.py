"""Scripts shared by the autograd-tools tests, run with ``torch`` bound to either library.

``REFERENCE`` (``autograd_tools_reference.json``) holds what each script printed under
PyTorch 2.13.0 (CPU), written by ``python tests/runtime/autograd_tools_scripts.py`` run
with torch installed; the tests without torch compare st_autodiff's output with it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from pathlib import Path
from typing import Any

REFERENCE_FILE = Path(__file__).with_name("autograd_tools_reference.json")

PRELUDE = '''
def show(f):
    try:
        print("ok", f())
    except Exception as e:
        print(type(e).__name__, repr(str(e)))
def caught(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        show(f)
    for x in w:
        print(x.category.__name__, repr(str(x.message)))
'''

FUNCTIONAL = '''
AF = torch.autograd.functional
x = torch.tensor([1., 2., 3.])
f = lambda a: a ** 2
print(AF.jacobian(f, x))
print(AF.jacobian(lambda a, b: (a * b, a + b), (x, x)))
print(AF.jacobian(lambda a, b: a * b, (x, x)))
print(AF.jacobian(lambda a: (a * 2, a.sum()), x))
print(AF.jacobian(lambda a: (a ** 2).sum(0), torch.tensor([[1., 2.], [3., 4.]])).shape)
print(AF.vjp(f, x, torch.ones(3)), AF.vjp(lambda a: a.sum(), x))
print(AF.vjp(lambda a, b: a.sum() + b.sum(), (x, x)))
print(AF.jvp(f, x, torch.ones(3)))
print(AF.jvp(lambda a, b: (a * b, a.exp()), (x, x), (x, torch.ones(3))))
print(AF.hessian(lambda a: (a ** 3).sum(), x))
print(AF.hessian(lambda a, b: (a ** 2 * b).sum(), (x, x)))
print(AF.hvp(lambda a, b: (a * b * b).sum(), (x, x), (x, torch.ones(3))))
print(AF.vhp(lambda a, b: (a * b * b).sum(), (x, x), (x, torch.ones(3))))
print(AF.jacobian(lambda a: torch.ones(2), x))
print(AF.jacobian(f, x, strategy="forward-mode", vectorize=True))
y = torch.tensor([1., 2.], requires_grad=True)
print(AF.vjp(lambda a: a ** 3, y, torch.ones(2), create_graph=True))
print(AF.jacobian(lambda a: a ** 3, y, create_graph=True))
print(AF.hessian(lambda a: (a ** 3).sum(), y, create_graph=True))
o, g = AF.vjp(lambda a: a ** 3, y, torch.ones(2))
print(o.requires_grad, g.requires_grad)
for call in [lambda: AF.jacobian(f, 3), lambda: AF.jacobian(lambda a: 3, x),
             lambda: AF.vjp(f, x), lambda: AF.hessian(f, x),
             lambda: AF.hessian(lambda a: (a, a), x),
             lambda: AF.jacobian(lambda a: torch.ones(2), x, strict=True),
             lambda: AF.jacobian(f, x, strategy="foo"),
             lambda: AF.jacobian(f, x, strategy="forward-mode"),
             lambda: AF.jacobian(f, x, strategy="forward-mode", vectorize=True,
                                 create_graph=True),
             lambda: AF.vjp(f, x, torch.ones(2)),
             lambda: AF.vjp(f, x, (torch.ones(3), torch.ones(3))),
             lambda: AF.jvp(f, x), lambda: AF.hvp(f, x, torch.ones(3)),
             lambda: AF.jvp(f, (x,), (torch.ones(3), (1,))), lambda: AF.vjp(f, x, 5),
             lambda: AF.vjp(lambda a, b: a * 2, (x, x), torch.ones(3), strict=True),
             lambda: AF.jacobian(lambda a, b: a * 2, (x, x), strict=True),
             lambda: AF.hessian(lambda a: a.sum(), x, strict=True),
             lambda: AF.jvp(lambda a, b: a * 2, (x, x), (x, x), strict=True),
             lambda: AF.vhp(lambda a, b: (a ** 2).sum(), (x, x), (x, x), strict=True),
             lambda: AF.vhp(lambda a, b: (a ** 2).sum(), (x, x), (x,)),
             lambda: AF.vhp(lambda a, b: (a ** 2).sum(), (x, x), (x, x[:2]))]:
    show(call)
y = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([0.5, -1.], requires_grad=True)
o, j = AF.jvp(lambda a: (a ** 3).sin(), y, w, create_graph=True)
print(o, j, j.requires_grad)
j.sum().backward(); print(y.grad, w.grad)
y.grad = None
o, h = AF.hvp(lambda a: (a ** 3).sin().sum(), y, torch.ones(2), create_graph=True)
print(o, h); h.sum().backward(); print(y.grad)
y.grad = None
H = AF.hessian(lambda a, b: (a * b.exp()).sum(), (y, w), create_graph=True)
print(H)
H[0][1].sum().backward(); print(y.grad, w.grad)
print(AF.jacobian(lambda a: a.exp(), y))
print(AF.vjp(lambda a, b: (a * b, b), (y, w), (torch.ones(2), torch.ones(2)), create_graph=True))
print(AF.jacobian(lambda a: a.sum(), torch.tensor(3.)),
      AF.hessian(lambda a: a ** 3, torch.tensor(2.)))
print(AF.jacobian(lambda a: (a, a * 2), (torch.tensor(3.),)))
print(y.grad_fn, y.requires_grad, y.is_leaf)
x64 = torch.tensor([1., 2.], dtype=torch.float64)
print(AF.jacobian(lambda a: a * 2, x64).dtype,
      AF.hvp(lambda a: (a ** 3).sum(), x64, torch.ones(2, dtype=torch.float64))[1].dtype)
'''

GRADCHECK = '''
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.stack([x[0] * x[1], x[0], x[1] ** 2])
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return torch.stack([g[0] * x[1] + g[1], g[0] * x[0]])
class Bad2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g.detach()
x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
print(gc(lambda a: a ** 2, (x,)), gc(lambda a: a ** 2, x), ggc(lambda a: a ** 3, (x,)))
print(gc(lambda a: (a * 2, a.detach()), (x,)), gc(lambda a, n: a * n, (x, 3)))
print(gc(lambda a: a.long(), (x,)), gc(Bad.apply, (x,), raise_exception=False))
show(lambda: gc(Bad.apply, (x,)))
show(lambda: gc(lambda a, b: (a * b, Bad.apply(b)), (x, x.detach().clone().requires_grad_())))
show(lambda: ggc(Bad2.apply, (x,)))
x2 = torch.tensor([3., 4.], dtype=torch.float64, requires_grad=True)
for fast in (False, True):
    print(gc(lambda a, b: (a * b).tanh() @ b, (x, x2), fast_mode=fast))
    show(lambda: gc(lambda a, n, b: Bad2.apply(b) * a, (x, 3, x2), fast_mode=fast))
show(lambda: gc(Bad.apply, (x,), fast_mode=True))
show(lambda: gc(lambda a, b: (a.detach() * 1, Bad.apply(b)), (x, x2)))
show(lambda: gc(lambda a: a ** 2, (x.detach(),)))
caught(lambda: gc(lambda a: a * 2, (torch.tensor([1., 2.], requires_grad=True),), eps=1e-3,
                  atol=1e-2, rtol=1e-2))
try:
    gc(Bad.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__, type(e).__module__, type(e).__mro__[1].__name__)
'''

VARIABLE_FUNCTION = '''
V = torch.autograd.Variable
x = torch.tensor([1., 2.])
v = V(x, requires_grad=True)
print(v is x, x.requires_grad, v.requires_grad, v.is_leaf, v.grad_fn, isinstance(v, V))
v.data[0] = 5
w = V(x)
print(x, w is x, w.requires_grad)
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
print(V(b).requires_grad, V(b).is_leaf, V(b, requires_grad=True).grad_fn)
show(lambda: V(torch.tensor([1, 2]), requires_grad=True))
show(lambda: V(3))
caught(lambda: V(x, volatile=True).requires_grad)
class Pick(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = torch.tensor([1, 2, 0])
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return x[idx], idx
    @staticmethod
    def backward(ctx, gv, gi):
        print("gi", gi)
        idx, = ctx.saved_tensors
        g = torch.zeros_like(gv)
        g[idx] = gv
        return g
x = torch.tensor([3., 1., 2.], requires_grad=True)
v, i = Pick.apply(x)
print(v, i, i.requires_grad, i.grad_fn, i.is_leaf)
(v * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad)
class M(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("m", g1, g2)
        return None if g1 is None else g1 * 2
class M2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("m2", g1, g2)
        return g1 * 2 + g2 * 3
for F in (M, M2):
    x = torch.tensor([3., 1.], requires_grad=True)
    p, q = F.apply(x)
    q.sum().backward()
    print(x.grad)
class D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([3., 1.], requires_grad=True)
y = x.clone()
z = D.apply(y)
print(z is y, z.grad_fn.name(), y.grad_fn.name())
z.sum().backward()
print(x.grad)
show(lambda: D.apply(torch.tensor([3., 1.], requires_grad=True)))
class I(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.long()
    @staticmethod
    def backward(ctx, g):
        return g
r = I.apply(torch.tensor([3., 1.], requires_grad=True))
print(r.requires_grad, r.grad_fn)
'''

SEMANTICS = '''
warnings.simplefilter("ignore")
x = torch.tensor([1., 2.], requires_grad=True)
(x ** 2).sum().backward(create_graph=True)
g1 = x.grad
(x ** 2).sum().backward(create_graph=True)
print(x.grad, x.grad is g1, g1, type(x.grad.grad_fn).__name__)
(x ** 2).sum().backward()
print(x.grad)
z = torch.tensor([1., 2.], requires_grad=True)
(z * 3).sum().backward(create_graph=True)
k1 = z.grad
(z * 3).sum().backward(create_graph=True)
print(z.grad, z.grad is k1, k1)
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
b.retain_grad()
(b ** 2).sum().backward(create_graph=True, retain_graph=True)
r1 = b.grad
(b ** 2).sum().backward(create_graph=True)
print(r1, b.grad, b.grad is r1)
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
b.retain_grad()
(b ** 2).sum().backward(retain_graph=True)
r1 = b.grad
(b ** 2).sum().backward()
print(b.grad is r1, r1, b.grad)
def myhook(g):
    return torch.ones(3)
class C:
    def __call__(self, g):
        return torch.ones(3)
for hook in (myhook, lambda g: torch.ones(1), C(), lambda g: torch.ones(2, dtype=torch.float64)):
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    show(lambda: y.sum().backward())
x = torch.tensor([1., 2.], requires_grad=True)
x.register_hook(lambda g: torch.ones(3))
show(lambda: (x * 2).sum().backward())
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (torch.ones(3),))
show(lambda: y.sum().backward())
y = x * 2
y.grad_fn.register_prehook(lambda go: (torch.ones(3),))
show(lambda: y.sum().backward())
for register, hook in (("register_hook", lambda gi, go: (3.0, None)),
                       ("register_hook", lambda gi, go: [torch.ones(2), None]),
                       ("register_prehook", lambda go: 3.0)):
    y = x * 2
    getattr(y.grad_fn, register)(hook)
    show(lambda: y.sum().backward())
y = x * 2
y.register_hook(lambda g: 3.0)
show(lambda: y.sum().backward())
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
c = b * 3
c.sum().backward(inputs=[b], retain_graph=True)
print(b.retains_grad, b.grad, a.grad)
c.sum().backward()
print(b.grad, a.grad)
b = a * 2
show(lambda: b.requires_grad_().grad_fn.name())
show(lambda: b.requires_grad_(False))
show(lambda: setattr(b, "requires_grad", False))
show(lambda: setattr(b, "requires_grad", True))
for make in (lambda: torch.tensor([1, 2], requires_grad=True),
             lambda: torch.tensor([1, 2]).requires_grad_(),
             lambda: setattr(torch.tensor([1, 2]), "requires_grad", True),
             lambda: torch.nn.Parameter(torch.tensor([1, 2])),
             lambda: torch.zeros(2, dtype=torch.long, requires_grad=True),
             lambda: torch.autograd.Variable(torch.tensor([1, 2]), requires_grad=True)):
    show(make)
'''

MODULE_HOOKS = '''
torch.manual_seed(0)
nn = torch.nn
lin = nn.Linear(3, 2)
def hook(m, gi, go):
    print("hook", type(m).__name__, gi, go)
lin.register_full_backward_hook(hook)
lin.register_full_backward_pre_hook(lambda m, go: print("pre", go))
y = lin(torch.tensor([[1., 2., 3.]]))
print(type(y.grad_fn).__name__, y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions])
caught(lambda: y.sum().backward())
x2 = torch.tensor([[1., 2., 3.]], requires_grad=True)
(lin(x2) * torch.tensor([[1., 2.]])).sum().backward()
print(x2.grad)
lin2 = nn.Linear(3, 2)
lin2.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
x2.grad = None
lin2(x2).sum().backward()
print(x2.grad)
lin3 = nn.Linear(3, 2)
lin3.register_full_backward_pre_hook(lambda m, go: (go[0] * 0 + 1,))
lin3.register_full_backward_hook(lambda m, gi, go: print("post go", go))
x2.grad = None
(lin3(x2) * 5).sum().backward()
print(x2.grad)
class Two(nn.Module):
    def forward(self, a, b):
        return a * b, a + b
t = Two()
t.register_full_backward_hook(lambda m, gi, go: print("two", gi, go))
a = torch.tensor([1., 2.], requires_grad=True)
p, q = t(a, torch.tensor([3., 4.], requires_grad=True))
p.sum().backward()
p, q = t(a, torch.tensor([3., 4.]))
(p.sum() + q.sum()).backward()
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
seq.register_full_backward_hook(lambda m, gi, go: print("seq", gi, go))
seq[1].register_full_backward_hook(lambda m, gi, go: print("relu", gi, go))
caught(lambda: seq(torch.ones(1, 2)).sum().backward())
h = nn.Identity()
h.register_full_backward_hook(lambda m, gi, go: print("id", gi, go))
o = h(a)
print(o is a, type(o.grad_fn).__name__)
(o * 3).sum().backward()
'''


PROFILER_API = '''
def profiled():
    with torch.autograd.profiler.profile(use_cuda=True) as p:
        torch.ones(2) * 2
    return type(p.key_averages()).__name__, type(p.key_averages()[0]).__name__
caught(profiled)
P = torch.profiler
print(P.ProfilerActivity.CPU, P.ProfilerActivity.CUDA, P.schedule(wait=1, warmup=1, active=2)(3))
print([P.schedule(wait=1, warmup=1, active=2, repeat=1)(i) for i in range(6)])
caught(lambda: P.schedule(wait=0, warmup=0, active=1, skip_first=2)(1))
show(lambda: P.schedule(wait=0, warmup=1, active=0))
show(lambda: P.schedule(wait=1, warmup=1, active=1)(-1))
print(str(torch.autograd.profiler.profile()), repr(torch.autograd.profiler.profile()))
show(lambda: torch.autograd.profiler.profile().key_averages())
with torch.autograd.profiler.profile() as running:
    print(repr(str(running)), len(running.key_averages()))
'''

FUNCTION_API = '''
once_differentiable = torch.autograd.function.once_differentiable
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x ** 3 * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * ctx.k * g, None
x = torch.tensor([1., 2.], requires_grad=True)
y = Cube.apply(x, 2.0); print(y, y.grad_fn.name())
g, = torch.autograd.grad(y.sum(), x, create_graph=True); print(g)
print(torch.autograd.grad(g.sum(), x))
class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x); return x.exp()
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors; return g * x.exp()
y = Once.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g, g.requires_grad, g.grad_fn)
show(lambda: g.sum().backward())
y = Once.apply(x); y.sum().backward(); print(x.grad)
class V(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def vjp(ctx, g): return g * 2
x.grad = None; V.apply(x).sum().backward(); print(x.grad)
class S(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): ctx.save_for_backward(x, 3); return x * 2
    @staticmethod
    def backward(ctx, g): return g
show(lambda: S.apply(x))
class N(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
show(lambda: N.apply(x).sum().backward())
class W(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g, g
show(lambda: W.apply(x).sum().backward())
class Sh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g[:1]
show(lambda: Sh.apply(x).sum().backward())
print(torch.autograd.function.Function is torch.autograd.Function,
      torch.autograd.function.FunctionCtx is torch.autograd.function.FunctionCtx)
'''

LEGACY_HOOKS = '''
nn = torch.nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
lin.register_backward_hook(lambda m, gi, go: print(
    "legacy", type(m).__name__, [None if g is None else tuple(g.shape) for g in gi], go))
x = torch.tensor([[1., 2., 3.]], requires_grad=True)
caught(lambda: lin(x).sum().backward())
caught(lambda: lin.register_full_backward_hook(lambda m, gi, go: None))
lin2 = nn.Linear(3, 2); lin2.register_full_backward_hook(lambda m, gi, go: None)
caught(lambda: lin2.register_backward_hook(lambda m, gi, go: None))
seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
seq.register_backward_hook(lambda m, gi, go: print("seq", gi, go))
caught(lambda: seq(x).sum().backward())
r = nn.ReLU(); r.register_backward_hook(lambda m, gi, go: (gi[0] * 2,))
x.grad = None
caught(lambda: (r(x) * 1).sum().backward()); print(x.grad)
class Two(nn.Module):
    def forward(self, a): return a * 2, a + 1
t = Two(); t.register_backward_hook(lambda m, gi, go: print("two", gi, go))
caught(lambda: t(x)[0].sum().backward())
'''

BATCHED_GRAD = '''
x = torch.tensor([1., 2., 3.], requires_grad=True)
print(torch.autograd.grad(x ** 2, x, torch.eye(3), is_grads_batched=True))
print(torch.autograd.grad((x ** 2, x.sum() * 2), (x,),
                          (torch.eye(3)[:2], torch.tensor([1., 2.])), is_grads_batched=True))
w = torch.tensor(1., requires_grad=True)
print(torch.autograd.grad(x ** 2, (x, w), torch.eye(3), is_grads_batched=True,
                          allow_unused=True))
print(torch.autograd.grad(x ** 2, (x, w), torch.eye(3), is_grads_batched=True,
                          materialize_grads=True))
g, = torch.autograd.grad(x ** 2, x, torch.eye(3), is_grads_batched=True,
                        create_graph=True)
print(g.detach(), g.requires_grad)  # (torch's graph: vmapped nodes)
show(lambda: torch.autograd.grad(x * 2, x, is_grads_batched=True))
show(lambda: torch.autograd.grad(x * 2, x, torch.ones(3), is_grads_batched=True))
'''

ANOMALY = '''
def first_lines(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        show(f)
    for x in w:
        print(x.category.__name__, repr(str(x.message).splitlines()[0]))
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
def run():
    x = torch.tensor([0., 1.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = x.sqrt() * 0
        print(torch.is_anomaly_enabled())
        y.sum().backward()
first_lines(run)
def run2():
    x = torch.tensor([0., 1.], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        y = x.sqrt() * 0
        y.sum().backward()
    return x.grad
first_lines(run2)
def run3():
    x = torch.tensor([0., 1.], requires_grad=True)
    with torch.autograd.detect_anomaly(check_nan=False):
        y = x.sqrt() * 0
        y.sum().backward()
    return x.grad
first_lines(run3)
print(type(torch.autograd.set_detect_anomaly(False)).__name__, torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False)
def traced():
    x = torch.tensor([0., 1.], requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True):
            y = x.sqrt() * 0
            show(lambda: y.sum().backward())
    return [("Error detected in SqrtBackward0" in str(m.message), "in traced" in str(m.message))
            for m in w]
print(traced(), torch.is_anomaly_enabled())
'''

SCRIPTS = {"functional": FUNCTIONAL, "gradcheck": GRADCHECK,
           "variable_function": VARIABLE_FUNCTION, "semantics": SEMANTICS,
           "module_hooks": MODULE_HOOKS, "profiler_api": PROFILER_API,
           "function_api": FUNCTION_API, "legacy_hooks": LEGACY_HOOKS,
           "batched_grad": BATCHED_GRAD, "anomaly": ANOMALY}


def run(script: str, lib: Any) -> str:
    """The script's printed output with ``torch`` bound to ``lib`` (addresses masked)."""
    out = io.StringIO()
    env = {"torch": lib, "warnings": warnings, "__name__": "__script__"}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(PRELUDE + script, "<script>", "exec"), env)
    return re.sub(r"0x[0-9a-f]+", "0x?", out.getvalue())


def reference() -> dict[str, str]:
    """The stored PyTorch 2.13 outputs, by script name."""
    return json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))


if __name__ == "__main__":
    import torch

    REFERENCE_FILE.write_text(json.dumps({k: run(v, torch) for k, v in SCRIPTS.items()},
                                         indent=1) + "\n", encoding="utf-8")
