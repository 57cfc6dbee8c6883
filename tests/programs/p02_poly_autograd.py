"""The cubic fit again, with autograd computing the gradients."""
import torch

torch.manual_seed(1)

x = torch.linspace(-2.0, 2.0, 100)
y = torch.sin(x) + 0.1 * x

w = torch.randn(4, requires_grad=True)
print("w:", w)
print("is_leaf", w.is_leaf, "grad", w.grad)

powers = torch.stack([x**0, x, x**2, x**3], dim=1)
print("design matrix", powers.shape)

lr = 2e-4
for step in range(200):
    y_pred = powers @ w
    loss = (y_pred - y).pow(2).sum()
    if step == 0:
        print("y_pred.grad_fn", type(y_pred.grad_fn).__name__)
        print("loss.grad_fn", loss.grad_fn.name())
    loss.backward()
    if step % 40 == 0:
        print(f"{step:3d} {loss.item():.4f} grad-norm {w.grad.norm().item():.4f}")
    with torch.no_grad():
        w -= lr * w.grad
        w.grad.zero_()

print("final w", [f"{v:.4f}" for v in w.tolist()])
print("grad after zero_", w.grad)
print("w.requires_grad", w.requires_grad, "w.is_leaf", w.is_leaf)
z = w.detach()
print("detached", z.requires_grad, z.grad_fn)
