"""Type queries of runtime values answered while compiling: ``x.__class__`` as ``type(x)``
(sklearn's ``type_of_target`` reads ``y.__class__.__name__``), and the kind (Python number,
NumPy scalar, 0-d array) of a logical op with a Python bool beside a NumPy one
(``scipy.stats.skew(bias=False)``: ``~zero & (n > 2)``). Where the possible runtime types
disagree, a located refusal."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

_X = np.random.default_rng(3).normal(size=5)


def _by_class_name(x: np.ndarray) -> Any:
    if x.__class__.__name__ in ["SparseSeries", "SparseArray"]:
        return x.sum()
    return (x * x).sum() if x.__class__ is np.ndarray else x.sum() * 3


def _by_scalar_class(x: np.ndarray) -> Any:
    y = x.sum()  # a NumPy scalar, never a 0-d array
    return y * y if y.__class__ is np.float64 else y


@pytest.mark.parametrize("f", [_by_class_name, _by_scalar_class])
def test_class_attribute_like_type(f: Any) -> None:
    vg = st.value_and_grad(f)
    np.testing.assert_allclose(vg(_X)[0], f(_X), rtol=1e-12)
    check_grads(f, (_X,), lambda a: (vg(a)[1],))


def test_class_attribute_of_an_ambiguous_value_is_refused() -> None:
    def f(x: np.ndarray, flag: bool) -> Any:
        y = x.sum() if flag else np.asarray(x.sum())  # a scalar or a 0-d array
        return y * 2 if y.__class__ is np.ndarray else y

    with pytest.raises(st.StAutodiffError, match=r"depends on whether a runtime value"):
        st.grad(f)(_X, np.array(True))  # a runtime flag: either branch may run


def _logical_with_python_bool(x: np.ndarray) -> Any:
    near = np.mean(x) <= 1.0  # a NumPy bool
    c = ~near & True  # NumPy's &, not Python's: a NumPy bool
    return (x * x).sum() if isinstance(c, np.bool_) else x.sum()


def _logical_of_python_bools(x: np.ndarray, n: int) -> Any:
    c = (n > 2) & True  # Python's &: a Python bool
    return (x * x).sum() if type(c) is bool else x.sum()


@pytest.mark.parametrize("f, args", [(_logical_with_python_bool, (_X,)),
                                     (_logical_of_python_bools, (_X, 3))])
def test_logical_op_kinds(f: Any, args: tuple[Any, ...]) -> None:
    vg = st.value_and_grad(f)
    np.testing.assert_allclose(vg(*args)[0], f(*args), rtol=1e-12)
    np.testing.assert_allclose(vg(*args)[1], 2 * _X, rtol=1e-12)


def _class_of_static_array(x: np.ndarray) -> Any:
    labels = np.array([1, -1, 1])  # made while compiling
    same = labels.__class__ is np.ndarray and labels.__class__.__name__ == "ndarray"
    return (x * x).sum() if same else x.sum()


def _membership_error_caught(x: np.ndarray) -> Any:
    meta = np.array([1, 2]).dtype.metadata  # None
    try:
        if "unique" in meta:  # TypeError: argument of type 'NoneType' is not iterable
            return x.sum()
    except (AttributeError, TypeError):
        pass
    return (x * x).sum()


@pytest.mark.parametrize("f", [_class_of_static_array, _membership_error_caught])
def test_static_answers_as_python_gives_them(f: Any) -> None:
    """sklearn's ``_attach_unique``: ``y.__class__`` of an array made while compiling, and
    the ``TypeError`` of ``"unique" in None`` caught by the ``try`` around it."""
    vg = st.value_and_grad(f)
    np.testing.assert_allclose(vg(_X)[0], f(_X), rtol=1e-12)
    np.testing.assert_allclose(vg(_X)[1], 2 * _X, rtol=1e-12)


def test_uncaught_membership_error_is_pythons_at_the_users_line() -> None:
    def f(x: np.ndarray) -> Any:
        return x.sum() if "a" in None else x.sum()  # type: ignore[operator]

    with pytest.raises(st.StAutodiffError, match=r"TypeError: argument of type 'NoneType'"):
        st.grad(f)(_X)
