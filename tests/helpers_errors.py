"""User functions that st_autodiff must reject, one per error, for ``test_errors.py``.

Each function marks the line the error must point at with a ``# <- NAME`` comment;
the tests find those lines with ``inspect``, so editing this file cannot make them stale.
"""
# ruff: noqa: F821, F841, B007

from __future__ import annotations

import math
import threading

import numpy as np

COUNTER = 0


def uses_if(x):
    if x > 0:  # <- if
        x = x * 2.0
    return np.sum(x)


def uses_for(x):
    total = 0.0
    for i in range(3):
        total = total + x[i]
    else:  # <- for
        total = total * 2.0
    return total


def uses_while(x):
    while np.sum(x) > 1.0:
        x = x / 2.0
    else:  # <- while
        x = x * 2.0
    return np.sum(x)


def uses_try(x):
    try:
        y = np.log(x)
    except FloatingPointError:  # <- try
        y = x
    return np.sum(y)


def uses_with(x):
    with threading.Lock():  # <- with
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
    if np.sum(x) > 0.0:
        del y
    return np.sum(y)  # <- del


def uses_listcomp(x):
    parts = [v for v in (x, 2.0 * x) if np.sum(v) > 1.0]  # <- listcomp
    return np.sum(np.stack(parts))


def uses_genexp(x):
    return np.sum(np.stack(x[i] for i in range(3)))  # <- genexp


def uses_walrus(x):  # in a comprehension it binds outside it: static values only
    return np.sum([(y := v * 2.0) for v in x][0]) + y  # <- walrus


def uses_star_call(x):
    s = np.sum(x)
    return np.sum(np.add(*s))  # <- starcall


def uses_star_params(*xs):  # <- starparams
    return np.sum(xs[0])


def uses_assert(x):
    assert x.ndim == 2, f"x must be a matrix, got {x.ndim} axis"  # <- assert
    return np.sum(x)


def uses_runtime_bare_raise(x):
    if np.sum(x) > 0:
        raise  # <- runtimebare
    return np.sum(x)


def uses_import(x):
    from math import no_such_name  # <- import

    return np.sum(x) * no_such_name


def uses_dict(x):
    d = {x[0]: x}  # <- dict
    return np.sum(d["a"])


def assigns_element(x):
    x[0] = 0.0  # <- setitem
    return np.sum(x)


def calls_fft(x):  # np.fft.fft gives a pair of real arrays; np.sqrt of it is refused
    return np.sum(np.abs(np.sqrt(np.fft.fft(x))))  # <- fft


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


def bool_flag(x, flag):  # <- boolparam
    return np.sum(x) * 2.0


def int_index(x, idx):  # <- intparam
    return np.sum(x[idx])


def augassigns_element(x):
    y = x
    y[0] += 1.0  # <- augsetitem
    return np.sum(y)


def undefined_name(x):
    return np.sum(x * undefined_thing)  # <- undefined


def array_and(x):
    return np.sum(np.where((x > 0) and (x < 2), x, 0.0))  # <- and


def array_not(x):
    return np.sum(np.where(not x, x, 0.0))  # <- not


def array_invert(x):
    return np.sum(~x)  # <- invert


def array_is(x, y):
    w = x if np.sum(x) > 0 else y  # x or y: which object is known only at run time
    return np.sum(x) if w is y else np.sum(x * y)  # <- is


def array_in(x):
    return np.sum(x) if 2.0 in x else np.sum(x * 2.0)  # <- in


def complex_literal(x):
    return np.sum(x * 1j)  # <- complex


def uses_raise(x):
    raise ValueError("no")  # <- raise


def uses_set(x):
    s = {1, x[0]}  # <- set
    return np.sum(x)


def uses_class(x):
    class Local:  # <- class
        pass

    return np.sum(x)


async def uses_async(x):  # <- async
    return np.sum(x)


def no_return(x):  # <- noreturn
    y = np.sum(x)


def bare_return(x):
    return  # <- barereturn


def unpack_mismatch(x):
    a, b = x  # <- unpack
    return np.sum(a * b)


def calls_tolist(x):
    return sum(x.tolist())  # <- tolist


def runtime_axis(x):
    return np.sum(np.sum(x, axis=x.shape[0] - 3 + np.argmax(x)))  # <- axis


def bad_keyword(x):
    return np.sum(x, bogus=1)  # <- keyword


def helper(a, b):
    return a * b


def inline_too_many(x):
    return np.sum(helper(x, x, x))  # <- toomany


def inline_missing(x):
    return np.sum(helper(x))  # <- missing


def unknown_module_attr(x):
    return np.sum(np.not_a_function(x))  # <- modattr


def unknown_array_attr(x):
    return np.sum(x.strides)  # <- arrayattr


def ping(x):
    return pong(x) * 2.0  # <- ping


def pong(x):
    return ping(x)  # <- pong


def mutual(x):
    return np.sum(ping(x))


# --- in-place updates that other names would see (refused, never a wrong gradient) -----

def update_argument(x):
    x *= 2.0  # <- argument
    return np.sum(x)


def update_view(x):
    y = x * 1.0
    v = y[1:]
    v += 1.0  # <- view
    return np.sum(y)


def update_private(x):
    y = x * 2.0
    y += 1.0
    s = 3.0
    s *= x.sum()
    return np.sum(y) + s
