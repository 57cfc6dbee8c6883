"""Autograd corner cases that programs rely on: backward(inputs=...), retain_graph,
hooks that change a gradient's size, grads accumulated across calls, allow_unused."""
import torch

torch.manual_seed(54)
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
mid = a * b
mid.retain_grad()
out = (mid.exp() + b).sum()
out.backward(inputs=[a], retain_graph=True)
print(a.grad is not None, b.grad, mid.grad, mid.retains_grad)
out.backward(inputs=[b, mid], retain_graph=True)
print(b.grad is not None, mid.grad is not None)
first = a.grad.clone()
out.backward()
print(torch.allclose(a.grad, 2 * first))

try:
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: torch.ones(3))
    y.sum().backward()
except RuntimeError as exc:
    print("RuntimeError:", exc)

u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
gu, gv = torch.autograd.grad(u * u, [u, v], allow_unused=True)
print(gu, gv)
gu, gv = torch.autograd.grad(u * u, [u, v], allow_unused=True, materialize_grads=True)
print(gu, gv)

w = torch.tensor([1.0, 2.0], requires_grad=True)
for k in range(3):
    (w * (k + 1)).sum().backward()
print(w.grad)
g = torch.autograd.grad((w**2).sum(), w, grad_outputs=torch.tensor(0.5))[0]
print(g, w.grad)
vec = torch.tensor([1.0, -1.0])
z = w * 3
z.backward(gradient=vec)
print(w.grad)

leaf = torch.zeros(2, requires_grad=True)
view = leaf[:1]
print(view.is_leaf, view.grad_fn.name(), leaf.is_leaf)
clone = leaf.clone()
clone[0] = 5.0
print(clone.grad_fn.name(), clone._version)
(clone * torch.tensor([2.0, 3.0])).sum().backward()
print(leaf.grad)
