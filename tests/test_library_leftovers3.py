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


@pytest.mark.parametrize("fn", [_masked_through_slice, _rows_of_static_array,
                                _rows_of_runtime_array, _nested_in_loop])
def test_write_through_a_view(fn):
    _check(fn, _X.copy())


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
