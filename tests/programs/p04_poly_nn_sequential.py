"""The fit with torch.nn: Linear on polynomial features, Flatten, MSELoss(sum)."""
import torch
from torch import nn

torch.manual_seed(3)
x = torch.linspace(-1, 1, 64)
y = torch.cos(2 * x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print("features", xx.shape)

model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
print(model)
loss_fn = nn.MSELoss(reduction="sum")

lr = 1e-3
for step in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if step % 60 == 59:
        print(step + 1, f"{loss.item():.4f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= lr * param.grad

linear = model[0]
print(f"bias {linear.bias.item():.4f}")
print("weights", " ".join(f"{v:.4f}" for v in linear.weight[0].tolist()))
print([name for name, _ in model.named_parameters()])
print(linear.weight.shape, linear.weight.grad.shape)
print(y_pred.grad_fn.name(), loss.grad_fn.name())
