"""Static comparisons, type queries and static-call folding (design/staging.md §2.1 3-6).

Library-style validation code (``isinstance``, ``x is None``, ``np.finfo(x.dtype).eps``,
``x.dtype.char in '...'``, shapes as tuples) is answered while compiling, as Python would
answer it; gradients through it are checked against central differences.  Where the answer
depends on what lowering cannot know (which object, a Python number or a 0-d array), the
compiler refuses at the user's line.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.arange(1.0, 9.0).reshape(2, 4) / 3.0
V = np.array([0.5, -1.0, 2.0])


def check(f, *args):
    """``st.grad(f)`` of the first argument against central differences."""
    def grads(*a):
        return (st.grad(f)(*a), *[np.zeros_like(v) for v in a[1:]])

    check_grads(f, args, grads, argnums=[0])


# --- library-style validation -------------------------------------------------------------


def validated(x, w=None):
    if not isinstance(x, np.ndarray):
        x = np.asarray(x)
    if w is None:
        w = np.ones(x.shape)
    eps = np.finfo(x.dtype).eps
    if np.iscomplexobj(x):
        return 0.0 * np.sum(x)  # never taken: a wrong gradient if it were
    y = x.reshape(x.shape[:-1] + (2, -1))
    if len(x.shape) != 2 or x.ndim != 2 or x.size != 8:
        return 0.0 * np.sum(x)
    return np.sum(y ** 2) * (1.0 + eps) + np.sum(w * np.sin(x))


def test_validation_code_folds():
    check(validated, X)
    check(validated, X, X + 1.0)  # w given: `w is None` is False
    g = st.grad(validated)(X)
    np.testing.assert_allclose(g, 2 * X * (1 + np.finfo(float).eps) + np.cos(X))


def test_python_float_argument_goes_through_asarray():
    def f(t):
        if not isinstance(t, np.ndarray):
            t = np.asarray(t)
        return np.sum(t ** 3)

    assert st.grad(f)(2.0) == pytest.approx(12.0)
    check(f, V)


def test_shapes_are_tuples():
    def f(x):
        n = (1,) + x.shape
        m = x.shape + (1,)
        a = x.reshape(n) * x.reshape(m).sum()
        b = np.zeros(x.shape[1:]) + x[0]
        k = len(x.shape) + x.shape[-1]
        return np.sum(a ** 2) + np.sum(b * x[1]) * k + np.sum(x.reshape(np.shape(x)))

    check(f, X)


def test_itemsize_and_nbytes():
    def f(x):
        return np.sum(x) * (x.itemsize + x.nbytes)

    np.testing.assert_allclose(st.grad(f)(V), np.full(3, 8 + 24))


def test_dtype_char_in_string_and_polyval():
    from numpy.polynomial import chebyshev, polynomial

    t = np.linspace(-1.0, 1.0, 5)

    def pv(c):
        return np.sum(polynomial.polyval(t, c) ** 2)

    def cv(c):
        return np.sum(chebyshev.chebval(t, c) ** 2)

    c = np.array([0.3, -1.0, 2.0])
    check(pv, c)
    check(cv, c)


def test_in_and_is_on_static_values():
    def f(x, mode="l2", axis=None):
        s = 0.0
        if mode in ("l1", "l2") and mode not in "xyz" and axis is None:
            s = s + np.sum(x ** 2)
        if x.dtype in (np.float32, np.float64) and x.dtype.kind in "fc":
            s = s + np.sum(x)
        if "k" in {"k": 1} and type(x) is np.ndarray and type(x) is not float:
            s = s + np.sum(np.sin(x))
        return s

    check(f, V)
    np.testing.assert_allclose(st.grad(f)(V), 2 * V + 1 + np.cos(V))


def test_x_is_x_and_none():
    def f(x, y):
        same = x is x
        other = x is not None and y is not None
        return np.sum(x * y) if same and other else np.sum(x)

    check(f, V, V + 1.0)


def test_getattr_and_hasattr():
    class Config:
        scale = 3.0

    cfg = Config()
    scale, transposed, rank = "scale", "T", "ndim"  # names known when compiling

    def f(x):
        s = getattr(cfg, scale) * getattr(cfg, "missing", 2.0)
        if hasattr(x, "dtype") and not hasattr(cfg, "other") and hasattr(cfg, scale):
            s = s * np.sum(getattr(x, transposed) ** 2)
        return s + getattr(x, rank)

    check(f, X)
    np.testing.assert_allclose(st.grad(f)(X), 12.0 * X)


# --- queries answered from the type, as Python would --------------------------------------


def _flags(t):
    """Each type query of ``t`` as a bit: compiled, the bits weigh the gradient."""
    return [isinstance(t, np.ndarray), isinstance(t, float), np.isscalar(t),
            type(t) is np.float64, hasattr(t, "dtype"), isinstance(t, numbers.Number),
            isinstance(t, (list, tuple)), callable(t), np.ndim(t) == 0]


def kinds(t):
    flags = _flags(t)
    weight = 1.0
    for k, b in enumerate(flags):
        if b:
            weight = weight + 2.0 ** k
    return np.sum(np.asarray(t) ** 2) * weight


@pytest.mark.parametrize("value", [1.5, np.float64(1.5), np.array(1.5), np.array([1.5, 2.0]),
                                   np.float32(1.5)], ids=["float", "float64", "0d", "1d", "f32"])
def test_type_queries_of_arguments_match_python(value):
    got = st.grad(kinds)(value)
    weight = 1.0 + sum(2.0 ** k for k, b in enumerate(_flags(value)) if b)
    np.testing.assert_allclose(got, 2 * np.asarray(value, dtype=np.float64) * weight,
                               rtol=1e-6)


def test_dtype_queries():
    def f(x):
        ok = (np.issubdtype(x.dtype, np.floating) and np.result_type(x) == np.float64
              and np.isrealobj(x) and not np.iscomplexobj(x)
              and np.can_cast(x.dtype, np.complex128)
              and np.promote_types(x.dtype, np.float32) == np.float64
              and np.dtype(x.dtype).itemsize == 8 and x.dtype.name == "float64"
              and np.iinfo(np.int32).max == 2 ** 31 - 1 and np.size(x) == x.size
              and np.finfo(x.dtype).tiny > 0 and np.finfo(x.dtype).max > 1e300)
        return np.sum(x ** 2) if ok else np.sum(x)

    check(f, X)
    np.testing.assert_allclose(st.grad(f)(X), 2 * X)


def test_query_of_a_float32_array():
    def f(x):
        eps = np.finfo(x.dtype).eps
        return np.sum(x * x) + eps * np.sum(x)

    x = V.astype(np.float32)
    np.testing.assert_allclose(st.grad(f)(x), 2 * x + np.finfo(np.float32).eps, rtol=1e-6)


def test_python_number_vs_numpy_scalar_of_a_full_reduction():
    def f(x):
        y = np.sum(x)  # a NumPy scalar (ir/scalar_kinds): not an ndarray
        return y * (2.0 if isinstance(y, np.ndarray) else 1.0)

    np.testing.assert_allclose(st.grad(f)(V), np.ones_like(V))


def test_python_number_vs_numpy_scalar_is_refused_when_unknown():
    def f(x):
        y = np.float64(x[0])  # lowered as astype: a 0-d array where NumPy gives a scalar
        return x * (2.0 if isinstance(y, np.ndarray) else 1.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(lambda x: np.sum(f(x)))(V)
    assert "Python number, a NumPy scalar or a 0-d array" in info.value.message
    assert info.value.loc.line > 0 and info.value.hint


def test_math_and_float_results_are_python_floats():
    def f(x):
        y = math.exp(x[0])  # a Python float, as math gives it
        z = float(x[1])
        return x * (1.0 if isinstance(y, np.ndarray) or type(z) is not float else 2.0)

    assert np.allclose(st.grad(lambda x: np.sum(f(x)))(V), 2.0)


def test_float_of_an_argument_is_not_the_argument():
    def f(x):
        y = float(x)  # a Python float, never the ndarray x
        return x * (2.0 if isinstance(y, np.ndarray) else 1.0)

    assert st.grad(f)(np.array(1.5)) == pytest.approx(1.0)


def test_queries_agreeing_on_every_candidate_are_answered():
    def f(x):
        y = x * 2.0  # a Python float or a NumPy scalar: both are floats, neither an array
        return y * (2.0 if isinstance(y, float) and not isinstance(y, np.ndarray) else 1.0)

    assert st.grad(f)(1.5) == pytest.approx(4.0)


def test_ndarray_subclass_arguments_are_not_guessed():
    def f(x):
        return np.sum(x) * (2.0 if type(x) is np.ndarray else 1.0)

    m = np.ma.masked_array(V)
    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(m)
    assert "other than numpy.ndarray" in info.value.message


def test_unknown_types_without_examples_are_refused():
    def f(x):
        return np.sum(x) if x is None else np.sum(x * 2.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f).source  # noqa: B018  (compiled without example arguments: no types)
    assert "not known" in info.value.message


# --- refusals that stay -------------------------------------------------------------------


def test_in_runtime_array_is_refused_located():
    def f(x):
        return np.sum(x) if 1.0 in x else np.sum(x * 2.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(V)
    assert "`in` on a runtime value" in info.value.message
    assert info.value.loc.line == f.__code__.co_firstlineno + 1


def test_is_through_asarray_takes_pythons_answer():
    def f(x):
        y = np.asarray(x)  # NumPy returns x itself (test_identity.py has the rest)
        return np.sum(x) if y is x else np.sum(x * 2.0)

    np.testing.assert_allclose(st.grad(f)(V), np.ones(3))


def test_is_a_static_number():
    one = 1.0

    def f(x):
        return np.sum(x) if x is one else np.sum(x * 2.0)

    np.testing.assert_allclose(st.grad(f)(V), np.full(3, 2.0))  # an array is never a float
    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(1.5)  # a float argument may be that very float
    assert "cannot be decided" in info.value.message


def test_is_a_static_string_is_false():
    mode = "mode"

    def f(x):
        return np.sum(x) if x is mode else np.sum(x * 2.0)

    np.testing.assert_allclose(st.grad(f)(V), np.full(3, 2.0))


def test_static_errors_are_located():
    def f(x):
        return np.sum(x) * np.finfo(np.int64).eps

    with pytest.raises(CompileError) as info:
        st.grad(f)(V)
    assert "ValueError" in info.value.message and info.value.loc.line > 0


# --- static-call folding ------------------------------------------------------------------


def test_pure_static_calls_fold():
    table = {"a": 2.0, "b": 3.0}

    def f(x, name="A"):
        key = name.lower()
        scale = table.get(key, 1.0) * table.get("zzz", 1.5)
        order = sorted(set([3, 1, 2])) + list(reversed((4, 5)))
        extra = sum(order) if all([True, 1]) and not any(()) else 0
        label = "{}-{}".format(key, len(order)).upper()  # noqa: UP032 (str.format folds)
        parts = dict(zip(("p", "q"), (1, 2)))
        n = math.prod(order) + operator.add(1, 2) + len(label) + parts["q"]
        flag = key.startswith("a") and repr(key) == "'a'" and str(3) == "3"
        return np.sum(x ** 2) * scale * (extra + n) * flag

    expected = 2 * V * 3.0 * (15 + 120 + 3 + 3 + 2)
    np.testing.assert_allclose(st.grad(f)(V), expected)


def test_dict_get_returns_runtime_values():
    def f(x):
        d = {"w": x * 2.0}
        return np.sum(d.get("w") ** 2) + np.sum(d.get("v", x))

    check(f, V)


def test_random_draws_are_not_folded():
    """``np.random.rand()`` has static (no) arguments but is drawn at run time, once per
    call, as Python draws it: never baked into a constant while compiling."""
    def f(x):
        return np.sum(x) * np.random.rand()

    g = st.grad(f)
    np.random.seed(3)
    first = g(V)
    np.random.seed(3)
    np.testing.assert_allclose(first, np.full(3, np.random.rand()))
    assert not np.allclose(g(V), first)  # the next call draws again


def test_partial_keywords_hidden_by_kwargs_reach_the_function():
    def penalised(w, **options):
        lam = options.get("lam", 0.1)
        return np.sum(w ** 2) * lam

    g = st.grad(functools.partial(penalised, lam=0.7))(V)
    np.testing.assert_allclose(g, 1.4 * V)


# --- call surface -------------------------------------------------------------------------


def test_asanyarray_is_asarray():
    def f(x):
        return np.sum(np.asanyarray(x) ** 2) + np.sum(np.asanyarray([1.0, 2.0]))

    check(f, V)


@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_order(order):
    def f(x):
        return np.sum(np.ravel(x, order=order) * np.arange(8.0)) + np.sum(
            x.ravel(order) ** 2 * np.arange(8.0)) + np.sum(x.flatten(order=order)[:3])

    check(f, X)
    assert np.allclose(f(X), f(X.copy(order="F")))


def test_ravel_k_of_a_vector():
    def f(x):
        return np.sum(np.ravel(x, order="K") * np.arange(3.0))

    check(f, V)


def test_ravel_k_of_a_matrix_follows_the_layout_and_is_refused_where_unknown():
    def f(x):  # (the argument's layout is known: tests/test_layout.py)
        return np.sum(np.ravel(x, order="K") * np.arange(8.0))

    check(f, X)

    def g(x):
        return np.sum(np.ravel(x[:, ::-1], order="K") ** 2)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(g)(X)
    assert "memory order" in info.value.message and "order='C'" in info.value.hint


def test_builtin_max_min_sum_of_arrays_and_tuples():
    def f(x, pair):
        a = max(x) + min(x) + sum(x) + sum(x, 1.0)
        b = max(pair) * min(pair) + sum(pair)
        c = max(x[0], x[1], x[2]) + min((x[0], 2.0 * x[1]))
        return a + b + c

    args = (V, (1.5, 0.25))
    check(f, *args)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    check(lambda m: np.sum(sum(m) ** 2), x)


def test_builtin_max_of_a_matrix_is_refused():
    def f(x):
        return max(x)

    with pytest.raises(UnsupportedSyntaxError):
        st.grad(f)(X)


# --- queries inside loops and on containers -----------------------------------------------


def test_queries_of_an_argument_inside_a_loop():
    def f(x, n):
        s = 0.0
        for i in range(n):
            if isinstance(x, np.ndarray) and x.shape[0] == 3 and x is not None:
                s = s + np.sum(np.sin(x) * i)
        return s

    check(f, V, 3)


def test_queries_of_a_carried_value_in_a_while_loop():
    def g(x):
        s = np.sum(x ** 2)
        while s > 0.5:
            s = s / 2.0
            if np.ndim(s) == 0 and isinstance(s, (float, np.ndarray, np.generic)):
                s = s * 1.0
        return s

    check(g, V)


def test_queries_of_lists_and_tuples():
    def h(x, t):
        xs = [x, 2.0 * x]
        a, b = t
        if isinstance(xs, list) and np.ndim(xs) == 2 and np.result_type(*xs) == np.float64:
            return np.sum(xs[0] * xs[1]) * (a if isinstance(t, tuple) else b)
        return 0.0 * np.sum(x)

    check(h, V, (2.0, 3.0))
    np.testing.assert_allclose(st.grad(h)(V, (2.0, 3.0)), 8.0 * V)


def test_folded_arrays_belong_to_the_function():
    def f(x):
        eye = np.identity(3)  # folded: an array this call made, so it may be written
        eye[0, 0] = x[0]
        eye[1] += x
        gx, gy = np.meshgrid([0.0, 1.0, 2.0], [0.0, 1.0])
        return np.sum(eye * eye) + np.sum(gx[1] * x) + np.sum(gy * x[1])

    check(f, V)
    g = st.grad(f)(V)
    np.testing.assert_allclose(g, [4 * V[0], 2 * (1 + V[1]) + 1.0 + 3.0, 2 * V[2] + 2.0])


def test_builtin_sum_start_and_max_of_three():
    def f(x):
        return sum((x[0], x[1]), start=1.0) * sum([x[2]], 2.0) + max(x[0], x[1], 0.5)

    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(st.value_and_grad(f)(x)[0], f(x))
    check(f, x)


def test_builtin_sum_start_of_a_runtime_list_is_refused():
    def g(x):
        xs = []
        for i in range(3):
            xs.append(x[i])
        return sum(xs, start=1.0)  # (the start was dropped before)

    with pytest.raises(UnsupportedSyntaxError):
        st.grad(g)(V)


def _item_scales(x, y):
    return np.sum(x[0, 0].item() * y + x[1:2, 1:2].item() * 2.0 * y)


def test_item_of_a_one_element_block_is_a_scalar():
    """``x[1:2, 1:2].item()`` broadcasts as a scalar, not as a (1, 1) block that would turn
    ``item * y`` into a matrix (the gradient of y would get the wrong shape)."""
    x, y = np.arange(4.0).reshape(2, 2) + 1, np.arange(3.0) + 1
    gx, gy = st.grad(_item_scales, wrt=(0, 1))(x, y)
    assert gy.shape == (3,)
    np.testing.assert_allclose(gy, np.full(3, 1.0 + 8.0))
    np.testing.assert_allclose(gx, [[6.0, 0.0], [0.0, 12.0]])


def _item_of_two(x):
    return x[0:2].item() * 2.0


def test_item_of_several_elements_is_located():
    with pytest.raises(CompileError, match="one element; this one has shape"):
        st.grad(_item_of_two)(np.ones(3))
