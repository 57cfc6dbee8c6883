"""The benchmark problems: forward functions, hand-written gradients, inputs.

Each forward function is ordinary NumPy code written against the module global ``np``.
The same function object is what st_autodiff differentiates; JAX and HIPS autograd get a
copy of it whose ``np`` is ``jax.numpy`` / ``autograd.numpy`` (see ``bm_peers``), so they
differentiate literally the same code; the exception is JAX on the two loop problems,
which gets the loop written with ``lax.fori_loop`` / ``lax.scan`` (``jax_forward``),
because a long Python loop takes minutes to compile under JAX.  PyTorch gets a
line-by-line translation.

The hand-written gradients are the baseline every ratio is measured against.  They are
written the way a careful person would write them for *the same algorithm*: one forward
sweep keeping what the backward sweep needs, no recomputation, in-place updates where
that is natural, closed forms where a person would use them (sigmoid, softmax), and no
work for the loss value itself, which a gradient does not need.

Loops: the compiler does not accept ``for`` yet (issue 3).  ``recurrence`` and ``horner``
are written with a Python loop; if ``st.grad`` rejects the loop, the runner gives
st_autodiff the *unrolled* version of the same function instead (straight-line source
with one statement per iteration, written to a module file by ``unrolled_source``), and
says so in the table.  Peers and the hand-written gradient always run the loop form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------
# 1. A 1000-step scalar recurrence  h <- tanh(w*h + u);  d h_T / d(w, u)
# --------------------------------------------------------------------------------------

STEPS = 1000


def recurrence(w, u, h0):
    h = h0
    for _ in range(STEPS):
        h = np.tanh(w * h + u)
    return h


def recurrence_grad(w, u, h0):
    """Forward sweep storing every h, then the reverse sweep."""
    hs = [h0]
    h = h0
    for _ in range(STEPS):
        h = np.tanh(w * h + u)
        hs.append(h)
    gw = gu = 0.0
    g = 1.0  # d h_T / d h_t, walking backwards
    for t in range(STEPS - 1, -1, -1):
        h1 = hs[t + 1]
        d = g * (1.0 - h1 * h1)  # through tanh
        gw += d * hs[t]
        gu += d
        g = d * w
    return gw, gu


def recurrence_inputs(rng: np.random.Generator) -> tuple:
    return 0.9, 0.1, 0.5


def recurrence_torch(torch: Any) -> Callable:
    def f(w, u, h0):
        h = h0
        for _ in range(STEPS):
            h = torch.tanh(w * h + u)
        return h
    return f


def recurrence_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: the same loop as ``lax.fori_loop`` (a Python loop of 1000 steps takes ~15 s to
    jit-compile and seconds per eager gradient, each step dispatched separately)."""
    def f(w, u, h0):
        return lax.fori_loop(0, STEPS, lambda _, h: jnp.tanh(w * h + u), h0)
    return f


def recurrence_unrolled(steps: int = STEPS) -> tuple[str, str]:
    body = ["h = h0"] + ["h = np.tanh(w * h + u)"] * steps + ["return h"]
    return "recurrence", _module("recurrence", "w, u, h0", body)


# --------------------------------------------------------------------------------------
# 2. Horner evaluation of a polynomial at 128 points;  d sum(p(x)) / d(c, x)
# --------------------------------------------------------------------------------------

HORNER_POINTS = 128


def horner(c, x):
    p = c[0]
    for i in range(1, c.shape[0]):
        p = p * x + c[i]
    return np.sum(p)


def horner_grad(c, x):
    """Horner for p and p' together (p' is d/dx), then c_bar[i] = sum(x**(n-1-i))."""
    n = c.shape[0]
    p = np.full_like(x, c[0])
    dp = np.zeros_like(x)
    for i in range(1, n):
        dp *= x
        dp += p
        p *= x
        p += c[i]
    c_bar = np.empty(n)
    pw = np.ones_like(x)
    for i in range(n - 1, -1, -1):
        c_bar[i] = pw.sum()
        pw *= x
    return c_bar, dp


def horner_inputs(n: int, points: int = HORNER_POINTS
                  ) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        c = rng.standard_normal(n) * 0.1
        x = np.linspace(-0.95, 0.95, points)
        return c, x
    return make


def horner_torch(torch: Any) -> Callable:
    def f(c, x):
        p = c[0]
        for i in range(1, c.shape[0]):
            p = p * x + c[i]
        return torch.sum(p)
    return f


def horner_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: the same loop as ``lax.scan`` over the coefficients (the Python loop indexes
    ``c[i]`` with 1024 different constants: ~2 min to jit-compile, ~1 min for the first
    eager gradient)."""
    def f(c, x):
        def step(p, ci):
            return p * x + ci, None
        p, _ = lax.scan(step, jnp.broadcast_to(c[0], x.shape), c[1:])
        return jnp.sum(p)
    return f


def horner_unrolled(n: int) -> tuple[str, str]:
    body = ["p = c[0]"] + [f"p = p * x + c[{i}]" for i in range(1, n)] + ["return np.sum(p)"]
    return "horner", _module("horner", "c, x", body)


# --------------------------------------------------------------------------------------
# 3. Logistic regression (numerically stable form);  d loss / d w
# --------------------------------------------------------------------------------------


def logreg(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def logreg_grad(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))  # sigmoid
    p -= y
    g = p @ X
    g /= X.shape[0]
    return (g,)


def logreg_inputs(n: int, d: int) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        X = rng.standard_normal((n, d))
        w = rng.standard_normal(d) * 0.1
        y = (rng.random(n) < 0.5).astype(np.float64)
        return w, X, y
    return make


def logreg_torch(torch: Any) -> Callable:
    zero = torch.zeros((), dtype=torch.float64)

    def f(w, X, y):
        z = X @ w
        return torch.mean(torch.logaddexp(zero, z) - y * z)
    return f


# --------------------------------------------------------------------------------------
# 4. Two-layer MLP: tanh hidden layer, softmax cross-entropy;  d loss / d(W1, b1, W2, b2)
# --------------------------------------------------------------------------------------


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True)) + m
    return -np.sum(Y * (logits - lse)) / X.shape[0]


def mlp_grad(W1, b1, W2, b2, X, Y):
    """Backprop by hand.  Rows of Y are one-hot, so d loss / d logits = (softmax - Y) / N."""
    n = X.shape[0]
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    d = e / e.sum(axis=1, keepdims=True)  # softmax
    d -= Y
    d /= n
    gW2 = h.T @ d
    gb2 = d.sum(axis=0)
    dh = d @ W2.T
    dh *= 1.0 - h * h  # through tanh
    gW1 = X.T @ dh
    gb1 = dh.sum(axis=0)
    return gW1, gb1, gW2, gb2


def mlp_inputs(n: int, d_in: int, hidden: int, classes: int
               ) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        W1 = rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)
        b1 = rng.standard_normal(hidden) * 0.1
        W2 = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
        b2 = rng.standard_normal(classes) * 0.1
        X = rng.standard_normal((n, d_in))
        Y = np.eye(classes)[rng.integers(0, classes, n)]
        return W1, b1, W2, b2, X, Y
    return make


def mlp_torch(torch: Any) -> Callable:
    def f(W1, b1, W2, b2, X, Y):
        h = torch.tanh(X @ W1 + b1)
        logits = h @ W2 + b2
        m = torch.amax(logits, dim=1, keepdim=True)
        lse = torch.log(torch.sum(torch.exp(logits - m), dim=1, keepdim=True)) + m
        return -torch.sum(Y * (logits - lse)) / X.shape[0]
    return f


# --------------------------------------------------------------------------------------
# 5. Elementwise chain over 1e6 elements
# --------------------------------------------------------------------------------------


def chain(x):
    return np.sum(np.sin(x) * np.exp(-x**2) + np.log1p(x * x))


def chain_grad(x):
    x2 = x * x
    e = np.exp(-x2)
    tx = 2.0 * x
    return (e * (np.cos(x) - tx * np.sin(x)) + tx / (1.0 + x2),)


def chain_inputs(n: int) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        return (rng.standard_normal(n),)
    return make


def chain_torch(torch: Any) -> Callable:
    def f(x):
        return torch.sum(torch.sin(x) * torch.exp(-x**2) + torch.log1p(x * x))
    return f


# --------------------------------------------------------------------------------------
# The list
# --------------------------------------------------------------------------------------


@dataclass
class Problem:
    name: str
    group: str  # "small" | "large" (medium/large)
    description: str
    forward: Callable  # NumPy forward, differentiated by st_autodiff / JAX / autograd
    hand: Callable  # hand-written gradient -> tuple of arrays/floats
    inputs: Callable[[np.random.Generator], tuple]
    wrt: tuple[int, ...]
    torch_forward: Callable[[Any], Callable]  # torch module -> forward
    unrolled: Callable[[], tuple[str, str]] | None = None  # -> (function name, module src)
    # small inputs of the same kinds of arguments (same ranks, dtypes): the first-call
    # measurement then times the compiler, not one run of a large gradient
    compile_inputs: Callable[[np.random.Generator], tuple] | None = None
    # (jax.numpy, jax.lax) -> forward, when JAX runs something other than ``forward``
    jax_forward: Callable[[Any, Any], Callable] | None = None


def _module(name: str, params: str, body: list[str]) -> str:
    lines = ["# generated by benchmarks/bm_problems.py: an unrolled loop", "",
             "import numpy as np", "", "", f"def {name}({params}):"]
    lines += ["    " + ln for ln in body]
    return "\n".join(lines) + "\n"


PROBLEMS: list[Problem] = [
    Problem("recurrence_1000", "small", "h <- tanh(w*h + u), 1000 steps, scalars; d/d(w,u)",
            recurrence, recurrence_grad, recurrence_inputs, (0, 1), recurrence_torch,
            unrolled=recurrence_unrolled, jax_forward=recurrence_jax),
    Problem("horner_16", "small", "Horner, 16 coefficients at 128 points; d/d(c,x)",
            horner, horner_grad, horner_inputs(16), (0, 1), horner_torch,
            unrolled=lambda: horner_unrolled(16), compile_inputs=horner_inputs(16, 4),
            jax_forward=horner_jax),
    Problem("logreg_100x10", "small", "logistic regression, X 100x10; d/dw",
            logreg, logreg_grad, logreg_inputs(100, 10), (0,), logreg_torch,
            compile_inputs=logreg_inputs(8, 3)),
    Problem("mlp_64x32", "small", "MLP 64x32 -> 64 tanh -> 10 softmax-CE; d/d(W1,b1,W2,b2)",
            mlp, mlp_grad, mlp_inputs(64, 32, 64, 10), (0, 1, 2, 3), mlp_torch,
            compile_inputs=mlp_inputs(4, 3, 5, 2)),
    Problem("horner_1024", "large", "Horner, 1024 coefficients at 128 points; d/d(c,x)",
            horner, horner_grad, horner_inputs(1024), (0, 1), horner_torch,
            unrolled=lambda: horner_unrolled(1024), compile_inputs=horner_inputs(1024, 4),
            jax_forward=horner_jax),
    Problem("logreg_10000x100", "large", "logistic regression, X 10000x100; d/dw",
            logreg, logreg_grad, logreg_inputs(10000, 100), (0,), logreg_torch,
            compile_inputs=logreg_inputs(8, 3)),
    Problem("mlp_4096x512", "large",
            "MLP 4096x512 -> 512 tanh -> 10 softmax-CE; d/d(W1,b1,W2,b2)",
            mlp, mlp_grad, mlp_inputs(4096, 512, 512, 10), (0, 1, 2, 3), mlp_torch,
            compile_inputs=mlp_inputs(4, 3, 5, 2)),
    Problem("chain_1e6", "large", "sum(sin(x)*exp(-x**2) + log1p(x*x)), 1e6 elements; d/dx",
            chain, chain_grad, chain_inputs(1_000_000), (0,), chain_torch,
            compile_inputs=chain_inputs(16)),
]
