"""random_split with a generator, Subset, a custom Dataset, and train/validation loops."""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, Subset, random_split


class Circles(Dataset):
    """Points labelled by whether they fall inside the unit circle."""

    def __init__(self, n):
        g = torch.Generator().manual_seed(30)
        self.points = torch.rand(n, 2, generator=g) * 3 - 1.5
        self.labels = (self.points.pow(2).sum(1) < 1).long()

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i], self.labels[i]


torch.manual_seed(30)
full = Circles(100)
train, val = random_split(full, [80, 20], generator=torch.Generator().manual_seed(42))
print(type(train).__name__, len(train), len(val), val.indices[:5])
parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
print([list(p) for p in parts])
first = Subset(full, [0, 1, 2])
print(len(first), first[1][1])

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.03)
train_loader = DataLoader(train, batch_size=16, shuffle=True,
                          generator=torch.Generator().manual_seed(3))
val_loader = DataLoader(val, batch_size=10)
for epoch in range(6):
    model.train()
    for xb, yb in train_loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch} last loss {loss.item():.4f} val acc {correct / len(val):.2f}")
