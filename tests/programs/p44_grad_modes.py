"""no_grad, enable_grad, set_grad_enabled, inference_mode, detach and requires_grad_."""
import torch

torch.manual_seed(44)
w = torch.randn(3, requires_grad=True)

with torch.no_grad():
    a = w * 2
    with torch.enable_grad():
        b = w * 2
print(a.requires_grad, a.grad_fn, b.requires_grad, type(b.grad_fn).__name__)
print(torch.is_grad_enabled())

with torch.set_grad_enabled(False):
    c = w + 1
print(c.requires_grad)
torch.set_grad_enabled(False)
d = w.exp()
torch.set_grad_enabled(True)
print(d.requires_grad, torch.is_grad_enabled())


@torch.no_grad()
def evaluate(x):
    return (x * w).sum()


print(evaluate(torch.ones(3)).requires_grad)

with torch.inference_mode():
    inf = w * 3
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
print(inf.requires_grad, inf.is_inference())
try:
    (inf * w).sum().backward()
    print("backward through an inference tensor's product works:", w.grad is not None)
except RuntimeError as exc:
    print("RuntimeError:", exc)
with torch.inference_mode(mode=False):
    print(torch.is_inference_mode_enabled())

x = torch.ones(2)
print(x.requires_grad_(), x.requires_grad)
y = x * 2
z = y.detach()
z[0] = 5.0
print(y)
e = y.detach()
print(e.requires_grad, e.is_leaf)
try:
    y.requires_grad_(False)
except RuntimeError as exc:
    print("RuntimeError:", exc)
print(w.grad)
