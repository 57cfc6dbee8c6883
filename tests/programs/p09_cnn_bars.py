"""A small CNN (Conv2d, BatchNorm2d, MaxPool2d) tells horizontal from vertical bars."""
import torch
import torch.nn as nn


def make_images(n, generator):
    images = 0.1 * torch.randn(n, 1, 8, 8, generator=generator)
    labels = torch.randint(0, 2, (n,), generator=generator)
    rows = torch.randint(1, 7, (n,), generator=generator)
    for i in range(n):
        if labels[i] == 0:
            images[i, 0, rows[i], :] += 1.0
        else:
            images[i, 0, :, rows[i]] += 1.0
    return images, labels


class BarNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 8, kernel_size=3),
            nn.ReLU(),
        )
        self.head = nn.Linear(8 * 2 * 2, 2)

    def forward(self, x):
        x = self.features(x)
        return self.head(torch.flatten(x, 1))


torch.manual_seed(9)
g = torch.Generator().manual_seed(90)
images, labels = make_images(64, g)
print(images.shape, labels[:10].tolist())

net = BarNet()
print(net)
print(net.features[0].weight.shape, net.features[1].running_mean)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(30):
    out = net(images)
    loss = nn.functional.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1} loss {loss.item():.4f}")

net.eval()
with torch.no_grad():
    test_x, test_y = make_images(32, g)
    acc = (net(test_x).argmax(1) == test_y).float().mean().item()
print(f"test accuracy {acc:.3f}")
print("running_var", net.features[1].running_var)
print("batches tracked", net.features[1].num_batches_tracked)
print(net.features[0](images[:1]).grad_fn.name())
