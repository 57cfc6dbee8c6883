"""Thirty-odd programs written the way users write them: validation with ``raise`` and
``assert``, ``print`` and ``logging``, ``np.errstate``, comprehensions, ``*args`` and
``**kwargs``, f-strings, dataclasses and dicts of parameters, methods, callable objects,
``functools.partial``, random draws inside a loss and the array-API ``xp`` style."""

from __future__ import annotations

import functools
import logging
import math
import warnings
from dataclasses import dataclass

import numpy as np

from .entry import Registry

REG = Registry("programs")
entry = REG.entry
log = logging.getLogger("realworld.programs")

_rng = np.random.default_rng(2)
W3 = np.array([0.4, -0.3, 0.9])
X = _rng.standard_normal((8, 3))
Y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * _rng.standard_normal(8)
LAB = (Y > 0).astype(float)
EPS = 1e-12


@entry(W3)
def validated_mse(w):
    if w.ndim != 1:
        raise ValueError(f"w must be 1-d, got shape {w.shape}")
    pred = X @ w
    return np.mean((pred - Y) ** 2)


@entry(W3)
def asserted_mse(w):
    assert w.shape == (3,), "bad shape"
    return np.mean((X @ w - Y) ** 2)


@entry(W3)
def printing_loss(w):
    loss = np.sum((X @ w - Y) ** 2)
    print(f"loss = {loss:.4f}")
    return loss


@entry(W3)
def logging_loss(w):
    r = X @ w - Y
    log.debug("residual norm %s", np.linalg.norm(r))
    return 0.5 * np.sum(r * r)


@entry(W3)
def errstate_cross_entropy(w):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = LAB * np.log(p) + (1 - LAB) * np.log(1 - p)
    return -np.mean(ll)


@entry(W3, modes=True)
def clipped_cross_entropy(w):
    p = np.clip(1.0 / (1.0 + np.exp(-(X @ w))), EPS, 1 - EPS)
    return -np.mean(LAB * np.log(p) + (1 - LAB) * np.log(1 - p))


@entry(W3)
def comprehension_loss(w):
    terms = [(x @ w - y) ** 2 for x, y in zip(X, Y)]
    return sum(terms) / len(terms)


@entry(W3)
def generator_loss(w):
    return sum((X[i] @ w - Y[i]) ** 2 for i in range(len(Y)))


def _sum_of_squares(*arrays):
    total = 0.0
    for a in arrays:
        total = total + np.sum(a ** 2)
    return total


@entry(W3)
def star_args_loss(w):
    return _sum_of_squares(w, X @ w - Y)


def _penalised(w, **options):
    lam = options.get("lam", 0.1)
    return np.mean((X @ w - Y) ** 2) + lam * np.sum(w ** 2)


@entry(W3)
def kwargs_loss(w):
    return _penalised(w, lam=0.3)


@dataclass
class RidgeConfig:
    """Hyperparameters as a user would group them."""

    lam: float = 0.1
    power: int = 2


@entry(W3)
def dataclass_params_loss(w):
    cfg = RidgeConfig(lam=0.5)
    return np.mean((X @ w - Y) ** 2) + cfg.lam * np.sum(np.abs(w) ** cfg.power)


_CFG = RidgeConfig(lam=0.25)


@entry(W3, modes=True)
def global_dataclass_loss(w):
    return np.mean((X @ w - Y) ** 2) + _CFG.lam * np.sum(w ** 2)


@entry(W3, modes=True)
def dict_params_loss(w):
    params = {"lam": 0.2, "scale": 2.0}
    return params["scale"] * np.mean((X @ w - Y) ** 2) + params["lam"] * np.sum(w ** 2)


class LinearModel:
    """A model object whose loss method is differentiated directly."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def loss(self, w):
        return np.mean((self.x @ w - self.y) ** 2)

    def __call__(self, w):
        return self.loss(w)


_MODEL = LinearModel(X, Y)
REG.add("bound_method_loss", _MODEL.loss, W3)


@entry(W3)
def method_call_loss(w):
    return _MODEL.loss(w)


@entry(W3)
def model_built_inside_loss(w):
    model = LinearModel(X, Y)
    return model.loss(w)


REG.add("callable_object_loss", _MODEL, W3)
REG.add("partial_loss", functools.partial(_penalised, lam=0.7), W3)


@entry(W3)
def random_draw_loss(w):
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(8)
    return np.mean((X @ w + 0.1 * noise - Y) ** 2)


@entry(W3)
def legacy_random_loss(w):
    np.random.seed(0)
    mask = np.random.rand(8) > 0.3
    return np.sum(((X @ w - Y) * mask) ** 2)


@entry(W3)
def array_api_loss(w):
    xp = w.__array_namespace__()
    r = xp.matmul(xp.asarray(X), w) - xp.asarray(Y)
    return xp.sum(r * r)


@entry(W3)
def isinstance_loss(w):
    if isinstance(w, list):
        w = np.asarray(w)
    return np.mean((X @ w - Y) ** 2)


@entry(W3, None, wrt=(0,))
def optional_weights_loss(w, weights=None):
    if weights is None:
        weights = np.ones(8)
    return np.sum(weights * (X @ w - Y) ** 2) / np.sum(weights)


@entry(W3)
def reduction_option_loss(w, reduction="mean"):
    r = (X @ w - Y) ** 2
    if reduction == "mean":
        return np.mean(r)
    elif reduction == "sum":
        return np.sum(r)
    raise ValueError(f"unknown reduction {reduction!r}")


@entry(W3)
def warning_loss(w):
    if np.any(np.abs(w) > 10):
        warnings.warn("large weights", stacklevel=2)
    return np.sum(np.log1p((X @ w - Y) ** 2))


@entry(W3, modes=True)
def math_module_loss(w):
    r = X @ w - Y
    return 0.5 * len(r) * math.log(2 * math.pi) + 0.5 * np.sum(r ** 2)


@entry(W3, modes=True)
def lambda_activation_loss(w):
    act = lambda z: np.where(z > 0, z, 0.01 * z)  # noqa: E731
    return np.sum(act(X @ w) ** 2)


@entry(W3, modes=True)
def closure_loss(w):
    def residual(v):
        return X @ v - Y

    return np.sum(residual(w) ** 2)


@entry(np.array([0.5, 0.2]), modes=True)
def fixed_point_loss(p):
    x = 1.0
    it = 0
    while it < 20:
        x = p[0] * np.cos(x) + p[1]
        it += 1
    return x


@entry(np.arange(12.0) / 10.0 - 0.5, modes=True)
def mlp_flat_params_loss(theta):
    w1 = theta[:9].reshape(3, 3)
    b1 = theta[9:12]
    h = np.tanh(X @ w1 + b1)
    return np.mean((h.sum(axis=1) - Y) ** 2)


@entry(W3)
def keyword_only_loss(w, *, scale=2.0):
    return scale * np.mean((X @ w - Y) ** 2)


@entry(W3)
def try_except_loss(w):
    try:
        r = X @ w - Y
    except ValueError:
        r = np.zeros(8)
    return np.sum(r ** 2)


@entry(W3)
def huber_by_hand_loss(w, delta=1.0):
    r = X @ w - Y
    small = np.abs(r) <= delta
    return np.sum(np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


@entry(W3, modes=True)
def enumerate_layers_loss(w):
    total = 0.0
    for k, col in enumerate(X.T):
        total = total + (k + 1) * np.sum((col * w[k]) ** 2)
    return total


@entry(W3)
def ravel_order_loss(w):
    return np.sum(np.ravel(np.outer(w, w), order="F") ** 2)


TARGET = Y.copy()
WEIGHT = 2.0


@entry(W3, rebind={"TARGET": Y + 1.0, "WEIGHT": 0.5})
def rebound_global_loss(w):
    return WEIGHT * np.mean((X @ w - TARGET) ** 2)


@entry(W3, rebind={"_CFG": RidgeConfig(lam=3.0)})
def rebound_config_loss(w):
    return np.mean((X @ w - Y) ** 2) + _CFG.lam * np.sum(w ** 2)


def _make_scaled_loss(scale):
    def scaled_loss(w):
        return scale * np.mean((X @ w - Y) ** 2)

    return scaled_loss


REG.add("closure_rebind_loss", _make_scaled_loss(1.0), W3, rebind={"scale": 4.0})


@entry(X, {"w": W3, "b": 0.1}, wrt=(0,))
def dict_argument_loss(x, params):
    return np.mean((x @ params["w"] + params["b"] - Y) ** 2)


@entry((W3, 0.1), X, wrt=(1,))
def tuple_params_loss(params, x):
    w, b = params
    return np.mean((x @ w + b - Y) ** 2)


@entry(W3)
def builtin_sum_loss(w):
    return sum((X @ w - Y) ** 2) / len(Y)


@entry(W3, modes=True)
def default_arg_modes_loss(w, delta=1.5):
    r = X @ w - Y
    return np.sum(np.where(np.abs(r) <= delta, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


def _doubled(fn):
    @functools.wraps(fn)
    def wrapper(w):
        return 2.0 * fn(w)

    return wrapper


@_doubled
def _doubled_mse(w):
    return np.mean((X @ w - Y) ** 2)


@entry(W3)
def wrapped_decorator_loss(w):
    return _doubled_mse(w) + 0.1 * np.sum(w ** 2)


REG.add("wrapped_decorator_entry", _doubled_mse, W3)


@functools.lru_cache
def _n_samples(n):
    return float(n)


@entry(W3)
def lru_cache_helper_loss(w):
    return np.sum((X @ w - Y) ** 2) / _n_samples(8)


class Losses:
    """Losses as static and class methods, the way some codebases group them."""

    scale = 0.5

    @staticmethod
    def mse(w):
        return np.mean((X @ w - Y) ** 2)

    @classmethod
    def scaled(cls, w):
        return cls.scale * np.mean((X @ w - Y) ** 2)


REG.add("staticmethod_loss", Losses.mse, W3)
REG.add("classmethod_loss", Losses.scaled, W3)


@entry(W3)
def staticmethod_call_loss(w):
    return Losses.mse(w) + 0.1 * np.sum(w ** 2)


LOSSES = {"mse": lambda w: np.mean((X @ w - Y) ** 2), "mae": lambda w: np.mean(np.abs(X @ w - Y))}
REG.add("lambda_in_dict_loss", LOSSES["mse"], W3)
POWERS = [lambda w, k=k: np.sum(np.abs(X @ w - Y) ** k) for k in (2, 3)]
REG.add("lambda_from_comprehension_loss", POWERS[1], W3)


@entry(W3, np.random.default_rng(3))
def rng_argument_loss(w, rng):
    noise = rng.normal(scale=0.1, size=8)
    return np.mean((X @ w + noise - Y) ** 2)
