"""Reading what st_autodiff generates: the SSA graph, every pass, and the adjoint source.

Run:  python examples/read_generated_code.py
"""

import inspect

import numpy as np

import st_autodiff as st


def softmax_xent(logits, labels):
    """Cross-entropy of a softmax, written the numerically stable way."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_z = np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * (shifted - log_z), axis=1))


def main() -> None:
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(4, 3))
    labels = np.eye(3)[[0, 2, 1, 2]]
    g = st.grad(softmax_xent)
    grad = g(logits, labels)

    print("1. The primal SSA graph: one grad_fn-style record per line\n")
    print(g.ir)
    print("2. The optimised joint graph (adjoint records name their MulBackward0-style role)\n")
    print(g.adjoint_ir)
    print("3. The generated Python (also what inspect.getsource shows)\n")
    print(inspect.getsource(g))
    print("4. Every pass is printable:", ", ".join(g.stages()))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    expected = (probs - labels) / len(labels)
    print("\n5. The gradient matches the textbook formula (softmax - onehot) / n:",
          bool(np.allclose(grad, expected)))


if __name__ == "__main__":
    main()
