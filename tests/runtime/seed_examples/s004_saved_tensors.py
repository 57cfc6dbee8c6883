# ruff: noqa  (verbatim user code from the seed documents)
# seeds/004 In [1]: saved tensors of grad_fn
import torch

x=torch.randn(5, requires_grad=True)
y=x.pow(2)
# y.grad_fn._saved_self refers to the same Tensor object as x.
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)

# But that may not always be the case
x=torch.randn(5, requires_grad=True)
y=x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)
