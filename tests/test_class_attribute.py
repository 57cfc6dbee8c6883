"""``x.__class__`` of a runtime value is answered as ``type(x)`` is (sklearn's
``type_of_target`` reads ``y.__class__.__name__``): from the value's type when every
possible runtime type agrees, else a located refusal."""

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
