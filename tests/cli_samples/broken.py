"""A user file with functions the CLI rejects, each with a located error."""

import numpy as np

rng = np.random.default_rng(0)
NOISE = rng.normal(size=3)
try:
    import scipy as sp
except ImportError:
    sp = None


def branchy(x):
    with memoryview(b"x"):
        y = x.sum()
    return y


def noisy(x):
    return np.sum(x * NOISE)


def undefined(x):
    return np.sum(x * missing_name)  # noqa: F821  (the error under test)


def maybe(x):
    return np.sum(sp.special.expit(x))


def fact(x):
    return fact(x) * x


def uses_fact(x):
    return np.sum(fact(x))
