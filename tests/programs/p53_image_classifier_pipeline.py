"""A tutorial-shaped pipeline: synthetic 'digits', DataLoader, CNN, StepLR, checkpoint."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(53)
templates = torch.zeros(3, 6, 6)
templates[0, 1:5, 2:4] = 1.0         # a bar
templates[1, 2:4, 1:5] = 1.0         # a dash
templates[2].fill_diagonal_(1.0)     # a diagonal
labels = torch.randint(0, 3, (96,))
images = templates[labels].unsqueeze(1) + 0.3 * torch.randn(96, 1, 6, 6)
train_set = TensorDataset(images[:72], labels[:72])
test_set = TensorDataset(images[72:], labels[72:])


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return F.log_softmax(self.fc(x.flatten(1)), dim=1)


def test(model, loader):
    model.eval()
    loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    n = len(loader.dataset)
    print(f"test: average loss {loss / n:.4f}, accuracy {correct}/{n}")


model = SmallNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.7)
train_loader = DataLoader(train_set, batch_size=16, shuffle=True,
                          generator=torch.Generator().manual_seed(0))
test_loader = DataLoader(test_set, batch_size=12)
for epoch in range(1, 5):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            seen = batch_idx * train_loader.batch_size
            print(f"epoch {epoch} [{seen}/{len(train_loader.dataset)}] loss {loss.item():.4f}")
    test(model, test_loader)
    scheduler.step()

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "net.pt")
    torch.save(model.state_dict(), path)
    restored = SmallNet()
    restored.load_state_dict(torch.load(path, weights_only=True))
test(restored, test_loader)
print(scheduler.get_last_lr())
