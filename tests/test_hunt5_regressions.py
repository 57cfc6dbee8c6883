"""Wrong results and bad refusals found by a fifth outside hunt (library functions
imported at test time, Python semantics in user code, dtypes), one test per root cause.
Gradients are compared with float64 central differences, and with JAX where installed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers_agree import agrees, jax64

import st_autodiff as st

_jax = jax64
_agrees = agrees


# --- the adjoint of a float64 product with float16 (float32) values: grad's seed
# out_bar=1.0 is a Python float, so `out_bar * 100.0 * w` ran in float16 (NEP 50: a
# Python float takes the array's dtype) and overflowed to inf (np.dot's rule reads the
# seed directly; np.sum's broadcast of it was elided by the optimizer); a float64
# argument read through x.astype(float32) got a float32 gradient -------------------------

_W16 = np.array([1000.0, 2000.0, 3000.0, 4000.0], dtype=np.float16)
_X = np.array([0.3, 1.7, 2.5, 0.9])


def _scaled_half(x: Any) -> Any:
    return np.sum(x * _W16 * 100.0)


def _summed_half(x: Any) -> Any:
    return np.sum(x * _W16) * 100.0


def _cast_down(x: Any) -> Any:
    return np.sum(x.astype(np.float32) ** 2)


def _dotted_half(x: Any) -> Any:
    return np.dot(x, _W16) * 100.0


@pytest.mark.parametrize("fn", [_scaled_half, _summed_half, _dotted_half])
def test_adjoint_of_a_float64_product_with_float16_values(fn: Callable[[Any], Any]) -> None:
    value, grad = st.value_and_grad(fn)(_X)
    assert value == fn(_X)
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, 100.0 * _W16.astype(np.float64), rtol=1e-12)
    _agrees(fn, _X)
    x32 = _X.astype(np.float32)  # a float32 loss: the adjoint in float32, not float16
    g32 = st.grad(fn)(x32)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, 100.0 * _W16.astype(np.float32), rtol=1e-6)
    jax = _jax()
    w = jax.numpy.asarray(_W16)
    np.testing.assert_allclose(grad, jax.grad(lambda x: jax.numpy.sum(x * w * 100.0))(_X))
    np.testing.assert_allclose(st.hessian(fn)(_X), np.zeros((4, 4)))


def test_gradient_through_a_cast_down_has_the_arguments_dtype() -> None:
    grad = st.grad(_cast_down)(_X)
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, 2 * _X.astype(np.float32), rtol=1e-12)
    x32 = _X.astype(np.float32)
    g32 = st.grad(_cast_down)(x32)  # float32 stays float32
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, 2 * x32, rtol=1e-6)


# --- a statement that fails while compiling (x.shape[1] of a vector, shapes that do not
# broadcast, an index past the end) under a condition on data was a compile-time
# StaticRaiseError ("Python raises this here"), though Python raises only if the branch
# runs: scikit-learn's hinge_loss (its multiclass branch, under np.unique(y).size > 2)
# was refused for binary labels.  It is now a raise of the compiled code in that branch --

_LABELS = np.array([0.0, 1.0, 1.0, 0.0])


def _multiclass_branch(x: Any) -> Any:
    if np.unique(_LABELS * 2 - 1).size > 2:
        return x.shape[1] * np.sum(x)
    return np.sum(x * (_LABELS * 2 - 1))


def _unique_branch(x: Any) -> Any:
    if np.unique(x).size > 3:
        return x.shape[1] * np.sum(x)
    return np.sum(x ** 2)


def _broadcast_branch(x: Any) -> Any:
    if np.sum(x) > 100:
        return np.sum(x[:2] + x[:3])
    return np.sum(x ** 2)


def _index_in_while(x: Any) -> Any:
    s = 0.0
    while s < 3.0:
        s = s + np.sum(x)
        if s > 100:
            s = s + x[7]
    return s


def test_static_failure_under_a_runtime_condition_raises_only_when_reached() -> None:
    _agrees(_multiclass_branch, _X)
    _agrees(_broadcast_branch, _X)
    _agrees(_index_in_while, _X)
    for fn, x in ((_unique_branch, _X), (_broadcast_branch, _X * 100),
                  (_index_in_while, _X * 100)):
        with pytest.raises((IndexError, ValueError)) as python:
            fn(x)
        with pytest.raises(type(python.value)) as compiled:
            st.grad(fn)(x)
        assert str(compiled.value) == str(python.value)
    tied = np.array([0.3, 1.7, 1.7, 0.9])  # (finite differences would untie the values)
    value, grad = st.value_and_grad(_unique_branch)(tied)
    assert value == _unique_branch(tied)
    np.testing.assert_allclose(grad, 2 * tied)


# --- math functions of runtime floats: math.log(x, base) and math.hypot of three or more
# coordinates were refused as "got 2 (3) positional arguments, more than it takes" (both
# take them in Python); math.erf, erfc, exp2, fmod and ldexp had no rule -----------------


def _math_calls(x: Any) -> Any:
    return (math.log(x[1], 2) + math.log(3.0, x[2]) + math.log(x[3], x[1])
            + math.hypot(x[0], x[1], x[2]) + math.hypot(x[3]) + math.erf(x[0])
            + math.erfc(x[1]) + (math.exp2(x[0]) if hasattr(math, "exp2") else 0.0)
            + math.fmod(-x[2], 0.7) * x[0]  # (math.exp2: Python 3.11+)
            + math.ldexp(x[0], 3))


def _log_base_one(x: Any) -> Any:
    return math.log(x[1], x[0] / x[0])


def _fmod_by_zero(x: Any) -> Any:
    return math.fmod(x[1], x[0] * 0.0)


def test_math_functions_of_runtime_floats() -> None:
    value, _ = st.value_and_grad(_math_calls)(_X)
    assert type(value) is type(_math_calls(_X))
    _agrees(_math_calls, _X)
    for fn in (_log_base_one, _fmod_by_zero):
        with pytest.raises((ZeroDivisionError, ValueError)) as python:
            fn(_X)
        with pytest.raises(type(python.value)) as compiled:
            st.grad(fn)(_X)
        assert str(compiled.value) == str(python.value)


# --- builtins of a Python float argument are Python floats: abs(s), pow(s, 2),
# round(s, 1), max(s, 0.5) and min(s, 0.5) were NumPy float64 scalars (strong in NEP 50),
# so abs(s) * x32 came out float64 where NumPy gives float32 ------------------------------

_X32 = _X.astype(np.float32)


def _abs_of_float(s: Any, x: Any) -> Any:
    return np.sum(abs(s) * x)


def _pow_of_float(s: Any, x: Any) -> Any:
    return np.sum(pow(s, 2) * x)


def _round_of_float(s: Any, x: Any) -> Any:
    return np.sum(round(s, 1) * x) + np.sum(s * x)


def _max_min_of_float(s: Any, x: Any) -> Any:
    return np.sum(max(s, 0.5) * x) + np.sum(min(s, 0.5) * x)


@pytest.mark.parametrize("fn", [_abs_of_float, _pow_of_float, _round_of_float,
                                _max_min_of_float])
def test_builtins_of_a_python_float_stay_python_floats(fn: Callable[..., Any]) -> None:
    for s in (0.7, -0.7):
        want = fn(s, _X32)
        value, grad = st.value_and_grad(fn)(s, _X32)
        assert type(value) is type(want) and value.dtype == want.dtype == np.float32
        assert value == want
        step = 1e-6
        numeric = (fn(s + step, _X.astype(np.float64)) - fn(s - step, _X)) / (2 * step)
        np.testing.assert_allclose(grad, numeric, rtol=1e-5)


# --- x.flatten() always copies, but a write into it was refused as "it may be a view of
# 'a' and would change too" (flatten is lowered as a ravel, which may be a view) ---------


def _write_into_flatten(x: Any) -> Any:
    a = x.reshape(2, 2) * 1.0
    b = a.flatten()
    b[0] = 5.0
    return np.sum(a * x.reshape(2, 2)) + np.sum(b * x)


def test_write_into_a_flattened_copy() -> None:
    _agrees(_write_into_flatten, _X)


# --- enumerate(reversed(x)) and zip(x, reversed(x)) were refused ("zip of reversed and
# forward sequences is not supported"): the reversed stream is now a forward one over
# x[::-1] (a runtime list reversed, a static range's reversal) -----------------------------


def _enumerate_reversed(x: Any) -> Any:
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s += i * v ** 2
    return s


def _zip_with_reversed(x: Any) -> Any:
    s = 0.0
    for a, b in zip(reversed(x[:3]), x):
        s += a * b * b
    for i, v in zip(reversed(range(4)), x):
        s += i * v ** 3
    return s


def _reversed_runtime_list(x: Any) -> Any:
    xs = []
    for v in x:
        xs.append(v * 2)
    s = 0.0
    for i, a in enumerate(reversed(xs), start=1):
        s = s * 0.5 + i * a * a
    return s


@pytest.mark.parametrize("fn", [_enumerate_reversed, _zip_with_reversed,
                                _reversed_runtime_list])
def test_zip_of_reversed_and_forward_sequences(fn: Callable[[Any], Any]) -> None:
    _agrees(fn, _X)
    h = st.hessian(fn)(_X)
    g = st.grad(fn)
    step = 1e-5
    numeric = np.stack([(g(_X + step * e) - g(_X - step * e)) / (2 * step)
                        for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-6)


# --- len(obj), abs(obj), float(obj) of an object of a user class built in the function
# ran the builtin on the object while compiling, where its runtime attributes are
# markers: "StaticRaiseError: TypeError: object of type '_RuntimeAttribute' has no len()"
# (a false claim that Python raises there).  Its __len__/__abs__/__float__ are inlined ---


class _Box:
    def __init__(self, v: Any) -> None:
        self.v = v

    def __len__(self) -> int:
        return len(self.v)

    def __float__(self) -> float:
        return float(self.v[0])

    def __abs__(self) -> _Box:
        return _Box(np.abs(self.v))


def _dunders_of_a_box(x: Any) -> Any:
    b = _Box(x - 1.0)
    return np.sum(b.v) * len(b) + float(b) * x[1] + np.sum(abs(b).v * x)


def test_builtins_of_user_objects_call_their_dunders() -> None:
    _agrees(_dunders_of_a_box, _X)


# --- other builtins of such objects ran the class's Python methods natively on the
# markers: sum(obj) / max(a, b) / round(obj) / list(obj) gave a StaticRaiseError claiming
# Python raises TypeError there; hasattr(obj, "prop") escaped as a bare TypeError.  Now
# hasattr reads the class, and the rest is a located refusal ---------------------------


class _Pair:
    def __init__(self, v: Any) -> None:
        self.v = v

    @property
    def first(self) -> Any:
        return self.v[0] * 2

    def __iter__(self) -> Any:
        return iter([self.v[0], self.v[1]])


def _hasattr_of_a_property(x: Any) -> Any:
    p = _Pair(x)
    return x[1] * hasattr(p, "first") + x[2] * hasattr(p, "second") + p.first


def _sum_of_an_iterable_object(x: Any) -> Any:
    return sum(_Pair(x))


def test_builtins_never_run_methods_on_runtime_attributes() -> None:
    _agrees(_hasattr_of_a_property, _X)
    with pytest.raises(st.UnsupportedSyntaxError) as err:
        st.grad(_sum_of_an_iterable_object)(_X)
    assert "sum() of an object built in the function" in err.value.message
    assert err.value.loc is not None and err.value.loc.line == \
        _sum_of_an_iterable_object.__code__.co_firstlineno + 1


# --- SILENT WRONG ANSWER: a user's __eq__/__hash__ run while compiling on the markers of
# runtime attributes: P(x) in [P(2 * x)] with __eq__ = np.sum(self.v) == np.sum(o.v)
# compared the marker with itself and was True (Python: False), so x[1] * (P(x) in [...])
# gave 1.7 instead of 0.0; likewise set dedup, list.count/index, dict.get.  A marker now
# refuses every use (comparison, hashing, arithmetic, NumPy), a located refusal ---------


class _Summed:
    def __init__(self, v: Any) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        assert isinstance(other, _Summed)
        return bool(np.sum(self.v) == np.sum(other.v))

    def __hash__(self) -> int:
        return 1


def _contains_object(x: Any) -> Any:
    return x[1] * (_Summed(x) in [_Summed(x * 2)])


def _set_of_objects(x: Any) -> Any:
    return x[1] * len({_Summed(x), _Summed(x * 2)})


def _count_objects(x: Any) -> Any:
    return x[1] * [_Summed(x)].count(_Summed(x * 2))


@pytest.mark.parametrize("fn", [_contains_object, _set_of_objects, _count_objects])
def test_user_eq_never_runs_on_runtime_attributes(fn: Callable[[Any], Any]) -> None:
    assert fn(_X) in (0.0, 2 * _X[1])  # (Python's answer, which needs the data)
    with pytest.raises(st.UnsupportedSyntaxError) as err:
        st.grad(fn)(_X)
    assert "uses an attribute known only at run time" in err.value.message
    assert err.value.loc is not None and err.value.loc.line == fn.__code__.co_firstlineno + 1


# --- grad with respect to a list or tuple of plain floats was refused as "it is a tuple
# argument" (such sequences are static-length arguments); JAX differentiates the leaves --


def _poly_of_pair(p: Any) -> Any:
    return p[0] * p[1] ** 2


def test_grad_of_a_sequence_of_floats() -> None:
    assert st.grad(_poly_of_pair)([1.0, 2.0]) == [4.0, 4.0]
    assert st.grad(_poly_of_pair)((1.0, 2.0)) == (4.0, 4.0)
    assert st.value_and_grad(_poly_of_pair)([1.0, 2.0]) == (4.0, [4.0, 4.0])
    jax = _jax()
    np.testing.assert_allclose(st.grad(_poly_of_pair)([0.5, -1.5]),
                               jax.grad(_poly_of_pair)([0.5, -1.5]))


# --- a lambda defined in a loop over data and used after it was refused as "a value of
# type Closure cannot be used as an array here": now a clear refusal naming the function --


def _lambda_in_a_loop(x: Any) -> Any:
    f = None
    for i in range(3):
        f = lambda v: v * x[i]  # noqa: B023, E731
    assert f is not None
    return f(2.0)


def test_function_carried_by_a_loop_is_a_clear_refusal() -> None:
    with pytest.raises(st.UnsupportedSyntaxError) as err:
        st.grad(_lambda_in_a_loop)(_X)
    assert err.value.message.startswith("'f' is a function (a lambda or def)")
    assert err.value.loc is not None and err.value.loc.line == \
        _lambda_in_a_loop.__code__.co_firstlineno + 2


# --- SILENT WRONG ANSWER: np.frompyfunc(sq, 1, 1)(x) (an object array) cast to float,
# and float(np.sum(x.astype(object) * 2)): activity analysis skipped object arrays as
# non-differentiable, so st.grad gave zeros (the true gradients are 2x and 2); the sum of
# an object array was also typed int from stand-ins; the generated code named the ufunc's
# global "_sq (vectorized)", a NameError when the primal ran; x.astype(object) failed
# with "module 'numpy' has no attribute 'object'".  An active object array is now a
# located refusal, globals are identifiers, and dtype object is the builtin ------------


def _square(v: Any) -> Any:
    return v * v


def _through_frompyfunc(x: Any) -> Any:
    return np.sum(np.frompyfunc(_square, 1, 1)(x).astype(float))


def _frompyfunc_of_a_constant(x: Any) -> Any:
    return np.sum(np.frompyfunc(_square, 1, 1)(st.stop_gradient(x)).astype(float)) + np.sum(x)


def _sum_of_objects(x: Any) -> Any:
    return float(np.sum(x.astype(object) * 2))


def _objects_of_a_constant(x: Any, c: Any) -> Any:
    return float(np.sum(c.astype(object) * 2)) * np.sum(x)


@pytest.mark.parametrize("fn", [_through_frompyfunc, _sum_of_objects])
def test_object_arrays_are_not_silently_constant(fn: Callable[[Any], Any]) -> None:
    with pytest.raises(st.UnsupportedSyntaxError) as err:
        st.grad(fn)(_X)
    assert "dtype object" in err.value.message
    assert err.value.loc is not None and err.value.loc.line == fn.__code__.co_firstlineno + 1


def test_object_arrays_of_constants() -> None:
    _agrees(_objects_of_a_constant, _X, _X[::-1].copy())
    value, grad = st.value_and_grad(_frompyfunc_of_a_constant)(_X)
    assert value == _frompyfunc_of_a_constant(_X)
    np.testing.assert_array_equal(grad, np.ones(4))
