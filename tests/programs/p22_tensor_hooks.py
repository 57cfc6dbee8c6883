"""Tensor hooks: register_hook (observe, rescale), retain_grad, removing a handle."""
import torch

torch.manual_seed(22)
x = torch.randn(4, requires_grad=True)
w = torch.randn(4, requires_grad=True)

seen = []
h = x * w
h.retain_grad()
handle = h.register_hook(lambda g: seen.append(g.clone()))
y = torch.tanh(h)
y.register_hook(lambda g: g * 2)
loss = y.sum()
loss.backward()
print("seen", seen[0])
print("h.grad", h.grad)
print("x.grad", x.grad)
print(h.retains_grad, y.retains_grad, x.retains_grad)

handle.remove()
x.grad = None
w.grad = None
h2 = x * w
h2.register_hook(lambda g: print("hook on h2 got", g.shape))
h2.sum().backward()
print(len(seen), x.grad)

leaf = torch.ones(3, requires_grad=True)
leaf.register_hook(lambda g: g.clamp(max=0.5))
(leaf * torch.tensor([0.1, 1.0, 3.0])).sum().backward()
print(leaf.grad)

try:
    z = torch.ones(2)
    z.register_hook(lambda g: g)
except RuntimeError as exc:
    print("RuntimeError:", exc)

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
b.register_hook(lambda g: None)
b.sum().backward()
print(a.grad)
