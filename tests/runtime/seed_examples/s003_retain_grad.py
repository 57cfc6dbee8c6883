# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [13]: retain_grad() on intermediate tensors
import torch

x = torch.tensor(3., requires_grad=True)
a = torch.tensor(4., requires_grad=True)
b = torch.tensor(5., requires_grad=True)

y = a * x + b
y.retain_grad()

c = torch.tensor(4., requires_grad=True)
d = torch.tensor(4., requires_grad=True)

w = c * y + d
w.retain_grad()

w.backward()

print('dw/dx:', x.grad) 
print('dw/da:', a.grad) 
print('dw/db:', b.grad) 
print('dw/dy:', y.grad)
print('dw/dc:', c.grad) 
print('dw/dd:', d.grad) 
print('dw/dw:', w.grad)
