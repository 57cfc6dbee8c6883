"""A user file for the CLI tests: imports, module constants and helper functions."""

import math

import numpy as np
from numpy import exp, linalg
from numpy import sum as npsum

SCALE = 0.5
EPS = 1e-6
TWO_PI = 2 * np.pi
BIAS = np.array([0.1, -0.2, 0.3])
ORDER = (1, 2)


def softplus(x):
    return np.log1p(exp(x))


def layer(x, w, b=0.0):
    return np.tanh(x @ w + b)


def mean_sq(v):
    return np.mean(v * v)


def simple(x):
    y = softplus(x) * SCALE + math.sqrt(2.0)
    return npsum(y * y)


def two(x, y):
    z = x * y + EPS
    return npsum(np.sin(z) * TWO_PI)


def mlp(x, w):
    h = layer(x, w, BIAS)
    return mean_sq(h)


def logdet(a):
    return linalg.slogdet(a)[1] + np.trace(a)


def scaled(x, n):
    return npsum(x ** n) / n
