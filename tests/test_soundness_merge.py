"""Soundness after the issue-14 merges: programs combining the new features (runtime
``try``, static NumPy values, layout, 0-d kinds) must give NumPy's values and central
differences' gradients, or a located refusal, never a silently different answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.4, -0.6]])


def _check(f, x=X):
    """Value equal to NumPy's, gradient equal to central differences."""
    value, _ = st.value_and_grad(f)(x)
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12, atol=1e-12)
    check_grads(f, [x], lambda a: [st.grad(f)(a)])


def _refused(f, x=X, match="except"):
    """A located refusal (the handler would have to be chosen at run time)."""
    with pytest.raises(UnsupportedSyntaxError, match=match):
        st.value_and_grad(f)(x)


# --- runtime try: Python's math functions and int() raise where NumPy's ops do not ---------


def math_sqrt_domain(x):
    try:
        v = math.sqrt(x[0, 1])  # x[0, 1] < 0: ValueError in Python, NaN in np.sqrt
    except ValueError:
        v = 5.0
    return v * np.sum(x)


def math_log_domain(x):
    try:
        v = math.log(x[0, 1]) + 1.0
    except ValueError:
        v = 5.0
    return v * np.sum(x)


def math_acos_tuple_handler(x):
    try:
        v = math.acos(x[0, 1] * 2)
    except (TypeError, ValueError):
        v = 5.0
    return v * np.sum(x)


def math_floor_nan(x):
    try:
        v = math.floor(x[0, 1] * np.nan)
    except ValueError:
        v = 5.0
    return v * np.sum(x)


def math_pow_domain(x):
    try:
        v = math.pow(x[0, 1], 0.5)
    except Exception:
        v = 5.0
    return v * np.sum(x)


def int_of_nan(x):
    try:
        k = int(np.sum(x) * np.nan)  # ValueError: cannot convert float NaN to integer
    except ValueError:
        k = 3
    return k * np.sum(x)


def round_of_nan(x):
    try:
        k = round(x[0, 0] * np.nan)
    except ValueError:
        k = 3
    return k * np.sum(x)


@pytest.mark.parametrize(("f", "k"), [
    (math_sqrt_domain, 5.0), (math_log_domain, 5.0), (math_acos_tuple_handler, 5.0),
    (math_floor_nan, 5.0), (math_pow_domain, 5.0), (int_of_nan, 3), (round_of_nan, 3)])
def test_python_raising_calls_in_runtime_try_are_refused(f, k):
    assert f(X.copy()) == pytest.approx(k * np.sum(X))  # Python runs the handler
    _refused(f)


def math_sqrt_other_handler(x):
    try:
        v = math.sqrt(x[0, 0])  # a domain error is a ValueError, never a KeyError
    except KeyError:
        v = 5.0
    return v * np.sum(x)


def int_in_try_key(x):
    try:
        k = int(x[1, 0] * 3)
    except KeyError:
        k = 0
    return k * np.sum(x)


@pytest.mark.parametrize("f", [math_sqrt_other_handler, int_in_try_key])
def test_handlers_that_cannot_catch_stay_accepted(f):
    _check(f)


def math_outside_try(x):
    return math.sqrt(x[0, 0] ** 2 + 1.0) * np.sum(x) + math.floor(x[1, 1] * 2)


def test_math_outside_try_unchanged():
    _check(math_outside_try)


# --- unary operators on objects built inside the function: inlined, never run on them ------


class Vec:
    """A user class with operators, built from runtime values."""

    def __init__(self, a):
        self.a = a

    def __neg__(self):
        return Vec(-self.a)

    def __pos__(self):
        return Vec(self.a * 2)

    def __sub__(self, o):
        return Vec(self.a - o.a)

    def __len__(self):
        return 3


class Falsy:
    def __init__(self, a):
        self.a = a

    def __bool__(self):
        return False


class Plain:
    def __init__(self, a):
        self.a = a


def neg_pos_object(x):
    v = Vec(x[0])
    u = Vec(x[1])
    z = -(u - v)  # raised a raw TypeError: __neg__ ran on the object while compiling
    p = +z
    return np.sum(p.a * x[1] ** 2)


def not_object(x):
    k = 1.0
    if not Vec(x[0]):
        k = 2.0
    if not Falsy(x[1]):
        k = k + 10
    if not Plain(x[0]):
        k = k + 100
    return k * np.sum(x ** 2)


@pytest.mark.parametrize("f", [neg_pos_object, not_object])
def test_unary_operators_on_built_objects(f):
    _check(f)


def invert_without_method(x):
    return np.sum((~Plain(x[0])).a)


def test_unary_operator_missing_is_pythons_type_error():
    with pytest.raises(st.CompileError, match="bad operand type for unary ~"):
        st.grad(invert_without_method)(X)


# --- while loops whose static test reads a container the body changes in place -----------


def while_stack_pop(x):
    stack = [0, 1, 2]
    s = 0.0
    while stack:  # compiled as a region, the pop ran once: an endless loop at run time
        i = stack.pop()
        s = s + x[1, i] * (i + 1)
    return s


def while_dict_shrinks(x):
    todo = {0: 1.0, 2: 3.0}
    s = 0.0
    while len(todo) > 0:
        k, w = todo.popitem()
        s = s + x[0, k] * w
    return s


@pytest.mark.parametrize("f", [while_stack_pop, while_dict_shrinks])
def test_while_on_container_changed_in_place_is_refused(f):
    with pytest.raises(UnsupportedSyntaxError, match="test of this while loop"):
        st.grad(f)(X)


def while_true_break(x):
    s = x[0, 0]
    while True:
        s = s * 0.5
        if s * s < 0.01:
            break
    return s


def while_static_counter(x):
    i = 0
    s = 0.0
    while i < 3:
        s = s + x[0, i] * x[1, i]
        i += 1
    return s


@pytest.mark.parametrize("f", [while_true_break, while_static_counter])
def test_while_loops_with_static_tests_still_accepted(f):
    _check(f)
