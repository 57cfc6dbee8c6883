"""np.array of nested lists and tuples that hold differentiated values: rows are stacked
(never an object array of graph nodes), checked against float64 central differences."""

from __future__ import annotations

import numpy as np

import st_autodiff as st
from st_autodiff.testing import check_grads


def two_by_two(t):
    m = np.array([[1.0, t[1]], [t[1], 2.0 + t[0]]])
    return np.sum(np.linalg.inv(m))


def rows_of_tuples(t):
    return np.sum(np.array([(t[0], 1.0), (2.0, t[1])]) ** 2)


def three_deep(t):
    return np.sum(np.sin(np.array([[[t[0], t[1]]], [[t[1] * t[0], 0.5]]])))


def test_nested_literals():
    t = np.array([0.3, 0.4])
    for f in (two_by_two, rows_of_tuples, three_deep):
        check_grads(f, (t,), lambda v, f=f: (st.grad(f)(v),))
        assert st.value_and_grad(f)(t)[0] == f(t)
