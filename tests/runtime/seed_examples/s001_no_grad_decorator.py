# ruff: noqa  (verbatim user code from the seed documents)
# seeds/001: torch.no_grad() as a decorator
import torch

@torch.no_grad()
def func(x):
	...
