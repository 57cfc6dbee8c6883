"""Wrong results and bad refusals found by a second outside hunt (hand-written programs
in patterns users write, and library functions imported at test time), one test per
root cause.  Gradients are compared with float64 central differences.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

X3 = np.array([0.3, -1.2, 0.8])


def _agrees(f: Callable[..., Any], *args: Any) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)
    check_grads(f, args, lambda *a: (vg(*a)[1],) + (None,) * (len(a) - 1), argnums=[0])


# --- keyword-only defaults changed in place (f.__kwdefaults__["w"] = v keeps the dict's
# identity): the cached gradient kept the old default, silently --------------------------

def test_kwdefaults_changed_in_place_top_level() -> None:
    def f(x: Any, *, w: float = 2.0, p: int = 2) -> Any:
        return np.sum(w * x ** p)

    g = st.grad(f)
    g(X3)
    f.__kwdefaults__["w"] = 7.0  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))
    f.__kwdefaults__["p"] = 3  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))


def test_kwdefaults_changed_in_place_inlined_helper() -> None:
    def h(x: Any, *, w: float = 2.0, p: int = 2) -> Any:
        return w * x ** p

    def f(x: Any) -> Any:
        return np.sum(h(x))

    g = st.grad(f)
    g(X3)
    h.__kwdefaults__["w"] = 7.0  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))
    h.__kwdefaults__["p"] = 3  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))


# --- a Python list carried around a loop travelled as its stack, and the body read it as
# an array: ``l = l + [l[-1] * x]`` broadcast-added instead of concatenating (silently
# wrong value and gradient); now list operations see a list, and a list that changes
# length in the loop is refused, located ----------------------------------------------

def _list_grows(x: Any) -> Any:
    lst = [x]
    for _ in range(3):
        lst = lst + [lst[-1] * x]
    return np.sum(lst[-1]) + len(lst)


def _list_grows_in_place(x: Any) -> Any:
    lst = [x]
    for _ in range(2):
        lst += [lst[-1] * x]
    return np.sum(lst[-1]) + len(lst)


def _list_grows_while(x: Any) -> Any:
    lst = [x[0]]
    i = 0
    while i < 2:
        lst = lst + [lst[-1] * x[1]]
        i += 1
    return lst[-1] + len(lst)


@pytest.mark.parametrize("fn", [_list_grows, _list_grows_in_place, _list_grows_while])
def test_list_growing_in_a_loop_is_refused(fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.value_and_grad(fn)(X3)
    assert "hunt2_regressions.py:" in str(info.value)


def _list_same_length(x: Any) -> Any:
    lst = [x[0], x[1]]
    for _ in range(2):
        lst = lst * 1  # a list: repeated once, not multiplied
        lst = [lst[1] * x[2], lst[0] + x[0]]
    both = lst + lst  # concatenated after the loop
    return both[2] * len(both) + both[1]


def _list_then_append(x: Any) -> Any:
    lst = [x[0], x[1]]
    for _ in range(3):
        lst = lst[::-1]
        lst = [lst[0] * x[2], lst[1]]
    lst.append(x[2] ** 2)
    return lst[-1] * len(lst) + lst[0]


@pytest.mark.parametrize("fn", [_list_same_length, _list_then_append])
def test_list_carried_by_a_loop_stays_a_list(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)


# --- st.grad(f)(x) written inside a differentiated function was inlined as library code
# and refused ("GradFunction.bind_call() missing 1 required positional argument") --------

def _inner_loss(x: Any) -> Any:
    return np.sum(np.sin(x) * x[::-1] ** 2)


def _grad_inside(x: Any) -> Any:
    return np.sum(st.grad(_inner_loss)(x) ** 2)


def _value_and_grad_inside(x: Any) -> Any:
    v, g = st.value_and_grad(_inner_loss)(x)
    return v * np.sum(g)


def _grad_inside_scaled(x: Any, w: Any) -> Any:
    return np.sum(st.grad(_inner_loss, argnums=0)(x * w) ** 2)


@pytest.mark.parametrize("fn", [_grad_inside, _value_and_grad_inside])
def test_transform_called_inside(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)


def test_transform_called_inside_with_two_arguments() -> None:
    _agrees(_grad_inside_scaled, X3, 2.0)


def test_transform_of_an_inner_function_is_refused_located() -> None:
    def f(x: Any) -> Any:
        return np.sum(st.grad(lambda q: np.sum(q ** 3))(x) ** 2)

    with pytest.raises(st.StAutodiffError, match="defined inside") as info:
        st.grad(f)(X3)
    assert "hunt2_regressions.py:" in str(info.value)


# --- tuples, and containers nested in carried containers, leaving an if or a loop: one
# ``tuple`` node carried no derivative (a zero gradient, silently), and a list inside a
# carried list travelled as an array (``l[1] * 2`` multiplied instead of repeating) --------

def _tuple_loop(x: Any) -> Any:
    t = (x[0], x[1])
    for _ in range(3):
        t = (t[1] * x[2], t[0])
    return t[0] + 2 * t[1]


def _tuple_if(x: Any) -> Any:
    if x[0] > 0:
        t = (x[1] * 2, x[0])
    else:
        t = (x[2], x[1])
    return t[0] * 3 + t[1]


def _tuple_if_in_loop(x: Any) -> Any:
    t = (x[0], x[1])
    for i in range(3):
        if x[i] > 0:
            t = (t[1] * x[2], t[0])
    return t[0] + 2 * t[1]


def _tuple_while(x: Any) -> Any:
    t = (x[0], x[1])
    i = 0
    while i < 3:
        t = (t[1] * x[2], t[0])
        i += 1
    return t[0] + 2 * t[1]


def _nested_list_repeat(x: Any) -> Any:
    lst = [[x[0], x[1]], [x[2], x[0]]]
    for _ in range(2):
        lst = [lst[1] * 2, lst[0]]  # a list repeated: four items
        lst = [lst[0][:2], lst[1]]
    return lst[0][0] + lst[0][1] * 2 + lst[1][0] * 3


def _nested_list_concat(x: Any) -> Any:
    lst = [[x[0], x[1]], [x[2], x[0]]]
    for _ in range(2):
        a = lst[1] + [x[1]]
        lst = [[a[0] * x[2], a[2]], [a[1], lst[0][0]]]
    return lst[0][0] + lst[0][1] * 2 + lst[1][0] * 3 + lst[1][1] * 4


def _dict_of_list(x: Any) -> Any:
    d = {"a": [x[0], x[1]], "b": x[2]}
    for _ in range(2):
        d["a"] = d["a"] + [d["b"]]
        d["a"] = d["a"][1:]
        d["b"] = d["b"] * x[0]
    return d["a"][0] + 2 * d["a"][1] + d["b"]


def _tuple_of_list(x: Any) -> Any:
    t = ([x[0], x[1]], x[2])
    for _ in range(2):
        lst, s = t
        t = ((lst + [s])[1:], s * x[0])
    return t[0][0] + 2 * t[0][1] + t[1]


@pytest.mark.parametrize("fn", [_tuple_loop, _tuple_if, _tuple_if_in_loop, _tuple_while,
                                _nested_list_repeat, _nested_list_concat, _dict_of_list,
                                _tuple_of_list])
def test_containers_through_regions(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)
    _agrees(fn, -X3)


def _tuple_in_dict_in_if(x: Any) -> Any:
    d = {"a": (x[0], x[1])}
    if x[2] > 0:
        d["a"] = (x[1], x[0] * 3)
    return d["a"][0] + 2 * d["a"][1]


@pytest.mark.parametrize("fn", [_tuple_in_dict_in_if])
def test_tuple_leaving_a_region_whole_is_refused(fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.grad(fn)(X3)
    assert "hunt2_regressions.py:" in str(info.value)


# --- a tuple (or list, dict) made in a loop and read after it, or returned from inside
# a loop: carried value by value, its structure learnt from the body ---------------------

def _tuple_made_in_loop(x: Any) -> Any:
    for i in range(3):
        t = (x[i] * 2, x[0] * i)
    return t[0] * 3 + t[1]



def _returns_in_loop(x: Any) -> tuple[Any, Any, int]:
    for i in range(3):
        if x[i] > 0.5:
            return (x[i] * 2, x[0], i)
    return (x[1], x[2], -1)


def _returned_tuple(x: Any) -> Any:
    a, b, k = _returns_in_loop(x)
    return a * 3 + b * k


def _returns_dict_in_loop(x: Any) -> dict[str, Any]:
    for i in range(3):
        if x[i] > 0.5:
            return {"v": x[i] * 2, "w": (x[0], x[1])}
    return {"v": x[1], "w": (x[2], x[0])}


def _returned_dict(x: Any) -> Any:
    d = _returns_dict_in_loop(x)
    return d["v"] * d["w"][0] + d["w"][1]


def _returns_in_while(x: Any) -> Any:
    i = 0
    s = x[0]
    while i < 10:
        s = s * x[1]
        if abs(s) < 0.1:
            return s, i
        i += 1
    return s, -1


def _returned_from_while(x: Any) -> Any:
    s, n = _returns_in_while(x)
    return s * (n + 2)


@pytest.mark.parametrize("fn", [_tuple_made_in_loop, _returned_tuple, _returned_dict])
def test_containers_made_or_returned_in_loops(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)
    _agrees(fn, X3 * 0.1)  # no return inside the loop


def test_tuple_returned_from_while() -> None:
    _agrees(_returned_from_while, np.array([0.5, 0.6]))
    _agrees(_returned_from_while, np.array([0.5, 0.99]))


def test_aux_tuple_returned_in_loop() -> None:
    def f(x: Any) -> Any:
        for i in range(3):
            if x[i] > 0.5:
                return np.sum(x ** 2), (x[i], i)
        return np.sum(x ** 3), (x[0], -1)

    g, aux = st.grad(f, has_aux=True)(X3)
    np.testing.assert_allclose(g, 2 * X3)
    assert aux == (X3[2], 2)
    g, aux = st.grad(f, has_aux=True)(X3 * 0.1)
    np.testing.assert_allclose(g, 3 * (X3 * 0.1) ** 2)
    assert aux == (X3[0] * 0.1, -1)


def test_list_returned_in_loop_jacobian() -> None:
    def f(x: Any) -> Any:
        for i in range(3):
            if x[i] > 0.5:
                return [x[i] * 2, x[0]]
        return [x[1], x[2]]

    for jac in (st.jacrev, st.jacfwd):
        j = jac(f)(X3)
        np.testing.assert_allclose(j[0], [0.0, 0.0, 2.0])
        np.testing.assert_allclose(j[1], [1.0, 0.0, 0.0])


# --- a Python float accumulated with float32 values in a for loop: the loop started
# from np.asarray(0.0), a float64 0-d array, and the result was float64 (NumPy: float32)

def _accumulate(x: Any) -> Any:
    s = 0.0
    for i in range(3):
        s = s + x[i] * 2
    return s


def _accumulate_rows(x: Any) -> Any:
    s = 0
    for v in x:
        s += v * v
    return s


@pytest.mark.parametrize("fn", [_accumulate, _accumulate_rows])
def test_float32_accumulator_keeps_float32(fn: Callable[[Any], Any]) -> None:
    x = X3.astype(np.float32)
    value, grad = st.value_and_grad(fn)(x)
    want = fn(x)
    assert np.asarray(value).dtype == np.asarray(want).dtype == np.float32
    assert grad.dtype == np.float32
    np.testing.assert_allclose(value, want, rtol=1e-6)
    _agrees(fn, X3)


# --- false refusals: NamedTuples carried by loops and merged by ifs ("tuples have no
# supported attribute"), and a loop over a str ("cannot iterate over a str") ------------

class _Pair(NamedTuple):
    a: Any
    b: Any


def _named_tuple_loop(x: Any) -> Any:
    p = _Pair(x[0], x[1])
    for _ in range(2):
        p = _Pair(p.b * x[2], p.a)
    return p.a + 2 * p.b


def _named_tuple_if(x: Any) -> Any:
    p = _Pair(x[0], x[1])
    if x[2] > 0:
        p = _Pair(p.b * 3, p.a)
    return p.a + 2 * p.b


def _named_tuple_while(x: Any) -> Any:
    p = _Pair(x[0], x[1])
    i = 0
    while i < 3:
        p = _Pair(p.b * x[2], p.a)
        i += 1
    return p.a + 2 * p.b


def _over_a_str(x: Any) -> Any:
    out = {}
    for i, k in enumerate("abc"):
        out[k] = x[i] ** (i + 1)
    return sum(out.values())


@pytest.mark.parametrize("fn", [_named_tuple_loop, _named_tuple_if, _named_tuple_while,
                                _over_a_str])
def test_named_tuples_and_strs(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)
    _agrees(fn, -X3)


# --- an object built in the code with runtime attributes, whose class lives in NumPy
# (numpy.polynomial.Polynomial(x)), was "evaluated while compiling" as a NumPy function:
# a false refusal claiming Python raises a TypeError -----------------------------------

def test_numpy_object_with_runtime_attributes_is_inlined() -> None:
    from numpy.polynomial import Polynomial

    def f(x: Any) -> Any:
        return Polynomial(x)(0.7) + Polynomial(x * 2)(-0.3) ** 2

    _agrees(f, np.array([0.3, -1.2, 0.8, 2.1, -0.4]))


def test_numpy_object_method_on_runtime_attributes_is_not_evaluated() -> None:
    from numpy.polynomial import Polynomial

    def f(x: Any) -> Any:
        return Polynomial(x).deriv()(0.3)

    try:
        _agrees(f, np.array([0.3, -1.2, 0.8, 2.1, -0.4]))
    except st.StAutodiffError as exc:  # refused for a real reason, inside NumPy
        assert "TypeError" not in str(exc) and "_RuntimeAttribute" not in str(exc)


# --- a loop value whose type the body leaves unknown (a Python float on one path, a 0-d
# array on the other, as ``continue`` after changing it makes) kept the type it had
# before the loop: a returned value typed None carried no derivative (zero gradient and
# tangent, silently) ---------------------------------------------------------------------

def _continue_then_return(x: Any) -> Any:
    s = 0.0
    for i, v in enumerate(x):
        if v < 0:
            s = s - v * i
            continue
        s = s + v ** 2
        if s > 0.5:
            return s * 2
    return s


def _continue_then_return_indexed(x: Any) -> Any:
    s = 0.0
    for i in range(4):
        if x[i] < 0:
            s = s - x[i]
            continue
        s = s + x[i]
        if s > 0.5:
            return s * 2
    return s


@pytest.mark.parametrize("fn", [_continue_then_return, _continue_then_return_indexed])
def test_loop_value_of_unknown_type_keeps_its_derivative(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.8, 0.5])
    _agrees(fn, x)
    _agrees(fn, x * 0.1)  # no return inside the loop
    _, tangent = st.jvp(fn, (x,), (np.ones(4),))
    grad = st.grad(fn)(x)
    np.testing.assert_allclose(tangent, np.sum(grad))


# --- a loop value that is None before the first iteration: ``best is None`` was answered
# from its later type (False) while compiling; and runtime ``a and b``/``a or b``
# evaluated ``b`` always, where Python does not: ``while i < len(x) and x[i] > 0`` read
# past the end (IndexError), ``best is None or v > best`` compared with None --------------

def _running_max(x: Any) -> Any:
    best = None
    for i in range(4):
        if best is None or x[i] > best:
            best = x[i]
    return best * 3


def _while_in_bounds(x: Any) -> Any:
    i = 0
    s = 0.0
    while i < len(x) and x[i] > 0:
        s = s + x[i] ** 2
        i += 1
    return s


def _guarded_division(x: Any) -> Any:
    d = x[0] - 0.3
    s = x[3]
    if d != 0 and x[1] / d > 1:
        s = s * x[2]
    return s


@pytest.mark.parametrize("fn", [_running_max, _while_in_bounds, _guarded_division])
def test_short_circuit_and_none_before_a_loop(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, 1.2, 0.8, 0.5])
    with np.errstate(all="raise"):  # b is not evaluated where Python does not evaluate it
        value, _ = st.value_and_grad(fn)(x)
        assert value == fn(x)
    _agrees(fn, np.array([0.4, 1.2, 0.8, 0.5]))
    _agrees(fn, np.array([0.7, 1.2, -0.8, 0.5]))


def test_int_before_a_loop_that_makes_an_unknown_type() -> None:
    def f(x: Any) -> Any:
        s = 0
        for i in range(4):
            if x[i] < 0:
                s = s - x[i]
                continue
            s = s + x[i]
        return s

    _agrees(f, np.array([0.3, -1.2, 0.8, 0.5]))


# --- collections.defaultdict/OrderedDict built in the code: opaque objects whose item
# writes became array writes (a raw IndexError when the gradient ran); now containers
# like dict, carried by loops value by value (with their default factory) --------------

def _default_dict_loop(x: Any) -> Any:
    d: Any = collections.defaultdict(float)
    d["a"] = x[0]
    for i in range(3):
        d["a"] = d["a"] * x[i] + 1
    return d["a"] + d["zz"]


def _default_dict_accumulate(x: Any) -> Any:
    d: Any = collections.defaultdict(float)
    for i, k in enumerate(["a", "b", "a"]):
        d[k] += x[i] ** 2
    return d["a"] * d["b"]


def _default_dict_of_lists(x: Any) -> Any:
    d: Any = collections.defaultdict(list)
    for i, k in enumerate(["a", "b", "a"]):
        d[k].append(x[i])
    return sum(d["a"]) * len(d["b"]) + d["b"][0]


def _ordered_dict(x: Any) -> Any:
    d: Any = collections.OrderedDict()
    d["z"] = x[0]
    d["a"] = x[1] ** 2
    return list(d.values())[0] * 2 + d["a"]


@pytest.mark.parametrize("fn", [_default_dict_loop, _default_dict_accumulate,
                                _default_dict_of_lists, _ordered_dict])
def test_default_and_ordered_dicts(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)


# --- functools.partial keywords changed in place (p.keywords["a"] = v): the cached
# gradient kept the old value, top-level and inlined (silently wrong) ------------------

def _scaled_power(x: Any, a: float = 1.0, p: int = 2) -> Any:
    return np.sum(a * x ** p)


def test_partial_keywords_changed_in_place() -> None:
    top = functools.partial(_scaled_power, a=2.0)
    g = st.grad(top)
    g(X3)
    top.keywords["a"] = 7.0
    check_grads(top, (X3,), lambda x: (g(x),))
    top.keywords["p"] = 3
    check_grads(top, (X3,), lambda x: (g(x),))

    inner = functools.partial(_scaled_power, a=2.0)

    def f(x: Any) -> Any:
        return inner(x) * 2

    g = st.grad(f)
    g(X3)
    inner.keywords["a"] = 5.0
    check_grads(f, (X3,), lambda x: (g(x),))
    inner.keywords["p"] = 3
    check_grads(f, (X3,), lambda x: (g(x),))


# --- np.add.at / np.subtract.at into an array the function made: refused ("ufunc.at has
# no derivative rule"); now an index_add into the named array, repeated indices
# accumulating as NumPy's do ---------------------------------------------------------------

def _add_at(x: Any) -> Any:
    out = np.zeros(3)
    np.add.at(out, np.array([0, 1, 0, 2, 0]), x)
    return np.sum(out ** 2)


def _subtract_at(x: Any) -> Any:
    out = x[:3] * 1.0
    np.subtract.at(out, [0, 0, 2], x[2:] ** 2)
    return np.sum(out ** 3)


def _add_at_2d(x: Any) -> Any:
    m = np.zeros((2, 3))
    np.add.at(m, (np.array([0, 1, 0]), np.array([2, 2, 2])), x[:3])
    return np.sum(m * np.arange(6).reshape(2, 3)) + np.sum(m ** 2)


def _add_at_in_loop(x: Any) -> Any:
    out = np.zeros(3)
    for i in range(5):
        np.add.at(out, [i % 3, 0], x[i] * np.array([1.0, 0.5]))
    return np.sum(out ** 2)


@pytest.mark.parametrize("fn", [_add_at, _subtract_at, _add_at_2d, _add_at_in_loop])
def test_ufunc_at(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.8, 2.1, -0.4])
    _agrees(fn, x)
    _, tangent = st.jvp(fn, (x,), (np.ones(5),))
    np.testing.assert_allclose(tangent, np.sum(st.grad(fn)(x)))


def test_ufunc_at_into_an_argument_is_refused() -> None:
    def f(x: Any) -> Any:
        np.add.at(x, [0], 1.0)
        return np.sum(x)

    with pytest.raises(st.StAutodiffError, match="argument"):
        st.grad(f)(np.array([0.3, -1.2]))


# --- an array written in place by a call inside a loop (np.copyto(out, v), out.fill(v),
# out.sort(), np.putmask, np.add.at): the loop did not
# carry the name, so the writes were lost after the first iteration or entirely (silently
# wrong values and gradients) ------------------------------------------------------------

def _copyto_loop(x: Any) -> Any:
    out = np.zeros(3)
    for i in range(3):
        np.copyto(out, out + x[i:i + 3])
    return np.sum(out ** 2)


def _fill_loop(x: Any) -> Any:
    out = x[:3] * 1.0
    for i in range(2):
        out.fill(x[i])
    return np.sum(out ** 2)


def _putmask_loop(x: Any) -> Any:
    out = x[:3] * 1.0
    for _ in range(2):
        np.putmask(out, out > 0, out * x[3])
    return np.sum(out ** 2)


def _sort_loop(x: Any) -> Any:
    out = x[:3] * 1.0
    for i in range(2):
        out.sort()
        out[0] = out[0] * x[3 + i]
    return np.sum(out * np.arange(3))


def _default_dict_in_loop_branch(x: Any) -> Any:
    d: Any = collections.defaultdict(float)
    d["a"] = x[0]
    for i in range(3):
        if x[i] > 0:
            d["a"] = d["a"] + x[i]
    return d["a"] + d["q"]


@pytest.mark.parametrize("fn", [_copyto_loop, _fill_loop, _putmask_loop, _sort_loop,
                                _add_at_in_loop, _default_dict_in_loop_branch])
def test_written_in_place_in_a_loop(fn: Callable[[Any], Any]) -> None:
    x = np.array([0.3, -1.2, 0.8, 2.1, -0.4])
    _agrees(fn, x)
    _, tangent = st.jvp(fn, (x,), (np.ones(5),))
    np.testing.assert_allclose(tangent, np.sum(st.grad(fn)(x)))


# --- the same root causes reached from other constructs: a tuple from a conditional
# expression on a runtime condition or returned by a helper inside a loop (zero
# gradients, silently), and a dict from a conditional expression (generated code that
# did not compile: a '#' in a variable name) -------------------------------------------

def _ifexp_tuple(x: Any) -> Any:
    t = (x[0], x[1] * 2) if x[2] > 0 else (x[1], x[0] * 3)
    return t[0] * 5 + t[1]


def _ifexp_dict(x: Any) -> Any:
    d = {"a": x[0]} if x[2] > 0 else {"a": x[1] ** 2}
    return d["a"] * 3


def _pair(v: Any) -> tuple[Any, Any]:
    if v > 0:
        return v, v ** 2
    return -v, v ** 3


def _helper_tuple_in_loop(x: Any) -> Any:
    s = 0.0
    for i in range(3):
        a, b = _pair(x[i])
        s = s + a * b
    return s


def _appended_ifexp_tuples(x: Any) -> Any:
    res = []
    for i in range(3):
        res.append((x[i], x[i] ** 2) if x[i] > 0 else (x[i] ** 3, x[i]))
    return sum(a * b for a, b in res)


@pytest.mark.parametrize("fn", [_ifexp_tuple, _ifexp_dict, _helper_tuple_in_loop,
                                _appended_ifexp_tuples])
def test_tuples_and_dicts_from_other_constructs(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, X3)
    _agrees(fn, -X3)
