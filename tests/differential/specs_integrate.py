"""Differential specs of ``scipy.integrate.odeint`` and ``solve_ivp`` (the ode family).

Each spec's body imports the solver and a right-hand side defined here (the solver's
function is a static value: a module-level function).  The derivatives come from the
adjoint / forward sensitivity solves, accurate to the solver's tolerance, so the specs
solve at ``rtol = atol = 1e-10``.  JAX's ``jax.experimental.ode.odeint`` (Dormand-Prince,
its own adjoint) has no forward mode, so the JAX oracle is a fine fixed-step Runge-Kutta
written in JAX and differentiated by JAX, on float64 copies of the arguments.
Second order is a located error (``order2=False``; see tests/test_rules_integrate.py).
The sampled rules (``trapezoid``, ``simpson``, ``cumulative_trapezoid``) are compiled
from SciPy's source and checked in every mode, second order included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from st_autodiff.ir.ops import Op

from .specs import Spec

_TOL = "rtol=1e-10, atol=1e-10"
_GRID = (0.0, 0.4, 0.9, 1.5)


def decay(y: Any, t: Any, k: Any) -> Any:
    return -k * y


def linear(y: Any, t: Any, a: Any) -> Any:
    return a @ y


def lotka(y: Any, t: Any, p: Any) -> Any:
    return np.array([p[0] * y[0] - p[1] * y[0] * y[1], p[1] * y[0] * y[1] - 0.7 * y[1]])


def lotka_ivp(t: Any, y: Any, a: Any, b: Any) -> Any:
    return np.array([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.7 * y[1]])


def bump(x: Any, s: Any, c: Any) -> Any:
    """A Gaussian bump, the integrand of the ``quad`` spec."""
    return np.exp(-s * (x - c) ** 2)


def _body(call: str, rhs: str | None, names: str = "odeint, solve_ivp") -> str:
    """A spec body: import ``names`` from ``scipy.integrate`` and the right-hand side
    ``rhs`` from this module, then return ``call``."""
    imports = f"from {__name__} import {rhs}\n" if rhs else ""
    return f"from scipy.integrate import {names}\n{imports}return {call}"


def _jax_rk4(rhs: Any, y0: Any, ts: Any, *args: Any, steps: int = 400) -> Any:
    """The readings at ``ts`` of classical Runge-Kutta with ``steps`` fixed steps per
    interval, in JAX (float64): differentiable in both modes by JAX itself (its own
    ``jax.experimental.ode.odeint`` has a custom VJP and no forward mode), and exact to
    about 1e-11 on these problems."""
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415

    y0, ts, *args = [jnp.asarray(a, jnp.float64) for a in (y0, ts, *args)]

    def interval(y: Any, ends: Any) -> Any:
        t0, t1 = ends
        h = (t1 - t0) / steps

        def step(y: Any, i: Any) -> Any:
            t = t0 + i * h
            k1 = rhs(y, t, *args)
            k2 = rhs(y + h / 2 * k1, t + h / 2, *args)
            k3 = rhs(y + h / 2 * k2, t + h / 2, *args)
            k4 = rhs(y + h * k3, t + h, *args)
            return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), None

        y, _ = jax.lax.scan(step, y, jnp.arange(steps))
        return y, y

    _, ys = jax.lax.scan(interval, y0, (ts[:-1], ts[1:]))
    return jnp.concatenate([y0[None], ys])


def _jax_lotka(jnp: Any) -> Any:
    def rhs(y: Any, t: Any, p: Any) -> Any:
        return jnp.stack([p[0] * y[0] - p[1] * y[0] * y[1], p[1] * y[0] * y[1] - 0.7 * y[1]])

    return rhs


def _jax_lotka_ab(jnp: Any) -> Any:
    def rhs(y: Any, t: Any, a: Any, b: Any) -> Any:
        return jnp.stack([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.7 * y[1]])

    return rhs


SPECS_INTEGRATE: tuple[Spec, ...] = (
    Spec("odeint-decay", _body(f"odeint(decay, a0, np.array({_GRID}), args=(a1,), {_TOL})",
                               "decay"),
         (Op.CALL,), (((2,), None), ((3,), ())), ("real", "positive"), None, order2=False,
         jax=lambda jnp, a0, a1: _jax_rk4(decay, a0, jnp.array(_GRID), a1)),
    Spec("odeint-linear", _body(f"odeint(linear, a0, np.array({_GRID}), args=(a1,), {_TOL})",
                                "linear"),
         (Op.CALL,), (((2,), (2, 2)),), ("real", "unit"), None, order2=False,
         jax=lambda jnp, a0, a1: _jax_rk4(linear, a0, jnp.array(_GRID), a1)),
    Spec("odeint-lotka-grid",
         _body(f"odeint(lotka, a0, np.cumsum(a2), args=(a1,), {_TOL})", "lotka"),
         (Op.CALL,), (((2,), (2,), (4,)),), ("positive", "positive", "prob"), None,
         order2=False, extra={"h": 1e-5},
         jax=lambda jnp, a0, a1, a2: _jax_rk4(_jax_lotka(jnp), a0, jnp.cumsum(a2), a1)),
    Spec("solve_ivp-lotka",
         _body("solve_ivp(lotka_ivp, (a2, 2.0), a0, t_eval=np.linspace(a2, 2.0, 4), "
               f"args=(a1[0], a1[1]), {_TOL}).y", "lotka_ivp"),
         (Op.CALL,), (((2,), (2,), None),), ("positive", "positive", "prob"), None,
         order2=False, extra={"h": 1e-5},
         jax=lambda jnp, a0, a1, a2: _jax_rk4(_jax_lotka_ab(jnp), a0,
                                              jnp.linspace(a2, 2.0, 4), a1[0], a1[1]).T),
    Spec("solve_ivp-radau",
         _body("solve_ivp(lotka_ivp, (0.0, 1.5), a0, method='Radau', t_eval=[0.5, 1.5], "
               f"args=(a1, 0.4), {_TOL}).y", "lotka_ivp"),
         (Op.CALL,), (((2,), None),), ("positive", "positive"), None, order2=False,
         jax=lambda jnp, a0, a1: _jax_rk4(_jax_lotka_ab(jnp), a0, jnp.array([0.0, 0.5, 1.5]),
                                          a1, 0.4)[1:].T),
    # the sampled rules, compiled from SciPy's Python source (second order included);
    # x = cumsum of positive steps: increasing, as simpson's uneven spacing needs
    Spec("scipy-trapezoid",
         _body("trapezoid(a0 ** 2, np.cumsum(a1), axis=-1)", None, "trapezoid"),
         (Op.CUMSUM, Op.MUL),
         (((5,), (5,)), ((2, 5), (5,))), ("real", "positive"), None,
         jax=lambda jnp, a0, a1: __import__("jax.scipy.integrate").scipy.integrate.trapezoid(
             a0 ** 2, jnp.cumsum(a1), axis=-1)),
    # (x=: see test_rules_integrate.test_simpson_with_sample_points; an even number of
    # samples with dx= is refused: SciPy's out= into a constant array)
    Spec("scipy-simpson", _body("simpson(a0 ** 2 * a1[0], dx=0.3)", None, "simpson"),
         (Op.MUL,),
         (((5,), (5,)), ((2, 5), (5,))), ("real", "positive"), None, jax=None),
    Spec("scipy-quad", _body("quad(bump, a0, a1 + 1.0, args=(a2, 0.3), epsabs=1e-13, "
                             "epsrel=1e-13)[0]", "bump", "quad"),
         (Op.CALL,), ((None, None, None),), ("real", "positive", "positive"), None,
         order2=False, jax=None),
    Spec("scipy-cumulative_simpson",
         _body("cumulative_simpson(a0 ** 2, x=np.cumsum(a1), initial=0)", None,
               "cumulative_simpson"), (Op.CUMSUM, Op.MUL),
         (((5,), (5,)), ((2, 6), (6,))), ("real", "positive"), None, jax=None),
    Spec("scipy-cumulative_trapezoid",
         _body("cumulative_trapezoid(a0 ** 2, np.cumsum(a1), initial=0)", None,
               "cumulative_trapezoid"), (Op.CUMSUM, Op.MUL),
         (((5,), (5,)), ((2, 5), (5,))), ("real", "positive"), None, jax=None),
)
