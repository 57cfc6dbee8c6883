"""Library idioms of the real-world corpus that used to be refused or mis-answered
(issue 14): writes through ``obj.__dict__`` of an object built inside the function
(``poly1d``, statsmodels' model data), element writes into 0-d arrays (SciPy's ``clip``),
a ufunc given a list built at run time (``multigammaln``), ``x.__array__()``, the kind
(``type()``) of 0-d values made by constructors and full indexing, Python tuples of
runtime values where NumPy takes an array (``np.transpose(np.nonzero(x))`` had the wrong
rank), loops over a static range carrying an object, and operators on built objects.
Each is checked for its value and its gradient against float64 central differences;
unsupported neighbours stay located refusals."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads

_special = pytest.importorskip("scipy.special")


def _check(f, *args):
    """The compiled value equals Python's; the gradient matches central differences."""
    np.testing.assert_allclose(st.value_and_grad(f)(*args)[0], f(*args), rtol=1e-12)
    check_grads(f, args, lambda *a: [st.grad(f)(*a)], rtol=1e-6, atol=1e-8)


# --- obj.__dict__ of an object built inside the function -------------------------------


class _ViaDict:
    def __init__(self, c, **kw):
        self.__dict__["coeffs"] = c * 2.0
        self.__dict__.update(kw)

    def val(self, t):
        return np.sum(self.coeffs * t) + self.extra


def _instance_dict_writes(x):
    p = _ViaDict(x, extra=np.sum(x ** 2))
    return p.val(3.0) + p.__dict__["coeffs"][0] + p.__dict__.get("missing", 1.0)


def test_instance_dict_writes_are_attribute_writes():
    _check(_instance_dict_writes, np.array([1.0, 2.0, 3.0]))


class _SetDefault:
    def __init__(self, c):
        self.__dict__.setdefault("c", c)
        self.__dict__.setdefault("c", 0.0)  # already there: kept


def _instance_dict_setdefault(x):
    return np.sum(_SetDefault(x).c * x)


def test_instance_dict_setdefault():
    _check(_instance_dict_setdefault, np.array([1.0, -2.0]))


class _BranchWrite:
    def __init__(self, c):
        if np.sum(c) > 0:
            self.__dict__["c"] = c
        else:
            self.__dict__["c"] = -c


def _instance_dict_in_branch(x):
    return np.sum(_BranchWrite(x).c)


def test_instance_dict_write_in_runtime_branch_is_located():
    with pytest.raises(StAutodiffError) as info:
        st.grad(_instance_dict_in_branch)(np.array([1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


_OUTSIDE = _ViaDict(np.ones(2), extra=0.0)


def _outside_instance_dict(x):
    _OUTSIDE.__dict__["coeffs"] = x
    return np.sum(x)


def test_instance_dict_of_outside_object_stays_refused():
    with pytest.raises(StAutodiffError, match="lives outside the function") as info:
        st.grad(_outside_instance_dict)(np.array([1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


# --- element writes into 0-d arrays ----------------------------------------------------


def _write_empty_0d(x):
    out = np.empty(())
    out[()] = np.sum(x ** 2)
    return out * 3.0


def _write_zeros_0d_ellipsis(x):
    out = np.zeros(())
    out[...] = np.sum(np.sin(x))
    return out + 1.0


def _write_asarray_0d_masks(x):
    r = np.asarray(np.sum(x * x))
    r[r > 100.0] = np.nan  # a 0-d boolean mask that is False
    r[r < 1e9] = r * 2.0  # and one that is True
    r[()] += np.sum(x)
    return r


@pytest.mark.parametrize("f", [_write_empty_0d, _write_zeros_0d_ellipsis,
                               _write_asarray_0d_masks])
def test_writes_into_0d_arrays(f):
    x = np.array([1.0, -2.0, 3.0])
    _check(f, x)
    assert type(st.value_and_grad(f)(x)[0]) is type(f(x))


def _write_numpy_scalar(x):
    s = np.sum(x)  # a NumPy scalar: NumPy raises TypeError on s[()] = 1.0
    s[()] = 1.0
    return s


def test_write_into_numpy_scalar_is_located():
    with pytest.raises(StAutodiffError, match="0-d value") as info:
        st.grad(_write_numpy_scalar)(np.array([1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


# --- a list built at run time passed to a ufunc (NumPy converts it: np.asarray) --------


def _ufunc_of_runtime_scalars(x):
    n = np.asarray(3)[()]  # a runtime length: the comprehension builds a runtime list
    s = np.sum(x)
    return np.sum(np.exp([s * j for j in range(n)]))


def _ufunc_of_runtime_arrays(x):
    n = np.asarray(3)[()]
    return np.sum(np.sin([x * j for j in range(n)]))


def _special_ufunc_of_runtime_list(x):
    a = np.sum(x ** 2) + 3.0
    n = np.asarray(2)[()]
    return np.sum(_special.gammaln([a - (j - 1.0) / 2 for j in range(1, n + 1)]))


def _binary_ufunc_of_runtime_list(x):
    n = np.asarray(2)[()]
    return np.sum(np.multiply([x[0] * j for j in range(n)], x[1]))


@pytest.mark.parametrize("f", [_ufunc_of_runtime_scalars, _ufunc_of_runtime_arrays,
                               _special_ufunc_of_runtime_list,
                               _binary_ufunc_of_runtime_list])
def test_ufunc_of_runtime_list(f):
    _check(f, np.array([0.5, -1.5]))


def _sorted_runtime_list(x):
    n = np.asarray(2)[()]
    return np.sum(sorted([x[0] * j for j in range(n)]))


def test_other_calls_of_runtime_lists_stay_located():
    with pytest.raises(StAutodiffError) as info:
        st.grad(_sorted_runtime_list)(np.array([0.5, 1.5]))
    assert "test_library_leftovers2.py" in str(info.value)


# --- x.__array__() (statsmodels' data handling): np.asarray(x) -------------------------


_CONST = np.array([1.0, 2.0, 4.0])


def _dunder_array(x):
    a = x.__array__()
    b = _CONST.__array__()
    c = np.sum(x).__array__()  # a NumPy scalar: a 0-d array
    return np.sum(a * b) + c * 2.0 + np.sum(x.__array__(np.float64) ** 2)


def test_dunder_array_is_asarray():
    x = np.array([0.5, -1.0, 2.0])
    _check(_dunder_array, x)


def _dunder_array_copy(x):
    return np.sum(x.__array__(copy=True))


def test_dunder_array_copy_is_located():
    with pytest.raises(StAutodiffError, match="copy") as info:
        st.grad(_dunder_array_copy)(np.array([1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


# --- the kind of 0-d values that the constructors and indexing make -----------------------


def _kind_factor(v):
    return 2.0 if type(v) is np.ndarray else 3.0 if isinstance(v, np.generic) else 5.0


def _kind_of_empty_and_item(x):
    out = np.empty(())
    out[()] = np.sum(x ** 2)
    item = out[()]  # a NumPy scalar
    fresh = np.asarray(np.sum(x), copy=True)  # an ndarray, even of a NumPy scalar
    return out * _kind_factor(out) + item * _kind_factor(item) + fresh * _kind_factor(fresh)


def test_kind_of_0d_constructors_and_full_indexing():
    x = np.array([0.5, -1.0, 2.0])
    _check(_kind_of_empty_and_item, x)


def _kind_of_scalar_copy(x):
    c = np.sum(x).copy()  # NumPy's scalar copy is a NumPy scalar; st does not track it
    return c * _kind_factor(c)


def test_kind_of_untracked_copy_stays_located():
    with pytest.raises(StAutodiffError) as info:
        st.grad(_kind_of_scalar_copy)(np.array([1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


# --- a Python tuple of runtime values where NumPy takes an array -------------------------


def _tuple_to_ufunc(x):
    return np.sum(np.sin((x, x * 2.0)) * np.arange(3.0))


def _tuple_to_transpose(x):
    return np.sum(np.transpose((x, x * 2.0))[:, 1] * np.arange(3.0))


def _tuple_to_reshape(x):
    return np.sum(np.reshape((x, x * 2.0), (-1,)) * np.arange(6.0))


def _tuple_to_asarray(x):
    return np.sum(np.asarray(((x[0], x[1]), (x[2], 1.0))) * np.array([[1.0, 2.0], [3.0, 4.0]]))


def _tuple_to_mean(x):
    return np.sum(np.mean((x, x ** 2), axis=0) * np.arange(3.0))


@pytest.mark.parametrize("f", [_tuple_to_ufunc, _tuple_to_transpose, _tuple_to_reshape,
                               _tuple_to_asarray, _tuple_to_mean])
def test_tuple_of_runtime_values_is_an_array(f):
    _check(f, np.array([1.5, -0.5, 2.0]))


def _transpose_nonzero_rank(x):
    return np.sum(x) + np.transpose(np.nonzero(x)).ndim  # np.argwhere: rank 2


def test_transpose_of_nonzero_is_never_rank_one():
    # it used to answer 1 (the tuple read as its one item); the rank of a stack of a
    # data-dependent number of rows is refused rather than guessed
    x = np.array([1.5, 0.0, 2.0])
    try:
        value = st.value_and_grad(_transpose_nonzero_rank)(x)[0]
    except StAutodiffError as exc:
        assert "test_library_leftovers2.py" in str(exc)
    else:
        assert value == _transpose_nonzero_rank(x)


# --- loops over a static range that carry an object built inside -----------------------


class _Acc:
    def __init__(self, v):
        self.v = v

    def plus(self, other):
        return _Acc(self.v + other.v)

    def times(self, k):
        return _Acc(self.v * k)


def _loop_carries_object(x):
    acc = _Acc(0.0)
    for j in range(3):
        term = _Acc(x[j])
        for k in range(3):
            if k == j:
                continue
            term = term.times(x[k] + 2.0)
        acc = acc.plus(term)
    return np.sum(acc.v)


def test_static_loop_carrying_object_unrolls():
    _check(_loop_carries_object, np.array([0.5, -1.0, 2.0]))


def _runtime_loop_carries_object(x):
    acc = _Acc(0.0)
    n = int(np.argmax(x)) + 1  # a trip count known only at run time
    for j in range(n):
        acc = acc.plus(_Acc(x[j]))
    return np.sum(acc.v)


def test_runtime_loop_carrying_object_is_located():
    with pytest.raises(StAutodiffError) as info:
        st.grad(_runtime_loop_carries_object)(np.array([0.5, -1.0, 2.0]))
    assert "test_library_leftovers2.py" in str(info.value)


def _static_numpy_trip_count(x):
    acc = _Acc(0.0)
    n = np.asarray(3)[()]  # NumPy on static values: known while compiling (static_numpy)
    for j in range(n):
        acc = acc.plus(_Acc(x[j]))
    return np.sum(acc.v)


def test_loop_with_a_static_numpy_trip_count_unrolls():
    _check(_static_numpy_trip_count, np.array([0.5, -1.0, 2.0]))


# --- operators on objects built inside the function --------------------------------------


class _Poly:
    def __init__(self, c):
        self.c = c

    def __add__(self, other):
        if not isinstance(other, _Poly):
            return NotImplemented
        return _Poly(self.c + other.c)

    def __radd__(self, other):
        return _Poly(self.c + other)

    def __mul__(self, k):
        return _Poly(self.c * k)

    __rmul__ = __mul__


def _object_operators(x):
    p = _Poly(x)
    q = _Poly(x ** 2)
    r = p + q  # __add__
    r = 2.0 * r  # float on the left: __rmul__
    r = 1.5 + r  # __add__ of float missing: __radd__
    r = r * x[0]  # a runtime number on the right: __mul__
    for j in range(2):
        r = r + _Poly(x * j)
    return np.sum(r.c)


def test_operators_on_built_objects():
    _check(_object_operators, np.array([0.5, -1.0, 2.0]))


def _array_left_of_object(x):
    return np.sum((x * _Poly(x)).c)


def _no_operator(x):
    return np.sum((_Poly(x) - _Poly(x)).c)


@pytest.mark.parametrize("f", [_array_left_of_object, _no_operator])
def test_unsupported_object_operators_are_located(f):
    with pytest.raises(StAutodiffError) as info:
        st.grad(f)(np.array([0.5, -1.0]))
    assert "test_library_leftovers2.py" in str(info.value)


def _object_aug_assign(x):
    p = _Poly(x)
    p += _Poly(x * 3.0)  # no __iadd__: p = p + ...
    p *= 2.0
    return np.sum(p.c)


class _InPlacePoly(_Poly):
    def __iadd__(self, other):
        self.c = self.c + other.c
        return self


def _object_iadd(x):
    p = _InPlacePoly(x)
    p += _Poly(x)
    return np.sum(p.c)


def test_object_augmented_assignment():
    _check(_object_aug_assign, np.array([0.5, -1.0]))
    with pytest.raises(StAutodiffError, match="__iadd__") as info:
        st.grad(_object_iadd)(np.array([0.5, -1.0]))
    assert "test_library_leftovers2.py" in str(info.value)


def _kind_of_asarray_with_dtype(x):
    s = np.sum(x)  # a NumPy scalar
    a = np.asarray(s, dtype=np.float64)  # an ndarray (it was answered as a NumPy scalar)
    b = np.array(s, dtype=np.float32)
    return a * _kind_factor(a) + b * _kind_factor(b) * 10.0


def test_kind_of_asarray_with_dtype_of_numpy_scalar():
    x = np.array([1.0, 2.0])
    got = st.value_and_grad(_kind_of_asarray_with_dtype)(x)[0]
    np.testing.assert_allclose(got, _kind_of_asarray_with_dtype(x), rtol=1e-6)


def _kind_after_in_place_add(x):
    a = np.asarray(np.sum(x), dtype=np.float64)
    a += 1.0  # a 0-d array stays one in NumPy; the compiled x + 1.0 is not: not guessed
    return a * _kind_factor(a)


def test_kind_after_in_place_update_of_marked_array():
    x = np.array([1.0, 2.0])
    try:
        got = st.value_and_grad(_kind_after_in_place_add)(x)[0]
    except StAutodiffError as exc:
        assert "test_library_leftovers2.py" in str(exc)
    else:
        assert got == _kind_after_in_place_add(x)
