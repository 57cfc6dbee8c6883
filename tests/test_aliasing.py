"""In-place updates of arrays that something else may hold (issue bug 12).

``h += v`` on an ndarray changes the array itself, so every other holder of it sees the
change: another name, a list, tuple or dict, an item appended to a list (in this loop
iteration or an earlier one), a closure's default, a callee that kept it, a view.  The
compiler lowers the update as ``h = h + v``, which is exact only when nothing else holds
the array; everywhere else it must refuse, at the user's line, naming the other holder.
Updates that are safe must still be accepted: they are checked against NumPy (value),
central differences (gradient) and forward mode.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([0.5, -1.25, 2.0])


# --- updates that are safe: nothing else holds the array ---------------------------------

def update_in_loop(x):
    h = np.zeros(3)
    for i in range(4):
        h += x * i
    return np.sum(h * x)


def append_copy_then_update(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        h = h + x
        hs.append(h.copy())
        h += 1.0
    return np.sum(hs[0] * x) + np.sum(h * h)


def append_fresh_value_then_update(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        h += x
        hs.append(h * 2.0)
    return np.sum(hs[0] * hs[2]) + np.sum(h)


def append_then_rebind(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        hs.append(h)
        h = h * x
    return np.sum(hs[0]) + np.sum(hs[2] * h)


def fresh_in_every_branch(x):
    if np.sum(x) > 0:  # a runtime condition: an if region whose branches both make v
        v = x * 2.0
    else:
        v = x * 3.0
    v -= np.sin(x)
    return np.sum(v * v)


def closure_sees_the_update(x):
    h = x * 1.0
    f = lambda: h  # noqa: E731  (late binding: f() reads h after the update)
    h += np.cos(x)
    return np.sum(f() * x)


def swap_in_loop(x):
    a = x * 1.0
    b = x * 2.0
    for _i in range(3):
        a, b = b, a
        a += x * x
    return np.sum(a * b)


def zero_d_array(x):
    a = np.zeros(())
    a += np.sum(x * x)
    return a * 2.0


def numpy_scalar_alias(x):
    s = np.sum(x * x)
    u = s  # a NumPy scalar is immutable: += rebinds s, u keeps its value
    s += 1.0
    return s * u


def dict_item_in_loop(x):
    d = {"a": x * 1.0}
    for _i in range(3):
        d["a"] += x * x
    return np.sum(d["a"] * x)


def list_of_copies(x):
    h = x * 1.0
    hs = [h.copy(), h * 2.0]
    h += x
    return np.sum(hs[0] * hs[1] * h)


def copy_of_view(x):
    a = x * 1.0
    v = a[:2].copy()
    a += x
    return np.sum(v) + np.sum(a * a)


def carried_alias_not_read(x):
    h = x * 1.0
    g = x * 0.0
    for _ in range(3):
        h += x
        g = h  # the same array as h, but the body never reads g before g = h again
    return np.sum(g * x) + np.sum(h)


def update_in_branch_of_loop(x):
    h = x * 1.0
    hs = []
    for i in range(4):
        if i % 2 == 0:
            h += x * x
        else:
            h = h * 0.5
        hs.append(h * 1.0)
    return np.sum(np.stack(hs) * x)


def list_extended_in_place(x):
    a = [x]
    a += [x * 2.0]
    return np.sum(np.stack(a) * x)


def built_list_extended(x):
    hs = []
    for i in range(3):
        hs.append(x * i)
    hs += [x * x]
    return np.sum(np.stack(hs))


def list_aliased_after_the_loop(x):
    hs = []
    for i in range(3):
        hs.append(x * i)
    g = hs
    return np.sum(np.stack(g) * x) + len(hs)


SUPPORTED = [list_extended_in_place, built_list_extended, list_aliased_after_the_loop,
             carried_alias_not_read, update_in_branch_of_loop, update_in_loop,
             append_copy_then_update, append_fresh_value_then_update, append_then_rebind,
             fresh_in_every_branch, closure_sees_the_update, swap_in_loop, zero_d_array,
             numpy_scalar_alias, dict_item_in_loop, list_of_copies, copy_of_view]


@pytest.mark.parametrize("fn", SUPPORTED, ids=[f.__name__ for f in SUPPORTED])
def test_safe_update_matches_numpy_and_differences(fn: Callable[..., Any]) -> None:
    x = X.copy()
    value, grad = st.value_and_grad(fn)(x)
    np.testing.assert_array_equal(x, X)  # the caller's array is left alone
    np.testing.assert_allclose(value, fn(X.copy()), rtol=1e-12)
    check_grads(fn, (X.copy(),), lambda a: (st.grad(fn)(a),))
    tangent = np.array([0.3, -0.7, 1.1])
    eps = 1e-6
    _, t = st.jvp(fn, (X.copy(),), (tangent,))
    fd = (fn(X + eps * tangent) - fn(X - eps * tangent)) / (2 * eps)
    np.testing.assert_allclose(t, fd, rtol=1e-5, atol=1e-6)


# --- updates that another holder would see: refused where they are written ---------------

def issue_loop_appends_the_updated_array(x):
    h = np.zeros(3)
    hs = []
    for i in range(4):
        h += x * i  # <- issue-append
        hs.append(h)
    return np.sum(hs[0])


def issue_dict_alias(x):
    d = {"a": x * 1.0}
    b = d["a"]
    b += 1  # <- issue-dict
    return np.sum(d["a"])


def dict_item_alias(x):
    d = {"a": x * 1.0}
    b = d["a"]
    d["a"] += 1.0  # <- dict-item
    return np.sum(b)


def append_then_update_same_iteration(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        hs.append(h)
        h += x  # <- same-iteration
    return np.sum(hs[0])


def append_view_then_update(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        hs.append(h[:2])
        h += x  # <- appended-view
    return np.sum(hs[0])


def update_in_if_in_loop(x):
    h = x * 1.0
    hs = []
    for i in range(3):
        if i > 0:
            h += x  # <- if-in-loop
        hs.append(h)
    return np.sum(hs[0])


def update_in_while(x):
    h = x * 1.0
    hs = []
    i = 0
    while i < 3:
        h *= x  # <- while
        hs.append(h)
        i += 1
    return np.sum(hs[0])


def update_after_loop_appended(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        h = h + x
        hs.append(h)
    h += 1.0  # <- after-loop
    return np.sum(hs[-1])


def carried_name_read_after_update(x):
    h = x * 1.0
    g = x * 0.0
    total = 0.0
    for _i in range(3):
        h += x  # <- carried
        total = total + np.sum(g)
        g = h
    return total


def python_list_holds_it(x):
    h = x * 1.0
    hs = [h]
    h += 1.0  # <- py-list
    return np.sum(hs[0])


def nested_list_holds_it(x):
    h = x * 1.0
    m = [[h, x]]
    h += 1.0  # <- nested-list
    return np.sum(m[0][0])


def tuple_holds_it(x):
    h = x * 1.0
    t = (h, 2)
    h += 1.0  # <- tuple
    return np.sum(t[0])


def _keep(a, store):
    store.append(a)
    return a * 2.0


def callee_stored_it(x):
    h = x * 1.0
    store = []
    y = _keep(h, store)
    h += 1.0  # <- callee-stored
    return np.sum(store[0]) + np.sum(y)


def _same(a):
    return a


def callee_returned_it(x):
    h = x * 1.0
    y = _same(h)
    h += 1.0  # <- callee-returned
    return np.sum(y)


def lambda_default_holds_it(x):
    h = x * 1.0
    f = lambda h=h: h  # noqa: E731
    h += 1.0  # <- lambda-default
    return np.sum(f())


def live_view_of_it(x):
    a = x * 1.0
    v = a[:2]
    a += 1.0  # <- live-view
    return np.sum(v)


def update_through_view(x):
    a = x * 1.0
    v = a.reshape(3, 1)
    v += 1.0  # <- through-view
    return np.sum(a)


def list_item_updated(x):
    hs = [x * 1.0, x * 2.0]
    for hh in hs:
        hh += 1.0  # <- list-item
    return np.sum(hs[0])


def item_of_built_list_updated(x):
    hs = []
    for i in range(3):
        hs.append(x * i)
    for i in range(3):
        hh = hs[i]
        hh += 1.0  # <- built-list-item
    return np.sum(hs[1])


def alias_made_in_loop(x):
    a = x * 1.0
    for _i in range(3):
        b = a
        a += x  # <- loop-alias
    return np.sum(b)


def dict_made_before_loop(x):
    h = x * 1.0
    d = {"k": h}
    for _i in range(2):
        h += x  # <- dict-before-loop
    return np.sum(d["k"])


def zero_d_alias(x):
    a = np.zeros(())
    b = a
    a += np.sum(x)  # <- zero-d
    return b * 1.0


def element_write_in_loop_appended(x):
    h = np.zeros(3)
    hs = []
    for i in range(3):
        h[i] = x[i]  # <- element-write
        hs.append(h)
    return np.sum(hs[0])


def element_update_in_loop_appended(x):
    h = np.zeros(3)
    hs = []
    for i in range(3):
        h[i] += x[i]  # <- element-update
        hs.append(h)
    return np.sum(hs[0])


def tuple_appended_then_updated(x):
    h = np.zeros(3)
    out = []
    for i in range(3):
        h += x  # <- tuple-append
        out.append((h, i))
    return np.sum(out[0][0])


def last_item_read_then_updated(x):
    h = x * 1.0
    hs = []
    for _i in range(3):
        hs.append(h)
        y = hs[-1]
        h += x  # <- last-item
    return np.sum(y)


# lists themselves: a loop's appends and += make a new list here, but change the list
# object in Python, so another holder of the list would see the new items

def loop_appends_to_aliased_list(x):
    a = []
    b = a
    for i in range(3):
        a.append(x * i)  # <- aliased-list
    return np.sum(x) * len(b)


def loop_appends_to_list_in_tuple(x):
    a = [x]
    t = (a, 1)
    for i in range(3):
        if i > 0:
            a.append(x * i)  # <- list-in-tuple
    return np.sum(x) * len(t[0])


def _fill(lst, x):
    for i in range(3):
        lst.append(x * i)  # <- callers-list
    return 0.0


def callee_appends_to_callers_list(x):
    a = [x]
    _fill(a, x)
    return np.sum(np.stack(a))


def list_extended_with_alias(x):
    a = [x * 1.0]
    b = a
    a += [x * 2.0]  # <- list-plus
    return np.sum(np.stack(b))


def built_list_extended_with_alias(x):
    hs = []
    for i in range(3):
        hs.append(x * i)
    g = hs
    hs += [x * x]  # <- built-list-plus
    return np.sum(np.stack(g))


#: other names holding the same array: rebound with it by the write (``aliases``)
REBOUND = [dict_item_alias, tuple_holds_it, callee_returned_it, alias_made_in_loop,
           zero_d_alias]


@pytest.mark.parametrize("fn", REBOUND, ids=[f.__name__ for f in REBOUND])
def test_rebound_alias_matches_numpy_and_differences(fn: Callable[..., Any]) -> None:
    test_safe_update_matches_numpy_and_differences(fn)


REFUSED = [
    (loop_appends_to_aliased_list, "aliased-list", "a.append(",
     "appending to 'a' in a loop is not supported here: 'b' refers to the same list",
     "(b = a)"),
    (loop_appends_to_list_in_tuple, "list-in-tuple", "a.append(", "'t' holds the same list",
     "(t = a)"),
    (callee_appends_to_callers_list, "callers-list", "lst.append(",
     "'a' (in a calling function) refers to the same list", "(a = lst)"),
    (list_extended_with_alias, "list-plus", "a += [",
     "in-place update of 'a' is not supported here: 'b' refers to the same list and would "
     "change too", "write a = a + ... to make a new list"),
    (built_list_extended_with_alias, "built-list-plus", "hs += [",
     "'g' refers to the same list", "write hs = hs + ..."),
    (element_write_in_loop_appended, "element-write", "h[i]",
     "writing into 'h' is not supported here: the previous iteration stored it in the list "
     "'hs' (line {element-write+1})", "h = h.copy()"),
    (element_update_in_loop_appended, "element-update", "h[i] += x[i]",
     "the previous iteration stored it in the list 'hs'", "h = h.copy()"),
    (tuple_appended_then_updated, "tuple-append", "h += x",
     "the previous iteration stored it in the list 'out'", "write h = h + ..."),
    (last_item_read_then_updated, "last-item", "h += x",
     "it is stored in the list 'hs'", "write h = h + ..."),
    # (function, marker, token at the error's column, part of the message, part of the hint)
    (issue_loop_appends_the_updated_array, "issue-append", "h += x * i",
     "in-place update of 'h' is not supported here: the previous iteration stored it in the "
     "list 'hs' (line {issue-append+1}), which would change too", "write h = h + ..."),
    (issue_dict_alias, "issue-dict", "b += 1",
     "in-place update of 'b' is not supported here: 'd' holds the same array and would "
     "change too", "write b = b + ..."),
    (append_then_update_same_iteration, "same-iteration", "h += x",
     "it is stored in the list 'hs' (line {same-iteration-1}), which would change too",
     "write h = h + ..."),
    (append_view_then_update, "appended-view", "h += x",
     "a view of it is stored in the list 'hs'", "write h = h + ..."),
    (update_in_if_in_loop, "if-in-loop", "h += x",
     "the previous iteration stored it in the list 'hs'", "write h = h + ..."),
    (update_in_while, "while", "h *= x",
     "the previous iteration stored it in the list 'hs'", "write h = h * ..."),
    (update_after_loop_appended, "after-loop", "h += 1.0",
     "it may be stored in the list 'hs' and would change too", "write h = h + ..."),
    (carried_name_read_after_update, "carried", "h += x",
     "the previous iteration left it in 'g' too, which would change too", "write h = h + ..."),
    (python_list_holds_it, "py-list", "h += 1.0", "'hs' holds the same array",
     "write h = h + ..."),
    (nested_list_holds_it, "nested-list", "h += 1.0", "'m' holds the same array",
     "write h = h + ..."),
    (callee_stored_it, "callee-stored", "h += 1.0", "'store' holds the same array",
     "write h = h + ..."),
    (lambda_default_holds_it, "lambda-default", "h += 1.0", "'f' holds the same array",
     "write h = h + ..."),
    (live_view_of_it, "live-view", "a += 1.0", "'v' may be a view of it", "write a = a + ..."),
    (update_through_view, "through-view", "v += 1.0", "it may be a view of 'a'",
     "write v = v + ..."),
    (list_item_updated, "list-item", "hh += 1.0", "'hs' holds the same array",
     "write hh = hh + ..."),
    (item_of_built_list_updated, "built-list-item", "hh += 1.0",
     "it may be stored in the list 'hs'", "write hh = hh + ..."),
    (dict_made_before_loop, "dict-before-loop", "h += x", "'d' holds the same array",
     "write h = h + ..."),
]
FILE = inspect.getsourcefile(update_in_loop)
LINES = inspect.getsource(inspect.getmodule(update_in_loop)).splitlines()


def marked(name: str) -> tuple[int, str]:
    """The line number and text of the line marked ``# <- name`` in this file."""
    hits = [k for k, text in enumerate(LINES, 1) if text.rstrip().endswith(f"# <- {name}")]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    return hits[0], LINES[hits[0] - 1]


def _expand(message: str) -> str:
    """``{marker+1}`` / ``{marker-1}`` in an expected message: that line's number."""
    for sign in "+-":
        while "{" in message and sign + "1}" in message:
            start = message.index("{")
            end = message.index("}", start)
            marker = message[start + 1:end - 2]
            line = marked(marker)[0] + (1 if sign == "+" else -1)
            message = message[:start] + str(line) + message[end + 1:]
    return message


@pytest.mark.parametrize("fn, marker, token, message, hint", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_update_seen_elsewhere_is_refused_at_the_line(fn: Callable[..., Any], marker: str,
                                                      token: str, message: str,
                                                      hint: str) -> None:
    x = X.copy()
    for make in (st.grad, st.value_and_grad):
        with pytest.raises(UnsupportedSyntaxError) as info:
            make(fn)(x)
        exc = info.value
        line, text = marked(marker)
        assert _expand(message) in exc.message
        assert (exc.loc.file, exc.loc.line, exc.loc.col) == (FILE, line, text.index(token) + 1)
        assert hint in exc.hint
        assert str(exc).splitlines()[1] == "    " + text.strip()
    with pytest.raises(UnsupportedSyntaxError):
        st.jvp(fn, (x,), (np.ones(3),))
    np.testing.assert_array_equal(x, X)


def test_the_issue_reproduction_is_what_python_computes_when_rewritten() -> None:
    """The hint's rewrite (``h = h + x * i``) is accepted and gives NumPy's value for
    that program, with the right gradient."""

    def rewritten(x):
        h = np.zeros(3)
        hs = []
        for i in range(4):
            h = h + x * i
            hs.append(h)
        return np.sum(hs[0]) + np.sum(hs[3] * x)

    value, grad = st.value_and_grad(rewritten)(X)
    np.testing.assert_allclose(value, rewritten(X), rtol=1e-12)
    check_grads(rewritten, (X,), lambda a: (st.grad(rewritten)(a),))
    np.testing.assert_allclose(grad, 6.0 * X * 2, rtol=1e-12)
