"""``int(x)``, ``round(x)``, ``math.floor/ceil/trunc(x)`` and ``x.item()`` of an integer
array give Python ints in compiled code, and ``bool(x)`` Python bools, as in Python:
their ``//``, ``%``, ``/`` and ``**`` are Python's (``3 // int(x)`` with ``int(x) == 0``
raises ``ZeroDivisionError``, where NumPy's int64 gave 0 with a warning; ``n ** -1`` is a
float, where int64 refuses it; ``bool(a) + bool(b)`` is 2, where NumPy's bools give True);
``abs``/``max``/``round``/``pow`` of Python floats are Python floats, and ``and``/``or``
give one of their operands, as in Python (``c and x or y`` gave a bool).
Each case runs the plain function and the compiled gradient on the same inputs: both
raise the same exception, or agree on the value and on central differences."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import numerical_vjp


def div_int(x):
    return x[1] * (3 // int(x[0]))


def mod_int(x):
    return x[1] * (7 % int(x[0]))


def truediv_int(x):
    return x[1] * (3 / int(x[0]))


def divmod_int(x):
    q, r = divmod(10, int(x[0]))
    return x[1] * q + r


def neg_power(x):
    n = int(x[0])
    return x[1] * float(n ** -1)


def floor_div(x):
    return x[1] * (5 // math.floor(x[0]))


def ceil_mod(x):
    return x[1] * (5 % math.ceil(x[0]))


def trunc_index(x):
    return x[math.trunc(x[0])] * x[1]


def round_div(x):
    return x[1] ** 2 * (4 // round(x[0]))


def item_of_argmax(x):
    k = np.argmax(x).item()
    return x[1] * (2 // k)


def int_of_argmin(x):
    k = int(np.argmin(x))
    return x[1] * (2 % k)


def huge_int(x):
    n = int(x[0]) * 10 ** 19  # beyond int64: Python's int is exact, int64 overflows
    return x[1] * float(n % 97 + 1)


def int_type(x):
    n = int(x[0])
    return x[1] * (1.0 if type(n) is int else 2.0)


def bool_count(x):  # Python's bools add as ints; NumPy's as a logical or
    return x[2] * (bool(x[0] > 0.45) + bool(x[1] > 0.45))


def neg_bool(x):  # -np.True_ is a TypeError in NumPy
    return x[2] * -bool(x[0] > 0.45)


def bool_of_array(x):  # ambiguous: Python's ValueError
    return x[0] * bool(x)


def and_or_select(x):  # Python's and/or give an operand (a logical op gave True)
    return (x[0] > 0.45) and x[1] or x[2]


def and_or_constants(x):
    return x[1] * ((x[0] > 0.45) and 3.0 or 4.0)


def or_default(x):  # 0.0 or 1.0 is 1.0
    return x[1] * (float(x[0]) * 0.0 or 1.0) + x[2] * (float(x[0] + 10.0) or 2.0)


def abs_of_python_float(x):  # abs(0.0) of a Python float: 1.0 / it raises
    return x[1] * (1.0 / abs(float(x[0])))


def max_of_python_floats(x):
    return x[1] * (1.0 / max(float(x[0]), -1.0))


def round_of_python_float(x):
    return x[1] * (1.0 / round(float(x[0]), 3))


def pow_of_python_float(x):
    return x[1] * (1.0 / pow(float(x[0]), 2))


def not_count(x):  # `not` gives Python bools, which add as ints
    return x[2] * ((not x[0] > 5) + (not x[1] > 5)) - x[1] * -(not x[0] > 5)


def numpy_bools_add_as_or(x):  # np.True_ + np.True_ is True (the optimizer made it c * 2)
    c = x[0] > 0.45
    both = np.sum(x[1] * (x > 0.45) + x[1] * (x > 1.05))  # not x[1] * (p + q): p or q
    return x[2] * (c + c) + x[1] * ((x[0] > 0.45) * x[1] + (x[1] > 0.45) * x[1]) + both


CASES: list[Callable[[Any], Any]] = [
    div_int, mod_int, truediv_int, divmod_int, neg_power, floor_div, ceil_mod, trunc_index,
    round_div, item_of_argmax, int_of_argmin, huge_int, int_type, bool_count, neg_bool,
    bool_of_array, and_or_select, and_or_constants, or_default, abs_of_python_float,
    max_of_python_floats, round_of_python_float, pow_of_python_float, not_count,
    numpy_bools_add_as_or]

INPUTS = [np.array([0.0, 2.0, 1.0]), np.array([0.4, 3.0, 1.0]), np.array([2.7, 1.5, 0.5]),
          np.array([-1.2, 0.5, 3.0]), np.array([1.3, 0.5, 3.0])]  # (away from jumps)


def _outcome(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's divide-by-zero warnings must not appear
        try:
            return call()
        except Exception as exc:  # (compared by class and message below)
            return exc


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_python_int_semantics(f: Callable[[Any], Any], k: int) -> None:
    x = INPUTS[k]
    want = _outcome(lambda: f(x))
    got = _outcome(lambda: st.value_and_grad(f)(x))
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (want, got)
        assert str(got) == str(want)
        return
    assert not isinstance(got, Exception), got
    value, grad = got
    assert type(value) is type(want) and value == want
    np.testing.assert_allclose(grad, numerical_vjp(f, (x,), 1.0)[0], rtol=1e-6, atol=1e-6)


def test_int_results_are_python_ints_in_generated_code() -> None:
    def f(x):
        n = int(x[0])
        return x[1] * n + x[n]

    g = st.grad(f)
    np.testing.assert_allclose(g(np.array([1.0, 2.0])), [0.0, 2.0])
    assert "rt.python_int(x[0])" in g.source


def test_math_floor_is_an_int() -> None:
    def f(x):
        k = math.floor(x[0])
        return x[1] * len(str(k))  # "2" for an int, "2.0" for a float

    assert st.grad(f)(np.array([2.5, 1.0]))[1] == f(np.array([2.5, 1.0])) / 1.0


def test_int_of_nan_raises_as_python() -> None:
    def f(x):
        return x[1] * int(x[0])

    with pytest.raises(ValueError, match="NaN"):
        st.grad(f)(np.array([np.nan, 1.0]))
    with pytest.raises(OverflowError):
        st.grad(f)(np.array([np.inf, 1.0]))


def test_try_around_int_names_the_cast() -> None:
    # a handler decided by the data is refused (runtime_raises); the reason names int()
    def f(x):
        try:
            n = int(x[0])
        except ValueError:
            n = 1
        return x[1] * n

    with pytest.raises(st.errors.StAutodiffError, match=r"py_int at test_python_ints\.py"):
        st.grad(f)(np.array([3.0, 2.0]))


def test_forward_mode_through_int() -> None:
    def f(x):
        n = int(x[0])
        return x * (4 // n)

    x = np.array([2.0, 3.0])
    np.testing.assert_allclose(st.jacfwd(f)(x), np.eye(2) * 2)
    with pytest.raises(ZeroDivisionError):
        st.jacfwd(f)(np.array([0.5, 3.0]))
