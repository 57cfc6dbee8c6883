"""Workloads of the first-call benchmark (``first_call.py``, issue 10).

Each workload is a module-level function written as a user writes it (its source must be
readable by ``inspect``), an input maker per size, the arguments to differentiate, and a
JAX form for the ``jax.jit`` compile-time column.  The straight-line workload is generated
source, written to a module file in a temporary directory and imported from there.

JAX forms of the loops are ``lax.fori_loop`` (marked ² in the tables): a Python loop of
100,000 steps takes minutes to trace under ``jax.jit``, and reverse mode does not go
through ``lax.while_loop``; a JAX user would write the ``fori_loop``.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from bm_source import import_source

# --------------------------------------------------------------------------------------
# The functions st_autodiff differentiates
# --------------------------------------------------------------------------------------


def chain(x):
    return np.sum(np.exp(np.sin(x)) * x ** 2)


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - Y) ** 2)


def recurrence(a, h, steps):
    for _ in range(steps):
        h = a * h + math.sin(h)
    return h * h


def pendulum(L, theta, omega, steps):
    dt = 0.01
    for _ in range(steps):
        omega = omega - dt * (9.81 / L) * math.sin(theta)
        theta = theta + dt * omega
    return theta * theta + omega * omega


def while_loop(a, h, steps):
    i = 0
    while i < steps:
        h = a * h + math.sin(h)
        i += 1
    return h * h


def inplace_loop(a, x0, steps):
    x = np.zeros(steps)
    x[0] = x0
    for i in range(1, steps):
        x[i] = a * x[i - 1] + math.sin(x[i - 1])
    return np.sum(x * x) / steps


def straight_line_source(n: int, jax: bool = False) -> str:
    """``def straight_N(x)``: ``n`` statements, each reading the one before it."""
    m = "jnp" if jax else "np"
    lines = [f"import numpy as {m}" if not jax else "import jax.numpy as jnp", "",
             "", f"def straight_{n}(x):", "    y0 = x"]
    for i in range(1, n + 1):
        lines.append([f"    y{i} = y{i - 1} * 1.0001",
                      f"    y{i} = y{i - 1} + 0.001 * {m}.sin(y{i - 1})",
                      f"    y{i} = y{i - 1} - 0.0001"][i % 3])
    lines.append(f"    return {m}.sum(y{n} * y{n})")
    return "\n".join(lines) + "\n"


_TMP: str | None = None


def load_source(source: str, name: str) -> Any:
    """Import ``source`` as module ``name`` from a file in a temporary directory."""
    global _TMP
    if _TMP is None:
        _TMP = tempfile.mkdtemp(prefix="st_first_call_")
    return import_source(source, name, _TMP)


def straight_line(n: int) -> Callable:
    return getattr(load_source(straight_line_source(n), f"fc_straight_{n}"), f"straight_{n}")


# --------------------------------------------------------------------------------------
# JAX forms (imported lazily: jax is optional)
# --------------------------------------------------------------------------------------


def jax_form(name: str, size: int) -> tuple[Callable, tuple[int, ...]]:
    """The JAX function for ``name`` at ``size`` and its static argument positions."""
    import jax.numpy as jnp  # noqa: PLC0415
    from jax import lax  # noqa: PLC0415

    if name == "chain":
        return (lambda x: jnp.sum(jnp.exp(jnp.sin(x)) * x ** 2)), ()
    if name == "mlp":
        def jmlp(W1, b1, W2, b2, X, Y):
            h = jnp.tanh(X @ W1 + b1)
            return jnp.mean((h @ W2 + b2 - Y) ** 2)
        return jmlp, ()
    if name in ("recurrence", "while_loop"):
        def jrec(a, h, steps):
            return lax.fori_loop(0, steps, lambda _, h: a * h + jnp.sin(h), h) ** 2
        return jrec, (2,)
    if name == "pendulum":
        def jpend(L, theta, omega, steps):
            def step(_, c):
                th, om = c
                om = om - 0.01 * (9.81 / L) * jnp.sin(th)
                return th + 0.01 * om, om
            th, om = lax.fori_loop(0, steps, step, (theta, omega))
            return th * th + om * om
        return jpend, (3,)
    if name == "inplace_loop":
        def jinplace(a, x0, steps):
            x = jnp.zeros(steps).at[0].set(x0)
            x = lax.fori_loop(1, steps, lambda i, x: x.at[i].set(
                a * x[i - 1] + jnp.sin(x[i - 1])), x)
            return jnp.sum(x * x) / steps
        return jinplace, (2,)
    if name == "straight":
        mod = load_source(straight_line_source(size, jax=True), f"fc_jstraight_{size}")
        return getattr(mod, f"straight_{size}"), ()
    raise KeyError(name)


# --------------------------------------------------------------------------------------
# The table of workloads
# --------------------------------------------------------------------------------------


@dataclass
class Workload:
    name: str
    description: str
    sizes: tuple[int, int]  # small, large
    size_label: Callable[[int], str]
    make: Callable[[int, np.random.Generator], tuple]  # size, rng -> arguments
    wrt: tuple[int, ...]
    function: Callable[[int], Callable]  # size -> the function to differentiate
    jax_mark: str = ""  # "²": the JAX column times a lax loop


def _steps(n: int) -> str:
    return f"{n:,} steps"


def _mlp_inputs(size: int, rng: np.random.Generator) -> tuple:
    batch, d_in = {64: (64, 32), 4096: (4096, 512)}[size]
    hidden, d_out = 512, 10
    return (rng.standard_normal((d_in, hidden)) / math.sqrt(d_in), np.zeros(hidden),
            rng.standard_normal((hidden, d_out)) / math.sqrt(hidden), np.zeros(d_out),
            rng.standard_normal((batch, d_in)), rng.standard_normal((batch, d_out)))


WORKLOADS: list[Workload] = [
    Workload("chain", "`sum(exp(sin(x)) * x**2)`, x of n elements; d/dx",
             (1000, 10_000_000), lambda n: f"{n:.0e} elements".replace("e+0", "e"),
             lambda n, rng: (rng.standard_normal(n),), (0,), lambda n: chain),
    Workload("mlp", "`mean((tanh(X@W1 + b1)@W2 + b2 - Y)**2)`, X batch×in, W1 in×512, "
             "W2 512×10; d/d(W1, b1, W2, b2)",
             (64, 4096), lambda n: {64: "64×32", 4096: "4096×512"}[n],
             _mlp_inputs, (0, 1, 2, 3), lambda n: mlp),
    Workload("recurrence", "`h = a*h + sin(h)` on Python floats, `for` over `range(steps)`; "
             "d/d(a, h0)", (100, 100_000), _steps,
             lambda n, rng: (0.5, 0.3, n), (0, 1), lambda n: recurrence, "²"),
    Workload("pendulum", "explicit Euler pendulum, dt 0.01, on Python floats; loss "
             "θ² + ω²; d/d(L, θ0, ω0)", (100, 100_000), _steps,
             lambda n, rng: (1.3, 0.4, 0.1, n), (0, 1, 2), lambda n: pendulum, "²"),
    Workload("while_loop", "the recurrence as `while i < steps: ...; i += 1`; d/d(a, h0)",
             (100, 100_000), _steps, lambda n, rng: (0.5, 0.3, n), (0, 1),
             lambda n: while_loop, "²"),
    Workload("inplace_loop", "`x[i] = a*x[i-1] + sin(x[i-1])` into `x = zeros(steps)`; "
             "loss `sum(x*x)/steps`; d/d(a, x0)", (100, 100_000), _steps,
             lambda n, rng: (0.5, 0.3, n), (0, 1), lambda n: inplace_loop, "²"),
    Workload("straight", "generated straight-line function, `y_k = f(y_{k-1})` (×1.0001, "
             "+0.001·sin, −0.0001 in turn), x of 100 elements; d/dx",
             (10, 1000), lambda n: f"{n:,} statements",
             lambda n, rng: (rng.standard_normal(100),), (0,), straight_line),
]

BY_NAME = {w.name: w for w in WORKLOADS}
