"""Train a small MLP with ``nn`` and ``optim`` on two interleaved half-moons.

Run it with ``python examples/train_mlp.py``.  It generates the data with NumPy, trains
a 2 -> 32 -> 32 -> 2 ReLU network with cross-entropy and Adam on mini-batches, and checks
that the accuracy on held-out points is at least 95 %.  Everything is seeded, so every
run prints the same numbers; it takes about a second.

The loop is the usual one: ``zero_grad()``, forward, loss, ``backward()``, ``step()``,
with ``model.eval()`` and ``no_grad()`` for evaluation.
"""

import math

import numpy as np

import st_autodiff as torch
import st_autodiff.nn as nn

TARGET_ACCURACY = 0.95


def two_moons(n, noise, rng):
    """``n`` points on two interleaved half-circles with Gaussian noise; labels 0 and 1."""
    angle = rng.uniform(0.0, math.pi, n)
    label = rng.integers(0, 2, n)
    upper = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    lower = np.stack([1.0 - np.cos(angle), 0.5 - np.sin(angle)], axis=1)
    points = np.where(label[:, None] == 0, upper, lower)
    points = points + rng.normal(0.0, noise, points.shape)
    return points.astype(np.float32), label.astype(np.int64)


def make_model():
    return nn.Sequential(
        nn.Linear(2, 32), nn.ReLU(),
        nn.Linear(32, 32), nn.ReLU(),
        nn.Linear(32, 2),
    )


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main(epochs=40, batch_size=64, seed=0, verbose=True):
    """Train and return the test accuracy."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_x, train_y = two_moons(1000, 0.12, rng)
    test_x, test_y = two_moons(500, 0.12, rng)
    mean, std = train_x.mean(axis=0), train_x.std(axis=0)  # standardise with train stats
    x = torch.from_numpy((train_x - mean) / std)
    y = torch.from_numpy(train_y)
    x_test = torch.from_numpy((test_x - mean) / std)
    y_test = torch.from_numpy(test_y)

    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    n = x.shape[0]
    for epoch in range(1, epochs + 1):
        order = torch.randperm(n)
        total = 0.0
        for start in range(0, n, batch_size):
            batch = order[start:start + batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * batch.shape[0]
        if verbose and (epoch == 1 or epoch % 10 == 0):
            print(f"epoch {epoch:3d}  train loss {total / n:.4f}  "
                  f"test accuracy {accuracy(model, x_test, y_test):.3f}")
    final = accuracy(model, x_test, y_test)
    if verbose:
        print(f"final test accuracy: {final:.3f} (target {TARGET_ACCURACY:.2f})")
    return final


if __name__ == "__main__":
    result = main()
    assert result >= TARGET_ACCURACY, f"accuracy {result:.3f} is below {TARGET_ACCURACY}"
