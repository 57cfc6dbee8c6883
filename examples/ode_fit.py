"""Fit the parameters of an ODE to observations, differentiating through SciPy's solver.

``scipy.integrate.odeint`` is called as it is; its gradient comes from the adjoint ODE,
solved by the same integrator with st_autodiff's compiled VJP of ``lotka`` (see
docs/integrate.md).

Run:  python examples/ode_fit.py
"""

import numpy as np
from scipy.integrate import odeint

import st_autodiff as st

T = np.linspace(0.0, 4.0, 9)


def lotka(y, t, p):
    """Predator-prey dynamics with growth, predation and death rates ``p``."""
    prey, pred = y[0], y[1]
    return np.array([p[0] * prey - p[1] * prey * pred, p[1] * prey * pred - p[2] * pred])


def loss(p, y0, observed):
    ys = odeint(lotka, y0, T, args=(p,), rtol=1e-8, atol=1e-8)
    return np.mean((ys - observed) ** 2)


def main() -> None:
    y0 = np.array([1.0, 0.5])
    p_true = np.array([1.1, 0.4, 0.7])
    observed = odeint(lotka, y0, T, args=(p_true,), rtol=1e-10, atol=1e-10)

    value_and_grad = st.value_and_grad(loss)
    p, lr = np.array([0.9, 0.5, 0.6]), 0.01
    value, g = value_and_grad(p, y0, observed)
    for step in range(100):  # gradient descent, halving the step where the loss rises
        trial = p - lr * g
        trial_value, trial_g = value_and_grad(trial, y0, observed)
        if trial_value > value:
            lr /= 2
            continue
        p, value, g, lr = trial, trial_value, trial_g, lr * 1.2
        if step % 20 == 0:
            print(f"step {step:3d}  loss {value:.2e}  p {np.round(p, 4)}")
    print(f"fitted p {np.round(p, 3)}  (true {p_true})")


if __name__ == "__main__":
    main()
