# ruff: noqa  (verbatim user code from the seed documents)
# seeds/002: "Grad_fn and next_functions" (calling graph nodes by hand)
import torch

# Example from ref 1. 
torch.manual_seed(6)
x = torch.randn(4, 4, requires_grad=True)
y = torch.randn(4, 4, requires_grad=True)
z = x * y
l = z.sum()
l.backward()
print(x.grad)
print(y.grad)

# Notice that we have ops (like multiply, sum) and tensors (x, y, z, l)
# Forward
# x
#     \
#         multi  -> z  -> sum  -> l
#     /
# y

# backward
# dx
#     \
#         back_multi  <- dz  <- back_sum  <- dl
#     /
# dy

# equivalent 
torch.manual_seed(6)
x = torch.randn(4, 4, requires_grad=True)
y = torch.randn(4, 4, requires_grad=True)
z = x * y
l = z.sum()
dl = torch.tensor(1.)
back_sum = l.grad_fn
dz = back_sum(dl)
back_mul = back_sum.next_functions[0][0]
dx, dy = back_mul(dz)
back_x = back_mul.next_functions[0][0]
back_x(dx)
back_y = back_mul.next_functions[1][0]
back_y(dy)
print(x.grad)
print(y.grad)
