"""Autograd basics with the eager runtime: leaves, requires_grad, grad_fn chains.

Run it with ``python examples/autograd_basics.py``.  Every step prints what it shows
and checks it with an ``assert``; swapping the first import for ``import torch`` prints
the same text (up to object addresses).

What it walks through:

1. which tensors are *leaves* and which *require grad*;
2. how each operation leaves a ``grad_fn`` node behind, and how ``next_functions``
   links the nodes into the backward graph;
3. running that graph: ``backward()``, gradients for non-scalar outputs,
   ``retain_grad()``, ``autograd.grad`` and calling the nodes by hand;
4. ``detach()`` and ``nn.Parameter``, the leaves a model trains.
"""

import st_autodiff as torch
import st_autodiff.nn as nn


def describe(name, t):
    """One line with the autograd facts of a tensor."""
    print(f"{name}: is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, "
          f"grad_fn={type(t.grad_fn).__name__ if t.grad_fn is not None else None}")


# --- 1. leaves ----------------------------------------------------------------------------
print("== leaves")
data = torch.tensor([1.0, 2.0, 3.0])  # made by us, no history: a leaf
weight = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)  # a leaf we want gradients for
describe("data", data)
describe("weight", weight)
assert data.is_leaf and weight.is_leaf and weight.grad_fn is None

# An op whose inputs need no gradient records nothing: the result is a leaf too.
shifted = data + 1
describe("data + 1", shifted)
assert shifted.is_leaf and not shifted.requires_grad

# Only floating-point tensors can take part in differentiation.
try:
    torch.tensor([1, 2, 3]).requires_grad_()
except RuntimeError as err:
    print("integer tensor:", err)

# --- 2. the graph left behind by the forward pass -----------------------------------------
print("== grad_fn chains")
product = data * weight  # MulBackward0
total = product.sum()  # SumBackward0
describe("product", product)
describe("total", total)
print("total.grad_fn.next_functions[0][0] is product.grad_fn:",
      total.grad_fn.next_functions[0][0] is product.grad_fn)
# data needs no gradient, so its edge is empty; weight's edge ends in AccumulateGrad,
# the node that adds into weight.grad.
for node, output_nr in product.grad_fn.next_functions:
    print("  edge to", None if node is None else node.name(), "output", output_nr)
accumulate = product.grad_fn.next_functions[1][0]
assert accumulate.variable is weight

# Setting requires_grad on a computed tensor is refused: detach it instead.
try:
    product.requires_grad = False
except RuntimeError as err:
    print("non-leaf:", str(err).split(".")[0])

# --- 3. running the graph -------------------------------------------------------------------
print("== backward")
total.backward()
print("weight.grad:", weight.grad)  # d(sum(data * weight)) / d weight = data
assert torch.equal(weight.grad, data)

# Gradients accumulate across backward calls until they are reset.
(data * weight).sum().backward()
print("after a second backward:", weight.grad)
assert torch.equal(weight.grad, 2 * data)
weight.grad = None

# A non-scalar output needs the gradient of something with respect to it.
y = weight * 2
try:
    y.backward()
except RuntimeError as err:
    print("non-scalar:", err)
y.backward(torch.tensor([1.0, 0.0, -1.0]))
print("with an explicit gradient:", weight.grad)
weight.grad = None

# Intermediate (non-leaf) gradients are not kept unless asked for with retain_grad().
a = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(4.0, requires_grad=True)
hidden = a * b + 1
hidden.retain_grad()
out = hidden * hidden
out.backward()
print("d out / d hidden:", hidden.grad, " d out / d a:", a.grad, " d out / d b:", b.grad)
assert hidden.grad.item() == 2 * 13.0 and a.grad.item() == 2 * 13.0 * 4.0

# autograd.grad returns gradients instead of accumulating them into .grad.
x = torch.tensor(2.0, requires_grad=True)
(dx,) = torch.autograd.grad(x ** 3, x)
print("d(x^3)/dx at 2:", dx, " x.grad stays", x.grad)
assert dx.item() == 12.0 and x.grad is None

# The nodes are callable: running them by hand reproduces backward() step by step.
print("== calling the nodes by hand")
torch.manual_seed(6)
u = torch.randn(2, 2, requires_grad=True)
v = torch.randn(2, 2, requires_grad=True)
loss = (u * v).sum()
sum_node = loss.grad_fn
grad_product = sum_node(torch.tensor(1.0))  # SumBackward0: ones shaped like u * v
mul_node = sum_node.next_functions[0][0]
grad_u, grad_v = mul_node(grad_product)  # MulBackward0: (g * v, g * u)
print(sum_node.name(), "->", mul_node.name())
assert torch.allclose(grad_u, v) and torch.allclose(grad_v, u)
mul_node.next_functions[0][0](grad_u)  # AccumulateGrad writes u.grad
print("u.grad filled by hand equals v:", torch.allclose(u.grad, v))

# --- 4. detach and parameters ---------------------------------------------------------------
print("== detach and nn.Parameter")
frozen = loss.detach()  # same storage, no history
describe("loss.detach()", frozen)
param = nn.Parameter(torch.zeros(3))  # a parameter is a leaf that requires grad
describe("Parameter", param)
layer = nn.Linear(3, 2)
describe("Linear.weight", layer.weight)
describe("Linear output", layer(torch.ones(4, 3)))
assert layer.weight.is_leaf and layer.weight.requires_grad
print("done")
