"""Quick start: differentiate a NumPy loss, read the generated adjoint, and use it.

Run:  python examples/quickstart.py
"""

import numpy as np

import st_autodiff as st


def loss(w, x, y):
    """Mean squared error of a one-layer tanh network."""
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3))
    w_true = np.array([[0.5], [-1.0], [2.0]])
    y = np.tanh(x @ w_true)

    dloss = st.grad(loss)  # gradient with respect to the first argument, w
    w = np.zeros((3, 1))
    for _ in range(200):  # plain gradient descent with the generated adjoint
        w -= 0.5 * dloss(w, x, y)

    print("generated adjoint (dloss.source):\n")
    print(dloss.source)
    print(f"loss after 200 steps: {loss(w, x, y):.2e}")
    print("recovered weights:", np.round(w.ravel(), 3), "(true: [0.5, -1.0, 2.0])")


if __name__ == "__main__":
    main()
