"""nn.RNN (tanh, batch_first) learns to output the running mean of a sequence."""
import torch
import torch.nn as nn

torch.manual_seed(11)
batch, steps = 16, 10
x = torch.rand(batch, steps, 1) * 2 - 1
target = x.cumsum(dim=1) / torch.arange(1, steps + 1).view(1, steps, 1)


class RunningMean(nn.Module):
    def __init__(self, hidden=12):
        super().__init__()
        self.rnn = nn.RNN(input_size=1, hidden_size=hidden, batch_first=True)
        self.readout = nn.Linear(hidden, 1)

    def forward(self, seq):
        out, h_n = self.rnn(seq)
        return self.readout(out), h_n


model = RunningMean()
print(model)
print([(name, tuple(p.shape)) for name, p in model.rnn.named_parameters()])
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(60):
    pred, h_n = model(x)
    loss = nn.functional.mse_loss(pred, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 15 == 14:
        print(f"{step + 1} {loss.item():.5f}")

print("h_n", h_n.shape, "out", pred.shape)
test = torch.tensor([[[0.5], [-0.5], [1.0]]])
with torch.no_grad():
    print(model(test)[0].squeeze())
h0 = torch.zeros(1, 1, 12)
out, hn = model.rnn(test, h0)
print(torch.allclose(out[:, -1], hn[0]), out.grad_fn is not None)
