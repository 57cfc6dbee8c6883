"""Regressions of the library paths under sklearn's regression metrics (narwhals' native
object checks, check_array): static reads through descriptors, ``@functools.cache`` calls
with static arguments, generator functions with locals consumed later, and
``except ComplexWarning`` around real-valued code."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads

A = np.array([0.5, -1.2, 2.0])
CALLS = []


@functools.cache
def discover(group):
    CALLS.append(group)  # run once, as Python runs a cached function once
    return ("alpha", "beta") if group == "plugins" else ()


def test_cached_function_with_static_arguments_is_its_cached_answer():
    CALLS.clear()
    discover.cache_clear()

    def loss(x):
        return np.sum(x ** 2) * len(discover("plugins"))

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))
    assert CALLS == ["plugins"]


def plugins(obj):
    for name in discover("plugins"):
        found = name.upper()  # a local of the generator function, not the caller's
        if found.startswith("B"):
            yield found


def converted(obj):  # narwhals' _iter_from_native
    for found in plugins(obj):  # assigns a name the inner generator also uses locally
        yield len(found)


def test_generator_function_locals_are_not_the_callers_names():
    def loss(x):
        n = next(converted(x), None)
        return np.sum(x) if n is None else np.sum(x ** 3) * n

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_except_complex_warning_around_real_values():
    def loss(x):
        with warnings.catch_warnings():
            try:
                warnings.simplefilter("error", np.exceptions.ComplexWarning)
                y = np.asarray(x, dtype=np.float64)
            except np.exceptions.ComplexWarning:
                raise ValueError("complex data") from None
        return np.sum(np.sin(y))

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_except_runtime_warning_stays_refused():
    def loss(x):
        try:
            y = np.log(x)
        except RuntimeWarning:
            y = x
        return np.sum(y)

    with pytest.raises(StAutodiffError, match="RuntimeWarning"):
        st.grad(loss)(np.abs(A))


def finite_check(x, msg_dtype=None):  # sklearn's _assert_all_finite_element_wise
    has_nan = np.any(np.isnan(x))
    if has_nan:
        msg_dtype = msg_dtype if msg_dtype is not None else x.dtype
        y = x * 3.0
        raise ValueError(f"Input contains NaN ({msg_dtype})")
    else:
        y = x * 2.0
    return np.sum(np.sin(y)) + (0.0 if msg_dtype is None else 1.0)


def test_branch_that_raises_does_not_join():
    check_grads(finite_check, (A,), lambda x: (st.grad(finite_check)(x),))
    with pytest.raises(ValueError, match=r"Input contains NaN \(float64\)"):
        st.grad(finite_check)(np.array([np.nan, 1.0]))


def test_nested_branches_that_both_raise():
    def loss(x):
        y = x * 2.0
        if np.sum(x) > 100.0:
            note = x.dtype  # a static value the raising branches alone set
            y = x * 3.0
            if np.max(x) > 50.0:
                raise ValueError(note)
            else:
                raise ValueError("spread")
        return np.sum(y ** 2)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))
    with pytest.raises(ValueError, match="float64"):
        st.grad(loss)(np.array([60.0, 70.0]))


def check_finite(x):  # sklearn's _assert_all_finite: a bare return under a runtime if
    ok = np.isfinite(np.sum(x))
    if ok:
        return
    raise ValueError("Input contains infinity")


def test_bare_return_under_a_runtime_condition_gives_none():
    def loss(x):
        r = check_finite(x)
        return np.sum(x ** 2) if r is None else np.sum(x)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))
    with pytest.raises(ValueError, match="infinity"):
        st.grad(loss)(np.array([np.inf, 1.0]))


def test_static_object_that_differs_between_runtime_branches_is_refused_where_read():
    def loss(x, kind=None):
        if np.sum(x) > 0:
            kind = x.dtype
        y = np.sum(x ** 2)
        return y if kind is None else y * 2.0

    with pytest.raises(StAutodiffError, match="'kind' is a Float64DType or NoneType that depends"):
        st.grad(loss)(A)


def test_static_object_that_differs_but_is_never_read_is_fine():
    def loss(x, kind=None):
        if np.sum(x) > 0:
            kind = x.dtype  # noqa: F841  (never read: no refusal)
            y = x * 2.0
        else:
            y = x * 3.0
        return np.sum(y ** 2)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))
