"""Old-style code: autograd.Variable, legacy FloatTensor/LongTensor constructors, .type()."""
import torch
from torch.autograd import Variable

torch.manual_seed(48)
data = torch.randn(3)
v = Variable(data, requires_grad=True)
print(type(v).__name__, v.requires_grad, data.requires_grad, v.is_leaf)
(v * v).sum().backward()
print(torch.allclose(v.grad, 2 * data))
print(v.data.requires_grad)

f = torch.FloatTensor([1, 2, 3])
print(f, f.dtype)
long = torch.LongTensor([[1, 2], [3, 4]])
print(long, long.dtype)
empty = torch.FloatTensor(2, 3)
print(empty.shape, empty.dtype)
print(f.type(), long.type())
as_double = f.type(torch.DoubleTensor)
print(as_double.dtype, as_double.type())
print(f.type(torch.int32).dtype)
print(isinstance(f, torch.FloatTensor), isinstance(long, torch.FloatTensor))

x = Variable(torch.ones(2, 2), requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(y.grad_fn.name(), out)
out.backward()
print(x.grad)
print(f.float().dtype, f.double().dtype, f.long().dtype, f.int().dtype, f.half().dtype)
print(torch.tensor([1.5]).type(torch.LongTensor))
