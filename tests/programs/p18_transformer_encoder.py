"""A TransformerEncoderLayer (batch_first, no dropout) learns to copy the sorted order."""
import torch
from torch import nn

torch.manual_seed(18)
B, T, D = 16, 5, 16
values = torch.rand(B, T)
ranks = values.argsort(dim=1).argsort(dim=1)
print(values[0], ranks[0])


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(1, D)
        self.layer = nn.TransformerEncoderLayer(d_model=D, nhead=2, dim_feedforward=32,
                                                dropout=0.0, batch_first=True)
        self.out = nn.Linear(D, T)

    def forward(self, x):
        h = self.inp(x.unsqueeze(-1))
        return self.out(self.layer(h))


model = Ranker()
print(model.layer.self_attn)
print(sum(p.numel() for p in model.parameters()))
print([n for n, _ in model.layer.named_parameters()][:6])
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(30):
    logits = model(values)
    loss = nn.functional.cross_entropy(logits.reshape(-1, T), ranks.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        acc = (logits.argmax(-1) == ranks).float().mean().item()
        print(f"{step + 1} {loss.item():.4f} {acc:.3f}")

model.eval()
with torch.no_grad():
    print(model(values[:1]).argmax(-1), ranks[:1])
