"""Snippets run under st_autodiff and under real PyTorch by ``test_vs_torch.py``.

Each snippet is ordinary PyTorch user code with ``torch`` bound to the engine under test.
What is compared: everything printed, every warning (category and message), and the
exception that ends the snippet, if any (type and message).  ``show(t)`` prints a
tensor's repr, ``grad_fn`` name, ``requires_grad``/``is_leaf``, and the names in
``next_functions``, so one line checks a whole node.
"""

from __future__ import annotations

PRELUDE = '''
def names(fn):
    if fn is None:
        return None
    return [(type(n).__name__ if n is not None else None, i) for n, i in fn.next_functions]

def show(t):
    fn = t.grad_fn
    print(repr(t), type(fn).__name__ if fn is not None else None, t.requires_grad,
          t.is_leaf, names(fn))
'''

CASES: dict[str, str] = {}


def case(name: str, code: str) -> None:
    assert name not in CASES, name
    CASES[name] = code


# --- printing ------------------------------------------------------------------------------------

for _label, _expr in [
    ("scalar-int-valued", "torch.tensor(7.)"),
    ("scalar-frac", "torch.tensor(3.7183)"),
    ("scalar-int", "torch.tensor(3)"),
    ("scalar-bool", "torch.tensor(True)"),
    ("vec-int-valued", "torch.tensor([1., 2., 3.])"),
    ("vec-frac", "torch.tensor([1.5, 2.25, -3.125])"),
    ("vec-small", "torch.tensor([1e-5, 1.])"),
    ("vec-large", "torch.tensor([1e10, 1.])"),
    ("vec-range", "torch.tensor([100000., 1.])"),
    ("vec-int-sci", "torch.tensor([123456789., 1.])"),
    ("vec-nan-inf", "torch.tensor([float('nan'), 1.5, float('inf'), -float('inf')])"),
    ("vec-zeros", "torch.tensor([0., 0.])"),
    ("vec-neg-zero", "torch.tensor([-0., 1.])"),
    ("vec-ints", "torch.tensor([1, -20, 300])"),
    ("vec-bools", "torch.tensor([True, False])"),
    ("vec-half", "torch.tensor([1., 2.5], dtype=torch.float16)"),
    ("vec-double", "torch.tensor([1., 2.5], dtype=torch.float64)"),
    ("vec-int32", "torch.tensor([1, 2], dtype=torch.int32)"),
    ("vec-uint8", "torch.tensor([1, 2], dtype=torch.uint8)"),
    ("empty", "torch.tensor([])"),
    ("empty-2d", "torch.zeros(0, 3)"),
    ("empty-int", "torch.zeros(0, dtype=torch.int64)"),
    ("mat", "torch.arange(12.).reshape(3, 4) / 7"),
    ("mat-int", "torch.arange(12).reshape(3, 4)"),
    ("cube", "torch.arange(24.).reshape(2, 3, 4)"),
    ("4d", "torch.arange(16.).reshape(2, 2, 2, 2) - 7.5"),
    ("wrap", "torch.arange(40.) / 3"),
    ("wrap-ints", "torch.arange(100)"),
    ("summarised", "torch.arange(2000.)"),
    ("summarised-2d", "torch.arange(3000.).reshape(100, 30)"),
    ("summarised-3d", "torch.arange(8000).reshape(20, 20, 20)"),
    ("requires-grad", "torch.tensor([1., 2.], requires_grad=True)"),
    ("grad-fn", "torch.tensor([1., 2.], requires_grad=True) * 2"),
    ("grad-fn-double", "torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True) * 2"),
    ("long-suffix-wrap", "torch.arange(10., dtype=torch.float64).reshape(2, 5).requires_grad_()"),
    ("neg-mixed", "torch.tensor([[-1.5, 2.], [3., -4.25]])"),
    ("randn", "torch.randn(3, 4)"),
    ("rand", "torch.rand(5, dtype=torch.float64)"),
    ("size", "torch.ones(2, 3).shape"),
    ("size-empty", "torch.ones(()).size()"),
    ("dtype", "torch.ones(2).dtype, torch.float16, torch.int64, torch.bool"),
    ("device", "torch.ones(2).device"),
]:
    case(f"print-{_label}", f"print(repr({_expr}))\nprint(str({_expr}))")

case("print-fstring", """
x = torch.tensor(2.5)
print(f'{x}', f'{x:.2f}', '{}'.format(x), str(x))
""")
case("print-list", "print([torch.tensor(1.), torch.tensor([1, 2])])")
case("print-printoptions", """
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(precision=4)
""")

# --- factories, dtypes, conversion ---------------------------------------------------------------

case("factories", """
print(torch.zeros(2, 3), torch.ones((2,)), torch.full((2,), 3), torch.full((2,), 3.5))
print(torch.full((1,), True), torch.empty(2).shape, torch.zeros([2, 2]).dtype)
print(torch.arange(5), torch.arange(1, 2.5, 0.5), torch.arange(0, 1, 0.1).shape)
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 4), torch.eye(2, 3), torch.eye(2))
print(torch.zeros_like(torch.ones(2, dtype=torch.int32)), torch.ones_like(torch.ones(2)))
print(torch.full_like(torch.ones(2), 7), torch.empty_like(torch.ones(2)).shape)
print(torch.tensor([1, 2.5]).dtype, torch.tensor([[1, 2], [3, 4]]).dtype, torch.tensor(True))
print(torch.tensor([torch.tensor(1.), torch.tensor(2.)]))
""")
case("random-seeded", """
torch.manual_seed(6)
print(torch.randn(4, 4))
print(torch.rand(3), torch.randn(3), torch.randn(3))
print(torch.rand(2, dtype=torch.float64), torch.randn(20, dtype=torch.float64)[:4])
print(torch.randn(37)[-3:], torch.rand_like(torch.ones(3)), torch.randn_like(torch.ones(2)))
""")
case("random-manual-seed-returns", "print(type(torch.manual_seed(1)).__name__)")
case("legacy-constructors", """
print(torch.FloatTensor([1., 2.]), torch.DoubleTensor([1., 2.]), torch.HalfTensor([1., 2.]))
print(torch.LongTensor([1, 2]), torch.Tensor([1, 2]), torch.Tensor(2, 3).shape)
print(isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.DoubleTensor))
""")
case("numpy-bridge", """
import numpy as np
a = np.array([1., 2.])
t = torch.from_numpy(a)
a[0] = 5
print(t, t.dtype)
n = t.numpy()
n[1] = 7
print(t)
x = torch.tensor([1., 2.], requires_grad=True)
print(x.detach().numpy())
x.numpy()
""")
case("conversions", """
x = torch.tensor([1.5, -2.5], requires_grad=True)
show(x.double()); show(x.half()); show(x.float()); show(x.to(torch.float64))
print(x.int(), x.long(), x.bool(), x.detach().type(), x.double().type(), x.type(torch.float64))
print(x.to(torch.float64).dtype, x.to('cpu') is x, x.cpu() is x, x.to(x) is x)
print(torch.tensor(2.5).item(), torch.tensor([3]).item(), torch.tensor([[1, 2]]).tolist())
print(int(torch.tensor(2.7)), float(torch.tensor(2)), bool(torch.tensor([1.])), len(x))
torch.ones(2).item()
""")
case("metadata", """
x = torch.ones(2, 3)
print(x.shape, x.size(), x.size(1), x.size(-1), x.ndim, x.dim(), x.numel(), x.nelement())
print(x.is_floating_point(), torch.ones(2, dtype=torch.int64).is_floating_point())
print(x.element_size(), x.device, x.is_cuda, x.is_leaf, x.grad_fn, x.requires_grad)
x.size(2)
""")
case("cuda-missing", "torch.ones(2).cuda()")
case("cuda-device-arg", "torch.ones(2, device='cuda')")

# --- elementwise math with autograd --------------------------------------------------------------

_UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "neg",
          "reciprocal", "log1p", "expm1", "log2", "log10", "sinh", "cosh", "asin", "atan",
          "rsqrt", "square", "sign", "floor", "ceil", "round", "trunc", "exp2"]
for _fn in _UNARY:
    case(f"unary-{_fn}", f"""
x = torch.tensor([0.25, 0.5, 0.75], requires_grad=True)
y = torch.{_fn}(x)
show(y)
y.sum().backward()
print(x.grad)
show(x.{_fn}())
print(torch.{_fn}(torch.tensor([1, 2])))
""")

_BINARY = [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("pow", "**")]
for _name, _sym in _BINARY:
    case(f"binary-{_name}", f"""
x = torch.tensor([1.5, 2.0, 0.5], requires_grad=True)
y = torch.tensor([0.5, 3.0, 2.0], requires_grad=True)
c = torch.tensor([2.0, 1.0, 4.0])
for out in [x {_sym} y, x {_sym} 2, 2 {_sym} x, x {_sym} c, c {_sym} x, x {_sym} 2.5]:
    show(out)
    out.sum().backward()
print(x.grad, y.grad)
i, j = torch.tensor([1, 2]), torch.tensor([4, 2])
print(i {_sym} 2, i {_sym} 2.5, j {_sym} torch.tensor([2, 2]))
print(torch.tensor([True, False]) {_sym} 1 if '{_sym}' in '+*' else None)
""")
case("binary-functions", """
x = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
y = torch.tensor([0.5, 3.0, 0.5], requires_grad=True)
for out in [torch.add(x, y, alpha=2), torch.sub(x, y, alpha=3), torch.maximum(x, y),
            torch.minimum(x, y), torch.max(x, y), torch.atan2(x, y), torch.rsub(x, 1)]:
    show(out)
    out.sum().backward()
print(x.grad, y.grad)
""")
case("broadcasting", """
x = torch.ones(3, 1, requires_grad=True)
y = torch.arange(4.).requires_grad_()
z = x * y + x
show(z)
z.sum().backward()
print(x.grad, y.grad)
torch.ones(3) + torch.ones(2)
""")
case("mixed-dtypes", """
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
b = torch.ones(2, requires_grad=True)
print((a * b).dtype, (b * torch.tensor(2., dtype=torch.float64)).dtype)
print((torch.ones(2, dtype=torch.int64) * b).dtype, (torch.tensor([1, 2]) / 2).dtype)
(a * b).sum().backward()
print(a.grad, b.grad, a.grad.dtype, b.grad.dtype)
""")
case("comparisons", """
x = torch.tensor([1., 2., 3.], requires_grad=True)
print(x > 2, x >= 2, x < 2, x <= 2, x == 2, x != 2, 2 < x)
print((x > 1).requires_grad, torch.eq(x, x), torch.equal(x, x), x == None)
print(torch.isnan(torch.tensor([float('nan')])), torch.logical_and(x > 1, x < 3))
""")
case("where-clamp", """
x = torch.tensor([-1., 0.5, 2.], requires_grad=True)
y = torch.tensor([5., 6., 7.], requires_grad=True)
for out in [torch.where(x > 0, x, y), torch.where(x > 0, x, 0.), x.clamp(0, 1),
            x.clamp(min=0), x.clamp(max=1), torch.clamp(x, -0.5, 0.5), x.clip(0, 1)]:
    show(out)
    out.sum().backward()
print(x.grad, y.grad)
torch.where(x, x, y)
""")
case("clamp-none", "torch.clamp(torch.ones(2))")

# --- reductions ----------------------------------------------------------------------------------

case("reductions", """
x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
for out in [x.sum(), x.sum(0), x.sum(1, keepdim=True), x.sum((0, 1)), x.mean(), x.mean(1),
            x.prod(), x.prod(1), x.amax(0), x.amin(1), x.max(), x.min(), x.norm(),
            x.norm(dim=1), x.norm(p=1), x.std(), x.var(1), x.logsumexp(1), x.sum(-1)]:
    show(out)
    out.sum().backward()
print(x.grad)
""")
case("max-dim", """
x = torch.tensor([[1., 5., 5.], [4., 2., 6.]], requires_grad=True)
r = x.max(1)
print(r)
print(r.values, r[0], r.indices, type(r).__name__)
r.values.sum().backward()
print(x.grad)
print(torch.max(x, dim=1, keepdim=True))
print(x.min(0), x.argmax(), x.argmax(1), x.argmin(0))
""")
case("max-ties", """
x = torch.tensor([3., 1., 3.], requires_grad=True)
x.max().backward()
print(x.grad)
y = torch.tensor([3., 1., 3.], requires_grad=True)
y.amax().backward()
print(y.grad)
""")
case("reduction-int", """
print(torch.tensor([1, 2]).sum(), torch.tensor([True, True]).sum(), torch.tensor([1, 2]).prod())
torch.tensor([1, 2]).mean()
""")
case("reduction-bad-dim", "torch.ones(2, 3).sum(2)")
case("softmax", """
x = torch.tensor([[1., 2., 3.], [1., 1., 1.]], requires_grad=True)
for out in [x.softmax(-1), x.log_softmax(1), torch.softmax(x, 0), torch.log_softmax(x, dim=0)]:
    show(out)
    (out * torch.arange(3.)).sum().backward()
print(x.grad)
""")

# --- linear algebra ------------------------------------------------------------------------------

case("matmul-kinds", """
v = torch.tensor([1., 2., 3.], requires_grad=True)
M = torch.arange(9.).reshape(3, 3).requires_grad_()
B = torch.arange(18.).reshape(2, 3, 3).requires_grad_()
for out in [v @ v, M @ M, M @ v, v @ M, M.mm(M), M.mv(v), v.dot(v), B.bmm(B), B @ M,
            torch.matmul(M, M)]:
    show(out)
    out.sum().backward()
print(v.grad, M.grad, B.grad)
""")
case("matmul-errors-mm", "torch.ones(2, 3).mm(torch.ones(3))")
case("matmul-errors-shape", "torch.ones(2, 3) @ torch.ones(2, 3)")
case("matmul-errors-mv", "torch.ones(2, 3) @ torch.ones(2)")
case("matmul-0d", "torch.tensor(1.) @ torch.ones(2)")

# --- shapes and views ----------------------------------------------------------------------------

case("shape-ops", """
x = torch.arange(6.).reshape(2, 3).requires_grad_()
for out in [x.view(3, 2), x.view(-1), x.reshape(6), x.flatten(), x.t(), x.T, x.transpose(0, 1),
            x.permute(1, 0), x.unsqueeze(0), x.unsqueeze(-1), x.unsqueeze(0).squeeze(),
            x.unsqueeze(0).squeeze(0), x[None], x.expand(2, 2, 3), x[0].expand_as(x),
            x.t().reshape(6), x.flip(0), x.repeat(2, 1), x.mT, x.contiguous(), x.view_as(x)]:
    show(out)
    print(out._base is x, out.is_contiguous())
    (out * torch.arange(float(out.numel())).reshape(out.shape)).sum().backward()
print(x.grad)
""")
case("shape-errors-view", "torch.ones(2, 3).t().view(6)")
case("shape-errors-size", "torch.ones(2, 3).view(4)")
case("shape-errors-expand", "torch.ones(2, 3).expand(3, 3)")
case("shape-errors-permute", "torch.ones(2, 3).permute(0)")
case("cat-stack", """
x = torch.ones(2, 2, requires_grad=True)
c = torch.zeros(2, 2)
for out in [torch.cat([x, c, x]), torch.cat([x, x], 1), torch.cat((x, c), -1),
            torch.stack([x, c]), torch.stack([x, x], 1)]:
    show(out)
    (out * torch.arange(float(out.numel())).reshape(out.shape)).sum().backward()
print(x.grad)
torch.cat([torch.ones(2, 2), torch.ones(3, 3)])
""")
case("split-unbind", """
x = torch.arange(6.).reshape(2, 3).requires_grad_()
print([t.shape for t in x.split(1, 1)], [t.shape for t in x.chunk(2, 1)])
print([t.tolist() for t in x.unbind(1)])
sum(t.sum() * (i + 1) for i, t in enumerate(x.unbind(1))).backward()
print(x.grad)
""")

# --- indexing ------------------------------------------------------------------------------------

case("index-read", """
M = torch.arange(12.).reshape(3, 4).requires_grad_()
idx = [M[0], M[-1], M[:, 0], M[0, 1], M[0, 1:], M[1:], M[::2], M[None, 0], M[..., 0],
       M[:], M[...], M[[0, 2]], M[[0, 0], 1], M[0, [1, 3]], M[1:, [0, 1]], M[M > 5],
       M[torch.tensor([2, 0])], M[torch.tensor(1)], M[:, None, 1]]
for out in idx:
    show(out)
    print(out._base is M)
    out.sum().backward()
print(M.grad)
""")
case("index-errors-step", "torch.ones(3)[::-1]")
case("index-errors-bounds", "torch.ones(2, 3)[5]")
case("index-errors-bounds-2", "torch.ones(2, 3)[0, 7]")
case("index-errors-adv-bounds", "torch.ones(2, 3)[[5]]")
case("index-write", """
a = torch.ones(3, requires_grad=True)
b = a.clone()
b[0] = 5
show(b)
c = torch.tensor([10., 20.], requires_grad=True)
b[1:] = c
show(b)
b[torch.tensor([True, False, False])] = 2.
(b * torch.tensor([1., 2., 3.])).sum().backward()
print(a.grad, c.grad, b._version)
""")
case("index-write-no-grad", """
x = torch.zeros(2, 3)
x[0] = 1
x[:, 1] = torch.tensor([7., 8.])
x[x > 7] = -1
print(x, x._version)
""")
case("index-write-leaf", """
x = torch.ones(2, requires_grad=True)
x[0] = 3
""")
case("view-writes-share", """
v = torch.tensor([0., 0., 0.], requires_grad=True)
new = v.detach()
new[0] = 5
print(new, v, v._version, new._version)
w = torch.zeros(2, 3)
r = w[0]
r[1] = 4
print(w, r._base is w)
""")

# --- in-place ops and version counters -----------------------------------------------------------

case("inplace-chain", """
a = torch.ones(3, requires_grad=True)
b = a.clone()
b.mul_(2); show(b); print(b._version)
b.add_(1); show(b); print(b._version)
b.sub_(a); show(b)
b.div_(2); b.pow_(2); b.exp_(); b.clamp_(0, 10); b.neg_(); b.abs_(); b.sqrt_()
show(b)
b.sum().backward()
print(a.grad)
""")
case("inplace-more", """
a = torch.ones(3, requires_grad=True)
b = a * 1
b.zero_(); show(b)
b.fill_(2.); show(b)
b.copy_(a); show(b)
b.sum().backward()
print(a.grad)
""")
case("inplace-operators", """
x = torch.ones(2)
x += 1; x *= 3; x -= 1; x /= 2
print(x, x._version)
y = torch.ones(2, requires_grad=True)
z = y * 2
zid = id(z)
z += 1
print(id(z) == zid, z.grad_fn)
z *= 2
show(z)
w = torch.ones(2, requires_grad=True)
w += 1
""")
case("inplace-leaf", """
x = torch.ones(2, requires_grad=True)
x.add_(1)
""")
case("inplace-leaf-no-grad", """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    x.add_(1)
    x.mul_(2)
print(x, x._version, x.grad_fn)
x.data.add_(1)
print(x, x._version, x.data._version)
""")
case("inplace-view", """
a = torch.ones(3, requires_grad=True)
b = a.clone()
v = b[0:2]
v.mul_(3)
show(v); show(b)
print(v._version, b._version)
b.sum().backward()
print(a.grad)
""")
case("inplace-view-other-grad", """
a = torch.zeros(3)
x = torch.tensor([2., 3.], requires_grad=True)
v = a[1:]
v.add_(x)
show(a); show(v)
(a * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad)
""")
case("version-saved-result", """
x = torch.ones(2, requires_grad=True)
z = x.exp()
z.add_(1)
z.sum().backward()
""")
case("version-saved-input", """
x = torch.ones(2, requires_grad=True)
y = x * 1
z = y * y
y.add_(1)
z.sum().backward()
""")
case("version-leaf-no-grad", """
x = torch.ones(2, requires_grad=True)
y = x.sin()
with torch.no_grad():
    x.mul_(2)
y.sum().backward()
""")
case("version-copyslices", """
x = torch.ones(2, 2, requires_grad=True)
y = x.double()
z = y.sin()
y[0, 0] = 3
z.sum().backward()
""")
case("version-add-not-saved", """
x = torch.ones(2, requires_grad=True)
y = x * 1
z = y + 1
y.mul_(2)
z.sum().backward()
print(x.grad)
""")
case("version-view", """
x = torch.ones(2, requires_grad=True)
y = x * 1
v = y[0:1]
z = v.sin()
v.mul_(2)
z.sum().backward()
""")
case("inplace-int-float", "torch.tensor([1, 2]).add_(1.5)")

# --- autograd basics -----------------------------------------------------------------------------

case("leaf-flags", """
x = torch.rand(3)
print(x.is_leaf, x.requires_grad, x.grad_fn, x.grad)
x = torch.rand(3, requires_grad=True)
print(x.is_leaf, x.requires_grad, x.grad_fn, x.grad)
y = x + 1
print(y.is_leaf, y.requires_grad, y.grad_fn, y.grad)
z = torch.rand(3) + 1
print(z.is_leaf, z.requires_grad)
""")
case("backward-no-grad", "torch.tensor(1.).backward()")
case("backward-non-scalar", "(torch.ones(2, requires_grad=True) + 2).backward()")
case("backward-shape-mismatch", """
x = torch.ones(2, requires_grad=True)
(x * 2).backward(torch.ones(3))
""")
case("backward-shape-mismatch-scalar", """
x = torch.ones(2, requires_grad=True)
(x * 2).sum().backward(torch.ones(1))
""")
case("backward-gradient-dtype", """
x = torch.ones(2, requires_grad=True)
(x * 2).sum().backward(torch.ones((), dtype=torch.float64))
print(x.grad, x.grad.dtype)
""")
case("backward-twice", """
x = torch.ones(2, requires_grad=True)
z = (x * x).sum()
z.backward()
z.backward()
""")
case("backward-twice-add", """
x = torch.ones(2, requires_grad=True)
z = (x + x).sum()
z.backward()
z.backward()
print(x.grad)
""")
case("backward-twice-scalar-mul", """
x = torch.ones(2, requires_grad=True)
z = (x * 2).sum()
z.backward()
z.backward()
""")
case("backward-retain", """
x = torch.ones(2, requires_grad=True)
z = (x * x).sum()
z.backward(retain_graph=True)
z.backward()
print(x.grad)
""")
case("saved-after-free", """
x = torch.ones(2, requires_grad=True)
z = x * x
z.sum().backward()
z.grad_fn._saved_self
""")
case("saved-values", """
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, y.grad_fn._saved_exponent)
y = x.exp()
r = y.grad_fn._saved_result
print(y.equal(r), y is r, r.grad_fn is y.grad_fn, r.requires_grad)
m = x * 2
print(m.grad_fn._saved_other, m.grad_fn._saved_self)
s = x.sum(0)
print(s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_sym_sizes)
print((x + 1).grad_fn._saved_alpha, (x * x).grad_fn._saved_self is x)
""")
case("requires-grad-nonleaf", """
y = torch.rand(3, requires_grad=True) * 2
y.requires_grad = False
""")
case("requires-grad-nonleaf-true", """
y = torch.rand(3, requires_grad=True) * 2
y.requires_grad = True
""")
case("requires-grad-int-factory", "torch.tensor([1, 2], requires_grad=True)")
case("requires-grad-int-method", "torch.tensor([1, 2]).requires_grad_()")
case("requires-grad-int-setter", """
t = torch.tensor([1, 2])
t.requires_grad = True
""")
case("requires-grad-bool", "torch.ones(2, dtype=torch.int64, requires_grad=True)")
case("requires-grad-returns", """
x = torch.ones(2)
print(x.requires_grad_() is x, x, x.requires_grad_(False))
""")
case("nonleaf-grad-warning", """
x = torch.ones(2, requires_grad=True)
y = x * 2
print(y.grad)
y.retain_grad()
print(y.grad)
""")
case("retain-grad", """
x = torch.tensor(3., requires_grad=True)
y = x * 2
y.retain_grad()
print(y.retains_grad, x.retains_grad)
(y * y).backward(retain_graph=True)
print(y.grad, x.grad)
(y * y).backward()
print(y.grad, x.grad)
x.retain_grad()
print(x.retains_grad)
torch.ones(1).retain_grad()
""")
case("retain-grad-hook-order", """
c = torch.tensor([1.], requires_grad=True)
d = c * 1
d.register_hook(lambda g: g * 2)
d.retain_grad()
d.register_hook(lambda g: g * 3)
d.sum().backward()
print(d.grad, c.grad)
""")
case("detach", """
x = torch.ones(2, requires_grad=True)
y = x * 2
d = y.detach()
print(d, d.requires_grad, d.is_leaf, d._version)
y.detach_()
print(y, y.is_leaf, y.grad_fn)
v = (x * 1)[0:1]
v.detach_()
""")
case("clone", """
x = torch.ones(2, requires_grad=True)
c = x.clone()
show(c)
c.sum().backward()
print(x.grad)
""")
case("accumulate", """
x = torch.tensor([1., 2.], requires_grad=True)
g = None
for i in range(3):
    (x * x).sum().backward()
    if g is None:
        g = x.grad
    print(x.grad, g is x.grad)
x.grad.zero_()
print(x.grad)
x.grad = None
(x * 3).sum().backward()
print(x.grad)
""")
case("grad-setter-errors", """
x = torch.ones(2, requires_grad=True)
x.grad = torch.ones(3)
""")
case("shared-input", """
x = torch.tensor(2., requires_grad=True)
y = x * x + x.exp() * x + x
y.backward()
print(x.grad)
""")
case("backward-inputs", """
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
(a * b).sum().backward(inputs=[a])
print(a.grad, b.grad)
y = a * 2
z = (y * y).sum()
z.backward(inputs=[y])
print(y.grad)
""")
case("backward-inputs-empty", "torch.ones(2, requires_grad=True).sum().backward(inputs=[])")
case("autograd-backward", """
x = torch.ones(2, requires_grad=True)
torch.autograd.backward(x.sum())
print(x.grad)
torch.autograd.backward([x.sum(), (x * 3).sum()], grad_tensors=[torch.tensor(1.), torch.tensor(2.)])
print(x.grad)
""")
case("autograd-grad", """
x = torch.ones(2, requires_grad=True)
y = torch.ones(2, requires_grad=True)
print(torch.autograd.grad((x * 2).sum(), x), torch.autograd.grad((x * 2).sum(), [x]))
print(torch.autograd.grad(x * 2, x, grad_outputs=torch.tensor([1., 2.])))
print(torch.autograd.grad([x.sum(), (x * 2).sum()], [x]))
print(torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True))
print(torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, materialize_grads=True))
z = x * 2
print(torch.autograd.grad(z.sum(), z), x.grad)
""")
case("autograd-grad-unused", """
x = torch.ones(2, requires_grad=True)
y = torch.ones(2, requires_grad=True)
torch.autograd.grad((x * 2).sum(), [x, y])
""")
case("autograd-grad-noreq", """
x = torch.ones(2, requires_grad=True)
torch.autograd.grad((x * 2).sum(), [torch.ones(2)])
""")
case("autograd-grad-nonscalar", """
x = torch.ones(2, requires_grad=True)
torch.autograd.grad(x * 2, [x])
""")
case("autograd-grad-empty", """
x = torch.ones(2, requires_grad=True)
torch.autograd.grad(x.sum(), [])
""")

# --- higher order --------------------------------------------------------------------------------

case("create-graph-backward", """
x = torch.tensor(3., requires_grad=True)
y = x ** 3
y.backward(create_graph=True)
print(x.grad, names(x.grad.grad_fn))
g = x.grad
x.grad = None
g.backward()
print(x.grad)
""")
case("create-graph-grad", """
x = torch.tensor(3., requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g, x, create_graph=True)
print(g2)
g3, = torch.autograd.grad(g2, x)
print(g3)
""")
case("create-graph-functions", """
x = torch.tensor([0.5, 1.5], requires_grad=True)
for f in [torch.sin, torch.exp, torch.tanh, torch.sigmoid, torch.log, torch.sqrt]:
    y = f(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    print(g.detach(), g.requires_grad, h)
""")
case("create-graph-matmul", """
torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
v = torch.randn(3, requires_grad=True)
y = (W @ v).tanh().sum()
gW, gv = torch.autograd.grad(y, [W, v], create_graph=True)
(gW.sum() + gv.pow(2).sum()).backward()
print(W.grad, v.grad)
""")
case("gradient-penalty", """
torch.manual_seed(1)
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
out = (x @ w).sigmoid()
g, = torch.autograd.grad(out.sum(), x, create_graph=True)
penalty = (g.norm(dim=1) - 1).pow(2).mean()
penalty.backward()
print(penalty, w.grad)
""")

# --- hooks ---------------------------------------------------------------------------------------

case("hook-order", """
log = []
x = torch.tensor([1., 2.], requires_grad=True)
x.register_hook(lambda g: log.append(('x.hook1', g.tolist())))
x.register_hook(lambda g: (log.append(('x.hook2', g.tolist())), g * 10)[1])
x.register_post_accumulate_grad_hook(lambda t: log.append(('x.post', t.grad.tolist())))
y = x * 2
y.register_hook(lambda g: log.append(('y.hook', g.tolist())))
y.retain_grad()
y.register_hook(lambda g: (log.append(('y.hook2', g.tolist())), g + 1)[1])
fn = y.grad_fn
fn.register_prehook(lambda gout: log.append(('fn.pre', [t.tolist() for t in gout])))
fn.register_hook(lambda gin, gout: log.append(
    ('fn.post', [t.tolist() if t is not None else None for t in gin],
     [t.tolist() for t in gout])))
acc = fn.next_functions[0][0]
acc.register_prehook(lambda gout: log.append(('acc.pre', [t.tolist() for t in gout])))
acc.register_hook(lambda gin, gout: log.append(('acc.post', list(gin), [t.tolist() for t in gout])))
y.sum().backward()
for entry in log:
    print(entry)
print(x.grad, y.grad)
""")
case("hook-replace", """
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 3
b.grad_fn.register_prehook(lambda gout: (gout[0] * 100,))
b.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, None))
b.sum().backward()
print(a.grad)
""")
case("hook-remove", """
h = torch.ones(1, requires_grad=True)
handle = h.register_hook(lambda g: g * 5)
print(type(handle).__name__)
handle.remove()
(h * 1).sum().backward()
print(h.grad)
with h.register_hook(lambda g: g * 7):
    pass
(h * 1).sum().backward()
print(h.grad)
""")
case("hook-nonleaf-once", """
log = []
p = torch.tensor(1., requires_grad=True)
q = p * 2
q.register_hook(lambda g: log.append(g.item()))
(q * q + q).backward()
print(log, p.grad)
""")
case("hook-multi-leaves-order", """
log = []
x = torch.tensor(1., requires_grad=True)
y = torch.tensor(2., requires_grad=True)
x.register_hook(lambda g: log.append('x'))
y.register_hook(lambda g: log.append('y'))
((x * 2) * (y * 3)).backward()
print(log)
log.clear()
(x.exp() * y + x * y.sin()).backward()
print(log)
""")
case("hook-errors", """
x = torch.ones(2)
x.register_hook(lambda g: g)
""")
case("post-acc-hook-nonleaf", """
x = torch.ones(1, requires_grad=True) * 2
x.register_post_accumulate_grad_hook(lambda t: None)
""")
case("hook-autograd-grad", """
x = torch.tensor(2., requires_grad=True)
x.register_hook(lambda g: g * 10)
print(torch.autograd.grad(x * 3, x))
y = x * 1
y.register_hook(lambda g: g * 100)
print(torch.autograd.grad(y * 3, y))
""")
case("node-call", """
torch.manual_seed(6)
x = torch.randn(2, requires_grad=True)
y = torch.randn(2, requires_grad=True)
l = (x * y).sum()
dz = l.grad_fn(torch.tensor(1.))
print(dz)
dx, dy = l.grad_fn.next_functions[0][0](dz)
print(dx, dy)
print(l.grad_fn.next_functions[0][0].next_functions[0][0](dx), x.grad)
print(l.grad_fn.name(), l.grad_fn.next_functions[0][0].next_functions[0][0].name())
print(l.grad_fn.next_functions[0][0].next_functions[0][0].variable is x)
print((x * 2).grad_fn(torch.ones(2)))
l.grad_fn(torch.tensor(1.), torch.tensor(1.))
""")

# --- grad modes ----------------------------------------------------------------------------------

case("grad-modes", """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(torch.is_grad_enabled())
    with torch.enable_grad():
        print(torch.is_grad_enabled(), (x * 2).requires_grad)
    with torch.set_grad_enabled(True):
        print(torch.is_grad_enabled())
print(y.requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
torch.set_grad_enabled(False)
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
""")
case("grad-mode-decorators", """
@torch.no_grad()
def f(x):
    return x * 2, torch.is_grad_enabled()

@torch.no_grad
def g(x):
    return x * 2

@torch.enable_grad()
def h(x):
    return x * 2

@torch.set_grad_enabled(False)
def k(x):
    return x * 2

x = torch.ones(2, requires_grad=True)
print(f(x)[0].requires_grad, f(x)[1], g(x).requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    print(h(x).requires_grad)
print(k(x).requires_grad, torch.is_grad_enabled())

@torch.no_grad()
def gen():
    for _ in range(2):
        yield torch.is_grad_enabled()
print(list(gen()), torch.is_grad_enabled())
""")
case("inference-mode", """
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = x * 2
    i = torch.ones(2)
    print(y.requires_grad, torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    print(i.is_inference(), y.is_inference())
print(i.is_inference(), x.is_inference(), torch.is_inference_mode_enabled())

@torch.inference_mode()
def f():
    return torch.is_inference_mode_enabled()
@torch.inference_mode
def g():
    return torch.is_inference_mode_enabled()
@torch.inference_mode(False)
def h():
    return torch.is_inference_mode_enabled()
print(f(), g(), h())
""")
case("inference-tensor-saved", """
with torch.inference_mode():
    i = torch.ones(2)
print((torch.ones(2, requires_grad=True) + i).requires_grad)
torch.ones(2, requires_grad=True) * i
""")
case("inference-tensor-inplace", """
with torch.inference_mode():
    i = torch.ones(2)
i.add_(1)
""")
case("inference-tensor-requires-grad", """
with torch.inference_mode():
    i = torch.ones(2)
i.requires_grad_()
""")
case("no-grad-backward", """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
y.sum().backward()
""")

# --- larger programs -----------------------------------------------------------------------------

case("regression-loop", """
torch.manual_seed(0)
X = torch.randn(32, 3)
true_w = torch.tensor([1.5, -2.0, 0.5])
Y = X @ true_w + 0.1
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(50):
    loss = ((X @ w + b - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
print(loss, w, b)
""")
case("mlp-manual", """
torch.manual_seed(0)
X = torch.randn(16, 4)
y = (X.sum(1) > 0).long()
W1 = (torch.randn(4, 8) * 0.5).requires_grad_()
b1 = torch.zeros(8, requires_grad=True)
W2 = (torch.randn(8, 2) * 0.5).requires_grad_()
for step in range(20):
    h = (X @ W1 + b1).relu()
    logp = (h @ W2).log_softmax(1)
    loss = -logp[torch.arange(16), y].mean()
    for p in (W1, b1, W2):
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in (W1, b1, W2):
            p.add_(p.grad, alpha=-0.5)
print(loss, W2.grad.shape, b1.grad)
""")
case("custom-function", """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2

x = torch.tensor([1., 2.], requires_grad=True)
y = Cube.apply(x)
print(y, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
""")
