"""Conv2d with stride, AvgPool2d and AdaptiveAvgPool2d; counting bright blobs (regression)."""
import torch
from torch import nn

torch.manual_seed(10)
N = 48
images = torch.zeros(N, 2, 12, 12)
counts = torch.randint(1, 5, (N,))
for i in range(N):
    spots = torch.randint(0, 11, (int(counts[i]), 2))
    for r, c in spots.tolist():
        images[i, 0, r:r + 2, c:c + 2] = 1.0
images[:, 1] = 0.05 * torch.randn(N, 12, 12)
target = counts.float()

model = nn.Sequential(
    nn.Conv2d(2, 6, 3, stride=1, padding=1, bias=False),
    nn.LeakyReLU(0.1),
    nn.AvgPool2d(2),
    nn.Conv2d(6, 6, 3, padding=1),
    nn.ELU(),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(),
    nn.Linear(6, 1),
)
print(model)
print([tuple(p.shape) for p in model.parameters()])
opt = torch.optim.AdamW(model.parameters(), lr=0.03, weight_decay=0.01)
for step in range(40):
    pred = model(images).squeeze(1)
    loss = nn.functional.mse_loss(pred, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"{step + 1:2d} mse {loss.item():.4f}")

with torch.no_grad():
    feat = model[:6](images[:2])
print(feat.shape)
print(model[:3](images[:1]).shape, model[5](torch.ones(1, 3, 5, 7)).shape)
print(nn.functional.avg_pool2d(torch.arange(16.0).reshape(1, 1, 4, 4), 2))
