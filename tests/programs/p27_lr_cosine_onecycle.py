"""CosineAnnealingLR and OneCycleLR (with momentum cycling) in a small training loop."""
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, OneCycleLR

torch.manual_seed(27)
X = torch.randn(64, 3)
y = (X @ torch.tensor([1.0, -2.0, 0.5]) + 0.3).unsqueeze(1)

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
sched = CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
for epoch in range(12):
    loss = nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(f"cos {epoch:2d} lr {opt.param_groups[0]['lr']:.5f} loss {loss.item():.5f}")

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
sched = OneCycleLR(opt, max_lr=0.3, total_steps=12)
print("initial", f"{opt.param_groups[0]['lr']:.5f}", opt.param_groups[0]["momentum"])
for step in range(12):
    loss = nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    group = opt.param_groups[0]
    print(f"1cyc {step:2d} lr {group['lr']:.5f} mom {group['momentum']:.4f}"
          f" loss {loss.item():.5f}")
    if step < 11:
        sched.step()

adam = torch.optim.Adam(nn.Linear(1, 1).parameters(), lr=1e-3)
sched = OneCycleLR(adam, max_lr=1e-2, epochs=2, steps_per_epoch=3, anneal_strategy="linear")
lrs = []
for _ in range(6):
    lrs.append(adam.param_groups[0]["lr"])
    adam.step()
    sched.step()
print(" ".join(f"{v:.6f}" for v in lrs), adam.param_groups[0]["betas"])
