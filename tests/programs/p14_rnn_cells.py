"""Hand-unrolled RNNCell, LSTMCell and GRUCell loops with a shared readout."""
import torch
from torch import nn

torch.manual_seed(14)
seq = torch.randn(6, 3, 4)  # (time, batch, features)
rnn_cell = nn.RNNCell(4, 5, nonlinearity="relu")
lstm_cell = nn.LSTMCell(4, 5)
gru_cell = nn.GRUCell(4, 5)
readout = nn.Linear(5, 1)
print(rnn_cell, lstm_cell, gru_cell, sep="\n")

h_rnn = torch.zeros(3, 5)
h_lstm, c_lstm = torch.zeros(3, 5), torch.zeros(3, 5)
h_gru = torch.zeros(3, 5)
for x_t in seq:
    h_rnn = rnn_cell(x_t, h_rnn)
    h_lstm, c_lstm = lstm_cell(x_t, (h_lstm, c_lstm))
    h_gru = gru_cell(x_t, h_gru)

for name, h in [("rnn", h_rnn), ("lstm", h_lstm), ("gru", h_gru)]:
    y = readout(h)
    print(name, [f"{v:.4f}" for v in y.squeeze(1).tolist()])

total = readout(h_rnn).sum() + readout(h_lstm).sum() + readout(h_gru).sum()
total.backward()
print(f"{lstm_cell.weight_ih.grad.norm().item():.4f}")
print(f"{gru_cell.bias_hh.grad.abs().sum().item():.4f}")
print(f"{rnn_cell.weight_hh.grad.abs().max().item():.4f}")
print(h_gru.grad_fn is not None, c_lstm.shape)
single = lstm_cell(seq[0])
print(type(single).__name__, len(single), single[0].shape)
