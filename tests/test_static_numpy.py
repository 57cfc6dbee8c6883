"""Static NumPy values (static_numpy.py): NumPy calls on static arguments run while
compiling and give static arrays, read, written and iterated as Python would; where they
meet runtime values they become constants.  Values and gradients are checked against the
function run by NumPy and central differences."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError
from st_autodiff.testing import check_grads

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.4, -0.6]])


def _check(f, x=X):
    """Value equal to NumPy's, gradient equal to central differences."""
    value, grad = st.value_and_grad(f)(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-12, atol=1e-12)
    check_grads(f, [x], lambda a: [st.grad(f)(a)])
    return grad


# --- the reproductions ----------------------------------------------------------------


def broadcast_rows(x):
    axis = np.atleast_1d(0)
    try:
        a = axis.astype(int)
    except ValueError:
        raise
    m = np.ones((2, 3), dtype=int)
    for row, s in zip(m, [(1, 2), (3,)]):
        row[len(row) - len(s):] = s
    return np.sum(x * m) + np.sum(x[:, 0] * a[0]) + np.sum(x * m[0, 2])


def complex_phases(x):
    p = np.exp(1j * np.pi * np.arange(3) / 4)
    return np.sum(x * np.real(p)) + np.sum(x * np.imag(p) ** 2)


def ndindex_sum(x):
    s = 0.0
    for idx in np.ndindex(x.shape):
        s = s + x[idx] * (idx[0] + 2 * idx[1])
    return s


def ndenumerate_static(x):
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    s = 0.0
    for (i, j), v in np.ndenumerate(w):
        s = s + v * x[i, j] ** 2
    return s


@pytest.mark.parametrize("f", [broadcast_rows, complex_phases, ndindex_sum,
                               ndenumerate_static])
def test_reproductions_value_and_gradient(f):
    _check(f)


def test_rows_written_through_zip_reach_the_array():
    g = st.grad(broadcast_rows)(X)
    m = np.array([[1, 1, 2], [1, 1, 3]])
    expected = m + np.array([[1.0, 0, 0], [1.0, 0, 0]]) * 0 + 2  # a[0] == 0, m[0, 2] == 2
    np.testing.assert_allclose(g, expected)


# --- static arrays in library-style code ----------------------------------------------


def axis_checks(x):
    axis = np.atleast_1d(-1)
    axis_int = axis.astype(int)
    if not np.array_equal(axis_int, axis):
        raise ValueError("axis")
    axis[axis < 0] = x.ndim + axis[axis < 0]
    axis = np.sort(axis)
    if axis[-1] >= x.ndim or axis[0] < 0:
        raise ValueError("out of bounds")
    return np.sum(np.sum(x, axis=int(axis[0])) ** 2)


def shapes_table(x):
    shapes = [x.shape, (3,)]
    n = max(len(s) for s in shapes)
    table = np.ones((len(shapes), n), dtype=int)
    for row, shape in zip(table, shapes):
        row[len(row) - len(shape):] = shape
    out = tuple(int(v) for v in table.max(axis=0))
    return np.sum(np.broadcast_to(x, out) ** 2) * len(table.tolist())


def static_arithmetic(x):
    w = np.linspace(0.0, 1.0, 3)
    w = w * 2 - 1
    w[1] += 0.5
    mask = (w > 0) | (w < -0.5)
    k = np.arange(6).reshape(2, 3)
    k += 1
    return np.sum(x * w * mask) + np.sum(x * k) + float(w.sum())


def static_in_place_view(x):
    m = np.zeros((2, 3))
    v = m[1]
    v += 2.0  # a view: m sees it
    m[0, :] = np.array([1.0, 2.0, 3.0])
    return np.sum(x * m)


def mixed_write(x):
    out = np.zeros(3)
    out[0] = x[0, 0]  # a runtime value: out becomes a runtime array
    out[1:] = x[1, 1:] * 2
    return np.sum(out ** 2)


def static_then_runtime(x):
    w = np.ones(3)
    w[2] = 5.0  # static write
    y = x * w  # the array as it is now
    w[0] = -1.0  # a later write is not seen by y
    return np.sum(y ** 2) + np.sum(x * w)


@pytest.mark.parametrize("f", [axis_checks, shapes_table, static_arithmetic,
                               static_in_place_view, mixed_write, static_then_runtime])
def test_static_arrays(f):
    _check(f)


def test_complex_static_array_may_not_meet_runtime_values():
    def f(x):
        p = np.exp(1j * np.arange(3))
        return np.sum(x * p).real

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "complex" in info.value.message
    assert info.value.loc is not None and info.value.loc.line > 0


def test_complex_literal_with_runtime_value_is_refused_at_the_literal():
    def f(x):
        return np.sum(x * 2j).real

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "the literal 2j is complex" in info.value.message


# --- refusals -------------------------------------------------------------------------


def test_runtime_write_into_a_shared_static_array_is_refused():
    def f(x):
        m = np.zeros((2, 3))
        row = m[0]
        row[0] = x[0, 0]  # m would keep its zero
        return np.sum(m) + np.sum(row)

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "it may be a view of 'm'" in info.value.message
    assert info.value.loc.line > 0


def static_write_in_runtime_branch(x):
    w = np.ones(3)
    if np.sum(x) > 0:
        w[0] = 2.0  # done at run time: w becomes a runtime array
    return np.sum(x * w)


def static_writes_in_range_loop(x):
    m = np.zeros(3)
    k = np.arange(3)
    for i in range(3):
        m[i] = i + 1
        m += k
    return np.sum(x * m)


def runtime_writes_in_range_loop(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[0, i] ** 2
    return np.sum(out)


@pytest.mark.parametrize("f", [static_write_in_runtime_branch, static_writes_in_range_loop,
                               runtime_writes_in_range_loop])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_static_arrays_written_inside_runtime_regions(f, sign):
    _check(f, sign * X)


def test_static_write_inside_a_runtime_branch_into_its_own_array_is_fine():
    def f(x):
        if np.sum(x) > 0:
            w = np.ones(3)
            w[0] = 2.0
        else:
            w = np.zeros(3)
        return np.sum(x * w)

    _check(f)
    _check(f, -X)


def test_random_draws_are_not_folded():
    def f(x):
        rng = np.random.default_rng(0)
        noise = rng.normal(size=3)
        return np.sum(x * noise)

    g1 = st.grad(f)(X)
    np.testing.assert_allclose(g1, np.broadcast_to(np.random.default_rng(0).normal(size=3),
                                                   X.shape))


def test_global_arrays_are_not_static():
    def f(x):
        return np.sum(x * np.sum(GLOBAL_W))

    g = st.grad(f)(X)
    GLOBAL_W[0] = 10.0
    try:
        np.testing.assert_allclose(st.grad(f)(X), np.full(X.shape, GLOBAL_W.sum()))
    finally:
        GLOBAL_W[0] = 1.0
    np.testing.assert_allclose(g, np.full(X.shape, 3.0))


GLOBAL_W = np.ones(3)


def test_errors_of_static_calls_are_located():
    def f(x):
        m = np.ones((2, 3))
        return np.sum(x * m.reshape(4, 2))

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "reshape" in info.value.message or "ValueError" in info.value.message
    assert info.value.loc.line > 0


def out_static(x):
    m = np.ones(3)
    np.add(m, 1.0, out=m)  # out= is never folded: m becomes a runtime array
    return np.sum(x * m)


def out_runtime(x):
    m = np.ones(3)
    np.add(m, x[0], out=m)
    return np.sum(x * m)


@pytest.mark.parametrize("f", [out_static, out_runtime])
def test_out_into_a_static_array(f):
    _check(f)


def test_out_into_a_shared_static_array_rebinds_every_name():
    """Another plain name for the array sees the runtime write (the alias sets rebind it)."""
    def f(x):
        m = np.ones(3)
        k = m
        np.add(m, x[0], out=m)
        return np.sum(x * k)

    _check(f)


def test_runtime_write_into_a_viewed_static_array_is_refused():
    def f(x):
        m = np.ones(3)
        k = m[:2]
        m[1] = x[0, 0]
        return np.sum(x[0, :2] * k)

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "'k' may be a view of it" in info.value.message


def test_unchanged_code_for_static_creation():
    """A static array used only with runtime values gives the code it gave before."""
    def f(x):
        return np.sum(x * np.ones(3)) + np.sum(x * np.arange(3))

    g = st.grad(f)
    g(X)
    assert "xp.ones(3)" in g.source and "xp.arange(0, 3, 1)" in g.source
    _check(f)


def identity_and_layout(x):
    a = np.arange(3.0)
    same = np.asarray(a) is a  # the very array, as in NumPy
    other = np.array(a) is a  # a copy
    layout = a.flags.c_contiguous and a.reshape(3, 1).T.flags.f_contiguous is False
    matches = bool(np.all((0.0, 1.0, 2.0) == a))
    scale = 1.0 * same + 2.0 * other + 4.0 * layout + 8.0 * matches
    return np.sum(x * scale)


def test_identity_layout_and_tuple_comparisons_follow_numpy():
    g = _check(identity_and_layout)
    a = np.arange(3.0)
    layout = a.flags.c_contiguous and a.reshape(3, 1).T.flags.f_contiguous is False
    expected = 1.0 + 4.0 * layout + 8.0
    np.testing.assert_allclose(g, np.full(X.shape, expected))


def static_array_through_python_helper(x):
    def fill(buf, v):
        buf[0] = v  # a write into the caller's static array

    w = np.ones(3)
    fill(w, 4.0)
    return np.sum(x * w)


@pytest.mark.parametrize("f", [static_array_through_python_helper])
def test_static_arrays_passed_to_python_functions(f):
    _check(f)


def test_runtime_write_into_a_callers_static_array_is_refused():
    """As for runtime arrays: the caller's name would keep the old values."""
    def fill(buf, v):
        buf[0] = v
        return buf

    def f(x):
        w = np.ones(3)
        w = fill(w, x[0, 0])
        return np.sum(x * w)

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "'w' refers to the same array" in info.value.message
    assert info.value.loc.line > 0


def test_returned_static_array_is_fresh_on_every_call():
    def f(x):
        w = np.ones(3)
        w[0] = 5.0
        return np.sum(x * w), w

    g = st.grad(f, has_aux=True)
    grad, aux = g(X)
    aux[0] = 100.0  # the caller's array: never the compiled function's constant
    grad2, aux2 = g(X)
    np.testing.assert_allclose(aux2, [5.0, 1.0, 1.0])
    np.testing.assert_allclose(grad2, np.broadcast_to([5.0, 1.0, 1.0], X.shape))


def python_protocols(x):
    a = np.array([1, 2, 3])
    msg = f"axis {a} and {a!r}"
    name = "sum"
    total = getattr(a, name)()
    inside = (2 in a) + (7 in a)
    return np.sum(x) * (len(msg) + total + inside + (a is not None))


def test_formatting_membership_and_getattr_follow_python():
    a = np.array([1, 2, 3])
    expected = len(f"axis {a} and {a!r}") + 6 + 1 + 1
    np.testing.assert_allclose(_check(python_protocols), np.full(X.shape, expected))


def test_static_message_of_a_raise_formats_the_array():
    def f(x):
        axis = np.atleast_1d(5)
        if axis[0] >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds")
        return np.sum(x)

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert "axis [5] is out of bounds" in info.value.message


def scipy_axis_validation(x):
    axis = np.atleast_1d(1)
    message = "`axis` must be an integer"
    try:
        with np.errstate(invalid="ignore"):
            axis_int = axis.astype(int)
    except ValueError as e:
        raise TypeError(message) from e
    if not np.array_equal(axis_int, axis):
        raise TypeError(message)
    with np.errstate(divide="ignore"):
        y = np.log(x ** 2)
    return np.sum(np.sum(y, axis=int(axis_int[0])) ** 2)


def test_static_try_around_errstate_of_static_arrays():
    _check(scipy_axis_validation)


def test_errstate_with_a_bad_mode_keeps_the_handler_refused():
    def f(x):
        axis = np.atleast_1d(0)
        try:
            with np.errstate(invalid="bogus"):
                a = axis.astype(int)
        except ValueError:
            a = axis
        return np.sum(x) * a[0]

    with pytest.raises(CompileError) as info:
        st.grad(f)(X)
    assert info.value.loc is not None and info.value.loc.line > 0


def test_large_static_arrays_stay_graph_nodes():
    def f(x):
        big = np.arange(3_000_000, dtype=float)
        return np.sum(x * big[:3]) + np.sum(x) * float(big.sum() > 0)

    g = st.grad(f)
    grad = g(X)
    np.testing.assert_allclose(grad, np.broadcast_to([1.0, 2.0, 3.0], X.shape))
    assert "arange" in g.source  # made when the code runs, not baked in


def fill_runtime(x):
    out = np.zeros(3)
    out.fill(x[0, 1])
    return np.sum(out * x[1])


def sort_in_loop(x):
    w = np.array([3.0, 1.0, 2.0])
    for _ in range(2):
        w.sort()
        w = w * 2
    return np.sum(x * w)


def fill_static(x):
    w = np.zeros(3)
    w.fill(2.5)
    return np.sum(x * w)


@pytest.mark.parametrize("f", [fill_runtime, sort_in_loop, fill_static])
def test_in_place_methods_of_static_arrays(f):
    _check(f)


_TABLE = np.array([2.0, -3.0, 5.0])


def test_array_constant_read_at_a_runtime_index():
    """A static (or global) array indexed by a value known only at run time is a constant
    node read at that index (it was refused as "indexing a constant")."""
    def f(x):
        i = np.argmax(x[0])
        table = np.array([1.0, 4.0, 9.0])
        return np.sum(x) * _TABLE[i] + table[i] * x[1, 0]

    _check(f)
    y = X.copy()
    y[0] = [5.0, 0.0, 0.0]  # another index at run time, same compiled code
    _check(f, y)
