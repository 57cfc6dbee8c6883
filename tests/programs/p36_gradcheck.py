"""gradcheck and gradgradcheck on built-in ops, a module and custom Functions (float64)."""
import torch
from torch.autograd import gradcheck, gradgradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


class WrongCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * g  # deliberately wrong


torch.manual_seed(36)
x = torch.randn(4, dtype=torch.double, requires_grad=True)
y = torch.randn(4, dtype=torch.double, requires_grad=True)
print("mul/sin", gradcheck(lambda a, b: (a * b).sin(), (x, y)))
print("softmax", gradcheck(lambda a: torch.softmax(a, 0), (x,), eps=1e-6, atol=1e-4))
print("cube", gradcheck(Cube.apply, (x,)))
print("cube 2nd", gradgradcheck(Cube.apply, (x,)))
print("wrong, raise_exception=False:", gradcheck(WrongCube.apply, (x,), raise_exception=False))
try:
    gradcheck(WrongCube.apply, (x,))
except RuntimeError as exc:
    print("RuntimeError:", str(exc).splitlines()[0])

lin = torch.nn.Linear(3, 2).double()
inp = torch.randn(5, 3, dtype=torch.double, requires_grad=True)
print("linear", gradcheck(lin, (inp,)))
print("tanh 2nd", gradgradcheck(torch.tanh, (inp,)))
print("mse", gradcheck(lambda a: torch.nn.functional.mse_loss(a, torch.zeros_like(a)), (inp,)))
try:
    gradcheck(torch.sin, (torch.randn(3, requires_grad=True),))
except Exception as exc:  # float32 inputs: gradcheck warns or fails on precision
    print(type(exc).__name__)
