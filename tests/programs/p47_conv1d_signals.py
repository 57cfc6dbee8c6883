"""Conv1d, BatchNorm1d, MaxPool1d and AvgPool1d: detecting a spike pattern in 1-d signals."""
import torch
from torch import nn

torch.manual_seed(47)
N, L = 40, 24
signals = 0.2 * torch.randn(N, 1, L)
labels = torch.randint(0, 2, (N,))
starts = torch.randint(0, L - 3, (N,))
for i in range(N):
    if labels[i] == 1:
        signals[i, 0, starts[i]:starts[i] + 3] += torch.tensor([1.0, -1.0, 1.0])

model = nn.Sequential(
    nn.Conv1d(1, 4, kernel_size=3, padding=1, bias=False),  # BatchNorm1d removes a bias
    nn.BatchNorm1d(4),
    nn.ReLU(),
    nn.MaxPool1d(2),
    nn.Conv1d(4, 4, kernel_size=3, dilation=2),
    nn.AvgPool1d(2),
    nn.Flatten(),
    nn.Linear(4 * 4, 2),
)
print(model)
print(model[0].weight.shape, model[4].weight.shape)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(40):
    out = model(signals)
    loss = nn.functional.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        acc = (out.argmax(1) == labels).float().mean().item()
        print(f"{epoch + 1} {loss.item():.4f} {acc:.3f}")

model.eval()
with torch.no_grad():
    print(model(signals[:4]).argmax(1).tolist(), labels[:4].tolist())
print(model[1].running_mean)
print(model[1].momentum, model[1].eps, model[1].training)
conv = nn.Conv1d(2, 3, 2, stride=2, bias=False)
print(conv(torch.ones(1, 2, 6)).shape, conv.bias)
