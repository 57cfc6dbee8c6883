# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [9]: backward of a non-scalar with an explicit gradient
import torch

x = torch.tensor(3., requires_grad=True)
a = torch.tensor([4.,2.], requires_grad=True)
b = torch.tensor(5., requires_grad=True)

y = a * x
z = y + b 

z.backward(torch.tensor([1.,1.])) # passing a gradient to backward.

print('dz/dx:', x.grad)
print('dz/da:', a.grad) 
print('dz/db:', b.grad) 
