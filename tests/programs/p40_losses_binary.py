"""BCELoss and BCEWithLogitsLoss: weights, pos_weight per class, reductions, gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(40)
logits = torch.randn(5, 3, requires_grad=True)
targets = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0],
                        [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])

probs = torch.sigmoid(logits)
bce = nn.BCELoss()(probs, targets)
print(f"bce {bce.item():.5f}", bce.grad_fn.name())
with_logits = nn.BCEWithLogitsLoss()(logits, targets)
print(f"with logits {with_logits.item():.5f}", torch.allclose(bce, with_logits))

pos_weight = torch.tensor([3.0, 1.0, 0.5])
pw = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=pos_weight)
print(f"pos_weight {pw.item():.5f}")
sample_w = torch.tensor([[1.0], [2.0], [1.0], [0.5], [1.0]])
both = F.binary_cross_entropy_with_logits(logits, targets, weight=sample_w,
                                          pos_weight=pos_weight, reduction="sum")
print(f"weight+pos_weight sum {both.item():.5f}")
per = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
print(per)
pw.backward()
print(logits.grad)

big = torch.tensor([100.0, -100.0], requires_grad=True)
stable = F.binary_cross_entropy_with_logits(big, torch.tensor([0.0, 1.0]))
print(f"stable {stable.item():.4f}")
stable.backward()
print(big.grad)
clamped = F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]))
print(f"clamped log {clamped.item():.4f}")
try:
    F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
except RuntimeError as exc:
    print("RuntimeError:", exc)
