"""Train a small convolutional network to tell horizontal from vertical strokes.

Run it with ``python examples/train_cnn.py``.  The 12x12 images are made with NumPy: a
short bright stroke, horizontal (class 0) or vertical (class 1), at a random place on a
noisy background.  The network is the usual stack: ``Conv2d`` -> ``BatchNorm2d`` ->
``ReLU`` -> ``MaxPool2d`` -> ``Conv2d`` -> ``ReLU`` -> ``AdaptiveAvgPool2d`` -> ``Linear``,
trained with SGD and momentum.  Everything is seeded, so every run prints the same numbers
(the same ones PyTorch prints with ``import torch``); it takes a few seconds.
"""

import numpy as np

import st_autodiff as torch
import st_autodiff.nn as nn

TARGET_ACCURACY = 0.95


def strokes(n, rng):
    """``n`` noisy 1x12x12 images, each with one stroke of length 5; labels 0 and 1."""
    images = rng.normal(0.0, 0.3, (n, 1, 12, 12))
    labels = rng.integers(0, 2, n)
    for i in range(n):
        r, c = rng.integers(0, 8, 2)
        if labels[i] == 0:
            images[i, 0, r + 2, c:c + 5] += 1.5
        else:
            images[i, 0, r:r + 5, c + 2] += 1.5
    return images.astype(np.float32), labels.astype(np.int64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main(epochs=6, batch_size=32, seed=0, verbose=True):
    """Train and return the test accuracy."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x_train, y_train = (torch.from_numpy(a) for a in strokes(256, rng))
    x_test, y_test = (torch.from_numpy(a) for a in strokes(128, rng))
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    if verbose:
        print(model)
    for epoch in range(epochs):
        order = torch.randperm(len(x_train))
        total = 0.0
        for start in range(0, len(x_train), batch_size):
            batch = order[start:start + batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        if verbose:
            print(f"epoch {epoch + 1}: loss {total / len(x_train):.3f}, "
                  f"test accuracy {accuracy(model, x_test, y_test):.3f}")
    result = accuracy(model, x_test, y_test)
    if verbose:
        print(f"final test accuracy: {result:.3f}")
    return result


if __name__ == "__main__":
    assert main() >= TARGET_ACCURACY
