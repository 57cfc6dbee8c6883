"""Fit a cubic to exp(x) on [-1, 1] with plain tensors and hand-written gradients."""
import math

import torch

torch.manual_seed(0)
dtype = torch.float32

x = torch.linspace(-1.0, 1.0, 200, dtype=dtype)
y = torch.exp(x)

# coefficients of a + b x + c x^2 + d x^3, drawn at random
a, b, c, d = (torch.randn((), dtype=dtype) for _ in range(4))
print("initial:", f"{a.item():.4f} {b.item():.4f} {c.item():.4f} {d.item():.4f}")

learning_rate = 1e-3
for step in range(300):
    x2 = x * x
    y_pred = a + b * x + c * x2 + d * x2 * x
    residual = y_pred - y
    loss = residual.pow(2).sum()
    if step % 50 == 49:
        print(f"step {step + 1:3d} loss {loss.item():.5f}")
    # d loss / d coefficient = sum(2 * residual * basis)
    g = 2.0 * residual
    grad_a = g.sum()
    grad_b = (g * x).sum()
    grad_c = (g * x2).sum()
    grad_d = (g * x2 * x).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f"fit: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
taylor = [1.0, 1.0, 0.5, 1.0 / 6.0]
print("taylor:", " ".join(f"{t:.4f}" for t in taylor))
err = (a + b * 0.5 + c * 0.25 + d * 0.125 - math.exp(0.5)).abs()
print(f"error at 0.5: {err.item():.4f}")
print(a.dtype, a.shape, a.requires_grad)
