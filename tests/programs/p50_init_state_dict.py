"""Default initialisation under a seed, nn.init schemes, state_dict round trips, buffers,
train/eval flags, apply(), named_modules and requires_grad_ for freezing."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Linear(8, 3)
        self.register_buffer("offset", torch.tensor([0.5, -0.5, 0.0]))
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        x = nn.functional.adaptive_max_pool2d(x, (2, 2)).flatten(1)
        return self.drop(self.fc(x)) + self.offset


torch.manual_seed(50)
net = Net()
print(net.conv.weight[0, 0])
print(net.fc.bias)
print(list(net.state_dict().keys()))
print([name for name, _ in net.named_buffers()])
print([name for name, m in net.named_modules()])

lin = nn.Linear(4, 3)
nn.init.xavier_uniform_(lin.weight)
print(lin.weight)
nn.init.kaiming_normal_(lin.weight, mode="fan_out", nonlinearity="relu")
print(f"{lin.weight.std().item():.4f}")
nn.init.constant_(lin.bias, 0.1)
nn.init.zeros_(lin.weight)
print(lin(torch.ones(1, 4)))
w = torch.empty(2, 5)
nn.init.trunc_normal_(w, std=0.02)
nn.init.orthogonal_(torch.empty(3, 3))
print(w.abs().max().item() <= 0.04)


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.1)
        nn.init.zeros_(module.bias)


net.apply(init_weights)
print(net.fc.weight[0])
copy = Net()
copy.load_state_dict(net.state_dict())
x = torch.randn(2, 1, 5, 5)
net.eval()
copy.eval()
print(torch.equal(net(x), copy(x)), net.training, net.bn.training)
net.train()
print(net.drop.training, net(x).shape)
net.conv.requires_grad_(False)
print([n for n, p in net.named_parameters() if p.requires_grad])
print(net.state_dict()["bn.num_batches_tracked"], net.offset)
