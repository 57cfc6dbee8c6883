# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [0] and In [12]: backward with retain_graph=True
import torch

x = torch.tensor(3., requires_grad=True)

a = torch.tensor(4., requires_grad=True)
b = torch.tensor(5., requires_grad=True)

y = a * x
z = y + b

z.backward(retain_graph=True)

print('dz/dx:', x.grad)
print('dz/da:', a.grad) 
print('dz/db:', b.grad) 
