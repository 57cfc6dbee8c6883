# ruff: noqa  (verbatim user code from the seed documents)
# seeds/001: the ways to set requires_grad
import torch
import torch.nn as nn

# set at intialization
x = torch.rand(3, requires_grad=True)

# both following method just change the flag in-place.
x.requires_grad = True
x.requires_grad_(True) # also return the tensor itself.

# nn.Parameter (which is used inside nn.Module) automatically requires grad.
x = nn.Parameter(torch.rand(3))
# is_leaf: True, requires_grad: True, grad_fn: None, grad: None
x = nn.Linear(3, 5).weight
# is_leaf: True, requires_grad: True, grad_fn: None, grad: None
