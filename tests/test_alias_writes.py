"""Writes through aliases (``transforms/aliases.py``): every holder of the written array.

An in-place write (element or slice write, ``+=``, ``out=`` given by keyword or position,
``np.copyto``, ``np.putmask``) into an array the compiled code made changes that array
object, so every other name holding it (in the same function, in a tuple, or in the
calling function that passed it to an inlined callee) must see the new values.  Each
accepted case here reads the array through a name other than the one written, so a missed
rebinding gives a different value and gradient; values are compared with NumPy and
gradients with float64 central differences.  Writes whose effect cannot be followed (views
of the array, the caller's own arguments, a value read before a write in the same
expression, lists holding the array) stay located refusals.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads

X = np.array([0.3, -0.7, 1.1])
M = np.array([[0.2, -0.4, 0.9], [1.3, 0.1, -0.6]])


# --- accepted: the other holders see the write ----------------------------------------


def other_name_sees_element_write(x):
    a = x * 2.0
    b = a
    a[0] = 5.0 * x[1]
    return np.sum(b * x)


def other_name_sees_update(x):
    a = np.exp(x)
    b = a
    b *= x
    return np.sum(a * a)


def tuple_item_sees_update(x):
    a = x * 2.0
    t = (a, x)
    a *= 3.0
    return np.sum(t[0] * t[1])


def nested_tuple_sees_write(x):
    a = x + 1.0
    t = ((a, 1.0), x)
    a[1:] = x[:2] ** 2
    return np.sum(t[0][0] * x)


def _tanh_in_place(arr):
    np.tanh(arr, out=arr)


def caller_sees_callee_out(x):
    h = x * 2.0
    _tanh_in_place(h)
    return np.sum(h * x)


def _softmax_in_place(arr):
    tmp = arr - arr.max(axis=1)[:, np.newaxis]
    np.exp(tmp, out=arr)
    arr /= arr.sum(axis=1)[:, np.newaxis]


def caller_sees_callee_softmax(m):
    h = m @ m.T
    _softmax_in_place(h)
    return np.sum(h * np.array([[1.0, 0.0], [0.5, 2.0]]))


def _inner_write(arr):
    arr[0] = arr[1] * 3.0


def _outer_write(arr):
    _inner_write(arr)


def caller_sees_nested_callee(x):
    h = x ** 2
    _outer_write(h)
    return np.sum(h * x)


def positional_out(x):
    k = np.outer(x, x)
    k *= -0.5
    np.exp(k, k)
    return np.sum(k * np.arange(9.0).reshape(3, 3))


def _modify_in_place(func, *args, out=None):
    func(*args, out=out)
    return out


def out_through_star_args(x):
    d = np.outer(x, x) - 0.1
    d = _modify_in_place(np.maximum, d, 0.01, out=d)
    e = d
    e = _modify_in_place(np.sqrt, e, out=e)
    return np.sum(d * 2.0 + e)


def out_of_asarray(x):
    a = x * 1.5
    b = a
    np.exp(a, out=np.asarray(a))
    return np.sum(b * x)


def alias_in_if(x):
    a = x * 2.0
    b = a
    if x[0] > 0:
        a[1] = 9.0 * x[2]
    return np.sum(b * x)


def putmask_alias(x):
    y = x * 2.0
    z = y
    np.putmask(y, y > 0, 0.5 * x)
    return np.sum(z * x)


def copyto_alias(x):
    y = np.zeros(3)
    z = y
    np.copyto(y, x ** 2)
    return np.sum(z * x)


def caller_tuple_sees_callee(x):
    h = x * 2.0
    pair = (h, 1.0)
    _tanh_in_place(h)
    return np.sum(pair[0] * x)


def alias_then_update(x):  # (refused before alias sets: tests/test_errors.py had it)
    y = x * 2.0
    z = y
    z *= 3.0
    return np.sum(y * x)


def _bump(t):
    t += 1.0
    return t


def helper_updates_callers_array(x):
    y = x * 2.0
    z = _bump(y)
    return np.sum(y * z)


def aliases_in_both_branches(x):
    h = x * 1.0
    g = h
    if x[0] > 0:
        g *= 2.0
    else:
        h += 1.0
    return np.sum(g * x) + np.sum(h)


def alias_made_in_the_loop(x):
    h = np.zeros(3)
    g = h
    for t in range(3):
        g = h
        h[t] = x[t] ** 2
    return np.sum(g * x)


def list_made_after_early_return(x):  # statsmodels add_constant: a list in one branch
    if x[0] > 5.0:
        return np.sum(x)
    cols = [np.ones(3), x]
    return np.sum(np.column_stack(cols) * 2.0 * x[:, None])


def asarray_is_the_same_array(x):
    a = x * 2.0
    b = np.asarray(a, dtype=np.float64)  # a itself
    c = a.astype(np.float64, copy=False)  # a itself
    a[0] = 5.0 * x[1]
    return np.sum(b * x) + np.sum(c * c)


def write_through_asarray_alias(x):
    a = np.exp(x)
    b = np.asarray(a)
    b[1:] = x[:2] * 3.0
    return np.sum(a * x)


SUPPORTED = [other_name_sees_element_write, other_name_sees_update, tuple_item_sees_update,
             nested_tuple_sees_write, caller_sees_callee_out, caller_sees_nested_callee,
             positional_out, out_through_star_args, out_of_asarray, alias_in_if,
             putmask_alias, copyto_alias, caller_tuple_sees_callee, alias_then_update,
             helper_updates_callers_array, aliases_in_both_branches, alias_made_in_the_loop,
             list_made_after_early_return, asarray_is_the_same_array,
             write_through_asarray_alias]


@pytest.mark.parametrize("fn", SUPPORTED, ids=[f.__name__ for f in SUPPORTED])
def test_alias_write_matches_numpy_and_differences(fn: Callable[..., Any]) -> None:
    x = X.copy()
    value, grad = st.value_and_grad(fn)(x)
    np.testing.assert_array_equal(x, X)  # the caller's array is left alone
    np.testing.assert_allclose(value, fn(X.copy()), rtol=1e-12)
    check_grads(fn, (X.copy(),), lambda a: (st.grad(fn)(a),))


def test_callee_softmax_matches_numpy_and_differences() -> None:
    fn = caller_sees_callee_softmax
    value, _ = st.value_and_grad(fn)(M.copy())
    np.testing.assert_allclose(value, fn(M.copy()), rtol=1e-12)
    check_grads(fn, (M.copy(),), lambda a: (st.grad(fn)(a),))


def test_alias_write_forward_mode() -> None:
    tangent = np.array([0.5, -0.2, 0.9])
    eps = 1e-6
    for fn in (other_name_sees_element_write, caller_sees_callee_out, positional_out):
        _, t = st.jvp(fn, (X.copy(),), (tangent,))
        fd = (fn(X + eps * tangent) - fn(X - eps * tangent)) / (2 * eps)
        np.testing.assert_allclose(t, fd, rtol=1e-5, atol=1e-6)


def stale_other_name(x):  # other_name_sees_element_write where the alias was a copy
    a = x * 2.0
    b = a.copy()
    a[0] = 5.0 * x[1]
    return np.sum(b * x)


def stale_caller(x):  # caller_sees_callee_out where the callee wrote into a copy
    h = x * 2.0
    _tanh_in_place(h.copy())
    return np.sum(h * x)


def test_cases_would_differ_if_a_rebinding_were_missed() -> None:
    # what a missed rebinding computes differs, in value and gradient, from the right answer
    for fn, stale in ((other_name_sees_element_write, stale_other_name),
                      (caller_sees_callee_out, stale_caller)):
        assert not np.isclose(fn(X.copy()), stale(X.copy()))
        assert not np.allclose(st.grad(fn)(X.copy()), st.grad(stale)(X.copy()))


# --- np.may_share_memory / np.shares_memory ----------------------------------------------


def share_checks(x):
    a = np.asarray(x)  # x itself
    b = x * 2.0  # a new array
    c = b
    s = 0.0
    s = s + (1.0 if np.may_share_memory(a, x) else 10.0)
    s = s + (1.0 if np.shares_memory(b, x) else 100.0)
    s = s + (1.0 if np.may_share_memory(c, b) else 1000.0)
    return s * np.sum(x)


def test_shares_memory_answered_when_compiling() -> None:
    value, _ = st.value_and_grad(share_checks)(X.copy())
    np.testing.assert_allclose(value, share_checks(X.copy()))
    check_grads(share_checks, (X.copy(),), lambda a: (st.grad(share_checks)(a),))


# --- refused, with the user's line -----------------------------------------------------


def refuse_view_then_out(x):
    a = x * 2.0
    v = a[:2]
    np.exp(a, out=a)  # <- view
    return np.sum(v)


def refuse_callee_writes_argument(x):
    _tanh_in_place(x)  # <- argument
    return np.sum(x)


def refuse_read_before_write(x):
    k = x * 2.0
    return np.sum(k + np.exp(k, out=k))  # <- pending


def _bump_and_return(arr):
    arr += 1.0
    return arr * 0.0


def refuse_read_before_callee_write(x):
    h = x * 2.0
    return np.sum(h + _bump_and_return(h))  # <- pending-callee


def refuse_list_holds_it(x):
    a = x * 2.0
    lst = [a, x]
    a[0] = 1.0  # <- list
    return np.sum(lst[0])


def _bump_if_positive(arr, c):
    if c[0] > 0:
        arr += 1.0  # <- callee-if
    return c


def refuse_callee_writes_in_if(x):
    h = x * 2.0
    _bump_if_positive(h, x)
    return np.sum(h)


def refuse_shares_two_arguments(x, y):
    return np.sum(x) * (1.0 if np.may_share_memory(x, y) else 2.0)  # <- share-args


def refuse_shares_view(x):
    a = x * 2.0
    v = a[1:]
    return np.sum(x) * (1.0 if np.may_share_memory(v, a) else 2.0)  # <- share-view


def refuse_alias_made_before_loop(x):
    h = np.zeros(3)
    g = h
    for t in range(3):
        h[t] = x[t]  # <- loop-alias
    return np.sum(g * x)


def refuse_alias_in_if_in_loop(x):
    h = x * 1.0
    g = h
    for t in range(2):
        if x[t] > 0:
            g[t] = 7.0 * x[2]  # <- if-in-loop
    return np.sum(h * x)


def _bump_kept(arr):
    arr += 1.0  # <- kept
    return arr * 2.0


def refuse_returned_before_write(x):
    h = x * 2.0
    return h, _bump_kept(h)


def refuse_kept_in_dict_before_write(x):
    h = x * 2.0
    d = {"a": h, "b": _bump_kept(h)}
    return d["a"]


REFUSED = [
    (refuse_view_then_out, "view", "np.exp", "'v' may be a view of it"),
    (refuse_callee_writes_argument, "argument", None, "it is an argument"),
    (refuse_read_before_write, "pending", "k + np.exp", "'k' is written in place"),
    (refuse_read_before_callee_write, "pending-callee", "h + _bump", "'arr' is written in place"),
    (refuse_alias_made_before_loop, "loop-alias", "h[t]", "'g' refers to the same array"),
    (refuse_alias_in_if_in_loop, "if-in-loop", "g[t]", "'h' refers to the same array"),
    (refuse_returned_before_write, "kept", "arr += 1.0", "value was read before the write"),
    (refuse_kept_in_dict_before_write, "kept", "arr += 1.0", "value was read before the write"),
    (refuse_list_holds_it, "list", "a[0]", "'lst' holds the same array"),
    (refuse_callee_writes_in_if, "callee-if", "arr += 1.0", "passed in by a caller"),
    (refuse_shares_two_arguments, "share-args", "np.may_share_memory",
     "which arrays the caller passed"),
    (refuse_shares_view, "share-view", "np.may_share_memory", "memory layout of views"),
]


@pytest.mark.parametrize("fn, marker, token, message", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_refused_with_location(fn: Callable[..., Any], marker: str, token: str | None,
                               message: str) -> None:
    args = [X.copy() for _ in inspect.signature(fn).parameters]
    with pytest.raises(StAutodiffError) as info:
        st.grad(fn)(*args)
    text = str(info.value)
    assert message in text
    assert "test_alias_writes.py:" in text
    if token is not None:
        lines = inspect.getsource(inspect.getmodule(fn)).splitlines()
        hits = [(k + 1, line) for k, line in enumerate(lines)
                if line.rstrip().endswith(f"# <- {marker}")]
        assert len(hits) == 1
        lineno, line = hits[0]
        assert f"test_alias_writes.py:{lineno}:{line.index(token) + 1}:" in text, text


# --- objects built in the compiled code hold arrays too ----------------------------------


class Box:
    def __init__(self, v):
        self.v = v

    def bump(self):
        a = self.v
        a[0] = 100.0 * a[1]


def attribute_sees_write(x):
    h = x * 2.0
    b = Box(h)
    h[0] = 7.0 * x[2]
    return np.sum(b.v * x)


def method_write_seen_by_attribute(x):
    b = Box(x * 2.0)
    b.bump()
    return np.sum(b.v * x)


def method_write_seen_by_caller(x):
    h = x * 2.0
    b = Box(h)
    b.bump()
    return np.sum(h * x)


def attribute_read_in_later_branch(x):
    h = x * 2.0
    b = Box(h)
    h[0] = 7.0 * x[2]
    if x[0] > 0:
        return np.sum(b.v * x)
    return np.sum(x)


@pytest.mark.parametrize("fn", [attribute_sees_write, method_write_seen_by_attribute,
                                method_write_seen_by_caller, attribute_read_in_later_branch])
def test_object_attributes_follow_writes(fn: Callable[..., Any]) -> None:
    # (before alias sets, the first two gave the value of the array before the write)
    value, _ = st.value_and_grad(fn)(X.copy())
    np.testing.assert_allclose(value, fn(X.copy()), rtol=1e-12)
    check_grads(fn, (X.copy(),), lambda a: (st.grad(fn)(a),))


def refuse_write_in_branch_object_outside(x):
    h = x * 2.0
    b = Box(h)
    if x[0] > 0:
        h[0] = 1.0  # <- obj-branch
    return np.sum(b.v)


def test_object_outside_the_branch_is_refused() -> None:
    with pytest.raises(StAutodiffError) as info:
        st.grad(refuse_write_in_branch_object_outside)(X.copy())
    text = str(info.value)
    assert "the attribute 'v' of a Box (built outside this if, for or while)" in text
    assert "test_alias_writes.py:" in text
