"""A name that is ``None`` on some paths through runtime branches or loops.

``w = None; if data: w = x * 2`` then ``if w is None:``: which branch ran is only known at
run time, so ``w is None`` is tested by the compiled code (it was once decided
statically False, and the compiled code then multiplied by None).
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def set_in_branch(x, limit):
    w = None
    if np.sum(x) > limit:
        w = x * 2.0
    if w is None:
        return np.sum(x)
    return np.sum(w * x)


def set_in_loop(x, n):
    best = None
    for i in range(n):
        if x[i] > 0.5:
            best = x[i] * 3.0
    if best is None:
        return np.sum(x)
    return best * x[0]


def is_not_none_loss(x):
    w = None
    if np.sum(x) > 1:
        w = x
    if w is not None:
        return np.sum(w * x)
    return np.sum(x)


def _check(f, *args):
    check_grads(f, args, lambda *a: (st.grad(f)(*a), *[None] * (len(a) - 1)),
                argnums=[0])
    assert st.value_and_grad(f)(*args)[0] == pytest.approx(f(*args))


@pytest.mark.parametrize("limit", [0.0, 100.0])
def test_set_in_a_runtime_branch(limit):
    _check(set_in_branch, np.array([1.0, 2.0, 3.0]), limit)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3])])
@pytest.mark.parametrize("n", [0, 3])
def test_set_in_a_loop(x, n):
    _check(set_in_loop, x, n)


@pytest.mark.parametrize("scale", [1.0, 0.1])
def test_is_not_none(scale):
    _check(is_not_none_loss, np.ones(3) * scale)
