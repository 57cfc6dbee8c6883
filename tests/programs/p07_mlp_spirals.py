"""Two interleaved spirals classified by an MLP with CrossEntropyLoss and Adam."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
n = 100
t = torch.linspace(0.0, 1.0, n)
angle = 3 * math.pi * t
arm0 = torch.stack([t * torch.cos(angle), t * torch.sin(angle)], dim=1)
arm1 = -arm0
X = torch.cat([arm0, arm1]) + 0.02 * torch.randn(2 * n, 2)
y = torch.cat([torch.zeros(n, dtype=torch.long), torch.ones(n, dtype=torch.long)])
print(X.shape, y.dtype, y.bincount())


class MLP(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 2)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.out(x)


model = MLP()
print(model)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(120):
    logits = model(X)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 20 == 19:
        acc = (logits.argmax(dim=1) == y).float().mean()
        print(f"epoch {epoch + 1:3d} loss {loss.item():.4f} acc {acc.item():.3f}")

print(loss.grad_fn.name())
with torch.no_grad():
    probs = F.softmax(model(X[:3]), dim=1)
print(probs)
print(probs.sum(dim=1))
