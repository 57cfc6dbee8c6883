"""Embedding details: padding_idx, from_pretrained/freeze, sparse-free lookups, F.embedding."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(16)
emb = nn.Embedding(7, 3, padding_idx=2)
print(emb)
print(emb.weight[2])
ids = torch.tensor([[1, 2, 4], [4, 3, 2]])
vec = emb(ids)
print(vec.shape)
vec.pow(2).sum().backward()
print(emb.weight.grad)

pretrained = torch.arange(12.0).reshape(4, 3) / 10
frozen = nn.Embedding.from_pretrained(pretrained)
print(frozen.weight.requires_grad, frozen(torch.tensor([3, 0])))
tuned = nn.Embedding.from_pretrained(pretrained, freeze=False)
print(tuned.weight.requires_grad)

weight = torch.randn(5, 2, requires_grad=True)
out = F.embedding(torch.tensor([0, 0, 4]), weight)
out.sum().backward()
print(weight.grad)
print(out.grad_fn.name())

try:
    emb(torch.tensor([7]))
except IndexError as exc:
    print("IndexError:", exc)
try:
    emb(torch.tensor([1.0]))
except RuntimeError as exc:
    print("RuntimeError:", str(exc).splitlines()[0])
