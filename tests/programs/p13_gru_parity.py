"""A bidirectional GRU classifies bit sequences by whether they hold more ones than zeros."""
import torch
import torch.nn as nn

torch.manual_seed(13)
N, L = 64, 9
bits = torch.randint(0, 2, (N, L)).float()
labels = (bits.sum(1) > L / 2).long()
print(labels.float().mean())


class Majority(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(1, 8, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(16, 2)

    def forward(self, x):
        _, h = self.gru(x.unsqueeze(-1))
        h = torch.cat([h[0], h[1]], dim=1)
        return self.fc(h)


model = Majority()
print(model)
print(model.gru.weight_hh_l0_reverse.shape)
opt = torch.optim.RMSprop(model.parameters(), lr=0.003)  # 0.01 diverges and recovers: chaotic
for epoch in range(40):
    logits = model(bits)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        acc = (logits.argmax(1) == labels).float().mean().item()
        print(f"{epoch + 1} {loss.item():.4f} {acc:.3f}")

out, h = model.gru(bits[:2].unsqueeze(-1))
print(out.shape, h.shape, out.requires_grad, h.grad_fn is not None)
