"""``try``/``except`` around runtime code: a handler is dropped where the body's ops cannot
raise what it catches when they run (``transforms/runtime_raises.py``), and a located
refusal naming the op that may raise stays where they can.  Also ``contextlib.suppress``,
``else``/``finally`` clauses, static ``while`` loops, loops unrolled for static index
tuples and dict keys (``scipy.integrate.romb``), and ``np.unique`` of inactive arrays.

Values are compared with Python's, gradients with float64 central differences.
"""

from __future__ import annotations

import contextlib
import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, NoRuleError, UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([0.5, -1.25, 2.0])
P = np.array([0.5, 1.25, 2.0])
M = np.array([[2.0, 0.3], [0.4, 1.5]])


def check(f, *args):
    """Value equal to Python's, gradient of every float argument equal to central
    differences."""
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)) and (
        np.asarray(a).dtype.kind == "f"))
    value = st.value_and_grad(f, wrt=wrt)(*args)[0]
    assert value == pytest.approx(f(*args), rel=1e-12, abs=1e-12)
    full = [None] * len(args)

    def grad_fn(*a):
        got = st.grad(f, wrt=wrt)(*a)
        for i, g in zip(wrt, got if isinstance(got, tuple) else (got,)):
            full[i] = g
        return full

    check_grads(f, args, grad_fn, argnums=wrt)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, ln in enumerate(lines) if text in ln]
    assert hits, text
    return hits[0]


def refusal(fn, *args, kind=CompileError):
    with pytest.raises(kind) as info:
        st.grad(fn)(*args)
    return info.value


# --- handlers the body cannot trigger: dropped ------------------------------------------


def asarray_under_exception(a, b):
    try:  # numpy's array_equal: asarray of an array returns it, and cannot raise
        a1, b1 = np.asarray(a), np.asarray(b)
    except Exception:
        return 0.0 * np.sum(a)
    return np.sum(a1 * b1)


def views_under_value_error(x):
    try:
        y = np.expand_dims(x, 0).T  # views of a known shape: nothing to raise
    except ValueError:
        y = x * 10.0
    return np.sum(np.sin(y))


def errstate_under_value_error(x):
    try:  # scipy.stats _broadcast_shapes: errstate's arguments are checked while compiling
        with np.errstate(invalid="ignore"):
            y = np.squeeze(x[None, :])
    except ValueError as e:
        raise TypeError("never") from e
    return np.sum(y * y)


def arithmetic_under_lookup_errors(x):
    try:
        y = np.exp(x) / (1.0 + x * x)
    except (KeyError, IndexError, AttributeError):
        y = x
    return np.sum(y)


def array_equal_branch(a):
    if np.array_equal(a, a):
        return np.sum(a * a)
    return np.sum(a)


@pytest.mark.parametrize("fn,args", [
    (asarray_under_exception, (X, P)),
    (views_under_value_error, (X,)),
    (errstate_under_value_error, (X,)),
    (arithmetic_under_lookup_errors, (X,)),
])
def test_handler_the_body_cannot_trigger_is_dropped(fn, args):
    check(fn, *args)


def test_numpy_array_equal_compiles():
    check(array_equal_branch, M)


# --- else and finally around runtime code -------------------------------------------------


def else_and_finally(x, table):
    try:
        y = x * x
        k = table["scale"]
    except KeyError:
        k = 1.0
        y = x
    else:
        y = y + np.cos(x)
    finally:
        z = np.sum(y) * 2.0
    return z * k


def raised_statically_in_body(x, table):
    y = x
    try:
        y = np.sin(x)
        k = table["missing"]  # KeyError while compiling: the handler runs, y is kept
    except KeyError:
        k = 3.0
    else:
        k = -1.0
    finally:
        y = y * k
    return np.sum(y)


def return_through_finally(x):
    y = x
    try:
        return np.sum(np.tanh(y) * y)
    finally:
        y = 2.0 * x  # runs after the value returned is computed: it does not change it


def test_else_and_finally_with_runtime_body():
    check(return_through_finally, X)
    check(else_and_finally, X, {"scale": 2.5})
    check(else_and_finally, X, {})
    check(raised_statically_in_body, X, {})


# --- refusals that stay, and say which op may raise ---------------------------------------


def log_under_exception(x):
    y = x
    try:
        y = np.log(x) * 2.0
    except Exception:
        y = x
    return np.sum(y)


def inverse_under_linalg_error(m):
    try:
        y = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        y = m
    return np.sum(y)


def opaque_call_under_value_error(x):
    try:
        y = x * float(np.random.default_rng(0).normal())
    except ValueError:
        y = x
    return np.sum(y)


def test_handlers_runtime_code_may_trigger_are_located():
    for fn, args, op, token in (
            (log_under_exception, (P,), "log", "np.log(x)"),
            (inverse_under_linalg_error, (M,), "inv", "np.linalg.inv(m)")):
        err = refusal(fn, *args, kind=UnsupportedSyntaxError)
        assert err.loc.line == line_of(fn, "    except ")
        assert f"{op} at " in err.message and f":{line_of(fn, token)} may raise" in err.message
    err = refusal(opaque_call_under_value_error, X, kind=UnsupportedSyntaxError)
    assert err.loc.line == line_of(opaque_call_under_value_error, "    except ")
    assert "may raise any exception" in err.message


# --- contextlib.suppress ------------------------------------------------------------------


def suppress_static_key_error(x, table):
    k = 1.0
    with contextlib.suppress(KeyError):
        k = 2.0
        k = table["missing"]  # ends the block: k stays 2.0
        k = 5.0
    return np.sum(x) * k


def suppress_around_views(x):
    with contextlib.suppress(ValueError, TypeError):
        y = x.reshape(1, -1).T
    return np.sum(y ** 3)


def suppress_around_arithmetic(x):
    y = x
    with contextlib.suppress(ArithmeticError):
        y = np.exp(x)
    return np.sum(y)


def test_contextlib_suppress():
    check(suppress_static_key_error, X, {})
    assert st.grad(suppress_static_key_error)(X, {}) == pytest.approx(np.full(3, 2.0))
    check(suppress_around_views, X)
    err = refusal(suppress_around_arithmetic, X, kind=UnsupportedSyntaxError)
    assert err.loc.line == line_of(suppress_around_arithmetic, "contextlib.suppress")
    assert "exp at " in err.message


# --- static while loops, shifts, loops unrolled for index tuples and dict keys -------------


def halvings(y):
    n, k = 1, 0
    while n < y.shape[0] - 1:  # ints only: run while compiling
        n <<= 1
        k += 1
    return np.sum(y[: (1 << k) + 1] ** 2) / (k >> 1 if k > 1 else 1)


def tupleset(t, i, value):
    items = list(t)
    items[i] = value
    return tuple(items)


def romberg_by_hand(y):
    n, k = 1, 0
    while n < y.shape[0] - 1:
        n <<= 1
        k += 1
    R = {}
    sl = (slice(None),)
    h = float(n)
    R[(0, 0)] = (y[0] + y[-1]) / 2.0 * h
    start = stop = step = n
    for i in range(1, k + 1):
        start >>= 1
        sl = tupleset(sl, 0, slice(start, stop, step))  # a new static slice each trip
        step >>= 1
        R[(i, 0)] = 0.5 * (R[(i - 1, 0)] + h * np.sum(y[sl]))
        for j in range(1, i + 1):
            prev = R[(i, j - 1)]
            R[(i, j)] = prev + (prev - R[(i - 1, j - 1)]) / ((1 << (2 * j)) - 1)
        h /= 2.0
    return R[(k, k)]


def runtime_int_shift(x):
    n = int(np.floor(x[2] * 3.0 + 0.5))  # an int known at run time only (6 here)
    return np.sum(x) * (n << 2) + np.sum(x * x) * (n >> 1)


def test_static_while_and_unrolled_loops():
    y = np.linspace(0.0, 1.0, 9) ** 2 + 0.1
    check(halvings, y)
    check(romberg_by_hand, y)
    check(runtime_int_shift, X)
    err = refusal(lambda_shift_by_runtime, X, kind=UnsupportedSyntaxError)
    assert err.loc.line == line_of(lambda_shift_by_runtime, "1 << n")


def lambda_shift_by_runtime(x):
    n = int(np.floor(x[2]))
    return np.sum(x) * (1 << n)  # a shift count known at run time only


def test_romb_matches_scipy():
    integrate = pytest.importorskip("scipy.integrate")

    def romb_loss(y):
        return integrate.romb(y ** 2, dx=0.5)

    check(romb_loss, np.linspace(0.0, 1.0, 9) + np.array([0.1, -0.2] * 4 + [0.3]))
    check(romb_loss, np.linspace(-1.0, 2.0, 17))


# --- np.unique of an inactive runtime array -----------------------------------------------


def mean_over_groups(x, labels):
    groups = np.unique(labels)
    return np.sum(x ** 2) / groups.shape[0]


def unique_of_active(x):
    return np.sum(np.unique(x) ** 2)


def test_np_unique_passes_through_inactive_arrays():
    check(mean_over_groups, X, np.array([3, 1, 3]))
    check(mean_over_groups, X, np.array([1, 2, 3]))
    err = refusal(unique_of_active, X, kind=NoRuleError)
    assert err.loc.line == line_of(unique_of_active, "np.unique(x)")


# --- itertools on static containers, list()/tuple() of runtime arrays ----------------------


def batched_sum(a):
    from itertools import product

    s = 0.0
    for ind in product(*[range(n) for n in a.shape[:-2]]):  # scipy.linalg.expm's loop
        s = s + np.sum(np.sin(a[ind]))
    return s


def pairs_loss(x):
    from itertools import chain, combinations

    rows = list(x)  # the rows of an array whose length is known
    total = 0.0
    for i, j in combinations(range(len(rows)), 2):
        total = total + np.sum(rows[i] * rows[j])
    cols = tuple(x.T)
    for c in chain(cols[:1], [cols[-1]]):
        total = total + np.sum(c ** 3)
    return total


def test_itertools_and_rows_of_runtime_arrays():
    check(batched_sum, M)
    check(batched_sum, np.arange(12.0).reshape(3, 2, 2) / 7.0)
    check(pairs_loss, np.arange(12.0).reshape(4, 3) / 5.0 - 1.0)


def ndindex_loss(a):
    s = 0.0
    for ind in np.ndindex(a.shape):  # static index tuples, in C order
        s = s + a[ind] ** 2 * (ind[0] + 1)
    return s


def test_ndindex_loop():
    check(ndindex_loss, M)
