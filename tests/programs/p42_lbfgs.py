"""LBFGS with a closure: least squares and a logistic regression, with strong Wolfe search."""
import torch
from torch import nn

torch.manual_seed(42)
A = torch.randn(30, 3, dtype=torch.float64)
true_w = torch.tensor([1.5, -2.0, 0.25], dtype=torch.float64)
b = A @ true_w + 0.01 * torch.randn(30, dtype=torch.float64)

w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([w], lr=1, max_iter=20, history_size=5)
calls = []


def closure():
    opt.zero_grad()
    loss = ((A @ w - b) ** 2).mean()
    loss.backward()
    calls.append(loss.item())
    return loss


final = opt.step(closure)
print(f"first {calls[0]:.6f} returned {final.item():.6f}")
print(f"last {calls[-1]:.6e} calls {len(calls)}")
print([f"{v:.4f}" for v in w.tolist()])
print(sorted(opt.state[w].keys())[:4])

X = torch.randn(60, 2, dtype=torch.float64)
y = (X[:, 0] - 0.5 * X[:, 1] > 0).to(torch.float64)
model = nn.Linear(2, 1).double()
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10, line_search_fn="strong_wolfe")


def logistic_closure():
    opt.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(model(X).squeeze(1), y)
    loss += 1e-2 * model.weight.pow(2).sum()
    loss.backward()
    return loss


for outer in range(3):
    loss = opt.step(logistic_closure)
    print(f"outer {outer} loss {loss.item():.6f}")
print(opt.state[model.weight]["func_evals"] > 0, opt.state[model.weight]["n_iter"])
with torch.no_grad():
    acc = ((model(X).squeeze(1) > 0).double() == y).double().mean()
print(f"accuracy {acc.item():.3f}")
print(opt.param_groups[0]["line_search_fn"], opt.param_groups[0]["tolerance_grad"])
