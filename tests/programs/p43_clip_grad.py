"""clip_grad_norm_, clip_grad_value_, parameters_to_vector / vector_to_parameters."""
import torch
from torch import nn
from torch.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)

torch.manual_seed(43)
model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
x = torch.randn(10, 4)
loss = (model(x) ** 2).sum() * 10
loss.backward()

norms = [p.grad.norm().item() for p in model.parameters()]
print("grad norms", " ".join(f"{n:.4f}" for n in norms))
total = clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"total before {total.item():.4f}", total.shape)
after = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()]))
print(f"total after {after.item():.4f}")

inf_norm = clip_grad_norm_(model.parameters(), max_norm=0.1, norm_type=float("inf"))
print(f"inf norm {inf_norm.item():.4f}")
print(f"max |g| {max(p.grad.abs().max().item() for p in model.parameters()):.4f}")

clip_grad_value_(model.parameters(), clip_value=0.01)
print(f"max |g| after value clip {max(p.grad.abs().max().item() for p in model.parameters()):.4f}")

vec = parameters_to_vector(model.parameters())
print(vec.shape, f"{vec.sum().item():.4f}", vec.grad_fn.name())
vector_to_parameters(torch.zeros_like(vec), model.parameters())
print(model[0].bias, model(x[:1]))

# training with clipping
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randn(16, 3) * 10
target = data.sum(1, keepdim=True)
for step in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(data), target)
    loss.backward()
    norm = clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    print(f"{step} loss {loss.item():.4f} norm {norm.item():.4f}")
