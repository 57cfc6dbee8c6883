"""Higher-order derivatives by repeated autograd.grad, checked against closed forms."""
import torch

x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)

y = torch.sin(x)
derivs = [y]
for _ in range(4):
    (d,) = torch.autograd.grad(derivs[-1].sum(), x, create_graph=True)
    derivs.append(d)
for order, d in enumerate(derivs):
    print(order, [f"{v:.6f}" for v in d.tolist()])
print(torch.allclose(derivs[4], torch.sin(x)))
print(type(derivs[2].grad_fn).__name__)

# tanh: f'' = -2 tanh (1 - tanh^2)
t = torch.tanh(x)
(d1,) = torch.autograd.grad(t.sum(), x, create_graph=True)
(d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
closed = -2 * t * (1 - t**2)
print(f"{(d2 - closed).abs().max().item():.2e}")

# mixed partials of f(a, b) = a^3 b^2
a = torch.tensor(1.5, requires_grad=True)
b = torch.tensor(-0.5, requires_grad=True)
f = a**3 * b**2
fa, fb = torch.autograd.grad(f, (a, b), create_graph=True)
fab = torch.autograd.grad(fa, b, retain_graph=True)[0]
fba = torch.autograd.grad(fb, a)[0]
print(f"{fa.item():.4f} {fb.item():.4f} {fab.item():.4f} {fba.item():.4f}")

# backward with create_graph accumulates a differentiable .grad
w = torch.tensor([2.0, 3.0], requires_grad=True)
(w**3).sum().backward(create_graph=True)
print(w.grad, w.grad.requires_grad)
w.grad.sum().backward()
print(w.grad)
