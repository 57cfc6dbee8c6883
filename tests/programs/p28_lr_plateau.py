"""ReduceLROnPlateau driven by a validation loss; LambdaLR with a warm-up."""
import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, ReduceLROnPlateau

torch.manual_seed(28)
X = torch.randn(40, 4)
y = X[:, :1] * 2 - X[:, 1:2] + 0.05 * torch.randn(40, 1)
train_x, val_x = X[:30], X[30:]
train_y, val_y = y[:30], y[30:]

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, threshold=1e-2)
for epoch in range(20):
    loss = nn.functional.mse_loss(model(train_x), train_y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(val_x), val_y).item()
    sched.step(val)
    print(f"{epoch:2d} train {loss.item():.4f} val {val:.4f} lr {opt.param_groups[0]['lr']:.5f}"
          f" bad {sched.num_bad_epochs}")
print("best", f"{sched.best:.4f}")

opt2 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
warm = LambdaLR(opt2, lr_lambda=lambda step: min(1.0, (step + 1) / 4))
seen = []
for _ in range(6):
    seen.append(opt2.param_groups[0]["lr"])
    opt2.step()
    warm.step()
print(seen)
