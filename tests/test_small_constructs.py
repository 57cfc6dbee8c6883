"""Small Python constructs that library code uses: compile-time iterators, sets, ``del``,
bitwise augmented assignment and NumPy keywords (``out=``, ``where=``, ``dtype=``,
``linspace(endpoint=...)``, ``argsort(kind=...)``).  Values equal plain Python, gradients
equal float64 central differences; what stays refused is a located error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([0.3, -1.2, 0.7, 1.9])


def _check(f: Callable[..., Any], *args: Any) -> None:
    """Value equal to running ``f``; gradient of every float argument equal to central
    differences."""
    nums = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    value, _ = st.value_and_grad(f, wrt=nums[0])(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_grads(f, args, lambda *a: tuple(
        st.grad(f, wrt=i)(*a) if i in nums else None for i in range(len(a))), argnums=nums)


# --- iter / next -------------------------------------------------------------------------


def next_over_tuple(x):
    it = iter((x, 2.0 * x, x ** 2))
    a = next(it)
    b = next(it)
    rest = list(it)
    return np.sum(a * b) + np.sum(rest[0]) + (next(it, None) is None)


def next_default(x):
    it = iter([x])
    first = next(it)
    second = next(it, 3.0)
    return np.sum(first * second)


def stop_iteration_caught(x):
    it = iter(range(2))
    s = 0.0
    for i in it:
        s = s + x[i] ** 2
    try:
        next(it)
    except StopIteration:
        s = s * 3.0
    return s


def loop_over_rest(x):
    it = iter((x, np.sin(x), np.cos(x)))
    head = next(it)
    s = 0.0
    for v in it:
        s = s + np.sum(head * v)
    return s


def iter_dict_keys_and_rows(x):
    params = {"a": 2.0, "b": 3.0}
    keys = iter(params)
    k0 = next(keys)
    rows = iter(x.reshape(2, 2))
    r0 = next(rows)
    return params[k0] * np.sum(r0 ** 2) + params[next(keys)] * np.sum(next(rows))


def polyval2d_like(x):
    """numpy.polynomial's ``_valnd``: the first argument through ``next``, the rest in a
    loop over the same iterator."""
    args = (x, 2.0 * x, x + 1.0)
    it = iter(args)
    c = next(it) * 1.5
    for xi in it:
        c = c * xi + 1.0
    return np.sum(c)


@pytest.mark.parametrize("f", [next_over_tuple, next_default, stop_iteration_caught,
                               loop_over_rest, iter_dict_keys_and_rows, polyval2d_like])
def test_compile_time_iterators(f: Callable[..., Any]) -> None:
    _check(f, X)


def uncaught_stop(x):
    it = iter((x,))
    next(it)
    return np.sum(next(it))


def advanced_in_runtime_branch(x):
    it = iter((x, 2.0 * x))
    if np.sum(x) > 0.0:
        next(it)
    return np.sum(next(it))


def test_iterator_errors_are_located() -> None:
    with pytest.raises(StaticRaiseError, match="StopIteration") as info:
        st.grad(uncaught_stop)(X)
    assert info.value.loc.line > 0 and "test_small_constructs.py" in str(info.value)
    with pytest.raises(UnsupportedSyntaxError, match="iterator 'it' is advanced inside an if"):
        st.grad(advanced_in_runtime_branch)(X)


# --- sets --------------------------------------------------------------------------------


def set_methods(x):
    s = set()
    for k in ("a", "b", "a"):
        s.add(k)
    p, q = sorted(s)
    t = frozenset({1, 2})
    n = len(s) + len(t) + (2 in t) + ("c" in s)
    u = s | {"c"}
    s.discard(p)
    total = 0.0
    for name in u:
        total = total + np.sum(x) * len(name)
    (only,) = s
    return total * n * len(u) * len(s) * len(only + q)


def array_namespace_like(x):
    """array_api_compat's ``array_namespace``: a set filled in a loop, then unpacked."""
    namespaces = set()
    for a in (x, x):
        namespaces.add(type(a).__module__)
    (xp,) = namespaces
    return np.sum(x ** 2) * len(xp)


@pytest.mark.parametrize("f", [set_methods, array_namespace_like])
def test_sets(f: Callable[..., Any]) -> None:
    _check(f, X)


# --- del ---------------------------------------------------------------------------------


def del_then_rebind(x):
    y = x * 2.0
    z = np.sum(y ** 2)
    del y
    y = x * 3.0
    return z + np.sum(y)


def del_items(x):
    d = {"a": x, "b": 2.0 * x}
    del d["a"]
    xs = [x, x ** 3, np.sin(x)]
    del xs[0], xs[-1]
    return np.sum(d["b"] * xs[0]) * len(d) * len(xs)


def del_read_caught(x):
    y = x
    del y
    try:
        return np.sum(y)
    except NameError:
        return np.sum(x * 5.0)


def del_in_both_branches(x):
    y = x * 2.0
    if np.sum(x) > 0.0:
        del y
        y = x * 4.0
    else:
        del y
        y = x * 5.0
    return np.sum(y * x)


def del_in_static_branch(x):
    y = x
    if x.shape[0] == 4:
        del y
    y = np.cos(x)
    return np.sum(y)


@pytest.mark.parametrize("f", [del_then_rebind, del_items, del_read_caught,
                               del_in_both_branches, del_in_static_branch])
def test_del(f: Callable[..., Any]) -> None:
    _check(f, X)


def del_read(x):
    y = x
    del y
    return np.sum(y)  # noqa: F821  (read after del: UnboundLocalError)


def del_twice(x):
    y = x
    del y
    del y  # noqa: F821  (deleted twice: UnboundLocalError)
    return np.sum(x)


def del_array_item(x):
    y = x * 1.0
    del y[0]
    return np.sum(y)


def del_one_branch(x):
    y = x * 2.0
    if np.sum(x) > 0.0:
        del y
    return np.sum(y)


def test_del_errors_are_located() -> None:
    for f, kind, text in ((del_read, StaticRaiseError, "UnboundLocalError"),
                          (del_twice, StaticRaiseError, "UnboundLocalError"),
                          (del_array_item, UnsupportedSyntaxError, "lists and dicts"),
                          (del_one_branch, UnsupportedSyntaxError, "deleted in one branch")):
        with pytest.raises(kind, match=text) as info:
            st.grad(f)(X)
        assert "test_small_constructs.py" in str(info.value)


# --- bitwise augmented assignment --------------------------------------------------------


def bitwise_ints(x):
    k = 13
    k &= 7
    k |= 8
    k ^= 3
    k <<= 2
    k >>= 1
    flag = True
    flag &= x.shape[0] == 4
    return np.sum(x) * k * flag


def shift_loop(x):
    """scipy.integrate.romb's power-of-two count."""
    n, k = 1, 0
    while n < x.shape[0] - 1:
        n <<= 1
        k += 1
    return np.sum(x ** 2) * n * k


def mask_updates(x):
    m = x > 0.0
    m &= x < 1.5
    m |= x < -1.0
    m ^= x > 0.5
    return np.sum(np.where(m, x ** 2, np.sin(x)))


@pytest.mark.parametrize("f", [bitwise_ints, shift_loop, mask_updates])
def test_bitwise_augmented_assignment(f: Callable[..., Any]) -> None:
    _check(f, X)


def mask_shared(x):
    m = x > 0.0
    kept = m
    m &= x < 1.5
    return np.sum(np.where(kept, x, 0.0))


def test_mask_shared_update_is_seen_by_both_names() -> None:
    # ``kept`` holds m's array: the in-place &= changes it too (rebound by ``aliases``)
    _check(mask_shared, X)


def shift_runtime(x):
    k = np.sum(x)
    k <<= 1
    return k


def test_bitwise_refusals_are_located() -> None:
    with pytest.raises(UnsupportedSyntaxError, match="integer shifted"):
        st.grad(shift_runtime)(X)


# --- NumPy keywords ----------------------------------------------------------------------


def out_same_array(x):
    y = np.exp(x)
    np.tanh(y, out=y)
    return np.sum(y ** 2)


def out_returns_array(x):
    y = x * 1.0
    z = np.exp(y, out=y)
    return np.sum(z * y)


def divide_where_fresh_out(x, y):
    """scipy.integrate.simpson: ``out=np.zeros_like(h0), where=h1 != 0``."""
    q = np.true_divide(x, y, out=np.zeros_like(x), where=np.abs(y) > 0.5)
    return np.sum(q ** 2)


def divide_where_named_out(x, y):
    out = np.ones_like(x)
    np.divide(x, y, out=out, where=y > 0.0)
    return np.sum(out * x)


def sum_dtype(x):
    return np.sum(x ** 2, dtype=np.float64) + np.sum(np.cumsum(x, dtype=np.float64) ** 2)


def linspace_keywords(x):
    a = np.linspace(0.0, 1.0, 4, endpoint=False)
    b, step = np.linspace(x[0], x[1], 4, retstep=True)
    c = np.linspace(x[2], x[3], 4, endpoint=False)
    d = np.linspace(-np.pi, np.pi, 4, dtype=np.float64)
    return np.sum(x * a) + np.sum(b ** 2) * step + np.sum(np.sin(c)) + np.sum(x * d)


def argsort_kinds(x):
    order = np.argsort(np.round(0.5 * x, 0), kind="stable")  # ties: 0 and 2
    other = np.argsort(x, kind="mergesort")
    return np.sum(x[order] * np.arange(4.0)) + np.sum(x[other] ** 2 * np.arange(4.0))


@pytest.mark.parametrize("f", [out_same_array, out_returns_array, sum_dtype,
                               linspace_keywords, argsort_kinds])
def test_numpy_keywords(f: Callable[..., Any]) -> None:
    _check(f, X)


@pytest.mark.parametrize("f", [divide_where_fresh_out, divide_where_named_out])
def test_out_where(f: Callable[..., Any]) -> None:
    _check(f, X, np.array([0.9, -2.0, 0.1, 1.3]))


def linspace_int_dtype(x):
    return np.sum(x * np.linspace(x[0], 7.0, 4, dtype=np.int64))


def test_linspace_int_dtype_value() -> None:
    expected = linspace_int_dtype(X)
    value, grad = st.value_and_grad(linspace_int_dtype)(X)
    assert value == pytest.approx(expected)
    np.testing.assert_allclose(grad, np.linspace(X[0], 7.0, 4, dtype=np.int64))


def out_into_argument(x):
    np.exp(x, out=x)
    return np.sum(x)


def where_without_out(x):
    return np.sum(np.exp(x, where=x > 0.0))


def out_not_a_name(x):
    d = {"a": x * 1.0}
    np.exp(x, out=d["a"])
    return np.sum(d["a"])


def test_keyword_refusals_are_located() -> None:
    for f, text in ((out_into_argument, "'x'"),
                    (where_without_out, "uninitialised"),
                    (out_not_a_name, "must name an array")):
        with pytest.raises(CompileError, match=text) as info:
            st.grad(f)(X.copy())
        assert "test_small_constructs.py" in str(info.value)


# --- changes a rolled loop or a runtime branch would make once while compiling -----------


def next_in_rolled_loop(x, n):
    it = iter((1.0, 2.0, 3.0, 4.0))
    s = 0.0
    for _ in range(n):
        s = s + np.sum(x) * next(it)
    return s


def set_in_runtime_branch(x):
    s = {"a"}
    if np.sum(x) > 0.0:
        s.add("b")
    return np.sum(x) * len(s)


def set_in_rolled_loop(x, n):
    s = set()
    for _ in range(n):
        s.add("a")
    return np.sum(x) * len(s)


def del_in_rolled_loop(x):
    y = x
    k = 0
    while np.sum(x) * k < 20.0:
        del y
        k += 1
    return np.sum(x)


@pytest.mark.parametrize(("f", "args", "text"), [
    (next_in_rolled_loop, (np.int64(3),), "iterator 'it' is advanced inside a loop"),
    (set_in_runtime_branch, (), "'s' is a set that depends on which side of an if"),
    (set_in_rolled_loop, (np.int64(3),), "set 's' is changed inside a loop"),
    (del_in_rolled_loop, (), "'y' is deleted inside a loop"),
])
def test_once_per_compile_changes_are_refused(f: Callable[..., Any], args: tuple,
                                              text: str) -> None:
    """Each would happen once while compiling, not once per run-time iteration or only on
    the branch taken: a located refusal, never a silently wrong count."""
    with pytest.raises(UnsupportedSyntaxError, match=text) as info:
        st.grad(f)(X, *args)
    assert "test_small_constructs.py" in str(info.value)


# --- for ... else over an unrolled loop --------------------------------------------------


def for_else_no_break(x):
    s = 0.0
    for v in (1.0, 2.0):
        s = s + v * np.sum(x)
    else:
        s = s * 10.0
    return s


def for_else_static_break(x):
    s = 1.0
    for v in (1.0, 2.0, 3.0):
        if v == 2.0:
            break
    else:
        s = 5.0
    return np.sum(x ** 2) * s


def broadcast_check(x):
    """scipy.interpolate's ``_check_broadcast_up_to``: ``return`` in the ``else``."""
    for t, f in zip((4,), x.shape):
        if f != 1 and f != t:
            break
    else:
        return np.sum(x ** 2)
    raise ValueError("cannot broadcast")


def runtime_break_rows(x):
    """An unrolled loop over runtime scalars with a runtime ``break`` (crashed inside the
    graph builder before: an outer node renamed in a branch's builder)."""
    s = 1.0
    for v in (x[0], x[1], x[2]):
        if v > 0.5:
            break
        s = s + v
    return np.sum(x) * s


@pytest.mark.parametrize("f", [for_else_no_break, for_else_static_break, broadcast_check,
                               runtime_break_rows])
def test_for_else_and_break(f: Callable[..., Any]) -> None:
    _check(f, X)


def for_else_runtime_break(x):
    s = 1.0
    for v in (x[0], x[1]):
        if v > 1.5:
            break
    else:
        s = 5.0
    return np.sum(x) * s


def test_for_else_runtime_break_is_located() -> None:
    with pytest.raises(UnsupportedSyntaxError, match="for ... else after a break") as info:
        st.grad(for_else_runtime_break)(X)
    assert "test_small_constructs.py" in str(info.value)


def mask_and_bool_constants(x):
    m = x > 0.5
    return np.sum(np.where(m & True, x ** 2, 0.0)) + np.sum(np.where(m | 0, np.sin(x), 0.0))


def test_mask_with_bool_constants() -> None:
    _check(mask_and_bool_constants, X)


def mask_and_int(x):
    return np.sum(np.where((x > 0.5) & 6, x, 0.0))


def runtime_int_and(x):
    k = int(np.sum(x))
    k &= 5
    return np.sum(x) * k


def test_bitwise_on_numbers_is_refused_not_logical() -> None:
    """``mask & 6`` and ``k & 5`` are bitwise in Python and NumPy: never lowered as logical
    and/or (which would give a wrong value)."""
    for f in (mask_and_int, runtime_int_and):
        with pytest.raises(UnsupportedSyntaxError, match="bitwise") as info:
            st.grad(f)(X)
        assert "test_small_constructs.py" in str(info.value)
