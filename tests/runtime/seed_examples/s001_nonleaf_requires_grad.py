# ruff: noqa  (verbatim user code from the seed documents)
# seeds/001 (and its rendering 000): changing requires_grad of a non-leaf
import torch
import torch.nn as nn

x = torch.rand(1, 3)
y = nn.Linear(3, 5)(x)
y.requires_grad = False
# RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().
