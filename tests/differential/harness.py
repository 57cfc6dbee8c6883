"""Machinery of the differential rule tests: sample inputs, build the functions of the
spec table as a real module (the compiler reads source), and check one case four ways.

A case is (spec, shapes, dtype, mode).  Modes: ``vjp`` (``st.vjp``; also the eager
runtime's ``backward`` and ``jax.vjp``), ``jvp`` (``st.jvp``; ``jax.jvp``), and the second
order ``hvp_fwd`` (``st.jvp`` of ``st.grad``: forward over reverse) and ``hvp_rev``
(``st.vjp`` of ``st.grad``: reverse over reverse).  Every result is compared with float64
central differences of the NumPy function (second order: of the compiled gradient, itself
checked by the first-order modes), and with JAX where it is installed.
"""

from __future__ import annotations

import importlib.util
import math  # noqa: F401  (used by the generated module's specs)
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import st_autodiff as st

from .specs import SPECS, Spec

H = 1e-6  # central-difference step (float64)
TOL = {"float64": (1e-6, 1e-5), "float32": (3e-3, 3e-3)}  # (atol, rtol), scaled below


def _eye_like(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return np.broadcast_to(np.eye(shape[-1]), shape)


DOMAINS: dict[str, Callable[[np.random.Generator, tuple], np.ndarray]] = {
    "real": lambda rng, s: rng.uniform(-2.0, 2.0, s),
    "nonzero": lambda rng, s: rng.choice([-1.0, 1.0], s) * rng.uniform(0.3, 2.0, s),
    "positive": lambda rng, s: rng.uniform(0.5, 2.0, s),
    "small": lambda rng, s: rng.uniform(-1.2, 1.2, s),
    "unit": lambda rng, s: rng.uniform(-0.8, 0.8, s),
    "prob": lambda rng, s: rng.uniform(0.1, 0.9, s),
    "above1": lambda rng, s: rng.uniform(1.2, 3.0, s),
    # well separated values: no ties for max, sort, maximum
    "distinct": lambda rng, s: (rng.permutation(math.prod(s)).reshape(s) * 0.37 - 0.9
                                + rng.uniform(0, 0.05, s)),
    "mod_x": lambda rng, s: rng.uniform(2.2, 2.8, s),  # x // y stays 2
    "mod_y": lambda rng, s: rng.uniform(1.0, 1.05, s),
    "low": lambda rng, s: rng.uniform(-1.0, -0.5, s),
    "high": lambda rng, s: rng.uniform(0.5, 1.0, s),
    "wellcond": lambda rng, s: rng.uniform(-1, 1, s) + 3.0 * _eye_like(rng, s),
    "spd": lambda rng, s: (lambda m: m @ np.swapaxes(m, -1, -2) + s[-1] * _eye_like(rng, s))(
        rng.uniform(-1, 1, s)),
    "arange_start": lambda rng, s: rng.uniform(0.2, 0.3, s),  # 5 elements in [start, 4)
    "arange_step": lambda rng, s: rng.uniform(0.8, 0.85, s),
}


def sample(spec: Spec, shapes: tuple, dtype: str, seed: int) -> list[Any]:
    """One argument per domain: a Python float for shape ``None``, else an array."""
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    for shape, domain in zip(shapes, spec.domain, strict=True):
        v = DOMAINS[domain](rng, () if shape is None else shape)
        args.append(float(v) if shape is None else np.asarray(v, dtype=dtype))
    return args


def _source(i: int, spec: Spec) -> str:
    params = ", ".join(f"a{k}" for k in range(spec.nargs))
    body = spec.expr if "\n" in spec.expr else f"return {spec.expr}"
    lines = "\n".join("    " + line for line in body.splitlines())
    return (f"def f_{i}({params}):\n{lines}\n\n\n"
            f"def s_{i}({params}, w):\n    return np.sum(f_{i}({params}) * w)\n\n\n")


def _build_module(specs: tuple[Spec, ...], name: str) -> Any:
    """Write the specs' functions to a module file and import it."""
    text = ("import math\n\nimport numpy as np\n"
            "import scipy.signal  # noqa\n"  # kernels family: scipy.signal specs
            "import scipy.spatial.distance  # noqa\n"  # kernels family: distance specs
            "\nfrom st_autodiff.ir import kernels as rt\n\n\n"
            + "".join(_source(i, s) for i, s in enumerate(specs)))
    path = Path(tempfile.mkdtemp(prefix="st_differential_")) / f"{name}.py"
    path.write_text(text)
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    return module


CASES_MODULE = _build_module(SPECS, "differential_cases")
_INDEX = {s.name: i for i, s in enumerate(SPECS)}
_FRESH: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}


def functions(spec: Spec) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``f(*args)`` (the spec's expression) and ``s(*args, w) = sum(f(*args) * w)``."""
    if spec.name in _FRESH:
        return _FRESH[spec.name]
    i = _INDEX[spec.name]
    return getattr(CASES_MODULE, f"f_{i}"), getattr(CASES_MODULE, f"s_{i}")


def fresh(spec: Spec, tag: str) -> Spec:
    """A copy of ``spec`` whose functions are new (nothing compiled for them is cached):
    for tests of the harness itself, which swap a rule and expect ``check`` to fail."""
    copy = Spec(**{**spec.__dict__, "name": f"{spec.name}@{tag}"})
    module = _build_module((copy,), f"differential_fresh_{len(_FRESH)}")
    _FRESH[copy.name] = (module.f_0, module.s_0)
    return copy


def jax_function(spec: Spec) -> Callable[..., Any] | None:
    """The spec in JAX (x64 enabled), or None when JAX is missing or cannot express it."""
    if spec.jax is None:
        return None
    try:
        import jax  # noqa: PLC0415

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp  # noqa: PLC0415
    except ImportError:
        return None
    fn = spec.jax
    if not callable(fn):
        params = ", ".join(f"a{k}" for k in range(spec.nargs))
        fn = eval(f"lambda jnp, {params}: {spec.expr.replace('np.', 'jnp.')}")  # noqa: S307
    return lambda *a: fn(jnp, *a)


def _tolerance(dtype: str, expected: Any) -> dict[str, float]:
    atol, rtol = TOL[dtype]
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    return {"atol": atol * scale, "rtol": rtol}


def close(actual: Any, expected: Any, dtype: str, what: str) -> None:
    """Assert ``actual`` matches ``expected`` (same shape, within the dtype's tolerance)."""
    a, e = np.asarray(actual), np.asarray(expected)
    kind = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
    a, e = a.astype(kind), e.astype(kind)  # complex results compare in full
    assert a.shape == e.shape, f"{what}: shape {a.shape}, expected {e.shape}"
    np.testing.assert_allclose(a, e, err_msg=what, **_tolerance(dtype, e))


def kind_of(v: Any) -> Any:
    """What a caller can tell about a value besides its numbers: Python number, NumPy
    scalar or array, with dtype and shape (tuples item by item)."""
    if isinstance(v, (tuple, list)):
        return type(v).__name__, tuple(kind_of(x) for x in v)
    return type(v).__name__, str(getattr(v, "dtype", "")), np.shape(v)


def same_kind(actual: Any, expected: Any, what: str) -> None:
    """Assert the compiled code returns what the library does (``np.median(x)`` is a
    NumPy scalar, not a 0-d array; ``scipy.linalg.det`` of float32 is float64)."""
    assert kind_of(actual) == kind_of(expected), \
        f"{what}: {kind_of(actual)}, expected {kind_of(expected)}"


def _f64(args: list[Any]) -> list[Any]:
    return [a if isinstance(a, float) else np.asarray(a, dtype=np.float64) for a in args]


def _moved(args: list[Any], dirs: list[Any], h: float) -> list[Any]:
    return [a + h * d for a, d in zip(args, dirs, strict=True)]


def _directions(args: list[Any], seed: int) -> list[Any]:
    rng = np.random.default_rng(seed + 1000)
    return [float(rng.uniform(-1, 1)) if isinstance(a, float)
            else rng.uniform(-1, 1, np.shape(a)).astype(np.float64) for a in args]


def _dot(xs: list[Any], ys: list[Any]) -> float:
    return float(sum(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64))
                     for x, y in zip(xs, ys, strict=True)))


def check(spec: Spec, shapes: tuple, dtype: str, mode: str, seed: int = 0,
          use_jax: bool = True) -> list[str]:
    """Run one case; assert agreement; return the oracles it was compared with
    (``use_jax=False``: not JAX, whose compiling of each new shape and dtype costs more
    than the rest of the case; central differences and the eager runtime still run)."""
    f, s = functions(spec)
    args = sample(spec, shapes, dtype, seed)
    x64 = _f64(args)
    v = _directions(args, seed)
    out = f(*args)
    real_spectrum = np.iscomplexobj(out) and not np.any(np.imag(out))
    if real_spectrum:
        out = np.real(out)  # NumPy 2.5's eig: a real spectrum in complex arrays, taken as real
    w = np.random.default_rng(seed + 2000).uniform(-1, 1, np.shape(out))
    w = float(w) if isinstance(out, float) else np.asarray(w, dtype=np.asarray(out).dtype)
    h = spec.extra.get("h", H)
    dtype = spec.extra.get("tol", dtype)
    jf = jax_function(spec) if use_jax else None
    oracles = ["fd"]
    n = spec.nargs
    if mode == "vjp":
        value, pullback = st.vjp(f, *args)
        close(value, out, dtype, "value")
        if not real_spectrum:
            same_kind(value, out, "value's kind")
        grads = pullback(w)
        grads = grads if isinstance(grads, tuple) else (grads,)
        for a, g in zip(args, grads, strict=True):
            if isinstance(a, np.ndarray):
                assert np.asarray(g).dtype == a.dtype, \
                    f"cotangent dtype {np.asarray(g).dtype} for a {a.dtype} argument"
        fd = (np.sum(f(*_moved(x64, v, h)) * w) - np.sum(f(*_moved(x64, v, -h)) * w)) / (2 * h)
        close(_dot(list(grads), v), fd, dtype, "<vjp(w), v> vs <w, J v> (central differences)")
        if jf is not None:
            jout, jpull = __import__("jax").vjp(jf, *args)
            # JAX wants the cotangent in its output's dtype, which may differ from
            # NumPy's (SciPy's xlogy(float, float32 array) is float64, JAX's float32)
            jw = w if isinstance(w, tuple) else np.asarray(w, np.asarray(jout).dtype)
            for k, (g, jg) in enumerate(zip(grads, jpull(jw), strict=True)):
                close(g, jg, dtype, f"vjp argument {k} vs JAX")
            oracles.append("jax")
        if spec.eager is not None and any(isinstance(a, np.ndarray) for a in args):
            _check_eager(spec, args, w, grads, dtype)
            oracles.append("eager")
    elif mode == "jvp":
        value, tangent = st.jvp(f, tuple(args), tuple(_like(a, d) for a, d in zip(args, v)))
        close(value, out, dtype, "value")
        if not real_spectrum:
            same_kind(value, out, "value's kind")
        fd = (np.asarray(f(*_moved(x64, v, h))) - np.asarray(f(*_moved(x64, v, -h)))) / (2 * h)
        close(tangent, fd, dtype, "jvp vs central differences")
        if jf is not None:
            _, jt = __import__("jax").jvp(jf, tuple(args), tuple(_like(a, d)
                                                              for a, d in zip(args, v)))
            close(tangent, jt, dtype, "jvp vs JAX")
            oracles.append("jax")
    elif mode == "hvp_fwd":  # forward over reverse, one gradient per argument
        tangents = tuple(_like(a, d) for a, d in zip(args, v))
        for k in range(n):
            gk = st.grad(s, wrt=k)
            fd = (gk(*_moved(x64, v, h), w) - gk(*_moved(x64, v, -h), w)) / (2 * h)
            _, hv = st.jvp(gk, (*args, w), (*tangents, None))
            close(hv, fd, dtype, f"Hv (forward over reverse) argument {k} vs differences")
            if jf is not None:
                import jax  # noqa: PLC0415

                def js(*a: Any) -> Any:
                    return (jf(*a) * w).sum()

                _, jhv = jax.jvp(jax.grad(js, argnums=k), tuple(args), tangents)
                close(hv, jhv, dtype, f"Hv argument {k} vs JAX")
        if jf is not None:
            oracles.append("jax")
    else:  # reverse over reverse, one gradient per argument: <u, H v> = <H u, v>
        u = _directions(args, seed + 7)
        lhs = rhs = 0.0
        for k in range(n):
            gk = st.grad(s, wrt=k)
            fd = (gk(*_moved(x64, v, h), w) - gk(*_moved(x64, v, -h), w)) / (2 * h)
            _, pullback = st.vjp(gk, *args, w)
            lhs += _dot(list(pullback(_like(args[k], u[k])))[:n], v)
            rhs += _dot([u[k]], [fd])
        close(lhs, rhs, dtype, "<H u, v> (reverse over reverse) vs differences")
    return oracles


def _like(a: Any, d: Any) -> Any:
    """A direction in ``a``'s type: a Python float, or an array of ``a``'s dtype."""
    return float(d) if isinstance(a, float) else np.asarray(d, dtype=a.dtype)


def _check_eager(spec: Spec, args: list[Any], w: Any, grads: tuple, dtype: str) -> None:
    """The eager runtime (PyTorch-style Tensors) runs the op and ``backward(w)``."""
    from st_autodiff.runtime.tensor_ops import apply_op  # noqa: PLC0415

    ts = [a if isinstance(a, float) else st.tensor(a, requires_grad=True) for a in args]
    if callable(spec.eager):  # kernels family: a runtime function (torch.cdist) on Tensors
        out = spec.eager(*ts)
    else:
        op, params = spec.eager
        out = apply_op(op, *ts, **params)
    out.backward(st.tensor(np.asarray(w, dtype=np.asarray(out.detach().numpy()).dtype)))
    for k, (t, g) in enumerate(zip(ts, grads, strict=True)):
        if not isinstance(t, float):
            assert t.grad is not None, f"eager: argument {k} got no gradient"
            close(t.grad.numpy(), g, dtype, f"eager runtime gradient of argument {k}")
