"""Custom Functions that return integer outputs (mark_non_differentiable) and use
needs_input_grad, set_materialize_grads and once_differentiable-free double outputs."""
import torch


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        (idx,) = ctx.saved_tensors
        grad = torch.zeros_like(grad_values)
        grad[idx] = grad_values
        return grad


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        ctx.set_materialize_grads(False)
        return x * factor, x.sum()

    @staticmethod
    def backward(ctx, g_scaled, g_sum):
        print("needs_input_grad", ctx.needs_input_grad)
        grad = None
        if g_scaled is not None:
            grad = g_scaled * ctx.factor
        if g_sum is not None:
            grad = g_sum.expand(3) if grad is None else grad + g_sum
        return grad, None


torch.manual_seed(20)
x = torch.randn(5, requires_grad=True)
values, idx = SortWithIndex.apply(x)
print(values)
print(idx, idx.requires_grad, idx.dtype, idx.grad_fn)
print(type(values.grad_fn).__name__)
(values * torch.arange(5.0)).sum().backward()
print(x.grad)
print(x.grad[idx])

y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
scaled, total = ScaleBy.apply(y, 2.5)
scaled.sum().backward()
print(y.grad)
y.grad = None
scaled, total = ScaleBy.apply(y, 2.5)
total.backward()
print(y.grad)
