"""Library idioms of the real-world corpus that used to be refused (issue 14):
writes through ``obj.__dict__`` of an object built inside the function (``poly1d``,
statsmodels' model data), ... .  Each is checked for its value and its gradient
against float64 central differences; unsupported neighbours stay located refusals."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError
from st_autodiff.testing import check_grads


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
