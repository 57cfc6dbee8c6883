"""Regression losses: MSE, L1, SmoothL1 (beta), Huber (delta), KLDiv (log_target), with
every reduction and their gradients and node names."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(39)
pred = torch.randn(8, requires_grad=True)
target = torch.randn(8) * 2

modules = [nn.MSELoss(), nn.L1Loss(reduction="sum"), nn.SmoothL1Loss(beta=0.5),
           nn.HuberLoss(delta=0.7), nn.SmoothL1Loss(reduction="none")]
for module in modules:
    loss = module(pred, target)
    value = f"{loss.item():.5f}" if loss.dim() == 0 else loss
    print(module, value, loss.grad_fn.name())

pred.grad = None
F.smooth_l1_loss(pred, target, beta=1.0).backward()
print("smooth_l1 grad", pred.grad)
pred.grad = None
F.huber_loss(pred, target, delta=0.5, reduction="sum").backward()
print("huber grad", pred.grad)

scores = torch.randn(4, 5, requires_grad=True)
log_p = F.log_softmax(scores, dim=1)
q = torch.softmax(torch.randn(4, 5), dim=1)
for reduction in ("batchmean", "sum", "mean"):
    kl = F.kl_div(log_p, q, reduction=reduction)
    print("kl", reduction, f"{kl.item():.5f}")
kl_log = nn.KLDivLoss(reduction="batchmean", log_target=True)(log_p, q.log())
print(f"kl log_target {kl_log.item():.5f}", kl_log.grad_fn.name())
kl_log.backward()
print(scores.grad)
print(f"{F.mse_loss(pred, target, reduction='sum').item():.4f}")
