"""torch.save/torch.load of tensors, containers, views and dtypes, through files and buffers."""
import io
import os
import tempfile

import torch

torch.manual_seed(33)
a = torch.randn(3, 4)
b = torch.arange(6, dtype=torch.int64)
c = torch.tensor([True, False])
d = torch.randn(2, dtype=torch.float64)
view = a[1]

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "tensors.pt")
    torch.save({"a": a, "b": b, "list": [c, d], "view": view, "n": 3, "s": "text"}, path)
    loaded = torch.load(path)
print(sorted(loaded))
print(torch.equal(loaded["a"], a), loaded["b"].dtype, loaded["list"][0], loaded["list"][1].dtype)
print(loaded["view"], loaded["n"], loaded["s"])
# a view saved with its base shares storage after loading
loaded["a"][1, 0] = 100.0
print(loaded["view"][0].item())

buffer = io.BytesIO()
w = torch.randn(2, 2, requires_grad=True)
torch.save(w, buffer)
buffer.seek(0)
w2 = torch.load(buffer)
print(w2.requires_grad, w2.is_leaf, torch.equal(w2, w))

buffer = io.BytesIO()
torch.save(torch.nn.Linear(2, 2).state_dict(), buffer)
buffer.seek(0)
sd = torch.load(buffer, weights_only=True)
print(type(sd).__name__, list(sd), sd["weight"].shape)
print(buffer.getvalue()[:2])
