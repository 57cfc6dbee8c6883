"""Every differentiable Tensor op against central differences (``st_autodiff.testing``).

Each ``Spec`` is one call of the public API on float64 tensors drawn inside the op's
domain.  ``f`` evaluates the call on NumPy inputs without recording; the VJP comes from
the eager engine (``backward(gradient=g)``).  ``check_vjp`` (dot-product test) and
``check_grads`` (element by element, for a fixed cotangent) must both agree.  The second
order test differentiates a first gradient built with ``create_graph=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.testing import check_grads, check_vjp

_rng = np.random.default_rng(2024)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def positive(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 2.0, shape)


def away(*shape: int) -> np.ndarray:
    """|x| in [0.3, 1.5]: away from kinks at 0."""
    return _rng.uniform(0.3, 1.5, shape) * _rng.choice([-1.0, 1.0], shape)


def distinct(*shape: int) -> np.ndarray:
    n = int(np.prod(shape))
    return _rng.permutation(np.linspace(-1.5, 1.5, n) + 0.01).reshape(shape)


def unit(*shape: int) -> np.ndarray:
    return _rng.uniform(-0.8, 0.8, shape)


@dataclass
class Spec:
    name: str
    fn: Callable[..., Any]
    inputs: tuple
    atol: float | None = None
    rtol: float | None = None
    second: bool = True  # also check second derivatives through create_graph
    extra: dict = field(default_factory=dict)


SPECS: list[Spec] = []


def spec(name: str, fn: Callable[..., Any], *inputs: np.ndarray, **kw: Any) -> None:
    SPECS.append(Spec(name, fn, inputs, **kw))


# elementwise unary
for _name, _dom in [("exp", normal), ("log", positive), ("sqrt", positive), ("sin", normal),
                    ("cos", normal), ("tan", unit), ("tanh", normal), ("sigmoid", normal),
                    ("relu", away), ("abs", away), ("neg", normal), ("reciprocal", away),
                    ("log1p", positive), ("expm1", normal), ("log2", positive),
                    ("log10", positive), ("sinh", normal), ("cosh", normal), ("asin", unit),
                    ("acos", unit), ("atan", normal), ("rsqrt", positive), ("square", normal),
                    ("exp2", normal), ("asinh", normal), ("atanh", unit)]:
    spec(f"torch.{_name}", getattr(torch, _name), _dom(3, 4))
    spec(f"Tensor.{_name}", lambda x, _n=_name: getattr(x, _n)(), _dom(2, 3))
for _name in ("sign", "floor", "ceil", "round", "trunc"):
    spec(f"torch.{_name}", getattr(torch, _name), away(5) + 0.25)

# elementwise binary, with broadcasting and Python scalars on either side
spec("add", lambda x, y: x + y, normal(3, 4), normal(4))
spec("add-alpha", lambda x, y: torch.add(x, y, alpha=2.5), normal(3, 4), normal(3, 1))
spec("radd", lambda x: 2.0 + x, normal(3))
spec("sub", lambda x, y: x - y, normal(3, 1), normal(1, 4))
spec("sub-alpha", lambda x, y: torch.sub(x, y, alpha=-1.5), normal(3), normal(3))
spec("rsub", lambda x: 2.0 - x, normal(3))
spec("mul", lambda x, y: x * y, normal(2, 3), normal(3))
spec("rmul", lambda x: 3 * x, normal(4))
spec("div", lambda x, y: x / y, normal(2, 3), away(2, 3))
spec("div-scalar", lambda x: x / 4, normal(3))
spec("rdiv", lambda x: 2.0 / x, away(3))
spec("pow-scalar", lambda x: x ** 3, normal(3))
spec("pow-float", lambda x: x ** 2.5, positive(3))
spec("pow-tensor", lambda x, y: x ** y, positive(3), normal(3))
spec("rpow", lambda x: 2.0 ** x, normal(3))
spec("maximum", torch.maximum, distinct(6), distinct(6) * 0.9 + 0.03)
spec("minimum", torch.minimum, distinct(6), distinct(6) * 0.9 + 0.03)
spec("atan2", torch.atan2, away(4), away(4))
spec("where", lambda x, y: torch.where(x > 0, x, y), normal(3, 4), normal(4))
spec("where-scalar", lambda x: torch.where(x > 0, x, 0.5), normal(5))
spec("clamp", lambda x: x.clamp(-0.5, 0.5), away(8) * 1.2)
spec("clamp-min", lambda x: torch.clamp(x, min=0.1), away(8))
spec("clamp-tensor", lambda x, lo: torch.clamp(x, min=lo), away(6), normal(6) * 0.1)

# reductions
_x = normal(2, 3, 4)
for _kw in [{}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": (0, 2)}]:
    _tag = ",".join(f"{k}={v}" for k, v in _kw.items())
    spec(f"sum({_tag})", lambda x, kw=_kw: x.sum(**kw), _x)
    spec(f"mean({_tag})", lambda x, kw=_kw: x.mean(**kw), _x)
    spec(f"amax({_tag})", lambda x, kw=_kw: x.amax(**kw) if kw else x.amax(), distinct(2, 3, 4))
    spec(f"logsumexp({_tag})", lambda x, kw=_kw: x.logsumexp(**kw) if kw else x.logsumexp(0),
         _x)
    spec(f"var({_tag})", lambda x, kw=_kw: x.var(**kw), _x)
    spec(f"std({_tag})", lambda x, kw=_kw: x.std(**kw), _x)
spec("prod", lambda x: x.prod(), away(2, 3))
spec("prod-dim", lambda x: x.prod(1), away(2, 3))
spec("max", lambda x: x.max(), distinct(3, 4))
spec("min", lambda x: x.min(), distinct(3, 4))
spec("max-dim", lambda x: x.max(1).values, distinct(3, 4))
spec("min-dim-keepdim", lambda x: x.min(0, keepdim=True)[0], distinct(3, 4))
spec("norm", lambda x: x.norm(), normal(3, 4))
spec("norm-dim", lambda x: x.norm(dim=1), normal(3, 4))
spec("norm-p1", lambda x: x.norm(p=1), away(3, 4))
spec("norm-p3-dim", lambda x: x.norm(p=3, dim=0), away(3, 4))
spec("norm-dims", lambda x: torch.norm(x, dim=(0, 1)), normal(3, 4))
spec("softmax", lambda x: x.softmax(-1), normal(3, 4))
spec("softmax-dim0", lambda x: torch.softmax(x, 0), normal(3, 4))
spec("log_softmax", lambda x: x.log_softmax(1), normal(3, 4))
spec("cumsum", lambda x: x.cumsum(1), normal(3, 4))
spec("trace", torch.trace, normal(3, 3))

# linear algebra
spec("dot", lambda x, y: x @ y, normal(4), normal(4))
spec("mv", lambda a, x: a @ x, normal(3, 4), normal(4))
spec("vm", lambda x, a: x @ a, normal(3), normal(3, 4))
spec("mm", torch.mm, normal(2, 3), normal(3, 4))
spec("bmm", torch.bmm, normal(2, 2, 3), normal(2, 3, 2))
spec("matmul-batch-mat", lambda a, b: a @ b, normal(2, 3, 4), normal(4, 2))
spec("matmul-batch-vec", lambda a, b: a @ b, normal(2, 3, 4), normal(4))
spec("matmul-broadcast", lambda a, b: a @ b, normal(2, 1, 3, 4), normal(3, 4, 2))
spec("matmul-vec-batch", lambda a, b: a @ b, normal(3), normal(2, 3, 4))
spec("outer", torch.outer, normal(3), normal(4))
spec("addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), normal(2, 4),
     normal(2, 3), normal(3, 4))
spec("addcmul", lambda x, a, b: torch.addcmul(x, a, b, value=0.5), normal(3), normal(3),
     normal(3))
spec("addcdiv", lambda x, a, b: torch.addcdiv(x, a, b, value=2.0), normal(3), normal(3),
     away(3))

# shapes and views
spec("view", lambda x: x.view(4, 3), normal(3, 4))
spec("view-infer", lambda x: x.view(-1), normal(3, 4))
spec("reshape-copy", lambda x: x.t().reshape(12), normal(3, 4))
spec("flatten", lambda x: x.flatten(1), normal(2, 3, 4))
spec("squeeze", lambda x: x.squeeze(), normal(3, 1, 4))
spec("squeeze-dim", lambda x: x.squeeze(1), normal(3, 1, 4))
spec("unsqueeze", lambda x: x.unsqueeze(1), normal(3, 4))
spec("permute", lambda x: x.permute(2, 0, 1), normal(2, 3, 4))
spec("transpose", lambda x: x.transpose(0, 2), normal(2, 3, 4))
spec("t", lambda x: x.t(), normal(3, 4))
spec("T", lambda x: x.T, normal(3, 4))
spec("mT", lambda x: x.mT, normal(2, 3, 4))
spec("expand", lambda x: x.expand(2, 3, 4), normal(3, 1))
spec("expand_as", lambda x, y: x.expand_as(y), normal(4), normal(3, 4), extra={"argnums": (0,)})
spec("repeat", lambda x: x.repeat(2, 3), normal(2, 2))
spec("flip", lambda x: x.flip(0), normal(3, 4))
spec("cat", lambda x, y: torch.cat([x, y, x], 1), normal(2, 3), normal(2, 1))
spec("stack", lambda x, y: torch.stack([x, y], -1), normal(2, 3), normal(2, 3))
spec("split", lambda x: x.split(2, 1)[1] * 2 + x.split(2, 1)[0][:, :1], normal(3, 4))
spec("chunk", lambda x: x.chunk(2, 0)[1], normal(4, 3))
spec("unbind", lambda x: x.unbind(1)[2] - x.unbind(1)[0], normal(3, 4))
spec("narrow", lambda x: x.narrow(1, 1, 2), normal(3, 4))
spec("select", lambda x: x.select(0, 1), normal(3, 4))
spec("to-float32", lambda x: x.to(torch.float32).to(torch.float64) * 2, normal(3),
     atol=1e-3, rtol=1e-3, second=False, extra={"eps": 1e-2})
spec("clone", lambda x: x.clone() * 2, normal(3))
spec("contiguous", lambda x: x.t().contiguous(), normal(3, 4))

# indexing
spec("index-int", lambda x: x[1], normal(3, 4))
spec("index-slices", lambda x: x[1:, ::2], normal(3, 4))
spec("index-none-ellipsis", lambda x: x[None, ..., 1], normal(3, 4))
spec("index-list", lambda x: x[[0, 2, 0]], normal(3, 4))
spec("index-mixed", lambda x: x[1:, [0, 3]], normal(3, 4))
spec("index-pair", lambda x: x[[0, 2], [1, 1]], normal(3, 4))
spec("index-bool", lambda x: x[x > 0], normal(3, 4))
spec("index-tensor", lambda x: x[torch.tensor([1, 1, 0])], normal(3, 4))


def _setitem(x: Any, v: Any) -> Any:
    y = x.clone()
    y[1:, 0] = v
    return y * y


def _setitem_view(x: Any, v: Any) -> Any:
    y = x * 1
    row = y[0]
    row[1:3] = v
    return y.sin()


def _inplace_chain(x: Any, v: Any) -> Any:
    y = x * 1
    y.mul_(v).add_(x).sigmoid_()
    return y


def _inplace_view(x: Any, v: Any) -> Any:
    y = x.clone()
    y[:, 1:].mul_(v)
    return y.exp()


spec("setitem", _setitem, normal(3, 4), normal(2))
spec("setitem-view", _setitem_view, normal(3, 4), normal(2))
spec("inplace-chain", _inplace_chain, normal(3), normal(3))
spec("inplace-view", _inplace_view, normal(2, 3), normal(2, 2))

# compositions
spec("mlp", lambda x, w, b: ((x @ w + b).tanh() @ w.t()).softmax(1), normal(4, 3),
     normal(3, 3), normal(3))
spec("shared", lambda x: x * x.exp() + x.sin() * x, normal(5))


def _inputs(s: Spec, arrays: tuple, requires_grad: bool) -> list:
    return [torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad) for a in arrays]


def _value(s: Spec) -> Callable[..., np.ndarray]:
    def f(*arrays: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = s.fn(*_inputs(s, arrays, False))
        return np.asarray(out.numpy(), dtype=np.float64)

    return f


def _vjp(s: Spec, arrays: tuple) -> Callable[[Any], list]:
    def vjp(g: np.ndarray) -> list:
        xs = _inputs(s, arrays, True)
        out = s.fn(*xs)
        out.backward(torch.tensor(np.asarray(g, dtype=np.float64)))
        return [None if x.grad is None else x.grad.numpy() for x in xs]

    return vjp


@pytest.mark.parametrize("s", SPECS, ids=[s.name for s in SPECS])
def test_first_order(s: Spec) -> None:
    tol = {"atol": s.atol, "rtol": s.rtol, **s.extra}
    check_vjp(_value(s), _vjp(s, s.inputs), s.inputs, **tol)
    g = np.random.default_rng(5).standard_normal(np.shape(_value(s)(*s.inputs)))

    def scalar(*arrays: np.ndarray) -> float:
        return float(np.sum(_value(s)(*arrays) * g))

    def grads(*arrays: np.ndarray) -> list:
        return _vjp(s, arrays)(g)

    check_grads(scalar, s.inputs, grads, **tol)


_SECOND = [s for s in SPECS if s.second and not s.name.startswith(("torch.sign", "torch.floor",
                                                                    "torch.ceil", "torch.round",
                                                                    "torch.trunc"))]


@pytest.mark.parametrize("s", _SECOND, ids=[s.name for s in _SECOND])
def test_second_order(s: Spec) -> None:
    """The gradient built with create_graph is itself differentiable, and correctly so."""
    g = np.random.default_rng(6).standard_normal(np.shape(_value(s)(*s.inputs)))
    nums = s.extra.get("argnums", tuple(range(len(s.inputs))))

    def first(*arrays: np.ndarray) -> np.ndarray:
        xs = _inputs(s, arrays, True)
        gs = torch.autograd.grad(s.fn(*xs), [xs[i] for i in nums], torch.tensor(g),
                                 allow_unused=True, materialize_grads=True)
        return np.concatenate([np.ravel(x.detach().numpy()) for x in gs])

    def first_vjp(h: np.ndarray) -> list:
        xs = _inputs(s, s.inputs, True)
        gs = torch.autograd.grad(s.fn(*xs), [xs[i] for i in nums], torch.tensor(g),
                                 create_graph=True, allow_unused=True, materialize_grads=True)
        flat = torch.cat([x.reshape(-1) for x in gs])
        if not flat.requires_grad:  # a linear op: the first gradient is constant
            return [np.zeros_like(a) for a in s.inputs]
        second = torch.autograd.grad(flat, xs, torch.tensor(h), allow_unused=True,
                                     materialize_grads=True)
        return [x.numpy() for x in second]

    check_vjp(first, first_vjp, s.inputs, atol=1e-5, rtol=1e-4, eps=1e-5)
