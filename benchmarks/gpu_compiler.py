"""Generated gradients on CuPy against PyTorch CUDA eager and ``jax.jit`` on the GPU.

``python benchmarks/gpu_compiler.py [--repeat N] [--json OUT]`` runs the medium/large and
loop problems of ``bm_problems`` (plus GPU-sized variants of the MLP, the elementwise chain
and the RNN) on one GPU: st_autodiff's ``grad`` of the NumPy forward with CuPy inputs (the
generated source bound to ``cupy``), PyTorch's ``autograd.grad`` on CUDA tensors and
``jax.jit(jax.grad(...))`` on the GPU, all float64.  Each time is the median of ``--repeat``
calls after two warm-ups, with the device synchronised inside the timed region.  Before
timing, every peer's gradient is compared with st_autodiff's (copied to the host).
The printed ratio is st_autodiff / PyTorch CUDA (the issue's target is <= 1.2).  Exits with
a message where no GPU is present.  A measurement, never a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bm_problems as bp  # noqa: E402

import st_autodiff as st  # noqa: E402
from st_autodiff.runtime.backend import gpu_available  # noqa: E402

GPU_SIZED = [
    bp.Problem("mlp_16384x1024", "gpu", "MLP 16384x1024 -> 1024 tanh -> 10 softmax-CE",
               bp.mlp, bp.mlp_grad, bp.mlp_inputs(16384, 1024, 1024, 10), (0, 1, 2, 3),
               bp.mlp_torch),
    bp.Problem("chain_1e7", "gpu", "sum(sin(x)*exp(-x**2) + log1p(x*x)), 1e7 elements",
               bp.chain, bp.chain_grad, bp.chain_inputs(10_000_000), (0,), bp.chain_torch),
    bp.Problem("rnn_50_b256_h512", "gpu", "RNN 50 steps, batch 256, 256 -> 512",
               bp.rnn, bp.rnn_grad, bp.rnn_inputs(50, 256, 256, 512), (0, 1, 2), bp.rnn_torch,
               jax_forward=bp.rnn_jax),
]


def _median_ms(thunk: Callable[[], Any], repeat: int) -> float:
    thunk()
    thunk()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        thunk()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def _host(x: Any) -> np.ndarray:
    if hasattr(x, "get"):
        return np.asarray(x.get())
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _is_int(a: Any) -> bool:
    return isinstance(a, int) and not isinstance(a, bool)


def run_problem(p: bp.Problem, repeat: int) -> dict[str, Any]:
    """Times one problem on every available GPU engine; returns the row of the table."""
    import cupy as cp

    args = p.inputs(np.random.default_rng(0))
    row: dict[str, Any] = {"problem": p.name}
    sync = cp.cuda.Device().synchronize
    gargs = tuple(a if _is_int(a) else cp.asarray(a) for a in args)
    g = st.grad(p.forward, wrt=p.wrt if len(p.wrt) > 1 else p.wrt[0])

    def st_thunk() -> Any:
        out = g(*gargs)
        sync()
        return out

    try:
        ref = st_thunk()
    except Exception as exc:  # noqa: BLE001 - a row says why a problem does not run
        row["st_ms"] = f"error: {type(exc).__name__}: {str(exc)[:120]}"
        return row
    ref_leaves = [_host(r) for r in (ref if isinstance(ref, tuple) else (ref,))]
    row["st_on_device"] = all(hasattr(r, "get") or np.ndim(r) == 0
                              for r in (ref if isinstance(ref, tuple) else (ref,)))
    row["st_ms"] = _median_ms(st_thunk, repeat)
    try:
        import torch

        dev = torch.device("cuda")
        with dev:  # constants the translation makes (logreg's zero) on the GPU too
            f = p.torch_forward(torch)
        targs = [a if _is_int(a) else torch.tensor(np.asarray(a), dtype=torch.float64,
                                                    device=dev) for a in args]
        for i in p.wrt:
            targs[i] = targs[i].clone().requires_grad_(True)
        params = [targs[i] for i in p.wrt]

        def torch_thunk() -> Any:
            out = torch.autograd.grad(f(*targs), params)
            torch.cuda.synchronize()
            return out

        got = [_host(t) for t in torch_thunk()]
        row["torch_agrees"] = all(np.allclose(a, b, rtol=1e-8, atol=1e-10)
                                  for a, b in zip(got, ref_leaves, strict=True))
        row["torch_ms"] = _median_ms(torch_thunk, repeat)
        row["ratio_vs_torch"] = row["st_ms"] / row["torch_ms"]
    except Exception as exc:  # noqa: BLE001
        row["torch_ms"] = f"error: {type(exc).__name__}: {str(exc)[:120]}"
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        from bm_peers import rebind

        fwd = (p.jax_forward(jnp, jax.lax) if p.jax_forward is not None
               else rebind(p.forward, jnp))
        static = tuple(i for i, a in enumerate(args) if _is_int(a))
        jg = jax.jit(jax.grad(fwd, argnums=p.wrt), static_argnums=static)
        gpu = jax.devices("gpu")[0]
        jargs = [a if _is_int(a) else jax.device_put(jnp.asarray(a, dtype=jnp.float64), gpu)
                 for a in args]

        def jax_thunk() -> Any:
            return jax.block_until_ready(jg(*jargs))

        got = [_host(t) for t in jax_thunk()]
        row["jax_agrees"] = all(np.allclose(a, b, rtol=1e-8, atol=1e-10)
                                for a, b in zip(got, ref_leaves, strict=True))
        row["jax_jit_ms"] = _median_ms(jax_thunk, repeat)
    except Exception as exc:  # noqa: BLE001
        row["jax_jit_ms"] = f"error: {type(exc).__name__}: {str(exc)[:120]}"
    return row


def _cell(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("names", nargs="*")
    ns = ap.parse_args()
    if not gpu_available():
        print("no GPU (CuPy with a CUDA device) here: nothing to measure")
        return
    problems = [p for p in bp.PROBLEMS if p.group in ("large", "loops")] + GPU_SIZED
    if ns.names:
        problems = [p for p in problems if p.name in ns.names]
    rows = []
    cols = ["problem", "st_ms", "torch_ms", "jax_jit_ms", "ratio_vs_torch", "torch_agrees",
            "jax_agrees", "st_on_device"]
    print(" | ".join(cols))
    for p in problems:
        row = run_problem(p, ns.repeat)
        rows.append(row)
        print(" | ".join(_cell(row.get(c, "")) for c in cols), flush=True)
    ratios = [r["ratio_vs_torch"] for r in rows if isinstance(r.get("ratio_vs_torch"), float)]
    if ratios:
        print(f"geomean st/torch-cuda over {len(ratios)} problems: "
              f"{float(np.exp(np.mean(np.log(ratios)))):.3f}")
    if ns.json is not None:
        ns.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
