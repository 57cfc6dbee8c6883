"""The per-op fast paths (docs/eager_runtime.md, "Per-op cost") give the generic path's bits.

Each fast backward or helper is run next to the generic code it stands in for (the rule
through ``RuleNode.backward``, ``ir.kernels``' functions, NumPy's own calls, the float64
``fma`` on arrays) on the same inputs, and the results must agree bit for bit, in dtype
and shape; the gradients themselves are checked against central differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff.ir.ops import Op
from st_autodiff.runtime.function import RuleNode, fit
from st_autodiff.runtime.optim import rounding
from st_autodiff.runtime.tensor_ops import ARRAY_OPS, _array_fn

SHAPES = [((), (5,)), ((5,), ()), ((3, 1), (1, 4)), ((4,), (3, 4)), ((2, 1, 3), (4, 1)),
          ((3, 4), (3, 4))]


def _same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize(("sa", "sb"), SHAPES)
def test_node_fast_paths_match_the_generic_rule(dt: type, sa: tuple, sb: tuple) -> None:
    rng = np.random.default_rng(12)
    a = torch.tensor(rng.standard_normal(sa).astype(dt), requires_grad=True)
    b = torch.tensor(rng.standard_normal(sb).astype(dt), requires_grad=True)
    outs = [a + b, a - b, a * b, a * 2.5, a - 1.5, a**3, b**2, (a * b).sum(), (a - b).mean()]
    for out in outs:
        g = rng.standard_normal(out.shape).astype(dt)
        g = g if g.ndim else g[()]
        node = out.grad_fn
        fast = node.backward([g], ARRAY_OPS)
        slow = RuleNode.backward(node, [g], ARRAY_OPS)
        assert all(_same(x, y) for x, y in zip(fast, slow, strict=True)), type(node).__name__


def test_broadcast_gradients_against_central_differences() -> None:
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((3, 1))
    y0 = rng.standard_normal((4,))

    def f(x: np.ndarray, y: np.ndarray) -> float:
        return float(((x * y - y + x) ** 3).sum())

    x = torch.tensor(x0, requires_grad=True)
    y = torch.tensor(y0, requires_grad=True)
    ((x * y - y + x) ** 3).sum().backward()
    for t, base, other in ((x, x0, y0), (y, y0, x0)):
        num = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            e = np.zeros_like(base)
            e[i] = 1e-6
            hi = f(base + e, other) if t is x else f(other, base + e)
            lo = f(base - e, other) if t is x else f(other, base - e)
            num[i] = (hi - lo) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_fit_and_array_ops_match_their_generic_calls() -> None:
    rng = np.random.default_rng(5)
    for gshape, like in [((120,), np.float32(1)), ((3, 4), np.zeros((1, 4), np.float64)),
                         ((2, 3, 4), np.zeros((3, 1), np.float32)), ((1, 4), np.zeros((3, 4)))]:
        g = rng.standard_normal(gshape).astype(np.float32)
        generic = ARRAY_OPS.unbroadcast(g, like.shape)
        if generic.shape != like.shape:
            generic = np.broadcast_to(generic, like.shape)
        assert _same(fit(ARRAY_OPS, g, like), generic.astype(like.dtype))
    scatter = _array_fn(Op.SCATTER_ADD, np)
    for shape, g, index in [((3,), np.float32(2.5), (1,)), ((4, 3), np.ones((2, 3)),
                                                            (("slice", 1, 3, None),)),
                            ((2, 3), np.ones(2, np.float32), (("slice", None, None, None), 0))]:
        assert _same(ARRAY_OPS.scatter_add(shape, g, index=index), scatter(shape, g, index=index))
    for x, axis in [(np.ones((3, 4)), 1), (np.ones((3, 4))[:, ::2], (0, -1)), (np.float32(2), 0)]:
        assert _same(ARRAY_OPS.expand_dims(x, axis=axis), np.expand_dims(x, axis))
    for shape, cuts, axis in [((6,), (1, 2), 0), ((3, 4), (1, 3), 1), ((2, 5, 3), (2,), -2)]:
        x = np.asfortranarray(rng.standard_normal(shape))
        for p, q in zip(ARRAY_OPS.split(x, indices_or_sections=cuts, axis=axis),
                        np.split(x, cuts, axis=axis), strict=True):
            assert _same(p, q) and p.strides == q.strides


def test_float64_fma_on_few_elements_matches_the_array_steps() -> None:
    rng = np.random.default_rng(42)
    for trial in range(300):
        n = int(rng.integers(1, 9))
        a = np.float64(rng.standard_normal() * 10.0 ** rng.integers(-20, 20))
        b = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20)
        c = -a * b + rng.standard_normal(n) * 1e-9 if trial % 2 else rng.standard_normal(n)
        p, perr = rounding._two_prod(np.asarray(a), b)
        s, serr = rounding._two_sum(p, c)
        assert _same(rounding.fma(a, b, c), s + (perr + serr))
    with np.errstate(over="ignore", invalid="ignore"):  # (NumPy warns on its own path)
        big = rounding.fma(np.float64(1e200), np.array([1e200, 1.0]), np.array([1.0, 2.0]))
    assert np.isinf(big[0]) and big[1] == 1e200 + 2.0  # the NumPy path past the limits
