"""NLLLoss and CrossEntropyLoss: class weights, ignore_index, label_smoothing, reductions,
probability targets, and their gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(38)
logits = torch.randn(6, 4, requires_grad=True)
target = torch.tensor([0, 3, 1, 1, 2, 3])
weight = torch.tensor([1.0, 2.0, 0.5, 1.5])

for reduction in ("mean", "sum", "none"):
    loss = nn.CrossEntropyLoss(reduction=reduction)(logits, target)
    print("ce", reduction, loss if reduction == "none" else f"{loss.item():.5f}")

print(nn.CrossEntropyLoss(weight=weight))
weighted = nn.CrossEntropyLoss(weight=weight)(logits, target)
print(f"weighted {weighted.item():.5f}")
ignored = F.cross_entropy(logits, torch.tensor([0, -100, 1, -100, 2, 3]))
print(f"ignore_index {ignored.item():.5f}")
smooth = F.cross_entropy(logits, target, label_smoothing=0.1)
print(f"label_smoothing {smooth.item():.5f}")
both = F.cross_entropy(logits, target, weight=weight, label_smoothing=0.2)
print(f"weight+smoothing {both.item():.5f}")
probs = torch.softmax(torch.randn(6, 4), dim=1)
soft = F.cross_entropy(logits, probs)
print(f"soft targets {soft.item():.5f}")

log_probs = F.log_softmax(logits, dim=1)
nll = nn.NLLLoss(weight=weight, ignore_index=1)(log_probs, target)
print(f"nll {nll.item():.5f}", nll.grad_fn.name())
nll.backward()
print(logits.grad)

# images: (N, C, H, W) scores against (N, H, W) labels
seg = torch.randn(2, 3, 2, 2, requires_grad=True)
labels = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]])
seg_loss = F.cross_entropy(seg, labels)
seg_loss.backward()
print(f"seg {seg_loss.item():.5f}", seg.grad.shape)
try:
    F.cross_entropy(logits, torch.tensor([0, 1, 2]))
except ValueError as exc:
    print("ValueError:", exc)
