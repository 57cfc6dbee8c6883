"""ODE solves (``scipy.integrate.odeint`` and ``solve_ivp``) as compiled kernels whose
derivatives come from more ODE solves: the adjoint system in reverse mode, the forward
sensitivity equations in forward mode; and ``quad`` (``QuadKernel``, Leibniz's rule).

A kernel is made per right-hand side ``func`` (a Python function the user wrote, taken
as a static value by identity, as ``transforms/callable_args`` takes functions passed as
arguments) and per static solver options.  Compiled code calls it as it is, so the values
are SciPy's own, bit for bit.  Its rules call the same SciPy integrator on an augmented
system whose right-hand side calls the derivatives of ``func`` that st_autodiff compiles
itself (``st.vjp`` / ``st.jvp`` of ``func``, compiled once per argument kinds).

Derivation.  ``y' = f(t, y, p)`` from ``y(t0) = y0``, read at the times ``tau_k`` (for
``odeint`` the grid ``t`` with ``tau_0 = t0``; for ``solve_ivp`` ``t_eval``).  For a
cotangent ``G_k`` on each ``y(tau_k)``:

* the adjoint ``a`` jumps by ``G_k`` at ``tau_k`` and between readings solves
  ``a' = -a df/dy`` backwards, together with ``pbar' = -a df/dp`` (``pbar`` starts at zero
  at the last reading): ``y0_bar = a(t0)``, ``p_bar = pbar(t0)``.  The state ``y(t)``
  these read comes from a dense forward solve started at the stored earlier reading (an
  interpolated adjoint; integrating ``y`` backwards with them, as a backsolve adjoint
  does, is unstable for dissipative systems);
* moving a reading time moves only that reading: ``tau_k_bar = G_k . f(tau_k, y_k)``;
* moving ``t0`` with ``y0`` fixed shifts the whole trajectory: ``t0_bar = -a(t0) . f(t0,
  y0)`` (with ``a(t0)`` including ``G`` of a reading at ``t0``, which cancels that
  reading's own ``tau_bar``: ``y(t0) = y0`` does not move).

Forward mode integrates ``s' = df/dy s + df/dp p_dot`` with ``y`` from ``s(t0) = y0_dot -
f(t0, y0) t0_dot``; the tangent of reading ``k`` is ``s(tau_k) + f(tau_k, y_k) tau_k_dot``.

Accuracy: these derivatives are those of the exact solution, computed to the solver's
tolerance (the same ``rtol``/``atol`` as the call), not the derivatives of the floating
point steps the solver took: expect agreement with finite differences to about the
tolerance, not to machine precision.  The rules are SciPy calls, not code the compiler
reads, so a second derivative is a located error (the rule cannot be differentiated
again), never a wrong value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..derivatives import CUSTOM_VJPS
from ..derivatives.jvp import CUSTOM_JVPS
from ..transforms.call_types import OUT_TYPES, ShapeDtype


def _integrate() -> Any:
    import scipy.integrate  # noqa: PLC0415 (optional dependency: a caller has imported it)

    return scipy.integrate


def _products() -> Any:
    from .. import products  # noqa: PLC0415 (products imports the compiler: lazily)

    return products


def is_float(v: Any) -> bool:
    """Whether ``v`` carries a derivative (a float, or an array of floats)."""
    if isinstance(v, float):
        return True
    dt = getattr(v, "dtype", None)
    return dt is not None and np.dtype(dt).kind == "f"


def _unreadable(examples: Any) -> None:
    """``st_readable_for`` of the rules: they are SciPy calls, not code the compiler
    reads, so differentiating them again is a located error."""
    return None


class Problem:
    """The static part of one ODE solve: the right-hand side, how it takes its arguments
    (``tfirst``), which solver runs it and with which options."""

    def __init__(self, func: Any, tfirst: bool, solver: str, method: str,
                 options: dict[str, Any]) -> None:
        self.func, self.tfirst, self.solver, self.method = func, tfirst, solver, method
        self.options = options
        self.name = getattr(func, "__name__", None) or type(func).__name__
        self._pair: Any = None  # the compiled VJP of ``func`` for one adjoint solve

    def pullbacks(self) -> None:
        """Forget the compiled VJP: each adjoint solve looks it up once (with its guards:
        a changed global or closure of ``func`` recompiles), then calls it directly."""
        self._pair = None

    # --- the right-hand side and its derivatives -------------------------------------

    def call_args(self, t: Any, y: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (t, y, *args) if self.tfirst else (y, t, *args)

    def f(self, t: Any, y: Any, args: tuple[Any, ...]) -> Any:
        return np.asarray(self.func(*self.call_args(t, y, args)), dtype=np.float64).ravel()

    def vjp(self, t: Any, y: Any, args: tuple[Any, ...], a: Any) -> tuple[Any, Any, list[Any]]:
        """``f``, ``a . df/dy`` and ``a . df/dp`` for each argument (flat, or None)."""
        call = self.call_args(float(t), y, args)
        pair = self._pair
        if pair is None or pair[0] is not y.dtype:  # (reset by ``pullbacks``)
            pair = self._pair = (y.dtype, _split(self.func, call))
        grads = pair[1](call, a) if pair[1] is not None else None
        if grads is None:
            out, back = _products().vjp(self.func, *call)
            grads = (out, *back(_like(out, a)))
        out, grads = grads[0], grads[1:]
        gy, gargs = (grads[1], grads[2:]) if self.tfirst else (grads[0], grads[2:])
        flat = [None if g is None else np.ravel(np.asarray(g, dtype=np.float64))
                for g in gargs]
        return (np.asarray(out, dtype=np.float64).ravel(), _flat_or_zeros(gy, y), flat)

    def jvp(self, t: Any, y: Any, args: tuple[Any, ...], s: Any,
            dots: tuple[Any, ...]) -> tuple[Any, Any]:
        """``f`` and ``df/dy s + df/dp dots`` (``None`` dots are zero)."""
        primals = self.call_args(t, y, args)
        tangents = self.call_args(None, s, dots)
        out, tan = _products().jvp(self.func, primals, tangents)
        out = np.asarray(out, dtype=np.float64).ravel()
        return out, _flat_or_zeros(tan, out)

    # --- the integrator --------------------------------------------------------------

    def atol_for(self, n: int, m: int) -> Any:
        """``atol`` for an augmented state of ``m`` values whose first ``n`` are ``y``."""
        atol = self.options.get("atol")
        if atol is None or np.ndim(atol) == 0:
            return atol
        atol = np.asarray(atol, dtype=np.float64)
        return np.concatenate((atol, np.full(m - n, atol.min())))

    def segment(self, rhs: Callable[..., Any], z: Any, t_from: float, t_to: float,
                atol: Any) -> Any:
        """The state at ``t_to`` of ``z' = rhs(t, z)`` from ``z`` at ``t_from``."""
        si = _integrate()
        if self.solver == "odeint":
            opts = {k: v for k, v in self.options.items() if k not in ("atol", "h0")}
            return si.odeint(rhs, z, np.array([t_from, t_to]), tfirst=True, atol=atol,
                             **opts)[-1]
        opts = {k: v for k, v in self.options.items()
                if k not in ("atol", "first_step", "vectorized")}
        sol = si.solve_ivp(rhs, (t_from, t_to), z, method=self.method, atol=_ivp_atol(atol),
                           **opts)
        _check(sol, "the adjoint solve of solve_ivp")
        return sol.y[:, -1]

    def dense(self, t_from: float, t_to: float, y: Any,
              args: tuple[Any, ...]) -> Callable[..., Any]:
        """``y(t)`` on ``[t_from, t_to]`` from ``y`` at ``t_from``: SciPy's dense output of
        the same method (LSODA for ``odeint``, whose algorithm it is), same tolerances."""
        o = self.options
        if self.solver == "odeint":
            tol = {"rtol": o.get("rtol") or _ODEINT_TOL, "atol": _ODEINT_TOL
                   if o.get("atol") is None else o["atol"]}
            if o.get("hmax"):
                tol["max_step"] = o["hmax"]
            method = "LSODA"
        else:
            tol = {k: v for k, v in o.items() if k not in ("first_step", "vectorized")}
            method = self.method
        sol = _integrate().solve_ivp(lambda t, v: self.f(t, v, args), (t_from, t_to), y,
                                     method=method, dense_output=True, **tol)
        _check(sol, "the forward solve of the adjoint")
        return cast(Callable[..., Any], sol.sol)

    def grid(self, rhs: Callable[..., Any], z: Any, t0: float, times: Any, tf: float,
             atol: Any) -> Any:
        """The states ``(len(times), m)`` of ``z' = rhs(t, z)`` from ``z`` at ``t0``."""
        si = _integrate()
        if self.solver == "odeint":
            opts = {k: v for k, v in self.options.items() if k not in ("atol", "h0")}
            return si.odeint(rhs, z, times, tfirst=True, atol=atol, **opts)
        opts = {k: v for k, v in self.options.items()
                if k not in ("atol", "first_step", "vectorized")}
        sol = si.solve_ivp(rhs, (t0, tf), z, method=self.method, t_eval=times,
                           atol=_ivp_atol(atol), **opts)
        _check(sol, "the tangent solve of solve_ivp")
        return sol.y.T


_ODEINT_TOL = 1.49012e-8  # odeint's default rtol and atol


def _ivp_atol(atol: Any) -> Any:
    return 1e-6 if atol is None else atol  # solve_ivp's default


def _check(sol: Any, what: str) -> None:
    if sol.status < 0:
        raise RuntimeError(f"{what} failed: {sol.message}")


def _split(func: Any, call: tuple[Any, ...]) -> Callable[..., Any] | None:
    """``(call, a) -> (f, *grads)``: the generated forward and backward functions of
    ``st.vjp(func)`` called directly (what ``st.vjp`` does on every call, less its
    argument checks and cache look-up), where the arguments are plain and the output one
    array; ``None`` otherwise (``st.vjp`` itself is used)."""
    products = _products()
    flat, floats, g = products._vjp_function(func, call, None)
    if flat.key is not None:
        return None
    fwd, bwd = g.split(*flat.leaves)
    spec = g._last.out_tree  # noqa: SLF001  (how st.vjp reads the outputs)
    out, residuals = fwd(*call)
    if not isinstance(out, np.ndarray) or products.trees.leaves_like(
            spec, out, "the output", none_is_leaf=False)[0] is not out:
        return None
    n = len(call)

    def run(call: tuple[Any, ...], a: Any) -> tuple[Any, ...]:
        out, residuals = fwd(*call)
        grads = bwd(*residuals, np.reshape(a, out.shape).astype(out.dtype, copy=False))
        grads = grads if isinstance(grads, tuple) else (grads,)
        leaves: list[Any] = [None] * n
        for k, gk in zip(floats, grads):
            leaves[k] = gk
        return (out, *leaves)

    return run


def _like(out: Any, a: Any) -> Any:
    """The cotangent ``a`` (flat float64) in the structure of ``func``'s output."""
    if isinstance(out, (list, tuple)):
        return type(out)(float(v) for v in a)
    if isinstance(out, float):
        return float(a[0])
    return np.reshape(a, np.shape(out)).astype(getattr(out, "dtype", np.float64))


def _flat_or_zeros(v: Any, like: Any) -> Any:
    if v is None:
        return np.zeros(np.size(like))
    if isinstance(v, (list, tuple)):
        v = [0.0 if x is None else x for x in v]
    return np.asarray(v, dtype=np.float64).ravel()


def _pack(args: tuple[Any, ...]) -> list[int]:
    """The sizes of the floating-point arguments in ``pbar`` (0 for the others)."""
    return [int(np.size(a)) if is_float(a) else 0 for a in args]


def adjoint(problem: Problem, t0: float, y0: Any, times: Any, ys: Any, g: Any, args: tuple[Any, ...]
            ) -> tuple[Any, float, Any, list[Any]]:
    """``(y0_bar, t0_bar, times_bar, arg_bars)`` for readings ``ys[k] = y(times[k])`` with
    cotangents ``g[k]`` (see the module docstring).  Between two readings the state comes
    from a dense forward solve started at the earlier reading (an interpolated adjoint):
    integrating the state itself backwards, as a backsolve adjoint does, amplifies its
    error like ``exp(|df/dy| dt)`` and gave wrong gradients on dissipative systems."""
    n = np.size(y0)
    sizes = _pack(args)
    atol = problem.options.get("atol")
    atol = None if atol is None else float(np.min(atol))
    problem.pullbacks()

    def backward(state: Callable[[float], Any]) -> Callable[..., Any]:
        def rhs(t: float, z: Any) -> Any:
            _, gy, gp = problem.vjp(t, state(t), args, z[:n])
            return np.concatenate([-gy] + [np.zeros(s) if gk is None else -gk
                                           for gk, s in zip(gp, sizes) if s])

        return rhs

    times = np.asarray(times, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64).reshape(len(times), n)
    ys = np.asarray(ys, dtype=np.float64).reshape(len(times), n)
    y0_flat = np.asarray(y0, dtype=np.float64).ravel()
    a = np.zeros(n)
    pbar = np.zeros(sum(sizes))
    times_bar = np.zeros(len(times))
    for k in range(len(times) - 1, -1, -1):
        a = a + g[k]
        times_bar[k] = problem.f(times[k], ys[k], args) @ g[k]
        t_prev, y_prev = (times[k - 1], ys[k - 1]) if k > 0 else (t0, y0_flat)
        if t_prev != times[k]:
            state = problem.dense(t_prev, times[k], y_prev, args)
            z = problem.segment(backward(state), np.concatenate((a, pbar)), times[k], t_prev,
                                atol)
            a, pbar = z[:n], z[n:]
    t0_bar = -float(a @ problem.f(t0, y0_flat, args))
    arg_bars: list[Any] = []
    offset = 0
    for arg, s in zip(args, sizes):
        arg_bars.append(None if not s else np.reshape(pbar[offset:offset + s], np.shape(arg)))
        offset += s
    return a, t0_bar, times_bar, arg_bars


def tangent(problem: Problem, t0: float, y0: Any, times: Any, tf: float, args: tuple[Any, ...],
            t0_dot: Any, y0_dot: Any, times_dot: Any, arg_dots: tuple[Any, ...]) -> Any:
    """The tangents ``(len(times), n)`` of the readings (see the module docstring)."""
    y0 = np.asarray(y0, dtype=np.float64).ravel()
    n = np.size(y0)
    dots = tuple(d if d is not None and is_float(a) else None
                 for d, a in zip(arg_dots, args))

    def rhs(t: float, z: Any) -> Any:
        return np.concatenate(problem.jvp(t, z[:n], args, z[n:], dots))

    s0 = np.zeros(n) if y0_dot is None else np.asarray(y0_dot, dtype=np.float64).ravel()
    if t0_dot is not None:
        s0 = s0 - problem.f(t0, y0, args) * float(t0_dot)
    times = np.asarray(times, dtype=np.float64)
    z = problem.grid(rhs, np.concatenate((y0, s0)), t0, times, tf, problem.atol_for(n, 2 * n))
    out = z[:, n:].copy()
    if times_dot is not None:
        for k, tk in enumerate(times):
            if times_dot[k] != 0:
                out[k] += problem.f(tk, z[k, :n], args) * float(times_dot[k])
    return out


# --- kernels ------------------------------------------------------------------------------


class OdeintKernel:
    """``scipy.integrate.odeint(func, y0, t, args=args, **options)`` as compiled code
    calls it: ``kernel(y0, t, *args)``."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.__name__ = self.__qualname__ = f"odeint_{_identifier(problem.name)}"

    def __call__(self, y0: Any, t: Any, *args: Any) -> Any:
        p = self.problem
        return _integrate().odeint(p.func, y0, t, args=tuple(args), tfirst=p.tfirst,
                                   **p.options)

    def vjp(self, g: Any, out: Any, y0: Any, t: Any, *args: Any) -> tuple[Any, ...]:
        t = np.asarray(t, dtype=np.float64)
        y0_bar, t0_bar, t_bar, arg_bars = adjoint(self.problem, float(t[0]), y0, t, out, g,
                                                  args)
        t_bar[0] += t0_bar
        return (np.reshape(y0_bar, np.shape(y0)), t_bar, *arg_bars)

    def jvp(self, y0: Any, t: Any, *rest: Any) -> Any:
        k = len(rest) // 2
        args, (ty0, tt, *targs) = rest[:k - 1], rest[k - 1:]
        t = np.asarray(t, dtype=np.float64)
        return tangent(self.problem, float(t[0]), y0, t, float(t[-1]), args,
                       None if tt is None else tt[0], ty0, tt, tuple(targs))

    def out_type(self, y0: Any, t: Any, *args: Any) -> ShapeDtype:
        return ShapeDtype((_length(t), _length(y0)), np.float64)


class IvpKernel:
    """``scipy.integrate.solve_ivp(fun, (t0, tf), y0, method, t_eval, args=args,
    **options)`` as compiled code calls it: ``kernel(t0, tf, y0, t_eval, *args)``,
    returning ``(sol.t, sol.y)``.  A failed solve is a ``RuntimeError`` (its arrays would
    not have the shape the compiled code was typed with)."""

    def __init__(self, problem: Problem, n_eval: int) -> None:
        self.problem, self.n_eval = problem, n_eval
        self.__name__ = self.__qualname__ = f"solve_ivp_{_identifier(problem.name)}"

    def __call__(self, t0: Any, tf: Any, y0: Any, t_eval: Any, *args: Any) -> tuple[Any, Any]:
        p = self.problem
        sol = _integrate().solve_ivp(p.func, (t0, tf), y0, method=p.method, t_eval=t_eval,
                                     args=tuple(args) if args else None, **p.options)
        _check(sol, "solve_ivp")
        return sol.t, sol.y

    def vjp(self, g: Any, out: Any, t0: Any, tf: Any, y0: Any, t_eval: Any, *args: Any
            ) -> tuple[Any, ...]:
        gt, gy = g
        times, ys = out
        y0_bar, t0_bar, times_bar, arg_bars = adjoint(self.problem, float(t0), y0, times,
                                                      np.transpose(ys), np.transpose(gy),
                                                      args)
        t_eval_bar = times_bar if gt is None else times_bar + gt  # sol.t is t_eval
        return (t0_bar, 0.0, np.reshape(y0_bar, np.shape(y0)), t_eval_bar, *arg_bars)

    def jvp(self, t0: Any, tf: Any, y0: Any, t_eval: Any, *rest: Any) -> tuple[Any, Any]:
        k = (len(rest) - 4) // 2  # the args, then one tangent per input
        args = rest[:k]
        t0_dot, _tf_dot, y0_dot, te_dot, *arg_dots = rest[k:]
        times = np.asarray(t_eval, dtype=np.float64)
        ys_dot = tangent(self.problem, float(t0), y0, times, float(tf), args, t0_dot, y0_dot,
                         te_dot, tuple(arg_dots))
        t_dot = np.zeros(len(times)) if te_dot is None else np.asarray(te_dot,
                                                                      dtype=np.float64)
        return t_dot, np.transpose(ys_dot)

    def out_type(self, t0: Any, tf: Any, y0: Any, *rest: Any) -> tuple[Any, Any]:
        return (ShapeDtype((self.n_eval,), np.float64),
                ShapeDtype((_length(y0), self.n_eval), np.float64))


class QuadKernel:
    """``scipy.integrate.quad(func, a, b, args=args, **options)`` as compiled code calls
    it: ``kernel(a, b, *args) -> (y, abserr)``.  ``dy = f(b) db - f(a) da + int_a^b
    df/dp dp dx`` (Leibniz); the integral of the parameter gradient is ``quad_vec`` of
    ``st.vjp`` of ``func`` (forward mode: ``quad`` of ``st.jvp``), at the same tolerances.
    An infinite limit moves nothing (its term is zero); the error estimate has no
    derivative."""

    def __init__(self, func: Any, options: dict[str, Any]) -> None:
        self.func, self.options = func, options
        name = getattr(func, "__name__", None) or type(func).__name__
        self.__name__ = self.__qualname__ = f"quad_{_identifier(name)}"

    def __call__(self, a: Any, b: Any, *args: Any) -> tuple[Any, Any]:
        return tuple(_integrate().quad(self.func, a, b, args=tuple(args), **self.options))

    def _edge(self, x: Any, args: tuple[Any, ...]) -> float:
        return 0.0 if not np.isfinite(x) else float(self.func(x, *args))

    def _eps(self) -> dict[str, Any]:
        return {k: v for k, v in self.options.items() if k in ("epsabs", "epsrel")}

    def vjp(self, g: Any, out: Any, a: Any, b: Any, *args: Any) -> tuple[Any, ...]:
        gy = 0.0 if g[0] is None else float(g[0])
        sizes = _pack(args)
        bars: list[Any] = [None] * len(args)
        if sum(sizes):
            def integrand(x: float) -> Any:
                _, back = _products().vjp(self.func, x, *args)
                grads = back(1.0)[1:]
                return np.concatenate([np.ravel(np.asarray(gk, dtype=np.float64))
                                       for gk, s in zip(grads, sizes) if s])

            flat = _integrate().quad_vec(integrand, a, b, **self._eps())[0] * gy
            offset = 0
            for k, (arg, s) in enumerate(zip(args, sizes)):
                if s:
                    bars[k] = np.reshape(flat[offset:offset + s], np.shape(arg))
                    offset += s
        return (-gy * self._edge(a, args), gy * self._edge(b, args), *bars)

    def jvp(self, a: Any, b: Any, *rest: Any) -> tuple[Any, Any]:
        k = (len(rest) - 2) // 2  # the args, then one tangent per input
        args = rest[:k]
        ta, tb, *targs = rest[k:]
        dy = 0.0
        if tb is not None:
            dy += self._edge(b, args) * float(tb)
        if ta is not None:
            dy -= self._edge(a, args) * float(ta)
        dots = tuple(d if d is not None and is_float(x) else None
                     for d, x in zip(targs, args))
        if any(d is not None for d in dots):
            def integrand(x: float) -> float:
                return float(_products().jvp(self.func, (x, *args), (None, *dots))[1])

            dy += _integrate().quad(integrand, a, b, **self.options)[0]
        return dy, 0.0

    def out_type(self, a: Any, b: Any, *args: Any) -> tuple[Any, Any]:
        return (float, float)


def _length(v: Any) -> int:
    """The length of a 1-d argument as ``out_type`` sees it (a ``ShapeDtype``, a constant
    or a list), 1 for a number."""
    shape = getattr(v, "shape", None)
    if shape is None:
        return len(v) if isinstance(v, (list, tuple)) else 1
    return 1 if not shape else int(shape[0])


def _identifier(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "func"


_KERNELS: dict[Any, Any] = {}


def kernel(key: Any, make: Callable[[], Any]) -> Any:
    """The kernel for ``key`` (made once, its rules and type registered for
    ``register_vjp``'s tables)."""
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = make()
        vjp, jvp = _rule(found.vjp), _rule(found.jvp)
        CUSTOM_VJPS[found] = vjp
        CUSTOM_JVPS[found] = jvp
        OUT_TYPES[found] = found.out_type
    return found


def _rule(method: Any) -> Callable[..., Any]:
    """A plain function calling ``method`` that the compiler will not read again."""

    def rule(*args: Any) -> Any:
        return method(*args)

    rule.__name__ = rule.__qualname__ = f"{method.__self__.__name__}_{method.__name__}"
    rule.st_readable_for = _unreadable  # type: ignore[attr-defined]
    return rule
