"""What the compiler reads in place of ``scipy.integrate.odeint``, ``solve_ivp`` and
``quad`` (``select_integrate``): one call of a kernel of ``integrate_kernels``, whose
rules are the adjoint and forward sensitivity solves (for ``quad``, Leibniz's rule), and
for ``solve_ivp`` the result object."""

from __future__ import annotations

from typing import Any, NamedTuple

MESSAGE = "The solver successfully reached the end of the integration interval."


class IvpResult(NamedTuple):
    """The readable part of ``solve_ivp``'s ``OdeResult``: ``t`` and ``y`` (a failed
    solve is a ``RuntimeError`` of the kernel, so ``success`` is always true here)."""

    t: Any
    y: Any
    sol: Any
    t_events: Any
    y_events: Any
    status: int
    message: str
    success: bool


def odeint(kernel: Any, y0: Any, t: Any, *args: Any) -> Any:
    return kernel(y0, t, *args)


def solve_ivp(kernel: Any, t0: Any, tf: Any, y0: Any, *args: Any) -> Any:
    t, y = kernel(t0, tf, y0, *args)
    return IvpResult(t, y, None, None, None, 0, MESSAGE, True)


def quad(kernel: Any, a: Any, b: Any, *args: Any) -> Any:
    return kernel(a, b, *args)
