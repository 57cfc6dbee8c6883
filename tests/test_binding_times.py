"""Binding times are sound (docs/architecture.md, "Binding times"): a value computed from
a float or array argument is never folded into a constant from the example arguments.

Each corpus function is compiled once at an example ``A``; the cached code then runs at
perturbed arguments ``B`` and must match NumPy and central differences there.  Compiling
from two examples of one kind must give the same IR (a folded example value would be a
constant that differs).  Then the reproductions of the bugs this found: ``linspace`` and
friends, ``np.array(ndmin=...)``, and derivatives at points where a function is flat.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

import st_autodiff as st
from st_autodiff.errors import CompileError
from st_autodiff.testing import check_grads

# --- the corpus: scalar float arguments through every path that could fold them -------


def b_linspace(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def b_full(a, b):
    return np.sum(np.full((3,), a) * b) + np.sum(np.full_like(np.ones(2), b) ** 2)


def b_arange(a, b):
    return np.sum(np.arange(a, 6.0, 1.0) ** 2) * b  # its length depends on a


def b_int(a, b):
    return int(a) * b + a


def b_round(a, b):
    return round(a) * b + round(b, 0) * a


def b_range_int(a, b):
    s = 0.0
    for _ in range(int(a)):
        s = s + b * a
    return s


def b_max_min(a, b):
    return max(a, 2.0) ** 2 + min(b, 2.0) * a


def b_math(a, b):
    return math.sqrt(a) * math.exp(b) + math.floor(a) * b


def b_compare(a, b):
    return a * (a > 2.0) + b * bool(b > 2.0)


def b_branch(a, b):
    if a > b:
        return a * b
    return a + b


def b_divmod(a, b):
    q, r = divmod(a, 0.7)
    return q * b + r * a


def b_asarray(a, b):
    x = np.array([a, b], ndmin=2)
    return np.sum(np.float64(a) * x ** 2)


def b_abs_pow(a, b):
    return abs(a - b) ** 3 + pow(a, 2.5)


CORPUS = [b_linspace, b_full, b_arange, b_int, b_round, b_range_int, b_max_min, b_math,
          b_compare, b_branch, b_divmod, b_asarray, b_abs_pow]

#: arguments stay away from multiples of 0.5 (int, round, arange's length jump there)
_FLOATS = hs.floats(1.05, 4.95).filter(lambda v: abs(2 * v - round(2 * v)) > 0.1)


def _fd(f, a, b, h=1e-6):
    return ((f(a + h, b) - f(a - h, b)) / (2 * h), (f(a, b + h) - f(a, b - h)) / (2 * h))


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
@given(a=_FLOATS, b=_FLOATS, a2=_FLOATS, b2=_FLOATS)
def test_cached_code_is_right_at_other_floats(f, a, b, a2, b2) -> None:
    if abs(a - b) < 0.05 or abs(a2 - b2) < 0.05:
        return  # b_branch's kink
    vg = st.value_and_grad(f, wrt=(0, 1))
    vg(a, b)  # compiles for the kind (float, float)
    value, grads = vg(a2, b2)  # the same code, other values
    assert value == pytest.approx(f(a2, b2), rel=1e-12, abs=1e-12)
    assert np.allclose(grads, _fd(f, a2, b2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
def test_ir_does_not_depend_on_float_values(f) -> None:
    one, two = st.grad(f, wrt=(0, 1)), st.grad(f, wrt=(0, 1))
    one(1.3, 3.7)
    two(3.6, 1.2)  # the other branch of b_branch: regions hold both anyway
    assert one.ir == two.ir
    assert one.source == two.source


def test_int_of_a_float_argument_is_computed_at_run_time() -> None:
    g = st.value_and_grad(b_range_int, wrt=(0, 1))
    assert g(2.5, 1.0) == (5.0, pytest.approx((2.0, 5.0)))
    value, grads = g(3.5, 1.0)  # three iterations now, from the same cached code
    assert value == pytest.approx(10.5) and np.allclose(grads, (3.0, 10.5))


# --- issue 3: creation ops whose values come from differentiated arguments ---------------


def linspace_sq(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def test_linspace_reproduction() -> None:
    assert st.grad(linspace_sq, wrt=(0, 1))(1.2, 3.4) == pytest.approx((8.75, 14.25))
    _, tangent = st.jvp(linspace_sq, (1.2, 3.4), (1.0, 0.0))
    assert tangent == pytest.approx(8.75)
    hess = st.hessian(lambda_free_linspace)(np.array([1.2, 3.4]))
    # sum(((1 - w) a + w b)^2) is quadratic: its Hessian is [[s(1-w)^2, s w(1-w)], ...] * 2
    w = np.linspace(0, 1, 5)
    want = 2 * np.array([[np.sum((1 - w) ** 2), np.sum(w * (1 - w))],
                         [np.sum(w * (1 - w)), np.sum(w ** 2)]])
    assert np.allclose(hess, want)


def lambda_free_linspace(x):
    return np.sum(np.linspace(x[0], x[1], 5) ** 2)


def linspace_arrays(a, b):
    return np.sum(np.sin(np.linspace(a, b, 4)))


def full_fill(x):
    return np.sum(np.full((2, 3), x) * np.arange(6.0).reshape(2, 3))


def full_like_fill(x, y):
    return np.sum(np.full_like(y, x[0]) * y)


def arange_float(start, step):
    return np.sum(np.arange(start, 3.0, step) ** 2)


@pytest.mark.parametrize("f,args", [
    (linspace_arrays, (np.array([0.1, 0.5]), np.array([1.0, 2.0]))),
    (full_fill, (np.array([0.7, -0.2, 0.4]),)),
    (full_like_fill, (np.array([0.7]), np.array([1.0, 2.0]))),
    (arange_float, (0.25, 0.7)),
], ids=["linspace_arrays", "full", "full_like", "arange"])
def test_creation_ops_differentiate_their_values(f, args) -> None:
    g = st.grad(f, wrt=tuple(range(len(args))))
    check_grads(f, args, g)


# --- issue 4: np.array keywords ---------------------------------------------------------


def array_ndmin(x):
    return np.sum(np.array(x, ndmin=2).mean(axis=0) ** 2)


def array_copy(x):
    y = np.array(x, copy=True, dtype=np.float64)
    return np.sum(np.asarray(y, order="C") * x)


def array_subok(x):
    return np.sum(np.array(x, subok=True))


def asarray_ndmin(x):
    return np.sum(np.asarray(x, ndmin=2))


def test_array_ndmin_reproduction() -> None:
    x = np.array([1.0, 2.0, 3.0])
    value, grad = st.value_and_grad(array_ndmin)(x)
    assert value == pytest.approx(14.0) and np.allclose(grad, 2 * x)
    value, grad = st.value_and_grad(array_copy)(x)
    assert value == pytest.approx(14.0) and np.allclose(grad, 2 * x)


def test_array_subok_changes_nothing() -> None:
    x = np.array([1.0, 2.0])  # the values here are plain ndarrays: subok keeps them so
    value, grad = st.value_and_grad(array_subok)(x)
    assert value == pytest.approx(3.0) and np.allclose(grad, 1.0)


@pytest.mark.parametrize("f,word", [(asarray_ndmin, "ndmin")])
def test_array_refuses_unknown_keywords_with_a_location(f, word) -> None:
    with pytest.raises(CompileError) as info:
        st.grad(f)(np.ones(2))
    assert word in str(info.value) and "test_binding_times.py" in str(info.value)


# --- issue 13: flat and kinked points -----------------------------------------------------


def std_rows(x):
    return np.sum(np.std(x, axis=1))


def var_rows(x):
    return np.sum(np.var(x, axis=1))


def std_all(x):
    return np.std(x)


def norm_of(x):
    return np.linalg.norm(x)


def hypot_of(x):
    return np.sum(np.hypot(x, 0.0 * x))


def abs_of(x):
    return np.sum(np.abs(x))


def maximum_tie(x):
    return np.sum(np.maximum(x, 1.0))


@pytest.mark.parametrize("f,x,want", [
    (std_rows, np.ones((3, 1)), np.zeros((3, 1))),  # constant: std over one element is 0
    (var_rows, np.ones((3, 1)), np.zeros((3, 1))),
    (std_all, np.full(3, 2.0), np.zeros(3)),  # kink: the 0 subgradient (PyTorch's)
    (norm_of, np.zeros(3), np.zeros(3)),
    (hypot_of, np.zeros(2), np.zeros(2)),
    (abs_of, np.zeros(2), np.zeros(2)),
    (maximum_tie, np.ones(2), np.full(2, 0.5)),  # ties split (as JAX)
], ids=["std_len1", "var_len1", "std_equal", "norm_zero", "hypot_zero", "abs_zero",
        "maximum_tie"])
def test_subgradients_in_both_modes_and_both_engines(f, x, want) -> None:
    assert np.array_equal(st.grad(f)(x), want)
    _, tangent = st.jvp(f, (x,), (np.ones_like(x),))
    assert tangent == pytest.approx(np.sum(want))
    t = st.tensor(x, requires_grad=True)
    f_eager = {std_rows: lambda t: st.std(t, dim=1, unbiased=False).sum(),
               var_rows: lambda t: st.var(t, dim=1, unbiased=False).sum(),
               std_all: lambda t: st.std(t, unbiased=False),
               norm_of: lambda t: st.norm(t),
               hypot_of: lambda t: st.hypot(t, 0.0 * t).sum(),
               abs_of: lambda t: st.abs(t).sum(),
               maximum_tie: lambda t: st.maximum(t, st.ones_like(t)).sum()}[f]
    f_eager(t).backward()
    assert np.array_equal(t.grad.numpy(), want)


def test_std_length_one_axis_matches_finite_differences() -> None:
    x = np.array([[0.3], [1.7]])
    check_grads(std_rows, (x,), lambda x: (st.grad(std_rows)(x),))


def sqrt_at_zero(x):
    return np.sum(np.sqrt(x))


def test_sqrt_at_zero_is_infinite_not_nan() -> None:
    with np.errstate(divide="ignore"):
        assert np.all(np.isposinf(st.grad(sqrt_at_zero)(np.zeros(2))))


# --- shapes computed from a float argument are runtime shapes ------------------------------


def reshape_by_float(a, x):
    return np.sum(x.reshape(int(a), -1).sum(axis=0) ** 2)


def ones_by_float(a, x):
    return np.sum(np.ones((int(a), 2)) * x)


def arange_by_float(a, x):
    return np.sum(np.arange(a, 6.0) * x[0])


@pytest.mark.parametrize("f,x", [(reshape_by_float, np.arange(6.0)),
                                 (ones_by_float, np.array([1.0, 2.0])),
                                 (arange_by_float, np.array([1.5, 2.0]))],
                         ids=["reshape", "ones", "arange"])
def test_shapes_from_floats_are_not_the_examples(f, x) -> None:
    g = st.value_and_grad(f, wrt=(0, 1))
    g(2.5, x)  # compiled with 2 rows (4 elements for arange)
    value, (ga, gx) = g(3.5, x)  # the cached code: 3 rows (3 elements)
    assert value == pytest.approx(f(3.5, x))
    check_grads(lambda x: f(3.5, x), (x,), lambda x: (g(3.5, x)[1][1],))
