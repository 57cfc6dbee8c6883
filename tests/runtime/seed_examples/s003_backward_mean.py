# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [10]: backward of a mean
import torch

x = torch.tensor(3., requires_grad=True)
a = torch.tensor([4.,2.], requires_grad=True)
b = torch.tensor(5., requires_grad=True)

y = a * x
z = y + b 

z = z.mean()
z.backward()

print('dz/dx:', x.grad)
print('dz/da:', a.grad) 
print('dz/db:', b.grad) 
