"""TensorDataset and DataLoader: shuffling with a seeded generator, drop_last, epochs."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(29)
X = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10)
ds = TensorDataset(X, y)
print(len(ds), ds[3])

loader = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5))
for epoch in range(2):
    print("epoch", epoch, [b[1].tolist() for b in loader])
print(len(loader))

loader = DataLoader(ds, batch_size=4, drop_last=True)
for xb, yb in loader:
    print(xb.shape, yb.tolist())
print(len(loader))

# a regression trained batch by batch
data = torch.randn(48, 3)
target = data @ torch.tensor([[0.2], [0.4], [-0.6]])
train = DataLoader(TensorDataset(data, target), batch_size=8, shuffle=True,
                   generator=torch.Generator().manual_seed(1))
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    total = 0.0
    for xb, yb in train:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    print(f"epoch {epoch} mean loss {total / len(train.dataset):.5f}")
print([f"{w:.4f}" for w in model.weight.flatten().tolist()])

batch = next(iter(DataLoader(ds, batch_size=3)))
print(type(batch).__name__, batch[0].dtype, batch[1].dtype)
