"""Working in float64: set_default_dtype, module .double(), dtype promotion, and going back."""
import torch
from torch import nn

torch.manual_seed(52)
print(torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.zeros(2).dtype)
torch.set_default_dtype(torch.float64)
try:
    print(torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.randn(2).dtype)
    layer = nn.Linear(3, 2)
    print(layer.weight.dtype)
    x = torch.linspace(0, 1, 5)
    print(x, x.dtype)
    print(torch.tensor(3).dtype, torch.arange(3).dtype, torch.arange(3.0).dtype)
finally:
    torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype())

lin = nn.Linear(3, 1).double()
print(lin.weight.dtype, lin(torch.ones(1, 3, dtype=torch.float64)).dtype)
try:
    lin(torch.ones(1, 3))
except RuntimeError as exc:
    print("RuntimeError:", exc)
half = torch.ones(2, dtype=torch.float16)
print((half + torch.ones(2)).dtype, (torch.ones(2, dtype=torch.int32) * 1.5).dtype)
print((torch.ones(2, dtype=torch.float64) + torch.ones(2)).dtype)
print(torch.result_type(torch.tensor([1]), 2.0), torch.promote_types(torch.int64, torch.float32))

# a float64 fit reaches much tighter agreement with the exact answer
t = torch.linspace(-1, 1, 50, dtype=torch.float64)
target = 3 * t - 1
w = torch.zeros(2, dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.3)
for _ in range(200):
    loss = ((w[0] * t + w[1] - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{w[0].item():.10f} {w[1].item():.10f} {loss.item():.3e}")
print(w.grad.dtype)
