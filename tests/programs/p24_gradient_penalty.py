"""A WGAN-style gradient penalty: create_graph=True and a double backward through a critic."""
import torch
from torch import nn

torch.manual_seed(24)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))

real = torch.randn(32, 2) * 0.5 + torch.tensor([1.0, -1.0])
fake = torch.randn(32, 2)

for step in range(25):
    alpha = torch.rand(32, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mixed)
    (grad,) = torch.autograd.grad(score.sum(), mixed, create_graph=True)
    penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
    wasserstein = critic(fake).mean() - critic(real).mean()
    loss = wasserstein + 10.0 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(f"{step + 1:2d} w {wasserstein.item():.4f} gp {penalty.item():.4f}")

print(grad.requires_grad, grad.grad_fn is not None)
print(type(penalty.grad_fn).__name__)

x = torch.tensor([0.3, -0.2], requires_grad=True)
y = critic(x).squeeze()
(g,) = torch.autograd.grad(y, x, create_graph=True)
gg = torch.autograd.grad(g.sum(), x)[0]
print(g.detach(), g.requires_grad)
print(gg)
