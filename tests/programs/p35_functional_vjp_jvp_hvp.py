"""vjp, jvp, hvp and vhp from torch.autograd.functional against explicit Jacobians."""
import torch
from torch.autograd import functional as AF


def f(x):
    return torch.stack([x[0] * x[1], x[1].sin() + x[2], x[0].exp() * x[2]])


x = torch.tensor([0.4, -1.1, 2.0], dtype=torch.float64)
v = torch.tensor([1.0, 0.5, -2.0], dtype=torch.float64)
J = AF.jacobian(f, x)

out, vjp = AF.vjp(f, x, v)
print(out)
print(vjp, torch.allclose(vjp, v @ J))
out, jvp = AF.jvp(f, x, v)
print(jvp, torch.allclose(jvp, J @ v))


def energy(x):
    return (x[0] ** 2 * x[1] + x[2] ** 3).sum() + (x * x).sum()


H = AF.hessian(energy, x)
value, hvp = AF.hvp(energy, x, v)
print(f"{value.item():.6f}", hvp, torch.allclose(hvp, H @ v))
value, vhp = AF.vhp(energy, x, v)
print(vhp, torch.allclose(vhp, v @ H))

# several inputs: a tuple in, a tuple of products out
def g(a, b):
    return a * b + b**2


a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, -1.0])
_, (va, vb) = AF.vjp(g, (a, b), torch.ones(2))
print(va, vb)
_, jv = AF.jvp(g, (a, b), (torch.ones(2), torch.zeros(2)))
print(jv)
try:
    AF.vjp(f, x, torch.ones(2, dtype=torch.float64))
except RuntimeError as exc:
    print("RuntimeError:", exc)
