"""Numerical programs users write by hand (an ODE integrator, Horner's rule, an RNN,
soft k-means, quadrature rules, smoothing), plus the module-alias ``xp`` style."""

from __future__ import annotations

import numpy as np

from .entry import Registry
from .programs import LAB, W3, X, Y

REG = Registry("programs")
entry = REG.entry

xp = np
T_GRID = np.linspace(0.0, 1.0, 11)


@entry(W3)
def module_alias_xp_loss(w):
    return xp.sum(xp.tanh(X @ w) ** 2)


def array_namespace(*arrays):
    return np


@entry(W3)
def star_namespace_loss(w):
    xp_ = array_namespace(w, X)
    return xp_.mean((X @ w - Y) ** 2)


@entry(np.array([0.7, -0.4]), modes=True)
def euler_ode_loss(theta):
    """Explicit Euler for dy/dt = -a*y + b, loss on the final state."""
    y = 1.0
    dt = 0.05
    for _ in range(20):
        y = y + dt * (-theta[0] * y + theta[1])
    return (y - 0.3) ** 2


@entry(np.array([0.5, -1.0, 0.25, 0.75]), np.array([0.3, -0.6, 0.9]), wrt=(0, 1))
def horner_loss(c, t):
    acc = np.zeros_like(t)
    for k in range(len(c) - 1, -1, -1):
        acc = acc * t + c[k]
    return np.sum(acc ** 2)


@entry(np.array([0.2, -0.1, 0.4, 0.3]), np.linspace(-1.0, 1.0, 10).reshape(5, 2), wrt=(0, 1))
def rnn_loss(params, seq):
    h = 0.0
    for x in seq:
        h = np.tanh(params[0] * h + params[1] * x[0] + params[2] * x[1] + params[3])
    return h ** 2


@entry(np.linspace(-0.5, 0.5, 12).reshape(3, 4))
def softmax_xent_loss(logits):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    onehot = np.eye(4)[[0, 3, 1]]
    return -np.mean(np.sum(onehot * logp, axis=1))


@entry(np.array([[0.0, 0.5], [1.0, -0.5]]), 0.7, wrt=(0, 1))
def soft_kmeans_loss(centers, temp):
    pts = X[:, :2]
    d2 = np.sum((pts[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    r = np.exp(-d2 / temp)
    r = r / np.sum(r, axis=1, keepdims=True)
    return np.sum(r * d2)


@entry(np.array([0.5, 0.2, 0.8]), modes=True)
def gaussian_cholesky_loglik(theta):
    cov = np.array([[1.0, 0.0], [0.0, 1.0]]) * theta[0] + np.array([[1.0, theta[1]],
                                                                 [theta[1], 1.0]])
    L = np.linalg.cholesky(cov)
    r = np.array([0.3, -theta[2]])
    alpha = np.linalg.solve(L, r)
    return 0.5 * np.sum(alpha ** 2) + np.sum(np.log(np.diag(L)))


@entry(np.array([1.3]))
def newton_sqrt_loss(a):
    x = a[0]
    for _ in range(6):
        x = 0.5 * (x + a[0] / x)
    return x


@entry(np.sin(T_GRID) + 0.5)
def hand_trapezoid_loss(y):
    h = T_GRID[1] - T_GRID[0]
    return h * (np.sum(y ** 2) - 0.5 * (y[0] ** 2 + y[-1] ** 2))


@entry(np.sin(T_GRID) + 0.5)
def hand_simpson_loss(y):
    h = T_GRID[1] - T_GRID[0]
    return h / 3 * (y[0] + 4 * np.sum(y[1:-1:2]) + 2 * np.sum(y[2:-1:2]) + y[-1])


@entry(np.cos(3 * T_GRID))
def laplacian_smoothing_loss(u):
    lap = u[:-2] - 2 * u[1:-1] + u[2:]
    return np.sum(lap ** 2) + 0.1 * np.sum((u - np.cos(3 * T_GRID)) ** 2)


@entry(np.array([0.0, 1.0, 0.5, -0.3, 0.2]))
def hand_interp_loss(fp):
    xq = np.array([0.1, 1.7, 3.3])
    idx = np.searchsorted(np.arange(5.0), xq) - 1
    frac = xq - idx
    return np.sum(fp[idx] * (1 - frac) + fp[idx + 1] * frac)


@entry(W3)
def logistic_l2_loss(w):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - LAB * z) + 0.01 * w @ w


@entry(np.array([0.5, -0.2, 0.1]))
def autoregressive_loss(w):
    series = np.sin(T_GRID) + 0.1 * T_GRID
    p = len(w)
    loss = 0.0
    for t in range(p, len(series)):
        pred = np.dot(w, series[t - p:t])  # a window of one length on every step
        loss += (series[t] - pred) ** 2
    return loss / (len(series) - p)


@entry(np.array([0.25, 0.5, 0.25]))
def hand_convolution_peak(k):
    signal = np.cos(3 * T_GRID)
    m = len(k)
    out = signal[0:len(signal) - m + 1] * k[0]
    for j in range(1, m):
        out = out + signal[j:j + len(signal) - m + 1] * k[j]
    return out[2] - 0.5 * out[-1]
