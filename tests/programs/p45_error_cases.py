"""Errors users run into, printed with their messages."""
import torch
from torch import nn


def show(fn):
    try:
        fn()
        print("no error")
    except Exception as exc:  # the type and the message are what is compared
        print(f"{type(exc).__name__}: {exc}")


torch.manual_seed(45)
x = torch.randn(3, requires_grad=True)


def backward_twice():
    y = (x * x).sum()
    y.backward()
    y.backward()


def non_scalar():
    (x * 2).backward()


def inplace_on_leaf():
    x.add_(1)


def int_requires_grad():
    torch.tensor([1, 2, 3], requires_grad=True)


def matmul_mismatch():
    torch.randn(2, 3) @ torch.randn(4, 5)


def linear_mismatch():
    nn.Linear(4, 2)(torch.randn(3, 5))


def no_grad_tensor():
    torch.ones(2).sum().backward()


def grad_of_unused():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    torch.autograd.grad((a * 2).sum(), [a, b])


def modified_saved():
    a = torch.ones(2, requires_grad=True)
    s = a.sigmoid()
    out = s.sum()
    s.mul_(2)
    out.backward()


def view_mismatch():
    torch.arange(6).view(4, 2)


def item_of_many():
    torch.ones(3).item()


def cat_mismatch():
    torch.cat([torch.ones(2, 3), torch.ones(2, 4)])


for case in (backward_twice, non_scalar, inplace_on_leaf, int_requires_grad, matmul_mismatch,
             linear_mismatch, no_grad_tensor, grad_of_unused, modified_saved, view_mismatch,
             item_of_many, cat_mismatch):
    print(case.__name__, end=": ")
    show(case)
