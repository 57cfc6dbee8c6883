"""More static NumPy values (static_numpy.py and its neighbours): cases library code reached
after the first version.  Values are checked against the function run by NumPy/SciPy and
gradients against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _check(f, *args):
    """Value equal to the function's own, gradient equal to central differences."""
    argnums = tuple(range(len(args)))
    value, _ = st.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_grads(f, list(args), lambda *a: list(st.grad(f, argnums=argnums)(*a)))


# --- np.array(n, dtype=...) of a runtime Python int -----------------------------------


stats = pytest.importorskip("scipy.stats")


def multivariate_normal_logpdf(x, mean):
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    return stats.multivariate_normal.logpdf(x, mean=mean, cov=cov)


def test_multivariate_normal_rank_cast():
    """SciPy's ``np.array(self._rank, dtype=int)[()]``: the rank is a runtime Python int
    (``len`` of eigenvalues above a cutoff), which has no ``.astype``: it is made an array
    first, as ``np.array`` does."""
    _check(multivariate_normal_logpdf, np.array([0.3, -0.2]), np.array([0.1, 0.4]))


# --- a runtime conditional expression inside an unrolled comprehension -----------------
# (the comprehension's list was rebound to a region's copy, so items appended after the
# if were lost, or the list came out short: SciPy's _pinv_1d gave wrong pseudo-inverses)

C = np.array([0.9, 2.0])


def pinv_1d_of_argument(x):
    return np.sum(np.array([0 if abs(v) <= 1e-5 else 1 / v for v in x], dtype=float))


def pinv_1d_of_constant(x):
    return np.sum(x * np.array([0 if abs(v) <= 1e-5 else 1 / v for v in C], dtype=float))


def pinv_1d_of_sqrt(x):
    s = np.sqrt(C)
    return np.sum(x * np.array([0 if abs(v) <= 1e-5 else 1 / v for v in s], dtype=float))


def ifexp_items_of_list(x):
    items = [(10.0 if v <= 0.5 else v * 2) for v in [x[0], x[1], x[0] * x[1]]]
    return items[0] + 100 * items[1] + 1000 * items[2] + len(items)


def nested_ifexp_comprehension(x):
    rows = [[(a * b if a > b else a - b) for b in x] for a in x]
    return np.sum(np.array(rows) ** 2)


def ifexp_and_filter(x):
    return sum([(v if v > 0.2 else -v) for v in [x[0], x[1]] if True])


@pytest.mark.parametrize("f", [pinv_1d_of_argument, pinv_1d_of_constant, pinv_1d_of_sqrt,
                               ifexp_items_of_list, nested_ifexp_comprehension,
                               ifexp_and_filter])
@pytest.mark.parametrize("x", [np.array([0.9, 2.0]), np.array([-0.7, 0.3]),
                               np.array([0.4, 1e-7])])
def test_runtime_ifexp_in_comprehension(f, x):
    _check(f, x)
