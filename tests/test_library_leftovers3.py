"""Library idioms of the real-world corpus that used to be refused (issue 14, part 3):
writes through a view (``dk[1:-1][mask] = v`` in SciPy's ``pchip``), ...
Each is checked for its value and its gradient against float64 central differences;
unsupported neighbours stay located refusals."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads


def _check(f, *args):
    """The compiled value equals Python's; the gradient matches central differences."""
    np.testing.assert_allclose(st.value_and_grad(f)(*args)[0], f(*args), rtol=1e-12)
    check_grads(f, args, lambda *a: [st.grad(f)(*a)], rtol=1e-6, atol=1e-8)


_X = np.array([0.3, 0.9, 0.2, 0.7, 1.1])


# --- writes through a view: a[i][j] = v ------------------------------------------------


def _masked_through_slice(x):
    d = np.zeros_like(x)
    m = x[1:-1] > 0.5
    d[1:-1][m] = 0.0
    d[1:-1][~m] = 1.0 / x[1:-1][~m]
    d[0] = x[0] * 2
    return np.sum(d * x)


def _rows_of_static_array(x):
    a = np.zeros((3, 4))
    a[1][2] = x[0]
    a[2][1:3] += x[1:3]
    a[0][:][1] = x[3] ** 2
    return np.sum(a * a) + a[1, 2]


def _rows_of_runtime_array(x):
    a = np.outer(x, x)
    a[1][::2] *= x[::2]
    a[2:][0][1] = np.sin(x[0])  # a[2:][0] is row 2
    b = a  # another name for the same array sees the write
    b[0][0] -= 1.0
    return np.sum(a ** 2) + np.sum(b)


def _nested_in_loop(x):
    a = np.zeros((len(x), 2))
    for i in range(len(x)):
        a[i][1] = x[i] * i
        a[i][0] += a[i - 1][1]
    return np.sum(a ** 2)


def _nested_in_runtime_if(x):
    a = np.outer(x, x[:2])
    if np.sum(x) > 1.0:
        a[1:][0][1] = x[0] ** 3
    else:
        a[0][:] -= x[1]
    return np.sum(a ** 2)


@pytest.mark.parametrize("fn", [_masked_through_slice, _rows_of_static_array,
                                _rows_of_runtime_array, _nested_in_loop,
                                _nested_in_runtime_if])
def test_write_through_a_view(fn):
    _check(fn, _X.copy())
    _check(fn, _X * 0.1)


def test_pchip_interpolate():
    interpolate = pytest.importorskip("scipy.interpolate")

    def f(y):
        return np.sum(interpolate.pchip_interpolate(
            np.array([0.0, 0.5, 1.0, 2.0]), y, np.array([0.1, 0.7, 1.5])))

    _check(f, np.array([0.1, 0.6, 0.3, 0.9]))
    _check(f, np.array([0.1, 0.6, 0.8, 0.9]))  # monotone: the other branch of the mask


def _into_a_copy(x):
    a = x * 1.0
    a[[0, 1]][0] = 5.0  # <- copy
    return np.sum(a)


def _into_a_mask_copy(x):
    a = x * 1.0
    a[a > 0.5][0] = 5.0  # <- mask
    return np.sum(a)


def _into_an_element(x):
    a = x * 1.0
    a[0][()] = 5.0  # <- element
    return np.sum(a)


def _through_a_view_of_argument(x):
    x[1:][0] = 5.0  # <- argument
    return np.sum(x)


@pytest.mark.parametrize("fn, marker, message", [
    (_into_a_copy, "copy", "writes into a copy"),
    (_into_a_mask_copy, "mask", "writes into a copy"),
    (_into_an_element, "element", "writes into a copy"),
    (_through_a_view_of_argument, "argument", "it is an argument"),
])
def test_write_through_a_copy_is_refused_with_a_location(fn, marker, message):
    lines = inspect.getsource(inspect.getmodule(fn)).splitlines()
    line = next(k for k, t in enumerate(lines, 1) if t.rstrip().endswith(f"# <- {marker}"))
    with pytest.raises(StAutodiffError) as info:
        st.grad(fn)(_X.copy())
    assert message in info.value.message
    assert info.value.loc.line == line


# --- the Python type of arrays whose shape depends on the data --------------------------


def _type_of_masked(x):
    y = x[x > 0.5]
    if type(y) is np.ndarray and isinstance(np.abs(y) * 2.0, np.ndarray):
        return np.sum(y ** 2)
    return np.sum(x)


def _type_after_runtime_if(x):
    if np.all(x > 0.25):  # argsreduce: the whole array or np.extract of it
        y = x
    else:
        y = np.extract(x > 0.25, x)
    z = np.where(y > 0.5, y, 0.0)
    if type(z) is np.ndarray and type(x[np.nonzero(x > 0.5)]) is np.ndarray:
        return np.sum(z * y)
    return np.sum(x)


def _type_of_element_by_0d_index(x):
    v = x[np.asarray(1)]  # a 0-d integer array index is an integer: a NumPy scalar
    if type(v) is np.float64:
        return v * 3.0
    return v * 2.0


@pytest.mark.parametrize("fn", [_type_of_masked, _type_after_runtime_if,
                                _type_of_element_by_0d_index])
def test_type_of_data_dependent_arrays(fn):
    _check(fn, _X.copy())
    _check(fn, _X * 2.0)  # no element below the thresholds: the other branch



def _mean_by_size(x):
    y = x[x > 0.5]
    return np.sum(y ** 2) / max(y.size, 1) + y.ndim * np.sum(y)


def _sizes_by_function(x):
    y = np.extract(x > 0.5, x * 3.0)
    return np.sum(y) / np.size(y) * np.ndim(y) + y.nbytes * np.mean(x)


@pytest.mark.parametrize("fn", [_mean_by_size, _sizes_by_function])
def test_sizes_of_data_dependent_arrays(fn):
    """``y.size``, ``y.ndim``, ``y.nbytes``, ``np.size(y)``, ``np.ndim(y)`` of a masked
    array are read from its shape when the function runs (they were refused, though the
    function had been called with arguments)."""
    _check(fn, _X.copy())
    _check(fn, _X * 0.4 + np.array([0.0, 0.0, 0.0, 0.0, 0.4]))  # one element left
    src = st.grad(fn).compile(_X.copy()).source
    assert ".shape" in src


def test_type_of_a_python_number_is_not_taken_for_an_array():
    """``float(v)`` is lowered as ``v``: its kind stays unknown (refused, located) or is
    answered as Python does, never as ndarray."""
    def f(x):
        y = x[x > 0.5]
        s = float(y[0])
        return s * 2.0 if type(s) is float else s * 3.0

    try:
        got = st.value_and_grad(f)(_X.copy())[0]
    except StAutodiffError as exc:
        assert exc.loc is not None
    else:
        assert got == f(_X.copy())


# --- *-arguments from a generator expression (array_api_extra's apply_where) ----------


def _star_generator(x):
    m = x > 0.5
    args = (x, x * 2.0)

    def f1(a, b):
        return a * b + np.sin(a)

    return np.sum(f1(*(arr[m] for arr in args))) + max(*(v for v in (x[0], x[1])))


def test_star_of_a_generator_expression():
    _check(_star_generator, _X.copy())


# --- a runtime value compared with a str: answered from its type, as NumPy 2 does -------


def _compare_with_text(x):
    bc = (2, x[:2] * 0.0)
    out = np.sum(x ** 2)
    if bc == "periodic" or np.any(bc[1] == "natural") or not bc != "x":  # tuple, array
        out = out * 0.0
    masked = x[x > 0.5]
    ne = masked != "x"  # all True, in masked's (runtime) shape
    eq = x == "x"  # all False, in x's shape
    s = np.sum(x)
    flag = (s == "total", "a" == x[1])
    if any(flag) or eq.any():
        out = out * 0.0
    return out + np.sum(np.where(ne, masked, 0.0)) + np.sum(np.where(eq, 1.0, x))


def test_runtime_values_compared_with_a_string():
    _check(_compare_with_text, _X.copy())
    f = _compare_with_text
    # the kinds NumPy gives: an elementwise array, NumPy bools for NumPy scalars
    assert st.value_and_grad(lambda x: float(np.sum(x == "x")) + np.sum(x))(_X)[0] \
        == np.sum(_X)
    assert f(_X) == st.value_and_grad(f)(_X)[0]


def test_cubic_spline_natural():
    interpolate = pytest.importorskip("scipy.interpolate")

    def f(y):
        s = interpolate.CubicSpline(np.array([0.0, 0.5, 1.0, 2.0, 2.5]), y, bc_type="natural")
        return np.sum(s(np.array([0.1, 0.7, 1.5, 2.4])))

    _check(f, np.array([0.1, 0.6, 0.3, 0.9, 0.2]))


def test_type_of_a_comparison_with_a_string():
    def f(x):
        e = x[0] == "a"  # a NumPy bool
        g = x[x > 0.5] == "a"  # an array
        return np.sum(x) * (2.0 if type(e) is np.bool_ and type(g) is np.ndarray else 3.0)

    _check(f, _X.copy())


def _compare_number_of_unknown_kind(x):
    v = float(x[0])  # lowered as x[0]: a Python float or a NumPy scalar, not known
    w = x[1] * 1.0
    return np.sum(x) * (2.0 if v != "first" else 1.0) + (0.0 if v == "first" else w)


def test_comparison_with_a_string_of_a_number_of_unknown_kind():
    """Either kind of bool is False: the answer's truth is known (its kind is not read)."""
    _check(_compare_number_of_unknown_kind, _X.copy())


def _type_after_if_with_a_number(x):
    if np.sum(x) > 100.0:
        y = x[x > 0.5]
    else:
        y = 0.0
    return np.sum(x) * (2.0 if type(y) is np.ndarray else 3.0)  # <- mixed


def _type_after_ifexp_with_a_number(x):
    y = x[x > 0.5] if np.sum(x) > 100.0 else 0.0
    return np.sum(x) * (2.0 if type(y) is np.ndarray else 3.0)  # <- mixed-exp


@pytest.mark.parametrize("fn, marker", [(_type_after_if_with_a_number, "mixed"),
                                        (_type_after_ifexp_with_a_number, "mixed-exp")])
def test_type_after_a_branch_that_may_give_a_number_stays_refused(fn, marker):
    lines = inspect.getsource(inspect.getmodule(fn)).splitlines()
    line = next(k for k, t in enumerate(lines, 1) if t.rstrip().endswith(f"# <- {marker}"))
    with pytest.raises(StAutodiffError) as info:
        st.grad(fn)(_X.copy())
    assert info.value.loc.line == line


def _writeable_of_fresh_arrays(x):
    y = x[x > 0.5]
    z = np.zeros_like(y)  # a new ndarray whatever its (runtime) shape
    w = np.full_like(y, 2.0)
    if z.flags.writeable and w.flags.aligned and np.ones_like(x[0]).flags.writeable:
        return np.sum(y * w) + np.sum(z)
    return np.sum(x)


def test_writeable_of_fresh_arrays_of_runtime_shape():
    _check(_writeable_of_fresh_arrays, _X.copy())


def _writeable_of_astype(x):
    y = x[x > 0.5].sum().astype(np.float64)  # a NumPy scalar: not writeable
    return np.sum(x) * (2.0 if y.flags.writeable else 3.0)  # <- astype


def test_writeable_of_astype_is_not_guessed():
    """``astype`` of a NumPy scalar is a NumPy scalar (not writeable): answered as NumPy
    does or refused with a location, never guessed as a fresh array."""
    try:
        got = st.value_and_grad(_writeable_of_astype)(_X.copy())[0]
    except StAutodiffError as exc:
        assert exc.loc is not None
    else:
        assert got == _writeable_of_astype(_X.copy())
