"""Module hooks: forward pre-hook, forward hook, full backward hook and backward pre-hook."""
import torch
import torch.nn as nn

torch.manual_seed(23)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
log = []


def pre_hook(module, args):
    log.append(("pre", type(module).__name__, tuple(args[0].shape)))


def fwd_hook(module, args, output):
    log.append(("fwd", type(module).__name__, tuple(output.shape)))
    return output * 1.0


def bwd_hook(module, grad_input, grad_output):
    gi = None if grad_input[0] is None else tuple(grad_input[0].shape)
    log.append(("bwd", type(module).__name__, gi, tuple(grad_output[0].shape)))


def bwd_pre_hook(module, grad_output):
    log.append(("bwd_pre", type(module).__name__))
    return (grad_output[0] * 0.5,)


handles = [model[0].register_forward_pre_hook(pre_hook),
           model[0].register_forward_hook(fwd_hook),
           model[2].register_full_backward_hook(bwd_hook),
           model[0].register_full_backward_hook(bwd_hook),
           model[2].register_full_backward_pre_hook(bwd_pre_hook)]

x = torch.randn(5, 3, requires_grad=True)
out = model(x)
out.sum().backward()
for entry in log:
    print(entry)
print(f"{x.grad.abs().sum().item():.4f}")
print(f"{model[0].weight.grad.abs().sum().item():.4f}")

for handle in handles:
    handle.remove()
log.clear()
x.grad = None
model.zero_grad()
model(x).sum().backward()
print(log, f"{x.grad.abs().sum().item():.4f}")

acts = {}
model[1].register_forward_hook(lambda m, i, o: acts.update(relu=o.detach()))
model(torch.ones(1, 3))
print(acts["relu"])
