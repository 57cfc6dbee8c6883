"""Imbalanced binary classification: BCEWithLogitsLoss with pos_weight, SGD."""
import torch
from torch import nn

torch.manual_seed(8)
n_pos, n_neg = 20, 180
X = torch.cat([torch.randn(n_pos, 4) + 1.0, torch.randn(n_neg, 4) - 0.5])
y = torch.cat([torch.ones(n_pos), torch.zeros(n_neg)]).unsqueeze(1)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
pos_weight = torch.tensor([n_neg / n_pos])
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(criterion)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for epoch in range(100):
    logits = model(X)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 25 == 24:
        print(f"{epoch + 1} {loss.item():.4f}")

with torch.no_grad():
    pred = (torch.sigmoid(model(X)) > 0.5).float()
    tp = (pred * y).sum().item()
    fn = ((1 - pred) * y).sum().item()
    fp = (pred * (1 - y)).sum().item()
print(f"recall {tp / (tp + fn):.3f} precision {tp / max(tp + fp, 1):.3f}")
plain = nn.BCEWithLogitsLoss()(model(X), y)
print(f"unweighted {plain.item():.4f}", plain.grad_fn.name())
print(loss.grad_fn.name())
