"""SGD (nesterov), Adam (amsgrad), AdamW, RMSprop (centered), Adagrad on the Rosenbrock valley."""
import torch


def rosenbrock(p):
    return (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2


makers = {
    "SGD": lambda ps: torch.optim.SGD(ps, lr=5e-3, momentum=0.9, nesterov=True),
    "Adam": lambda ps: torch.optim.Adam(ps, lr=0.05, amsgrad=True),
    "AdamW": lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "RMSprop": lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, centered=True,
                                              momentum=0.5),
    "Adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.3, lr_decay=1e-3),
}
torch.manual_seed(41)
for name, make in makers.items():
    p = torch.tensor([-1.0, 1.5], requires_grad=True)
    opt = make([p])
    trace = []
    for step in range(60):
        loss = rosenbrock(p)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 19:
            trace.append(f"{loss.item():.4f}")
    print(f"{name:8s} {' '.join(trace)} -> ({p[0].item():.4f}, {p[1].item():.4f})")

opt = torch.optim.AdamW([torch.zeros(2, requires_grad=True)])
print(opt.defaults["lr"], opt.defaults["weight_decay"], opt.defaults["betas"])
print(opt)

# parameter groups with their own learning rates
w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
(w.sum() * 2 + b.sum() * 3).backward()
opt.step()
print(w.data, b.data, [g["lr"] for g in opt.param_groups])
opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.01})
print(len(opt.param_groups), opt.param_groups[2]["momentum"])
