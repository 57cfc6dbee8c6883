"""Corpus models: small but realistic losses and energies, written as a user would."""

from __future__ import annotations

import numpy as np

from .registry import case, normal, uniform

EPS = 1e-9
LOG_2PI = float(np.log(2.0 * np.pi))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _log_softmax(z, axis=-1):
    m = z.max(axis=axis, keepdims=True)
    s = z - m
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _pairwise_sq_dists(p):
    d = p[:, None, :] - p[None, :, :]
    return np.sum(d**2, axis=-1)


def _labels(r, n, k):
    return r.permutation(np.arange(n) % k)


@case("model", lambda r: (normal(r, 3), 0.1, normal(r, 8, 3),
                          (np.arange(8) % 2).astype(np.float64)), ("w", "b"))
def model_logistic_regression(w, b, x, y):
    p = _sigmoid(x @ w + b)
    nll = -np.mean(y * np.log(p + EPS) + (1.0 - y) * np.log(1.0 - p + EPS))
    return nll + 0.01 * np.sum(w**2)


@case("model", lambda r: (normal(r, 3, 5, scale=0.5), normal(r, 5, scale=0.1),
                          normal(r, 5, 2, scale=0.5), normal(r, 2, scale=0.1),
                          normal(r, 6, 3), normal(r, 6, 2)), (0, 1, 2, 3))
def model_mlp(w1, b1, w2, b2, x, y):
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return 0.5 * np.mean(np.sum((out - y) ** 2, axis=1))


@case("model", lambda r: (normal(r, 4, 3, scale=0.5), normal(r, 7, 4), _labels(r, 7, 3)),
      0)
def model_softmax_xent(w, x, labels):
    logits = x @ w
    logp = _log_softmax(logits)
    picked = np.take_along_axis(logp, labels[:, None], axis=1)
    return -np.mean(picked) + 1e-3 * np.sum(w * w)


@case("model", lambda r: (normal(r, 4, 3, scale=0.5), normal(r, 6, 4), _labels(r, 6, 3)),
      0)
def model_softmax_xent_fancy(w, x, labels):
    z = x @ w
    lse = np.log(np.sum(np.exp(z - z.max(axis=1, keepdims=True)), axis=1)) + z.max(axis=1)
    n = x.shape[0]
    return np.mean(lse - z[np.arange(n), labels])


@case("model", lambda r: (normal(r, 3), normal(r, 3, scale=0.3), normal(r, 10, 3)),
      ("mu", "log_sigma"))
def model_gaussian_nll(mu, log_sigma, x):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return np.mean(0.5 * np.sum(z**2, axis=1) + np.sum(log_sigma) + 0.5 * 3 * LOG_2PI)


@case("model", lambda r: (normal(r, 4), normal(r, 9, 4), normal(r, 9)), 0)
def model_ridge(w, x, y, lam=0.1):
    resid = y - x @ w
    return resid @ resid / len(y) + lam * w @ w


@case("model", lambda r: (normal(r, 4, 3), normal(r, 5, 3), normal(r, 5, 2)), (0, 1, 2))
def model_attention(q, k, v):
    d = q.shape[-1]
    scores = q @ k.T / np.sqrt(d)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ v
    return np.sum(out**2)


@case("model", lambda r: (normal(r, 2, 4, 3), normal(r, 3, 3, scale=0.5)), (0, 1))
def model_self_attention_batched(x, wq):
    q = x @ wq
    s = np.einsum("bqd,bkd->bqk", q, x) / np.sqrt(3.0)
    a = np.exp(s - np.max(s, axis=-1, keepdims=True))
    a /= np.sum(a, axis=-1, keepdims=True)
    return np.mean(np.einsum("bqk,bkd->bqd", a, x) ** 2)


@case("model", lambda r: (np.arange(12.0).reshape(4, 3) + 0.3 * r.standard_normal((4, 3)),))
def model_spring_energy(pos):
    n = pos.shape[0]
    d2 = _pairwise_sq_dists(pos)
    iu = np.triu(np.ones((n, n)), k=1)
    dist = np.sqrt(d2 + np.eye(n))
    springs = 0.5 * np.sum(iu * (dist - 1.5) ** 2)
    gravity = 9.81 * np.sum(pos[:, 2])
    return springs + gravity


@case("model", lambda r: (np.array([[0.0, 0.0, 0.0], [1.1, 0.1, 0.0], [0.2, 1.2, 0.1],
                                   [1.0, 1.0, 1.05]]) + 0.05 * r.standard_normal((4, 3)),))
def model_lennard_jones(pos):
    d2 = _pairwise_sq_dists(pos)
    n = len(pos)
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    r2 = d2[mask]
    inv6 = (1.0 / r2) ** 3
    return np.sum(4.0 * (inv6**2 - inv6))


@case("model", lambda r: (normal(r, 4, 5), 1.0 + normal(r, 5, scale=0.1), normal(r, 5,
                                                                                    scale=0.1)),
      (0, 1, 2))
def model_layernorm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(np.tanh(y) * y)


@case("model", lambda r: (normal(r, 6, 3), normal(r, 3), normal(r, 3, 3, scale=0.5)), (1, 2))
def model_mvn_loglik(x, mu, s):
    cov = s @ s.T + np.eye(3)
    chol = np.linalg.cholesky(cov)
    diff = x - mu
    z = np.linalg.solve(chol, diff.T)
    _, logdet = np.linalg.slogdet(cov)
    n, d = x.shape
    return -0.5 * (np.sum(z**2) + n * logdet + n * d * LOG_2PI)


@case("model", lambda r: (np.array([-2.0, -0.5, 0.2, 1.4, 3.0, -1.2]) + 0.05 * normal(r, 6),
                          np.zeros(6)), 0)
def model_huber(pred, target, delta=1.0):
    err = pred - target
    small = np.abs(err) <= delta
    return np.mean(np.where(small, 0.5 * err**2, delta * (np.abs(err) - 0.5 * delta)))


@case("model", lambda r: (normal(r, 8), normal(r, 3, scale=0.5)), (0, 1))
def model_conv1d(signal, kernel):
    k = kernel.shape[0]
    n = signal.shape[0] - k + 1
    windows = np.stack([signal[0:n], signal[1:n + 1], signal[2:n + 2]], axis=1)
    out = windows @ kernel[::-1]
    return np.sum(np.tanh(out) ** 2) + 0.1 * np.sum(np.pad(signal, 1)[:-2] * out[0])


@case("model", lambda r: (normal(r, 3), normal(r, 3, scale=0.2), normal(r, 3, scale=0.3),
                          normal(r, 12)), (0, 1, 2))
def model_gmm_loglik(means, log_std, logits, x):
    logw = logits - np.log(np.sum(np.exp(logits)))
    z = (x[:, None] - means[None, :]) / np.exp(log_std)
    comp = -0.5 * z**2 - log_std - 0.5 * LOG_2PI + logw
    m = comp.max(axis=1, keepdims=True)
    ll = m[:, 0] + np.log(np.exp(comp - m).sum(axis=1))
    return -np.sum(ll)


@case("model", lambda r: (normal(r, 3, scale=0.3), normal(r, 10, 3),
                          r.poisson(2.0, 10).astype(np.float64)), 0)
def model_poisson_regression(w, x, counts):
    eta = x @ w
    return np.sum(np.exp(eta) - counts * eta)


@case("model", lambda r: (normal(r, 5), normal(r, 5)), (0, 1))
def model_kl_divergence(logits_p, logits_q):
    logp = _log_softmax(logits_p)
    logq = _log_softmax(logits_q)
    return np.sum(np.exp(logp) * (logp - logq))


@case("model", lambda r: (normal(r, 4, scale=0.5), normal(r, 4, 4, scale=0.5), normal(r, 4)),
      (0, 1))
def model_rnn_unrolled(h0, w, x):
    h1 = np.tanh(w @ h0 + x[0])
    h2 = np.tanh(w @ h1 + x[1])
    h3 = np.tanh(w @ h2 + x[2])
    return np.sum(h3**2) + 0.1 * np.sum(h1 * h2)


@case("model", lambda r: (uniform(r, 0.2, 0.8, 6), uniform(r, 0.5, 2.0, 6)), (0, 1))
def model_beta_like_loglik(p, conc):
    a = conc * p
    b = conc * (1.0 - p)
    return np.sum((a - 1.0) * np.log(p) + (b - 1.0) * np.log1p(-p))


@case("model", lambda r: (normal(r, 2, 3, scale=0.5), normal(r, 4, 3)), 0, has_aux=True)
def model_pca_reconstruction(w, x):
    codes = x @ w.T
    recon = codes @ w
    loss = np.mean((x - recon) ** 2) + 0.1 * np.sum((w @ w.T - np.eye(2)) ** 2)
    return loss, codes


@case("model", lambda r: (normal(r, 3), normal(r, 3), 0.05), (0, 1))
def model_pendulum_energy(theta, omega, dt):
    theta_next = theta + dt * omega
    omega_next = omega - dt * 9.81 * np.sin(theta_next)
    kinetic = 0.5 * np.sum(omega_next**2)
    potential = 9.81 * np.sum(1.0 - np.cos(theta_next))
    return kinetic + potential


@case("model", lambda r: (normal(r, 3), normal(r, 7, 3), normal(r, 7)), ("w", "lam"))
def model_ridge_wrt_default(w, x, y, lam=0.3):
    resid = y - x @ w
    return 0.5 * np.mean(resid**2) + 0.5 * lam * np.sum(w**2) + lam**2
