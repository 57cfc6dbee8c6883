"""Wrong results and bad refusals found by a third outside hunt (hand-written programs in
patterns users write, and library functions imported at test time), one test per root
cause.  Gradients are compared with float64 central differences (and JAX where handy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _agrees(f: Callable[..., Any], *args: Any) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)
    check_grads(f, args, lambda *a: (vg(*a)[1],) + (None,) * (len(a) - 1), argnums=[0])


# --- x ** y where y == 0: the rule's y * x ** (y - 1) is 0 * inf = nan at x == 0, so
# the gradient of x ** 0, the Hessian of x ** 1 and the gradient of x ** y with an array
# exponent holding 0 were NaN at 0 (PyTorch and JAX give 0) -------------------------------

Z = np.array([0.0, 1.0, -2.0, 0.5])


def _pow0(v: Any) -> Any:
    return np.sum(v ** 0)


def _pow1(v: Any) -> Any:
    return np.sum(v ** 1)


def _pow_array(v: Any) -> Any:
    return np.sum(v[:2] ** v[2:])


def test_power_with_a_zero_exponent_at_zero() -> None:
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(st.grad(_pow0)(Z), np.zeros(4))
        np.testing.assert_array_equal(st.jvp(_pow0, (Z,), (np.ones(4),))[1], 0.0)
        np.testing.assert_array_equal(st.grad(_pow1)(Z), np.ones(4))
        np.testing.assert_array_equal(st.hessian(_pow1)(Z), np.zeros((4, 4)))
        np.testing.assert_array_equal(st.hessian(_pow1, mode="reverse")(Z), np.zeros((4, 4)))
        x = np.array([0.0, 2.0, 0.0, 1.0])
        np.testing.assert_allclose(st.grad(_pow_array)(x), [0.0, 1.0, 0.0, 2 * np.log(2.0)])
        np.testing.assert_allclose(st.jvp(_pow_array, (x,), (np.ones(4),))[1],
                                   1.0 + 2 * np.log(2.0))
    _agrees(_pow_array, np.array([0.5, 2.0, 0.0, 1.5]))


# --- xlogy/xlog1py: the y-derivative x / y divided by 1 wherever x == 0 (meant for the
# 0/0 at x == y == 0), so its derivative in x there was 1 instead of 1 / y: the Hessian
# of xlogy(u, v) at u == 0 was wrong ----------------------------------------------------

def _xlogy_sum(v: Any) -> Any:
    from scipy import special

    return special.xlogy(v[0] - 0.5, v[0]) + special.xlog1py(v[1] - 0.25, v[1]) + \
        special.xlogy(v[2], v[1])


def test_xlogy_second_derivative_where_x_is_zero() -> None:
    v = np.array([0.5, 0.25, 0.0])
    h = st.hessian(_xlogy_sum)(v)
    g = st.grad(_xlogy_sum)
    eps = 1e-6
    fd = np.stack([(g(v + eps * e) - g(v - eps * e)) / (2 * eps) for e in np.eye(3)], 1)
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(h[0, 0], 1 / 0.5 + 0.5 / 0.5 ** 2)
    np.testing.assert_allclose(st.hessian(_xlogy_sum, mode="reverse")(v), h, rtol=1e-12)
    with np.errstate(all="ignore"):  # x == y == 0: the y-derivative is 0, not 0/0
        assert st.grad(lambda w: _xlogy_sum(np.array([0.5, w, 0.0])))(0.0) == -0.25


# --- forward mode: a tangent took the dtype NumPy's promotion gave the rule's inputs,
# not the primal's: float32 beside float64 constants (np.where, +, np.maximum, np.clip)
# gave float32 tangents of float64 outputs, and np.linspace of float32 ends float64
# tangents of a float32 output (JAX: a tangent has its primal's dtype) ------------------

C64 = np.array([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("fn", [
    lambda a: np.where(a > 0, a, C64),
    lambda a: a + C64,
    lambda a: np.maximum(a, C64 * 0.1),
    lambda a: np.clip(a, C64 * -0.5, C64 * 0.5),
    lambda a: np.full_like(C64, a[0]),
    lambda a: np.linspace(a[0], a[1], 4),
    lambda a: np.linspace(a[:2], a[2:], 3),
    lambda a: np.sum(np.where(a > 0, a, C64) ** 2),
], ids=["where", "add", "maximum", "clip", "full_like", "linspace", "linspace_arrays",
        "where_sum"])
def test_tangent_has_the_primal_dtype(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.8, 2.1], dtype=np.float32)
    want = np.asarray(fn(x))
    value, tangent = st.jvp(fn, (x,), (np.ones(4, np.float32),))
    assert np.asarray(value).dtype == np.asarray(tangent).dtype == want.dtype
    assert st.jacfwd(fn)(x).dtype == want.dtype
    np.testing.assert_allclose(tangent, st.jacrev(fn)(x).sum(-1), rtol=1e-6)


# --- a dict or list changed by a method inside a loop lowered as a region (lst.extend,
# lst.insert, lst.pop, d.update, d.setdefault, d["a"].append): the loop did not carry
# the name, so the changes were lost (silently wrong values and zero gradients), and a
# change to a container nested in another (copied shallowly into the loop body or an
# if's branches) reached the scope outside holding the body's nodes (a raw KeyError) ---

X4 = np.array([0.3, -1.2, 0.8, 2.1])


def _update_in_loop(a: Any) -> Any:
    d = {"a": a[0]}
    for i in range(3):
        d.update(a=d["a"] * a[i + 1])
    return d["a"]


def _nested_write_in_loop(a: Any) -> Any:
    d = {"a": [a[0], a[1]], "b": (a[2], [a[3]])}
    for i in range(2):
        d["a"][0] = d["a"][0] * a[i + 2]
        d["b"][1][0] = d["b"][1][0] + a[i]
    return d["a"][0] + d["a"][1] + d["b"][1][0] * d["b"][0]


def test_container_changed_by_a_method_in_a_loop() -> None:
    _agrees(_update_in_loop, X4)
    _agrees(_nested_write_in_loop, X4)


def _extend_in_loop(a: Any) -> Any:
    lst = [a[0]]
    for i in range(3):
        lst.extend([a[i + 1]])
    return lst[-1] * len(lst)


def _insert_in_loop(a: Any) -> Any:
    lst = [a[0], a[1]]
    for i in range(2):
        lst.insert(0, a[i + 2])
    return lst[0] * 2 + lst[1] + len(lst)


def _pop_in_loop(a: Any) -> Any:
    lst = [a[0], a[1], a[2]]
    for _ in range(2):
        lst.pop()
    return sum(lst) + len(lst)


def _setdefault_groups(a: Any) -> Any:
    d: dict[int, list[Any]] = {}
    for i, v in enumerate(a):
        d.setdefault(i % 2, []).append(v)
    return sum(np.prod(np.array(vs)) for vs in d.values())


def _nested_append_in_loop(a: Any) -> Any:
    d = {"a": [a[0]]}
    for i in range(3):
        d["a"].append(a[i + 1])
    return sum(d["a"]) + len(d["a"])


def _nested_append_in_if(a: Any) -> Any:
    d = {"a": [a[0]]}
    if a[1] > 0:
        d["a"].append(a[2])
    return sum(d["a"]) + len(d["a"])


def _nested_write_in_if(a: Any) -> Any:
    lst = [[a[0]], [a[1]]]
    if a[1] > 0:
        lst[0][0] = a[3] * 7
    return lst[0][0] + lst[1][0]


@pytest.mark.parametrize("fn", [_extend_in_loop, _insert_in_loop, _pop_in_loop,
                                _setdefault_groups, _nested_append_in_loop,
                                _nested_append_in_if, _nested_write_in_if])
def test_container_changing_its_structure_in_a_region_is_refused(
        fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.value_and_grad(fn)(X4)
    assert "hunt3_regressions.py:" in str(info.value)


# --- a dict or list changed in place inside a loop or a runtime if while another name, a
# container or a calling function also holds it (or it holds one list twice): the region
# carried the values under one name only, so the other holders kept the old values
# (silently wrong values and gradients); now refused, located.  Rebinding is fine -------

def _alias_in_loop(a: Any) -> Any:
    lst = [a[0], a[1]]
    other = lst
    for _ in range(2):
        other[1] = other[1] * a[2]
    return lst[1] * 3 + other[1]


def _held_in_dict_in_loop(a: Any) -> Any:
    lst = [a[0], a[1]]
    d = {"l": lst}
    for _ in range(2):
        lst[0] = lst[0] * a[2]
    return d["l"][0] + lst[0]


def _held_twice_in_loop(a: Any) -> Any:
    inner = [a[0]]
    outer = [inner, inner]
    for _ in range(2):
        outer[0][0] = outer[0][0] * a[2]
    return outer[1][0] + inner[0]


def _alias_in_if(a: Any) -> Any:
    d = {"k": a[0]}
    e = d
    if a[1] > 0:
        e["k"] = a[2] * 5
    return d["k"] * 3 + e["k"]


def _scale_first(lst: list[Any], a: Any) -> None:
    for _ in range(2):
        lst[0] = lst[0] * a[2]


def _helper_writes_argument_in_loop(a: Any) -> Any:
    lst = [a[0], a[1]]
    _scale_first(lst, a)
    return lst[0] * 3


@pytest.mark.parametrize("fn", [_alias_in_loop, _held_in_dict_in_loop, _held_twice_in_loop,
                                _alias_in_if, _helper_writes_argument_in_loop])
def test_shared_container_changed_in_a_region_is_refused(fn: Callable[[Any], Any]) -> None:
    for x in (X4, -X4):
        with pytest.raises(st.StAutodiffError, match="too|twice") as info:
            st.value_and_grad(fn)(x)
        assert "hunt3_regressions.py:" in str(info.value)


def _rebound_in_loop(a: Any) -> Any:
    t = [a[0], a[1]]
    saved = t
    for _ in range(3):
        t = [t[1] * a[2], t[0]]
    return t[0] + saved[0] * 10


def test_shared_container_rebound_in_a_loop() -> None:
    _agrees(_rebound_in_loop, X4)


# --- a list or dict held by an attribute of an object built in the code, changed inside
# a loop or a runtime if (o.v.append(x), o.v["k"] = ...): the region did not copy it, so
# the body's nodes reached the code after it (a raw KeyError); now refused, located ------

class _Holder:
    def __init__(self, v: Any) -> None:
        self.v = v


def _object_list_in_loop(a: Any) -> Any:
    o = _Holder([a[0]])
    for i in range(2):
        o.v.append(a[i + 1])
    return sum(o.v)


def _object_dict_in_loop(a: Any) -> Any:
    o = _Holder({"k": a[0]})
    for _ in range(2):
        o.v["k"] = o.v["k"] * a[2]
    return o.v["k"]


def _object_list_in_if(a: Any) -> Any:
    o = _Holder([a[0]])
    if a[1] > 0:
        o.v.append(a[2])
    return sum(o.v)


@pytest.mark.parametrize("fn", [_object_list_in_loop, _object_dict_in_loop,
                                _object_list_in_if])
def test_container_in_an_object_changed_in_a_region_is_refused(
        fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError, match="object's attribute") as info:
        st.value_and_grad(fn)(X4)
    assert "hunt3_regressions.py:" in str(info.value)


# --- math.* of a float32 scalar was computed in float32 (np.exp, then a Python float):
# math converts to a Python float first, so Python's value differed in the last bits ---

def _math_of_float32(v: Any) -> Any:
    import math

    return math.exp(v[0]) * v[1] + math.log(v[2]) * v[0] + math.atan2(v[0], v[2])


def test_math_of_a_float32_scalar_is_computed_in_double() -> None:
    x = np.array([0.3, -1.2, 0.8], dtype=np.float32)
    want = _math_of_float32(x)
    value, grad = st.value_and_grad(_math_of_float32)(x)
    assert np.asarray(value).dtype == np.asarray(want).dtype == np.float32
    assert value == want
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, st.grad(_math_of_float32)(x.astype(np.float64)),
                               rtol=1e-6)


# --- an inner def or lambda called inside a loop body or a runtime if read the names of
# the function as they were before the region (the region lowers its body in a copy of
# the scope, the closure kept the original): ``k = a[i]; f(x)`` used the old k
# (silently wrong), and a closure writing into a dict of the function in a loop reached
# the scope before the loop with the body's nodes (a raw KeyError) -----------------------

X5 = np.array([0.3, -1.2, 0.8, 2.1, -0.4])


def _closure_rebound_in_loop(a: Any) -> Any:
    k = a[0]

    def f(v: Any) -> Any:
        return v * k

    out = 0.0
    for i in range(3):
        k = a[i + 1]
        out = out + f(a[0])
    return out


def _closure_rebound_in_while(a: Any) -> Any:
    k = a[0]
    g = lambda v: v * k  # noqa: E731
    fs = [g]
    i = 0
    out = 0.0
    while i < 3:
        k = a[i + 1]
        out = out + fs[0](a[0])
        i += 1
    return out


def _closure_rebound_in_if(a: Any) -> Any:
    k = a[0]

    def f(v: Any) -> Any:
        return v * k

    r = a[4]
    if a[1] > 0:
        k = a[2]
        r = f(a[3])
    return r


def _closure_writes_a_dict_in_loop(a: Any) -> Any:
    state = {"s": 0.0}

    def step(v: Any) -> None:
        state["s"] = state["s"] * 0.5 + v

    for i in range(4):
        step(a[i])
    return state["s"]


@pytest.mark.parametrize("fn", [_closure_rebound_in_loop, _closure_rebound_in_while,
                                _closure_rebound_in_if, _closure_writes_a_dict_in_loop])
def test_closure_called_in_a_region_reads_the_region_names(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X5)
    _agrees(fn, -X5)


# --- np.einsum(..., optimize=True) was refused ("unsupported keyword argument"): the
# option only orders the contractions -----------------------------------------------------

def _einsum_optimized(a: Any) -> Any:
    m = a.reshape(2, 3)
    return np.sum(np.einsum("ij,kj,kl->il", m, m, m, optimize=True) ** 2) + \
        np.einsum("i,i->", a, a, optimize="greedy")


def test_einsum_optimize_keyword() -> None:
    _agrees(_einsum_optimized, np.array([0.3, -1.2, 0.8, 2.1, -0.4, 0.7]))


# --- lst[i] += v / d[k] += v where the entry is an array made while compiling
# (np.zeros) that another name or entry also holds: NumPy updates that array in place,
# the compiled code rebound the entry only (the others kept zeros: silently wrong); now
# refused, located, as it already was for arrays computed at run time -------------------

def _repeated_list_of_zeros(a: Any) -> Any:
    lst = [np.zeros(2)] * 3
    lst[0] += a[:2]
    return np.sum(lst[1] * np.array([1.0, 2.0])) + np.sum(lst[2])


def _list_entry_and_name(a: Any) -> Any:
    z = np.zeros(2)
    lst = [z]
    lst[0] += a[:2]
    return np.sum(z * np.array([1.0, 2.0]))


def _two_dicts_one_array(a: Any) -> Any:
    d = {"k": np.zeros(2)}
    e = {"k": d["k"]}
    d["k"] += a[:2]
    return np.sum(e["k"] * np.array([1.0, 2.0]))


@pytest.mark.parametrize("fn", [_repeated_list_of_zeros, _list_entry_and_name,
                                _two_dicts_one_array])
def test_update_of_a_shared_static_array_entry_is_refused(fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError, match="same array") as info:
        st.value_and_grad(fn)(X4)
    assert "hunt3_regressions.py:" in str(info.value)


def _unshared_entries(a: Any) -> Any:
    lst = [np.zeros(2), np.zeros(2)]
    lst[0] += a[:2]
    d = {"k": np.ones(2)}
    d["k"] *= a[2:]
    return np.sum(lst[0] * np.array([1.0, 2.0])) + np.sum(lst[1]) + np.sum(d["k"] ** 2)


def test_update_of_an_unshared_static_array_entry() -> None:
    _agrees(_unshared_entries, X4)


# --- functools.reduce was refused ("no derivative rule ... might write into"), and
# sorted/max/min with a lambda or inner def as key= handed the compiler's closure object
# to Python's builtin: a TypeError raised by the generated code (sorted: a crash when the
# gradient ran) or a false "Python raises TypeError" refusal (max/min) ----------------------

def _reductions(a: Any) -> Any:
    import functools
    import operator

    m = [np.eye(2) * 0.5, np.array([[1.0, 0.2], [0.0, 1.0]])]
    return functools.reduce(lambda s, v: s * v + 1, a) + \
        functools.reduce(operator.mul, a[:3]) + \
        np.sum(functools.reduce(np.dot, [a[:4].reshape(2, 2), *m])) + \
        functools.reduce(operator.add, (v ** 2 for v in a), 0.5) + \
        functools.reduce(lambda s, i: s + a[i] ** 3, range(3), 0.0)


def test_functools_reduce() -> None:
    _agrees(_reductions, X5)
    h = st.hessian(_reductions)(X5)
    g = st.grad(_reductions)
    fd = np.stack([(g(X5 + 1e-5 * e) - g(X5 - 1e-5 * e)) / 2e-5 for e in np.eye(5)], 1)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


def _keyed_builtins(a: Any) -> Any:
    order = sorted([0, 1, 2, 3], key=lambda i: (i - 1.5) ** 2, reverse=True)
    best = max([(a[0], 1), (a[1], 3), (a[2], 2)], key=lambda p: p[1])
    first = min((i for i in range(4)), key=lambda i: -i)
    return a[order[0]] * 2 + a[order[-1]] + best[0] * 3 + a[first] * 5


def test_sorted_max_min_with_a_closure_key() -> None:
    _agrees(_keyed_builtins, X5)


def test_sorted_with_a_runtime_key_is_refused() -> None:
    def f(a: Any) -> Any:
        return sum(v * i for i, v in enumerate(sorted([a[0], a[1]], key=lambda t: t)))

    with pytest.raises(st.StAutodiffError, match="key computed at run time") as info:
        st.grad(f)(X5)
    assert "hunt3_regressions.py:" in str(info.value)


# --- a generator that never ends (``while True: n += 1; yield n``) read with next(): the
# compiler collects every item of a generator when it is called, and folding the endless
# loop while compiling ran forever (the process grew by gigabytes); now refused, located -

def _counter() -> Any:
    n = 0
    while True:
        n += 1
        yield n


def test_endless_generator_is_refused() -> None:
    def f(a: Any) -> Any:
        c = _counter()
        return a[next(c)] + a[next(c)] * 2

    with pytest.raises(st.StAutodiffError, match="never ends") as info:
        st.grad(f)(X5)
    assert "hunt3_regressions.py:" in str(info.value)


# --- enumerate(zip(a, b)) (and zip(enumerate(a), b), zip(a, zip(b, c))) over arrays in a
# loop region: the streams were flattened, so ``for i, (u, v) in ...`` was refused as
# "cannot unpack 3 values into 2 names" -----------------------------------------------------

X6 = np.array([0.3, -1.2, 0.8, 2.1, -0.4, 0.7])


def _enumerate_zip(a: Any) -> Any:
    s = 0.0
    for i, (u, v) in enumerate(zip(a[:3], a[3:])):
        s = s + i * u * v
    return s


def _zip_enumerate(a: Any) -> Any:
    s = 0.0
    for (i, u), v in zip(enumerate(a[:3]), a[3:]):
        s = s + i * u * v
    return s + sum(i * u * v for (i, u), v in zip(enumerate(a[:3]), reversed(a[3:])))


def _zip_of_zip(a: Any) -> Any:
    return sum(p * q * r for p, (q, r) in zip(a[:2], zip(a[2:4], a[4:])))


@pytest.mark.parametrize("fn", [_enumerate_zip, _zip_enumerate, _zip_of_zip])
def test_nested_zip_and_enumerate_targets(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X6)


# --- dict(zip(names, theta)), list(zip(a, b)), dict(enumerate(a)) of arrays were refused
# with a false "Python raises TypeError: '_Zip' object is not iterable" ---------------------

def _named_parameters(a: Any) -> Any:
    p = dict(zip(["a", "b", "c"], a[:3]))
    pairs = list(zip(a[:3], a[3:]))
    by_index = dict(enumerate(a[3:]))
    rows = tuple(zip(a[:3], reversed(a[3:])))
    return p["a"] * p["c"] + p["b"] + sum(u * v for u, v in pairs) + by_index[2] * 3 + \
        rows[0][1] ** 2


def test_zip_and_enumerate_materialised() -> None:
    _agrees(_named_parameters, X6)
