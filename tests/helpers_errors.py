"""User functions that st_autodiff must reject, one per error, for ``test_errors.py``.

Each function marks the line the error must point at with a ``# <- NAME`` comment;
the tests find those lines with ``inspect``, so editing this file cannot make them stale.
"""
# ruff: noqa: E731, F841, B007, B018, PLW0603, S101

from __future__ import annotations

import math

import numpy as np

COUNTER = 0


def uses_if(x):
    if x.sum() > 0:  # <- if
        x = x * 2.0
    return np.sum(x)


def uses_for(x):
    total = 0.0
    for i in range(3):  # <- for
        total = total + x[i]
    return total


def uses_while(x):
    while np.sum(x) > 1.0:  # <- while
        x = x / 2.0
    return np.sum(x)


def uses_try(x):
    try:  # <- try
        y = np.log(x)
    except ValueError:
        y = x
    return np.sum(y)


def uses_with(x):
    with np.errstate(all="ignore"):  # <- with
        y = np.log(x)
    return np.sum(y)


def uses_yield(x):
    yield np.sum(x)  # <- yield


def uses_global(x):
    global COUNTER  # <- global
    return np.sum(x)


def uses_nonlocal(x):
    k = 2.0

    def inner(y):
        nonlocal k  # <- nonlocal
        return y * k

    return np.sum(inner(x))


def uses_del(x):
    y = x * 2.0
    del y  # <- del
    return np.sum(x)


def uses_listcomp(x):
    parts = [x[i] * 2.0 for i in range(3)]  # <- listcomp
    return np.sum(np.stack(parts))


def uses_genexp(x):
    return sum(x[i] for i in range(3))  # <- genexp


def uses_walrus(x):
    return np.sum((y := x * 2.0) * y)  # <- walrus


def uses_star_call(x):
    shape = (3,)
    return np.sum(np.reshape(x, *shape))  # <- starcall


def uses_star_params(*xs):  # <- starparams
    return np.sum(xs[0])


def uses_assert(x):
    assert x.ndim == 1  # <- assert
    return np.sum(x)


def uses_import(x):
    import math as m  # <- import

    return np.sum(x) * m.pi


def uses_dict(x):
    d = {"a": x}  # <- dict
    return np.sum(d["a"])


def assigns_element(x):
    y = x * 1.0
    y[0] = 0.0  # <- setitem
    return np.sum(y)


def calls_fft(x):
    return np.sum(np.abs(np.fft.fft(x)))  # <- fft


def calls_gamma(x):
    return math.gamma(x)  # <- gamma


class Scaler:
    """A callable object: not a Python function, so it has no source to inline."""

    def __call__(self, x):
        return x * 2.0


scale = Scaler()


def calls_object(x):
    return np.sum(scale(x))  # <- object


def returns_vector(x):
    return x * 2.0  # <- vector


def returns_pair(x):
    return np.sum(x), x  # <- pair


def two_args(x, n):  # <- params
    return np.sum(x) * n


def recursive(x):
    return recursive(x)  # <- recursion


def shape_mismatch(x, y):
    z = x * 2.0
    return np.sum(z @ y)  # <- mismatch


exec_namespace: dict = {"np": np}
exec("def from_exec(x):\n    return np.sum(x)\n", exec_namespace)
from_exec = exec_namespace["from_exec"]
