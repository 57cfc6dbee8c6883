# ruff: noqa  (verbatim user code from the seed documents)
# seeds/004 In [5] and In [6] without the loss: no_grad() and detach()
import torch

x=torch.ones(5)
w=torch.randn(5,3,requires_grad=True)
b=torch.randn(3, requires_grad=True)

z=torch.matmul(x,w)+b
print(z.requires_grad)

with torch.no_grad():
    z=torch.matmul(x,w)+b
print(z.requires_grad)

z=torch.matmul(x,w)+b
z_det=z.detach()
print(repr(z_det.requires_grad))
