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

Loops: ``recurrence`` and ``horner`` are written with a Python loop; if ``st.grad``
rejects the loop (a ``CompileError``: the compiler does not accept ``for`` yet, issue 3),
the runner gives st_autodiff the *unrolled* version of the same function instead
(straight-line source with one statement per iteration, written to a module file by
``Problem.unrolled``), and says so in the table.  Peers and the hand-written gradient
always run the loop form.

Loops and branches (group ``loops``): ``pendulum``, ``rnn``, ``branch_scalar`` and
``branch_array`` are written as users write them, with ``for`` and an ``if`` on a runtime
value; they have no unrolled form (a branch on a runtime value cannot be unrolled ahead
of time, and 1000 unrolled Euler steps take many seconds to compile), so st_autodiff's
cell reads "unsupported" until the compiler accepts them.  Trip counts are ordinary
``int`` arguments (``steps``) or a shape (``X.shape[0]``); JAX gets them as static
arguments of ``jit``.
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
# 6. Damped pendulum, explicit Euler;  d loss / d(L, c, theta0, omega0)
# --------------------------------------------------------------------------------------

GRAVITY = 9.81
DT = 0.01


def pendulum(L, c, theta0, omega0, steps):
    theta = theta0
    omega = omega0
    for _ in range(steps):
        alpha = -(GRAVITY / L) * np.sin(theta) - c * omega
        theta = theta + DT * omega
        omega = omega + DT * alpha
    energy = 0.5 * L * L * omega * omega + GRAVITY * L * (1.0 - np.cos(theta))
    return theta * theta + energy


def pendulum_grad(L, c, theta0, omega0, steps):
    """Forward sweep keeping theta_t, sin(theta_t) and omega_t; the reverse sweep needs
    cos(theta_t) (computed there, once per step) and nothing else."""
    k = GRAVITY / L
    thetas, sins, omegas = [], [], []
    theta, omega = theta0, omega0
    for _ in range(steps):
        s = np.sin(theta)
        thetas.append(theta)
        sins.append(s)
        omegas.append(omega)
        alpha = -k * s - c * omega
        theta = theta + DT * omega
        omega = omega + DT * alpha
    # loss = theta**2 + L**2 omega**2 / 2 + g L (1 - cos theta)
    cos_t = np.cos(theta)
    tb = 2.0 * theta + GRAVITY * L * np.sin(theta)
    ob = L * L * omega
    Lb = L * omega * omega + GRAVITY * (1.0 - cos_t)
    cb = 0.0
    kL = k / L  # d(-k sin)/dL = g/L**2 sin
    for t in range(steps - 1, -1, -1):
        ab = DT * ob  # adjoint of alpha_t
        Lb += ab * kL * sins[t]
        cb -= ab * omegas[t]
        ob = ob + DT * tb - ab * c
        tb = tb - ab * k * np.cos(thetas[t])
    return Lb, cb, tb, ob


def pendulum_inputs(steps: int) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        return 1.2, 0.3, 1.0, 0.0, steps
    return make


def pendulum_torch(torch: Any) -> Callable:
    def f(L, c, theta0, omega0, steps):
        theta = theta0
        omega = omega0
        for _ in range(steps):
            alpha = -(GRAVITY / L) * torch.sin(theta) - c * omega
            theta = theta + DT * omega
            omega = omega + DT * alpha
        energy = 0.5 * L * L * omega * omega + GRAVITY * L * (1.0 - torch.cos(theta))
        return theta * theta + energy
    return f


def pendulum_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: the same loop as ``lax.fori_loop`` over (theta, omega)."""
    def f(L, c, theta0, omega0, steps):
        def step(_: Any, state: tuple) -> tuple:
            theta, omega = state
            alpha = -(GRAVITY / L) * jnp.sin(theta) - c * omega
            return theta + DT * omega, omega + DT * alpha
        theta, omega = lax.fori_loop(0, steps, step, (theta0, omega0))
        energy = 0.5 * L * L * omega * omega + GRAVITY * L * (1.0 - jnp.cos(theta))
        return theta * theta + energy
    return f


# --------------------------------------------------------------------------------------
# 7. Vanilla RNN, h_t = tanh(x_t Wx + h_{t-1} Wh + b);  d sum(h_T**2) / d(Wx, Wh, b)
# --------------------------------------------------------------------------------------


def rnn(Wx, Wh, b, X, h0):
    h = h0
    for t in range(X.shape[0]):
        h = np.tanh(X[t] @ Wx + h @ Wh + b)
    return np.sum(h * h)


def rnn_grad(Wx, Wh, b, X, h0):
    """Backprop through time: the forward sweep writes every h_t into one preallocated
    (T+1, B, H) array (the only thing kept); the reverse sweep accumulates the three
    gradients in place, step by step."""
    T = X.shape[0]
    hs = np.empty((T + 1,) + h0.shape)
    hs[0] = h0
    for t in range(T):
        pre = X[t] @ Wx
        pre += hs[t] @ Wh
        pre += b
        np.tanh(pre, out=hs[t + 1])
    gWx = np.zeros_like(Wx)
    gWh = np.zeros_like(Wh)
    gb = np.zeros_like(b)
    dh = 2.0 * hs[T]
    WhT = Wh.T
    for t in range(T - 1, -1, -1):
        h = hs[t + 1]
        d = h * h
        np.subtract(1.0, d, out=d)
        d *= dh  # adjoint of the pre-activation
        gWx += X[t].T @ d
        gWh += hs[t].T @ d
        gb += d.sum(axis=0)
        if t:
            dh = d @ WhT
    return gWx, gWh, gb


def rnn_inputs(steps: int, batch: int, d_in: int, hidden: int
               ) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        Wx = rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)
        Wh = rng.standard_normal((hidden, hidden)) * (0.9 / np.sqrt(hidden))
        b = rng.standard_normal(hidden) * 0.1
        X = rng.standard_normal((steps, batch, d_in))
        h0 = rng.standard_normal((batch, hidden)) * 0.1
        return Wx, Wh, b, X, h0
    return make


def rnn_torch(torch: Any) -> Callable:
    def f(Wx, Wh, b, X, h0):
        h = h0
        for t in range(X.shape[0]):
            h = torch.tanh(X[t] @ Wx + h @ Wh + b)
        return torch.sum(h * h)
    return f


def rnn_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: the same loop as ``lax.scan`` over the time axis of X."""
    def f(Wx, Wh, b, X, h0):
        def step(h: Any, x: Any) -> tuple:
            return jnp.tanh(x @ Wx + h @ Wh + b), None
        h, _ = lax.scan(step, h0, X)
        return jnp.sum(h * h)
    return f


# --------------------------------------------------------------------------------------
# 8. A scalar loop with a data-dependent branch every step;  d s_T**2 / d(a, b, s0)
# --------------------------------------------------------------------------------------


def branch_scalar(a, b, s0, steps):
    s = s0
    for _ in range(steps):
        if s > 0:
            s = a * np.sin(s) - b
        else:
            s = b * np.exp(s) + 0.5 * a * s + 0.2
    return s * s


def branch_scalar_grad(a, b, s0, steps):
    """The forward sweep keeps s_t and the transcendental it computed (sin or exp); the
    branch taken is ``s_t > 0`` again, so no flags are stored."""
    ss, es = [], []
    s = s0
    for _ in range(steps):
        ss.append(s)
        if s > 0:
            e = np.sin(s)
            s = a * e - b
        else:
            e = np.exp(s)
            s = b * e + 0.5 * a * s + 0.2
        es.append(e)
    sb = 2.0 * s
    ab = bb = 0.0
    for t in range(steps - 1, -1, -1):
        s, e = ss[t], es[t]
        if s > 0:
            ab += sb * e
            bb -= sb
            sb = sb * a * np.cos(s)
        else:
            ab += sb * 0.5 * s
            bb += sb * e
            sb = sb * (b * e + 0.5 * a)
    return ab, bb, sb


def branch_scalar_inputs(steps: int) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        return 0.8, 0.3, 0.5, steps
    return make


def branch_scalar_torch(torch: Any) -> Callable:
    def f(a, b, s0, steps):
        s = s0
        for _ in range(steps):
            if s > 0:
                s = a * torch.sin(s) - b
            else:
                s = b * torch.exp(s) + 0.5 * a * s + 0.2
        return s * s
    return f


def branch_scalar_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: ``lax.fori_loop`` with ``lax.cond`` (a Python ``if`` on a traced value fails
    under ``jit``)."""
    def f(a, b, s0, steps):
        def step(_: Any, s: Any) -> Any:
            return lax.cond(s > 0, lambda s: a * jnp.sin(s) - b,
                            lambda s: b * jnp.exp(s) + 0.5 * a * s + 0.2, s)
        s = lax.fori_loop(0, steps, step, s0)
        return s * s
    return f


# --------------------------------------------------------------------------------------
# 9. The same on arrays: the branch is on a reduction of the array;  d / d(x0, w)
# --------------------------------------------------------------------------------------


def branch_array(x0, w, steps):
    x = x0
    for _ in range(steps):
        if np.mean(x) > 0:
            x = np.tanh(w * x - 1.0)
        else:
            x = np.sin(x) * w + 0.6
    return np.sum(x * x)


def branch_array_grad(x0, w, steps):
    """The forward sweep keeps every x_t (one array per step, the step's own output) and,
    on the second branch, sin(x_t); the branch taken is recorded as a flag.  The reverse
    sweep computes cos(x_t) where it needs it and works in place on two buffers."""
    xs = [x0]
    sins: list[np.ndarray | None] = []
    x = x0
    for _ in range(steps):
        if np.mean(x) > 0:
            x = w * x
            x -= 1.0
            np.tanh(x, out=x)
            sins.append(None)
        else:
            s = np.sin(x)
            sins.append(s)
            x = s * w
            x += 0.6
        xs.append(x)
    xb = 2.0 * x
    wb = np.zeros_like(w)
    tmp = np.empty_like(x)
    for t in range(steps - 1, -1, -1):
        s = sins[t]
        if s is None:  # x' = tanh(w*x - 1)
            out = xs[t + 1]
            np.multiply(out, out, out=tmp)
            np.subtract(1.0, tmp, out=tmp)
            xb *= tmp  # adjoint of w*x - 1
            np.multiply(xb, xs[t], out=tmp)
            wb += tmp
            xb *= w
        else:  # x' = sin(x)*w + 0.6
            np.multiply(xb, s, out=tmp)
            wb += tmp
            xb *= w
            np.cos(xs[t], out=tmp)
            xb *= tmp
    return xb, wb


def branch_array_inputs(n: int, steps: int) -> Callable[[np.random.Generator], tuple]:
    def make(rng: np.random.Generator) -> tuple:
        x0 = rng.standard_normal(n) + 0.25
        w = rng.uniform(0.5, 1.5, n)
        return x0, w, steps
    return make


def branch_array_torch(torch: Any) -> Callable:
    def f(x0, w, steps):
        x = x0
        for _ in range(steps):
            if torch.mean(x) > 0:
                x = torch.tanh(w * x - 1.0)
            else:
                x = torch.sin(x) * w + 0.6
        return torch.sum(x * x)
    return f


def branch_array_jax(jnp: Any, lax: Any) -> Callable:
    """JAX: ``lax.fori_loop`` with ``lax.cond`` on the mean."""
    def f(x0, w, steps):
        def step(_: Any, x: Any) -> Any:
            return lax.cond(jnp.mean(x) > 0, lambda x: jnp.tanh(w * x - 1.0),
                            lambda x: jnp.sin(x) * w + 0.6, x)
        x = lax.fori_loop(0, steps, step, x0)
        return jnp.sum(x * x)
    return f


# --------------------------------------------------------------------------------------
# The list
# --------------------------------------------------------------------------------------


@dataclass
class Problem:
    name: str
    group: str  # "small" | "large" (medium/large) | "loops" (loops and branches)
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
    # st_autodiff's target for gradient / hand-written, when not the group's
    target: float | None = None


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
    Problem("pendulum_100", "loops",
            "damped pendulum, explicit Euler, 100 steps, scalars; d/d(L,c,theta0,omega0)",
            pendulum, pendulum_grad, pendulum_inputs(100), (0, 1, 2, 3), pendulum_torch,
            compile_inputs=pendulum_inputs(4), jax_forward=pendulum_jax, target=1.5),
    Problem("pendulum_1000", "loops",
            "damped pendulum, explicit Euler, 1000 steps, scalars; d/d(L,c,theta0,omega0)",
            pendulum, pendulum_grad, pendulum_inputs(1000), (0, 1, 2, 3), pendulum_torch,
            compile_inputs=pendulum_inputs(4), jax_forward=pendulum_jax, target=1.5),
    Problem("rnn_50", "loops",
            "RNN h=tanh(x_t@Wx + h@Wh + b), 50 steps, batch 32, 64 -> 128; d/d(Wx,Wh,b)",
            rnn, rnn_grad, rnn_inputs(50, 32, 64, 128), (0, 1, 2), rnn_torch,
            compile_inputs=rnn_inputs(3, 2, 3, 4), jax_forward=rnn_jax, target=1.15),
    Problem("branch_scalar", "loops",
            "1000 steps of `if s > 0: s = a*sin(s) - b else: ...`, scalars; d/d(a,b,s0)",
            branch_scalar, branch_scalar_grad, branch_scalar_inputs(1000), (0, 1, 2),
            branch_scalar_torch, compile_inputs=branch_scalar_inputs(4),
            jax_forward=branch_scalar_jax, target=1.5),
    Problem("branch_array_1e5", "loops",
            "30 steps of `if mean(x) > 0: x = tanh(w*x - 1) else: ...`, 1e5 elements; "
            "d/d(x0,w)",
            branch_array, branch_array_grad, branch_array_inputs(100_000, 30), (0, 1),
            branch_array_torch, compile_inputs=branch_array_inputs(16, 4),
            jax_forward=branch_array_jax, target=1.2),
]
