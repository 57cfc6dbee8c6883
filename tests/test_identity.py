"""``a is b`` between runtime values takes Python's answer (transforms/identity.py): the same
object passed twice versus copies (a guard of the specialisation), NumPy calls that return
their argument itself, fresh values, and a located refusal where it cannot be decided."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads

A = np.array([0.5, -1.2, 2.0])


def pair(x, y):
    if y is x or y is None:  # sklearn's check_pairwise_arrays
        return np.sum(x ** 2)
    return np.sum(x * y) + np.sum(y ** 3)


def test_same_object_twice_versus_copies_each_call():
    g = st.grad(pair, wrt=(0, 1))
    b = A.copy()
    for _ in range(2):  # alternating: the cached specialisation is checked each call
        gx, gy = g(A, A)
        np.testing.assert_allclose(gx, 2 * A)
        np.testing.assert_allclose(gy, 0 * A)
        gx, gy = g(A, b)
        np.testing.assert_allclose(gx, b)
        np.testing.assert_allclose(gy, A + 3 * b ** 2)
    assert g.cache_info().currsize == 2


def test_copies_against_central_differences():
    b = A[::-1].copy()
    check_grads(pair, (A, b), st.grad(pair, wrt=(0, 1)))


def test_same_argument_inlined_twice_against_central_differences():
    def loss(t):
        return pair(t, t)

    check_grads(loss, (A,), lambda t: (st.grad(loss)(t),))


def identities(x):
    y = np.asarray(x)
    answers = (y is x, np.asanyarray(x) is x, np.array(x) is x,
               np.array(x, copy=False) is x, x.astype(np.float64, copy=False) is x,
               x.astype(np.float32) is x, np.asarray(x, dtype=np.float64) is x,
               x.reshape(-1) is x, (x * 2) is x, np.array(x) is y, y is np.asarray(y))
    return answers


@pytest.mark.parametrize("case", range(len(identities(A))))
def test_each_answer_selects_the_branch_python_takes(case):
    def loss(x):
        if identities(x)[case]:
            return np.sum(np.sin(x))
        return np.sum(x ** 3)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def datacopied(a):
    arr = np.asarray(a)  # scipy.linalg's _datacopied(arr, original)
    if arr is a:
        return np.sum(arr ** 2)
    return np.sum(arr)


def test_scipy_datacopied_pattern():
    np.testing.assert_allclose(st.grad(datacopied)(A), 2 * A)


def test_lists_holding_runtime_values():
    def loss(x):
        xs = [x, x * 2]
        ys = xs
        other = [x, x * 2]
        assert ys is xs and other is not xs and xs is not x and (x,) is not x
        return np.sum(xs[0] * xs[1])

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_branch_output_is_refused_located():
    def loss(x):
        y = x if np.sum(x) > 0 else x * 2
        if y is x:
            return np.sum(x)
        return np.sum(x ** 2)

    with pytest.raises(StAutodiffError, match="cannot be decided") as info:
        st.grad(loss)(A)
    assert "test_identity.py" in str(info.value)


def test_real_view_is_refused_located():
    def loss(x):
        if x.real is x:  # a view in NumPy: another object, though lowered as x
            return np.sum(x)
        return np.sum(x ** 2)

    with pytest.raises(StAutodiffError, match="two different objects"):
        st.grad(loss)(A)


def test_no_identity_question_no_check():
    g = st.grad(lambda x: np.sum(x ** 2))
    g(A)
    (entry,) = [e for es in g._cache.values() for e in es]
    assert entry.same is None


def test_getattr_static_of_runtime_array():
    def loss(x):
        if inspect.getattr_static(x, "no_such_attribute", None) is None:
            return np.sum(x ** 2)
        return np.sum(x)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_mro_descriptor_of_an_array_raises_type_error_caught():
    def loss(x):
        try:
            type.__dict__["__mro__"].__get__(x)
            scale = 1.0
        except TypeError:
            scale = 3.0
        return scale * np.sum(x ** 2)

    np.testing.assert_allclose(st.grad(loss)(A), 6 * A)


# --- the walrus operator (narwhals' `(pl := get_polars()) is not None and ...`) ------------


def test_walrus_binds_in_the_function_and_is_its_value():
    def loss(x):
        if (n := x.shape[0]) > 2 and (s := np.sum(x ** 2)) > 0:
            return s * n + (t := np.sin(x)).sum() + t[0]
        return np.sum(x)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_walrus_in_a_runtime_loop_carries_its_value():
    def loss(x):
        total = x[0]
        i = 0
        last = x[1]
        while total < 10.0:
            total = total + (last := x[i % 3] ** 2) + 1.0
            i += 1
        return total + last

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_walrus_in_a_comprehension_is_refused_located():
    def loss(x):
        ys = [(y := v * 2.0) for v in x]
        return np.sum(ys[0]) + y

    with pytest.raises(StAutodiffError, match="walrus"):
        st.grad(loss)(A)


def test_walrus_in_a_generator_read_only_inside_it():
    def loss(x):  # narwhals' is_pandas_dataframe: `any((mod := ...) is not None and ...)`
        if any((k := name.upper()) == "B" and k.isupper() for name in ("a", "b", "c")):
            return np.sum(x ** 2)
        return np.sum(x)

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))


def test_walrus_in_a_generator_read_after_it_is_refused():
    def loss(x):  # any() stops at "b" in Python: k is "B" there, not "C"
        any((k := name.upper()) == "B" for name in ("a", "b", "c"))
        return np.sum(x) * len(k)

    with pytest.raises(StAutodiffError, match="walrus"):
        st.grad(loss)(A)


def test_walrus_in_a_list_comprehension_binds_outside_it():
    def loss(x):
        sizes = [(n := len(name)) for name in ("ab", "abc")]
        return np.sum(x) * n * sizes[0]

    check_grads(loss, (A,), lambda x: (st.grad(loss)(x),))
