# ruff: noqa  (verbatim user code from the seed documents)
# seeds/004 In [2] to In [6]: a one-layer network, its gradients, and disabling tracking
import torch

# input tensor
x=torch.ones(5)
# expected output
y=torch.zeros(3)

w=torch.randn(5,3,requires_grad=True)
b=torch.randn(3, requires_grad=True)
z=torch.matmul(x,w)+b
loss=torch.nn.functional.binary_cross_entropy_with_logits(z,y)
print(repr(loss))

print(f'Gradient function for z ={z.grad_fn}')
print(f'Gradient function for loss={loss.grad_fn}')

loss.backward()
print(w.grad)
print(b.grad)

z=torch.matmul(x,w)+b
print(z.requires_grad)

with torch.no_grad():
    z=torch.matmul(x,w)+b
print(z.requires_grad)

z=torch.matmul(x,w)+b
z_det=z.detach()
print(repr(z_det.requires_grad))
