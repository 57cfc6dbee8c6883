"""Lists built at run time: appends under runtime conditions, ``xs[-1]`` while appending,
tuples appended, slices, concatenation, and the list kernels themselves.

Gradients are checked against float64 central differences and forward mode against
reverse mode; the corpus (``tests/corpus/control.py``, category ``list``) checks more
functions in every mode.  Here: what the corpus cannot see (code compiled for one
example and called with another whose lists have other lengths) and every refusal,
which must point at the user's line.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError
from st_autodiff.ir import kernels
from st_autodiff.testing import check_grads
from tests.corpus.control import lst_while_branch_append


def _check(fn, *args, wrt=0):
    """Reverse mode against central differences, forward mode against reverse mode."""
    g = st.grad(fn, wrt=wrt)
    check_grads(fn, args, lambda *a: tuple(g(*a) if k == wrt else None
                                           for k in range(len(a))), argnums=(wrt,))
    x = args[wrt]
    t = np.random.default_rng(7).normal(size=np.shape(x))
    tangents = [None] * len(args)
    tangents[wrt] = t
    _, out_dot = st.jvp(fn, args, tangents)
    np.testing.assert_allclose(out_dot, np.sum(g(*args) * t), rtol=1e-9, atol=1e-12)


# --- lists whose length the example does not fix ------------------------------------------


def halve_until_small(x):
    terms = []
    y = x
    while np.sum(y * y) > 0.5:
        y = y * 0.6
        terms.append(np.sum(np.sin(y)))
    return sum(terms) + np.sum(y**3)


def test_code_compiled_for_one_example_is_right_for_another():
    """The gradient is compiled once per argument shapes: an example that appends
    nothing in some branch must not fix the list's length (or kind) for later calls."""
    g = st.grad(halve_until_small)
    few, many = np.array([0.7, 0.6]), np.array([3.0, -2.5])
    for x in (few, many, few):  # compiled on the first call only
        check_grads(halve_until_small, (x,), lambda x: (g(x),))


def test_sum_of_a_list_the_example_leaves_empty_still_carries_gradient():
    g = st.grad(lst_while_branch_append)
    g(np.array([3.0, 2.0]))  # compiled while 'small' stays empty
    x = np.array([2.0, 3.1])
    check_grads(lst_while_branch_append, (x,), lambda x: (g(x),))
    assert np.all(g(x) != 0)


# --- appends: sites, order, conditions ----------------------------------------------------


def interleaved(x):
    out = []
    for k in range(3):
        if x[k] > 0:
            out.append(x[k] * 2.0)
        out.append(np.sin(x[k]))
        if x[k] < 0:
            continue
        out.append(x[k] ** 3)
    return np.sum(np.stack(out) * np.arange(1.0, len(out) + 1.0))


def test_appends_keep_python_order_across_sites():
    x = np.array([0.5, -0.7, 1.2])
    value, _ = st.value_and_grad(interleaved)(x)
    assert value == pytest.approx(interleaved(x), rel=1e-12)
    _check(interleaved, x)


def last_item(x, n):
    hs = [x]
    for _ in range(n):
        if np.sum(hs[-1]) > 0:
            hs.append(np.tanh(hs[-1]) * 1.5)
        else:
            hs.append(hs[-1] + 1.0)
    return np.sum(hs[-1] * hs[0])


@pytest.mark.parametrize("x", [np.array([0.4, 0.3]), np.array([-1.4, 0.2])])
def test_last_item_read_while_appending_follows_branches(x):
    _check(last_item, x, 4)


def pairs_in_a_loop(x, y):
    pairs = []
    for a, b in zip(x, y):
        if a > b:
            pairs.append((a * b, a - b))
        else:
            pairs.append((a + b, b))
    total = 0.0
    for prod, diff in pairs:
        total = total + prod * np.exp(-diff**2)
    first = pairs[0]
    return total + first[0] * len(pairs)


def test_tuples_appended_are_iterated_indexed_and_counted():
    x, y = np.array([0.3, -0.4, 1.1]), np.array([0.1, 0.5, 0.2])
    assert pairs_in_a_loop(x, y) == pytest.approx(
        st.value_and_grad(pairs_in_a_loop)(x, y)[0], rel=1e-12)
    _check(pairs_in_a_loop, x, y)
    _check(pairs_in_a_loop, x, y, wrt=1)


def slices_and_concatenation(x):
    hs = []
    for row in x:
        hs.append(np.sin(row))
    head, tail = hs[:2], hs[1:]
    both = head + tail + [x[0]]
    return np.sum(np.concatenate(both[::-1])) + np.sum(np.stack(hs[-2:]) ** 2)


def test_slices_reversal_and_concatenation_of_runtime_lists():
    _check(slices_and_concatenation, np.random.default_rng(1).normal(size=(4, 3)))


def loop_over_list_argument(x, ws):
    total = 0.0
    for w in ws:
        total = total + np.sum(np.tanh(x * w))
    return total


def test_loop_over_a_list_argument_is_specialised_on_its_length():
    g = st.grad(loop_over_list_argument)
    x = np.array([0.2, -0.5])
    for ws in ([1.0, 2.0], [1.0, 2.0, -3.0], [0.5]):
        check_grads(loop_over_list_argument, (x, ws), lambda x, ws: (g(x, ws), None),
                    argnums=(0,))


# --- refusals ------------------------------------------------------------------------------


def append_in_expression(x):
    hs = []
    for v in x:
        r = hs.append(v)  # noqa: F841  <- here
    return np.sum(np.stack(hs))


def append_in_nested_loop(x):
    hs = []
    for u in x:
        for v in x:  # <- here
            hs.append(v * u)
    return sum(hs)


def tuple_lengths_differ(x):
    hs = []
    for v in x:
        if v > 0:
            hs.append((v, v))
        else:
            hs.append((v,))  # <- here
    return len(hs)


def read_other_item_while_appending(x):
    hs = [x[0]]
    for v in x:
        hs.append(v * hs[0])  # <- here
    return sum(hs)


def last_of_empty_list(x):
    hs = []
    for v in x:
        hs.append(hs[-1] * v)  # <- here
    return sum(hs)


def stack_of_tuples(x):
    pairs = []
    for v in x:
        pairs.append((v, v * 2))
    return np.sum(np.stack(pairs))  # <- here


def repeat_runtime_list(x):
    hs = []
    for v in x:
        hs.append(v)
    return sum(hs * 2)  # <- here


def strided_slice(x):
    hs = []
    for v in x:
        hs.append(v)
    return sum(hs[::2])  # <- here


@pytest.mark.parametrize("fn, words", [
    (append_in_expression, "statement of its own"),
    (append_in_nested_loop, "nested in the loop"),
    (tuple_lengths_differ, "different kinds"),
    (read_other_item_while_appending, "only its last item"),
    (last_of_empty_list, "before anything was appended"),
    (stack_of_tuples, "list of tuples"),
    (repeat_runtime_list, "not defined between a list"),
    (strided_slice, "step 1"),
])
def test_unsupported_list_uses_are_refused_at_the_users_line(fn, words):
    with pytest.raises(CompileError) as info:
        st.grad(fn)(np.array([0.5, -0.3, 0.8]))
    msg = str(info.value)
    assert words in msg
    lines, first = inspect.getsourcelines(fn)
    marked = first + next(k for k, line in enumerate(lines) if "<- here" in line)
    assert f":{marked}:" in msg, msg


# --- kernels ---------------------------------------------------------------------------------


def test_gather_interleaves_sites_and_ungather_inverts_it():
    a, b = [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]
    fa, fb = [True, False, True], [False, True, True]
    out = kernels.list_gather(a, b, fa, fb)
    assert out == [1.0, 20.0, 3.0, 30.0]
    assert kernels.list_ungather(out, fa, fb, site=0) == [1.0, 0.0, 3.0]
    assert kernels.list_ungather(out, fa, fb, site=1) == [0.0, 20.0, 30.0]
    assert kernels.list_gather(a, b, None, None) == [1.0, 10.0, 2.0, 20.0, 3.0, 30.0]
    assert kernels.list_ungather([1, 2, 3, 4], None, None, site=1) == [2, 4]


def test_split_like_undoes_concatenate():
    items = [np.ones(2), np.zeros(3), np.full(1, 2.0)]
    parts = kernels.list_split_like(np.concatenate(items), items)
    assert [p.shape for p in parts] == [(2,), (3,), (1,)]
    assert all(np.array_equal(p, q) for p, q in zip(parts, items))


def test_list_add_treats_missing_items_as_zero():
    assert kernels.list_add([1.0, None], [None, 2.0]) == [1.0, 2.0]
    assert kernels.list_add(None, [3.0]) == [3.0]
    with pytest.raises(ValueError):
        kernels.list_add([1.0], [1.0, 2.0])  # never silently truncated
