"""A typed program using st_autodiff, checked with ``mypy --strict`` by the test suite.

Gradient functions keep the parameters of the function they differentiate, so a type
checker catches a call with the wrong arguments; the eager ``Tensor`` is typed too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import st_autodiff as st

Array = npt.NDArray[np.float64]


def loss(w: Array, x: Array, y: Array) -> np.floating[Any]:
    """Mean squared error of a linear model."""
    return np.mean((x @ w - y) ** 2)


def main() -> None:
    """Fit ``w`` by gradient descent with the compiled gradient, then check it eagerly."""
    rng = np.random.default_rng(0)
    x: Array = rng.normal(size=(50, 3))
    y: Array = x @ np.array([1.0, -2.0, 0.5])
    w: Array = np.zeros(3)
    dloss = st.grad(loss)
    for _ in range(300):
        w = w - 0.1 * dloss(w, x, y)
    value, grads = st.value_and_grad(loss, wrt=(0,))(w, x, y)
    print(np.round(w, 3), float(value) < 1e-12, len(grads))

    t = st.tensor(w, requires_grad=True)
    out = (st.tensor(x) @ t - st.tensor(y)).pow(2).mean()
    out.backward()
    assert t.grad is not None
    print(bool(st.allclose(t.grad, st.tensor(dloss(w, x, y)), atol=1e-9)))
    p = st.nn.Parameter(st.zeros(3))  # Tensor and its subclasses are constructible
    assert bool((p == 0).all())  # == compares elementwise: a Tensor


if __name__ == "__main__":
    main()
