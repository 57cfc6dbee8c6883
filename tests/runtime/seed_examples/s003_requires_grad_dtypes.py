# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [0], In [4], In [5]: requires_grad on float tensors of each dtype
import torch

t0 = torch.tensor([1., 2.], requires_grad=True)
print(f't0 : {t0}')

t1 = torch.FloatTensor([1., 2.])  # dtype = torch.float32
t1.requires_grad=True
print(f't1 : {t1}')

t2 = torch.HalfTensor([1., 2.])  # dtype = torch.float16
t2.requires_grad=True
print(f't2 : {t2}')

t3 = torch.DoubleTensor([1., 2.])  # dtype = torch.float64
t3.requires_grad=True
print(f't3 : {t3}')
