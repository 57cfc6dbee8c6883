"""A straight-through estimator and a clipped exp as custom Functions, trained in a model."""
import torch
from torch import nn


class RoundSTE(torch.autograd.Function):
    """Rounds in the forward pass, passes the gradient through where |x| <= 1."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x.abs() <= 1).to(grad_out.dtype)


class SafeExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        out = torch.exp(torch.clamp(x, max=limit))
        ctx.save_for_backward(out, x)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad_out):
        out, x = ctx.saved_tensors
        grad = grad_out * out * (x <= ctx.limit)
        return grad, None


torch.manual_seed(21)
x = torch.tensor([-1.7, -0.6, 0.2, 0.5, 0.8, 1.4], requires_grad=True)
r = RoundSTE.apply(x)
print(r, r.grad_fn.name())
r.sum().backward()
print(x.grad)

z = torch.tensor([0.0, 1.0, 3.0, 5.0], requires_grad=True)
e = SafeExp.apply(z, 2.0)
print(e)
e.sum().backward()
print(z.grad)


class QuantLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 1)

    def forward(self, inp):
        w = RoundSTE.apply(self.linear.weight * 4) / 4
        return inp @ w.t() + self.linear.bias


model = QuantLinear()
data = torch.randn(32, 3)
target = data @ torch.tensor([[0.5], [-0.25], [0.75]]) + 0.1
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(60):
    loss = nn.functional.mse_loss(model(data), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print(f"{step + 1} {loss.item():.5f}")
print(torch.round(model.linear.weight * 4) / 4)
