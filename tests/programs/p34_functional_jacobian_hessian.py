"""torch.autograd.functional: jacobian and hessian of small functions, checked by hand."""
import torch
from torch.autograd.functional import hessian, jacobian


def polar(r_theta):
    r, theta = r_theta[0], r_theta[1]
    return torch.stack([r * torch.cos(theta), r * torch.sin(theta)])


p = torch.tensor([2.0, 0.5], dtype=torch.float64)
J = jacobian(polar, p)
print(J)
print(f"det {torch.linalg.det(J).item():.6f} (r = {p[0].item()})")


def rosenbrock(xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2


point = torch.tensor([1.0, 1.0], dtype=torch.float64)
H = hessian(rosenbrock, point)
print(H)
print(torch.linalg.eigvalsh(H))


def two_inputs(a, b):
    return (a * b.sin()).sum(), a**2


a = torch.tensor([1.0, 2.0])
b = torch.tensor([0.3, -0.7])
Ja = jacobian(lambda a_, b_: a_ * b_.exp(), (a, b))
print(type(Ja).__name__, len(Ja), Ja[0].shape)
print(Ja[1])
Jv = jacobian(lambda v: v.softmax(0), torch.tensor([0.1, 0.2, 0.3]), vectorize=False)
print(Jv)
print(bool(Jv.sum(0).abs().max() < 1e-6))
Hs = hessian(lambda x: (x**3).sum() + x.prod(), torch.tensor([1.0, -2.0]),
             create_graph=False)
print(Hs)
out = jacobian(lambda x: x.exp(), torch.tensor([0.0, 1.0]), create_graph=True)
print(out.requires_grad)
print(jacobian(two_inputs, (a, b))[1][0])
