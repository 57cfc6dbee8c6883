# ruff: noqa  (verbatim user code from the seed documents)
# seeds/002: "Tensor Backward" (the first backward raises)
import torch

x = torch.ones(2,requires_grad=True)
z = x + 2
z.backward()

# raise RuntimeError: grad can be implicitly created only for scalar outputs


x = torch.ones(2,requires_grad=True)
z = x + 2
z.backward(torch.ones_like(z))
