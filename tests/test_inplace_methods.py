"""In-place array methods and NumPy writer functions on arrays the function made.

``x.fill``, ``x.sort``, ``np.place``, ``np.putmask``, ``np.copyto`` and
``np.fill_diagonal`` are lowered as whole-array writes (``transforms/inplace.py``): values
must equal plain NumPy's, gradients central differences, and writes into the caller's
arrays (or views of them) stay located refusals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads

X = np.array([0.7, -1.3, 2.1, -0.4, 1.6, 0.2])


def _check(f: Callable[..., Any], *args: Any) -> None:
    """Value equal to NumPy's, gradient equal to central differences (every argument)."""
    wrt = tuple(range(len(args)))
    value, _ = st.value_and_grad(f, wrt=wrt)(*[np.copy(a) for a in args])
    np.testing.assert_allclose(value, f(*[np.copy(a) for a in args]), rtol=1e-12, atol=0)

    def grads(*a: Any) -> tuple[Any, ...]:
        g = st.grad(f, wrt=wrt)(*a)
        return g if isinstance(g, tuple) else (g,)

    check_grads(f, [np.copy(a) for a in args], grads, atol=1e-6, rtol=1e-6)


# --- x.fill ------------------------------------------------------------------------------

def fill_scalar(x):
    y = np.zeros(6)
    y.fill(2.5)
    return np.sum(y * x)


def fill_with_data(x):
    y = np.empty(3)
    y.fill(x[1])  # the filled value is differentiated
    return np.sum(y * x[:3])


def fill_int_array(x):
    k = np.zeros(6, dtype=int)
    k.fill(2.9)  # NumPy casts the value to the array's dtype
    return np.sum(k * x)


def fill_then_write(x):
    y = x * 1.0
    y.fill(0.0)
    y[2] = x[0] ** 2
    return np.sum(y * x)


@pytest.mark.parametrize("f", [fill_scalar, fill_with_data, fill_int_array, fill_then_write])
def test_fill(f: Callable[..., Any]) -> None:
    _check(f, X)


# --- x.sort ------------------------------------------------------------------------------

def sort_1d(x):
    y = x * 2.0
    y.sort()
    return np.sum(y * np.arange(6.0))


def sort_axis0(x):
    y = np.reshape(x, (3, 2)) ** 2
    y.sort(axis=0, kind="mergesort")
    return np.sum(y * np.array([[1.0, 2.0], [3.0, 5.0], [7.0, 11.0]]))


def sort_then_reuse(x):
    y = x + 0.0
    y.sort()
    z = y[1:] - y[:-1]  # reads after the sort see the sorted values
    return np.sum(z ** 2)


@pytest.mark.parametrize("f", [sort_1d, sort_axis0, sort_then_reuse])
def test_sort(f: Callable[..., Any]) -> None:
    _check(f, X)


# --- np.place ----------------------------------------------------------------------------

def place_exact(x):
    y = np.zeros(6)
    m = np.array([True, False, True, True, False, False])
    np.place(y, m, x[:3] * 2.0)
    return np.sum(y * x)


def place_cycled(x):
    y = np.ones(6)
    m = np.array([True, True, True, False, True, True])
    np.place(y, m, x[:2])  # fewer values than true positions: NumPy repeats them
    return np.sum(y * x)


def place_longer(x):
    y = np.ones(6)
    m = np.array([False, True, False, False, True, False])
    np.place(y, m, x)  # more values than true positions: the first ones are used
    return np.sum(y * np.exp(x))


def place_data_mask(x):
    y = np.full(6, -1.0)
    m = x > 0
    np.place(y, m, np.extract(m, x) ** 2)  # as many values as true, known at run time
    return np.sum(y * x)


def place_scalar(x):
    y = x * 3.0
    np.place(y, x < 0, x[0])
    return np.sum(y ** 2)


def place_int_mask_2d(x):
    y = np.zeros((2, 3))
    m = (np.reshape(x, (2, 3)) > 0) + np.array([[1, 0, 0], [0, 0, 0]])  # ints, nonzero
    np.place(y, m, np.tanh(x))
    return np.sum(y * np.reshape(x, (2, 3)))


@pytest.mark.parametrize("f", [place_exact, place_cycled, place_longer, place_data_mask,
                               place_scalar, place_int_mask_2d])
def test_place(f: Callable[..., Any]) -> None:
    _check(f, X)


def test_place_gradient_of_data_dependent_values_by_hand() -> None:
    g = st.grad(place_data_mask)(X.copy())
    # y = x**2 where x > 0 else -1; loss = sum(y * x): d/dx = 3 x**2 or -1
    np.testing.assert_allclose(g, np.where(X > 0, 3 * X ** 2, -1.0), rtol=1e-12)


# --- np.putmask, np.copyto ---------------------------------------------------------------

def putmask_cycled(x):
    y = np.zeros(6)
    np.putmask(y, x > 0, x[:4] * 2.0)  # values read at each position modulo 4
    return np.sum(y * x)


def putmask_full(x):
    y = x ** 2
    np.putmask(y, np.abs(x) > 1.0, np.sin(x))
    return np.sum(y)


def putmask_scalar(x):
    y = np.reshape(x, (2, 3)) * 1.0
    np.putmask(y, y < 0, 0.5)
    return np.sum(y ** 2)


def copyto_plain(x):
    y = np.zeros((2, 6))
    np.copyto(y, x * 3.0)  # broadcast into the destination
    return np.sum(y * y)


def copyto_where(x):
    y = np.ones(6)
    np.copyto(y, np.exp(x), where=x > 0)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [putmask_cycled, putmask_full, putmask_scalar, copyto_plain,
                               copyto_where])
def test_putmask_copyto(f: Callable[..., Any]) -> None:
    _check(f, X)


def copyto_bad_cast(x):
    k = np.zeros(6, dtype=int)
    np.copyto(k, x)  # float64 -> int64 is refused by NumPy's same_kind rule
    return np.sum(k * x)


def test_copyto_casting_refused() -> None:
    with pytest.raises(TypeError):
        copyto_bad_cast(X.copy())
    with pytest.raises(StAutodiffError, match="cannot cast"):
        st.grad(copyto_bad_cast)(X.copy())


# --- np.fill_diagonal -------------------------------------------------------------------

def fill_diagonal_vector(x):
    a = np.ones((3, 3))
    np.fill_diagonal(a, x[:3])
    return np.sum(a @ a)


def fill_diagonal_cycled_tall(x):
    a = np.zeros((5, 2)) + x[0]
    np.fill_diagonal(a, x[1:3] ** 2, wrap=True)  # every 3rd flat position, values repeat
    return np.sum(a * np.arange(10.0).reshape(5, 2))


def fill_diagonal_scalar(x):
    a = np.outer(x[:3], x[3:])
    np.fill_diagonal(a, x[5])
    return np.sum(a ** 2)


@pytest.mark.parametrize("f", [fill_diagonal_vector, fill_diagonal_cycled_tall,
                               fill_diagonal_scalar])
def test_fill_diagonal(f: Callable[..., Any]) -> None:
    _check(f, X)


# --- writes into the caller's arrays stay refused ---------------------------------------

def fill_argument(x):
    x.fill(1.0)
    return np.sum(x)


def sort_view_of_argument(x):
    v = x[1:]
    v.sort()
    return np.sum(v)


def place_argument(x):
    np.place(x, x > 0, 0.0)
    return np.sum(x)


def copyto_argument(x, y):
    np.copyto(y, x)
    return np.sum(y)


def fill_diagonal_view(x):
    a = np.zeros((3, 3))
    b = a[:2]
    np.fill_diagonal(b, x[:2])
    return np.sum(a * 1.0)


@pytest.mark.parametrize(("f", "args", "why"), [
    (fill_argument, (X,), "argument"),
    (sort_view_of_argument, (X,), "view of the argument"),
    (place_argument, (X,), "argument"),
    (copyto_argument, (X, X * 2), "argument"),
    (fill_diagonal_view, (X,), "view"),
])
def test_writes_outside_refused_with_location(f: Callable[..., Any], args: tuple,
                                              why: str) -> None:
    with pytest.raises(StAutodiffError, match=why) as info:
        st.grad(f)(*[np.copy(a) for a in args])
    assert "test_inplace_methods.py:" in str(info.value)


def test_method_on_unnamed_array_refused() -> None:
    def f(x):
        (x * 2.0).sort()
        return np.sum(x)

    with pytest.raises(StAutodiffError, match="named array"):
        st.grad(f)(X.copy())


# --- a region body looping over a tuple of the enclosing function's values ---------------

def _sums(*arys):
    res = []
    for a in arys:  # binds the enclosing builder's unnamed nodes to a name in the body
        res.append(np.sum(a * 2.0))
    return res


def tuple_of_outer_values(x, s):
    args = tuple(map(np.exp, (x, s)))  # unnamed nodes of the function's own graph
    out = 0.0
    if np.any(x > 0):
        t = x + 1.0
        r = _sums(*args)
        out = r[0] * r[1] + np.sum(t)
    return out


def test_region_loop_over_outer_tuple() -> None:
    """SciPy's ``argsreduce`` pattern: renaming must not replace a node of the body's own
    graph with the enclosing graph's node (it crashed, or corrupted the body)."""
    _check(tuple_of_outer_values, X, np.float64(0.3))


# --- SciPy's logpdf shape: a branch that returns a list, place under a runtime if --------

def _reduce(cond, *args):
    newargs = list(args)
    if np.all(cond):
        *newargs, cond = np.broadcast_arrays(*newargs, cond)  # rebinds only this branch
        return [arg.ravel() for arg in newargs]
    return [np.extract(cond, a) for a in newargs]


def logpdf_like(x, s):
    out = np.empty(6)
    out.fill(-np.inf)
    cond = x > -1.0
    if np.any(cond):
        xs, ss = _reduce(cond, x, np.full(6, s))
        np.place(out, cond, -0.5 * (xs / ss) ** 2 - np.log(ss))
    if out.ndim == 0:
        return out[()]
    return np.sum(np.where(np.isfinite(out), out, 0.0))


def test_logpdf_pattern() -> None:
    _check(logpdf_like, X, np.float64(1.3))  # some x <= -1: the extract branch
    _check(logpdf_like, np.abs(X), np.float64(1.3))  # all true: the broadcast branch


def _pair(x):
    if np.all(x > 0):
        return [x * 2.0, x * 3.0]
    return [x, x]


def returned_lists(x):
    a, b = _pair(x)
    return np.sum(a * b)


def test_runtime_if_returning_lists() -> None:
    _check(returned_lists, np.abs(X))
    _check(returned_lists, X)


def place_empty_values(x):
    y = x * 2.0
    m = x > 100.0  # no true value
    np.place(y, m, np.extract(m, x))  # nothing to place: NumPy writes nothing
    return np.sum(y ** 2)


def test_place_empty_values() -> None:
    _check(place_empty_values, X)

    def bad(x):
        y = x * 2.0
        np.place(y, x > 0, np.extract(x > 100.0, x))  # true positions, no values
        return np.sum(y)

    with pytest.raises(ValueError):
        bad(X.copy())
    with pytest.raises(IndexError):
        st.grad(bad)(X.copy())


# --- np.array copies by default: its result may be written in place --------------------

def array_copy_then_update(c):
    c = np.array(c, ndmin=1, copy=True)  # numpy.polynomial's polyder starts this way
    c *= 2.0
    c.sort()
    return np.sum(c ** 2 * np.arange(1.0, 7.0))


def asarray_then_update(c):
    d = np.asarray(c)  # the caller's array itself
    d *= 2.0
    return np.sum(d)


def test_np_array_copy_is_writable() -> None:
    _check(array_copy_then_update, X)
    with pytest.raises(StAutodiffError, match="argument") as info:
        st.grad(asarray_then_update)(X.copy())
    assert "test_inplace_methods.py:" in str(info.value)
