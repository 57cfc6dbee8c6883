"""Higher-order derivatives: differentiating a gradient with ``create_graph=True``.

Run it with ``python examples/higher_order.py``.  Swapping the imports for ``torch``
prints the same text (up to object addresses).

With ``create_graph=True`` the backward pass records its own operations, so the
gradient it returns is an ordinary tensor with a ``grad_fn`` and can be differentiated
again.  Shown here: second and third derivatives of a scalar function, a Hessian-vector
product, the gradient of a network's output with respect to its input (as in surface
normals of a learned distance field) and a loss that penalises that gradient.
"""

import st_autodiff as torch
import st_autodiff.nn as nn

# --- derivatives of x**3 -----------------------------------------------------------------
print("== d/dx, d2/dx2, d3/dx3 of x**3 at x = 2")
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(d1,) = torch.autograd.grad(y, x, create_graph=True)  # 3x^2, and differentiable
(d2,) = torch.autograd.grad(d1, x, create_graph=True)  # 6x
(d3,) = torch.autograd.grad(d2, x)  # 6
print(d1, d2, d3)
assert (d1.item(), d2.item(), d3.item()) == (12.0, 12.0, 6.0)

# Without create_graph the gradient is a plain value: there is nothing to differentiate.
(plain,) = torch.autograd.grad(x ** 3, x)
print("without create_graph:", plain, "requires_grad =", plain.requires_grad)

# --- backward(create_graph=True) fills .grad with a differentiable tensor -------------------
print("== backward(create_graph=True)")
z = torch.tensor([1.0, 2.0], requires_grad=True)
f = (z.sin() * z).sum()
(g,) = torch.autograd.grad(f, z, create_graph=True)  # sin z + z cos z
g.sum().backward()  # d/dz of (sin z + z cos z) = 2 cos z - z sin z
expected = 2 * z.detach().cos() - z.detach() * z.detach().sin()
print("second derivative:", z.grad)
assert torch.allclose(z.grad, expected)

# --- a Hessian-vector product without forming the Hessian -------------------------------------
print("== Hessian-vector product")
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
A = torch.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
quadratic = 0.5 * (w @ A @ w)  # Hessian is A
(grad_w,) = torch.autograd.grad(quadratic, w, create_graph=True)
v = torch.tensor([1.0, 0.0, -1.0])
(hv,) = torch.autograd.grad(grad_w @ v, w)
print("H v =", hv, " A v =", A @ v)
assert torch.allclose(hv, A @ v)

# --- gradients with respect to a network's input ---------------------------------------------
print("== input gradients of a small network")
torch.manual_seed(0)
field = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
points = torch.randn(5, 3, requires_grad=True)
distance = field(points)
# The gradient of the field at each point, kept differentiable so it can enter a loss.
(normals,) = torch.autograd.grad(distance.sum(), points, create_graph=True)
print("normals:", tuple(normals.shape), "grad_fn:", normals.grad_fn is not None)

# A gradient penalty: ask the field to have unit-length gradients (an eikonal term).
penalty = ((normals.norm(dim=1) - 1) ** 2).mean()
penalty.backward()
first = field[0].weight.grad
print("penalty:", round(penalty.item(), 4), " first-layer weight grad:", tuple(first.shape))
assert first is not None and first.abs().sum().item() > 0
print("done")
