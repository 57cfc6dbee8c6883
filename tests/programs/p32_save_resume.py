"""Checkpointing: save model and optimizer state_dicts, resume in a fresh model, continue."""
import os
import tempfile

import torch
from torch import nn

torch.manual_seed(32)
X = torch.randn(50, 4)
y = X @ torch.tensor([[1.0], [-1.0], [0.5], [2.0]]) + 0.1


def make():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    return model, opt


def train(model, opt, steps):
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


model, opt = make()
print(f"first 20 steps {train(model, opt, 20):.5f}")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save({"epoch": 20, "model": model.state_dict(), "optim": opt.state_dict(),
                "loss": 0.5}, path)
    state = torch.load(path)
print(sorted(state), state["epoch"], list(state["model"])[:2])
print(sorted(state["optim"]["state"][0]), state["optim"]["param_groups"][0]["lr"])

# continue the original for 10 steps, and a resumed copy for 10 steps: the same numbers
reference = train(model, opt, 10)
fresh, fresh_opt = make()
fresh.load_state_dict(state["model"])
fresh_opt.load_state_dict(state["optim"])
resumed = train(fresh, fresh_opt, 10)
print(f"continued {reference:.6f} resumed {resumed:.6f}")
print(all(torch.equal(a, b) for a, b in zip(model.parameters(), fresh.parameters())))
print(fresh_opt.state[fresh[0].weight]["step"])

missing = fresh.load_state_dict({"0.weight": torch.zeros(8, 4)}, strict=False)
print(missing.missing_keys, missing.unexpected_keys)
try:
    fresh.load_state_dict({"0.weight": torch.zeros(3, 3)}, strict=False)
except RuntimeError as exc:
    print(str(exc).splitlines()[1].strip())
