"""Hooks and grad modes: watching and steering gradients, and turning recording off.

Run it with ``python examples/hooks_and_modes.py``.  Swapping the imports for ``torch``
prints the same text (up to object addresses).

Hooks:

* ``tensor.register_hook(fn)``: ``fn(grad)`` sees the gradient of that tensor and may
  return a replacement;
* ``node.register_prehook(fn)`` / ``node.register_hook(fn)``: before and after a
  ``grad_fn`` node runs, with the gradients flowing in and out;
* ``leaf.register_post_accumulate_grad_hook(fn)``: after ``.grad`` was updated (where an
  optimizer step per parameter can go);
* every ``register_*`` returns a handle whose ``remove()`` takes the hook away.

Modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` decide
whether operations are recorded; ``model.eval()`` is a different thing (it changes how
layers such as ``Dropout`` behave) and does not stop recording.
"""

import st_autodiff as torch
import st_autodiff.nn as nn

# --- tensor hooks -------------------------------------------------------------------------
print("== tensor hooks")
w = nn.Parameter(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))


def halve(grad):
    print("  hook sees", grad)
    return grad / 2  # the returned tensor replaces the gradient


handle = w.register_hook(halve)
((w - 1) ** 2).mean().backward()
print("w.grad (halved):", w.grad)
assert torch.allclose(w.grad, (w.detach() - 1) / 4)
handle.remove()
w.grad = None
((w - 1) ** 2).mean().backward()
print("w.grad without the hook:", w.grad)

# A hook on an intermediate tensor sees the gradient flowing through it.
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
h.register_hook(lambda g: print("  gradient reaching h:", g))
h.sum().backward()

# --- node hooks and their order -------------------------------------------------------------
print("== node hooks")
a = torch.tensor(2.0, requires_grad=True)
b = a * 3
node = b.grad_fn
print("node:", node.name())
node.register_prehook(lambda grad_outputs: print("  prehook, grads in:", grad_outputs))
node.register_hook(lambda grad_inputs, grad_outputs: print("  hook, grads out:", grad_inputs))
a.register_hook(lambda g: print("  leaf hook:", g))
a.register_post_accumulate_grad_hook(lambda t: print("  after accumulation, a.grad =", t.grad))
b.backward()

# --- grad modes -----------------------------------------------------------------------------
print("== grad modes")
p = torch.ones(2, requires_grad=True)
with torch.no_grad():
    q = p * 2
    with torch.enable_grad():
        r = p * 2
print("under no_grad:", q.requires_grad, " enable_grad inside it:", r.requires_grad)
assert not q.requires_grad and r.requires_grad

with torch.set_grad_enabled(False):
    s = p + 1
print("set_grad_enabled(False):", s.requires_grad, " afterwards:", torch.is_grad_enabled())


@torch.no_grad()
def predict(t):
    return t * 10


print("decorated with no_grad:", predict(p).requires_grad)

with torch.inference_mode():
    fast = p * 3
print("inference_mode:", fast.requires_grad, " inference tensor:", fast.is_inference())
try:
    (fast * p).sum().backward()
except RuntimeError as err:
    print("an inference tensor cannot be saved for backward:", str(err).split(".")[0])

# --- eval() is not no_grad() ----------------------------------------------------------------
print("== eval() versus no_grad()")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(8, 1))
inputs = torch.ones(3, 4)
model.eval()
out_eval = model(inputs)
print("eval(): dropout is off, recording is on:", out_eval.requires_grad)
with torch.no_grad():
    out_both = model(inputs)
print("eval() + no_grad(): same values, nothing recorded:",
      torch.equal(out_eval.detach(), out_both), out_both.requires_grad)
model.train()
print("train() again:", model.training, model[2].training)

# Freezing a part of a model: its parameters stop requiring grad.
model[0].requires_grad_(False)
model(inputs).sum().backward()
print("frozen first layer has no grad:", model[0].weight.grad is None,
      " last layer has one:", model[3].weight.grad is not None)
print("done")
