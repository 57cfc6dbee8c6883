# ruff: noqa  (verbatim user code from the seed documents)
# seeds/003 In [22] and In [23]: a gradient-doubling hook, then detach() sharing storage
import torch

v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()

print(f'Original V : {v}')
new = v.detach()
new[0] = 5
print(f'New detached V : {new}')
print(f'New V : {v}')
