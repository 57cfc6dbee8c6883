"""Scaled dot-product attention written out: masks, softmax, bmm, and the fused function."""
import math

import torch
import torch.nn.functional as F

torch.manual_seed(17)
B, T, D = 2, 4, 8
q = torch.randn(B, T, D, requires_grad=True)
k = torch.randn(B, T, D, requires_grad=True)
v = torch.randn(B, T, D, requires_grad=True)

scores = q @ k.transpose(-2, -1) / math.sqrt(D)
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
print(causal)
scores = scores.masked_fill(causal, float("-inf"))
weights = torch.softmax(scores, dim=-1)
print(weights[0])
out = torch.bmm(weights, v)
print(out.shape, out.grad_fn.name(), weights.grad_fn.name())

fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("fused matches", torch.allclose(fused, out, atol=1e-6))

loss = out.pow(2).mean()
loss.backward()
print(f"loss {loss.item():.5f}")
print(f"|dq| {q.grad.norm().item():.4f} |dk| {k.grad.norm().item():.4f}"
      f" |dv| {v.grad.norm().item():.4f}")
print(q.grad[0, 0])
# first query attends only to itself: its key gradient from position 0 of batch 1
print(f"{k.grad[1, 3].abs().sum().item():.4f}")
