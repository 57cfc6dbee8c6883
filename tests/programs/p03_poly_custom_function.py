"""A custom autograd.Function (the Legendre polynomial P3) inside a fit."""
import torch


class LegendreP3(torch.autograd.Function):
    """P3(t) = (5 t^3 - 3 t) / 2 with its derivative written by hand."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return 0.5 * (5 * t**3 - 3 * t)

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * t**2 - 1)


torch.manual_seed(2)
x = torch.linspace(-3.14, 3.14, 120)
y = torch.sin(x)

a = torch.full((), 0.0, requires_grad=True)
b = torch.full((), -1.0, requires_grad=True)
c = torch.full((), 0.0, requires_grad=True)
d = torch.full((), 0.3, requires_grad=True)

P3 = LegendreP3.apply
lr = 5e-6
for step in range(400):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if step == 0:
        print("node:", type(y_pred.grad_fn.next_functions[1][0].next_functions[1][0]).__name__)
    if step % 80 == 79:
        print(f"{step + 1} {loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= lr * p.grad
            p.grad = None

print(f"y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")

t = torch.tensor([0.25, -0.5, 0.9], dtype=torch.float64, requires_grad=True)
out = LegendreP3.apply(t)
print(out)
(g,) = torch.autograd.grad(out.sum(), t)
print(g)
print("gradcheck", torch.autograd.gradcheck(LegendreP3.apply, (t,)))
