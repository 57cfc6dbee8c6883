# ruff: noqa  (verbatim user code from the seed documents)
# seeds/002: "Tensor Backward", the second half (a gradient passed to backward)
import torch

x = torch.ones(2,requires_grad=True)
z = x + 2
z.backward(torch.ones_like(z))
