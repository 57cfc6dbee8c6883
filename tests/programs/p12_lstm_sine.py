"""An LSTM predicts the next value of noisy sine waves (sequence-first layout)."""
import torch
from torch import nn

torch.manual_seed(12)
T, B = 20, 8
phase = torch.rand(1, B) * 6.28
t = torch.arange(T + 1, dtype=torch.float32).unsqueeze(1) * 0.4
waves = torch.sin(t + phase) + 0.01 * torch.randn(T + 1, B)
inputs = waves[:-1].unsqueeze(-1)
targets = waves[1:].unsqueeze(-1)
print(inputs.shape, targets.shape)


class Predictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 16, num_layers=2)
        self.linear = nn.Linear(16, 1)

    def forward(self, x, state=None):
        y, state = self.lstm(x, state)
        return self.linear(y), state


model = Predictor()
for name, p in model.lstm.named_parameters():
    print(name, tuple(p.shape))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(40):
    pred, (h, c) = model(inputs)
    loss = loss_fn(pred, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} loss {loss.item():.5f}")

print("h", h.shape, "c", c.shape)
with torch.no_grad():
    _, state = model(inputs[:5])
    step_pred, _ = model(inputs[5:6], state)
    full_pred, _ = model(inputs[:6])
print(torch.allclose(step_pred, full_pred[5:6], atol=1e-6))
print(f"{(step_pred - targets[5:6]).abs().mean().item():.4f}")
