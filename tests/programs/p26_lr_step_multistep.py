"""StepLR, MultiStepLR and ExponentialLR: the learning rates they give, epoch by epoch."""
import torch
from torch import nn
from torch.optim import lr_scheduler

torch.manual_seed(26)
model = nn.Linear(2, 1)
data = torch.randn(20, 2)
target = data.sum(1, keepdim=True)


def run(make_scheduler, epochs=8):
    layer = nn.Linear(2, 1)
    layer.load_state_dict(model.state_dict())
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    sched = make_scheduler(opt)
    lrs = []
    for _ in range(epochs):
        loss = nn.functional.mse_loss(layer(data), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        lrs.append(sched.get_last_lr()[0])
        sched.step()
    return lrs, loss.item(), sched


for name, make in [
    ("StepLR", lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ("MultiStepLR", lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1)),
    ("ExponentialLR", lambda o: lr_scheduler.ExponentialLR(o, gamma=0.8)),
]:
    lrs, last, sched = run(make)
    print(name, " ".join(f"{lr:.5f}" for lr in lrs), f"loss {last:.4f}")
    print("  last_epoch", sched.last_epoch, "state keys",
          sorted(k for k in sched.state_dict() if not k.startswith("_")))

opt = torch.optim.SGD(model.parameters(), lr=1.0)
print(opt.param_groups[0]["lr"], opt.param_groups[0].get("initial_lr"))
sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
print(opt.param_groups[0]["initial_lr"])
for _ in range(3):
    opt.step()
    sched.step()
print(opt.param_groups[0]["lr"], sched.get_last_lr())
