"""Adapters for the optional peers: PyTorch eager, JAX (eager grad and jit(grad)), HIPS
autograd.  Each adapter turns (problem, NumPy inputs) into a zero-argument thunk that
computes the gradient and waits for it, plus a function that converts its result to
NumPy for the correctness check.  A peer that is not installed is simply absent.

JAX and autograd differentiate the very same forward function object as st_autodiff,
re-bound to ``jax.numpy`` / ``autograd.numpy`` as its ``np`` global (JAX gets the
``lax`` loop form where a problem has one).  Python ``int`` arguments (trip counts) are
passed to every peer unchanged, and are static arguments of ``jax.jit``.  PyTorch runs a
line-by-line translation (``Problem.torch_forward``).  Everything is float64 (JAX is
switched to x64 on import of this module).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from bm_problems import Problem

try:
    import torch
except ImportError:  # pragma: no cover - optional
    torch = None

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - optional
    jax = None
    jnp = None

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # pragma: no cover - optional
    autograd = None
    anp = None


@dataclass
class Peer:
    name: str
    make: Callable[[Problem, tuple], tuple[Callable[[], Any], Callable[[Any], tuple]]]
    setup_note: str = ""


def rebind(fn: Callable, np_module: Any) -> Callable:
    """A copy of ``fn`` whose global ``np`` is ``np_module``."""
    g = dict(fn.__globals__)
    g["np"] = np_module
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def _to_numpy(res: Any) -> tuple:
    if not isinstance(res, tuple | list):
        res = (res,)
    out = []
    for r in res:
        if torch is not None and isinstance(r, torch.Tensor):
            r = r.detach().numpy()
        out.append(np.asarray(r))
    return tuple(out)


def _torch(problem: Problem, args: tuple) -> tuple[Callable[[], Any], Callable]:
    f = problem.torch_forward(torch)
    targs = [a if _is_int(a) else torch.tensor(a, dtype=torch.float64) if isinstance(a, float)
             else torch.from_numpy(np.ascontiguousarray(a)) for a in args]
    for i in problem.wrt:
        targs[i] = targs[i].clone().requires_grad_(True)
    params = [targs[i] for i in problem.wrt]

    def thunk() -> Any:
        return torch.autograd.grad(f(*targs), params)
    return thunk, _to_numpy


def _is_int(a: Any) -> bool:
    """A Python ``int`` argument (a trip count): passed through as is, static for jit."""
    return isinstance(a, int) and not isinstance(a, bool)


def _jax_args(args: tuple) -> list:
    return [a if _is_int(a) else jnp.asarray(a, dtype=jnp.float64) for a in args]


def jax_forward(problem: Problem) -> Callable:
    if problem.jax_forward is not None:
        return problem.jax_forward(jnp, jax.lax)
    return rebind(problem.forward, jnp)


def _jax_eager(problem: Problem, args: tuple) -> tuple[Callable[[], Any], Callable]:
    g = jax.grad(jax_forward(problem), argnums=problem.wrt)
    jargs = _jax_args(args)

    def thunk() -> Any:
        return jax.block_until_ready(g(*jargs))
    return thunk, _to_numpy


def _jax_jit(problem: Problem, args: tuple) -> tuple[Callable[[], Any], Callable]:
    static = tuple(i for i, a in enumerate(args) if _is_int(a))
    g = jax.jit(jax.grad(jax_forward(problem), argnums=problem.wrt), static_argnums=static)
    jargs = _jax_args(args)
    jax.block_until_ready(g(*jargs))  # compile outside the timing

    def thunk() -> Any:
        return jax.block_until_ready(g(*jargs))
    return thunk, _to_numpy


def _autograd(problem: Problem, args: tuple) -> tuple[Callable[[], Any], Callable]:
    g = autograd.grad(rebind(problem.forward, anp), argnum=problem.wrt)

    def thunk() -> Any:
        return g(*args)
    return thunk, _to_numpy


def available() -> list[Peer]:
    peers = []
    if torch is not None:
        peers.append(Peer("torch", _torch))
    if jax is not None:
        peers.append(Peer("jax.grad", _jax_eager))
        peers.append(Peer("jax.jit", _jax_jit))
    if autograd is not None:
        peers.append(Peer("autograd", _autograd))
    return peers


def versions() -> dict[str, str]:
    v = {"numpy": np.__version__}
    if torch is not None:
        v["torch"] = torch.__version__
    if jax is not None:
        v["jax"] = jax.__version__
        import jaxlib
        v["jaxlib"] = jaxlib.__version__
    if autograd is not None:
        try:
            from importlib.metadata import version
            v["autograd"] = version("autograd")
        except Exception:  # pragma: no cover
            v["autograd"] = "?"
    return v


def set_threads(n: int) -> None:
    if torch is not None:
        torch.set_num_threads(n)


def threads() -> dict[str, Any]:
    t: dict[str, Any] = {}
    if torch is not None:
        t["torch intra-op threads"] = torch.get_num_threads()
    return t
