"""Checks shared by the rule tests of whole functions (``test_rules_*.py``).

A ``Case`` is a call as real code writes it.  Each check compiles ``sum(fn(*args) * w)``
(fixed random weights ``w``, so every output counts) and compares it with NumPy: the
value, the gradient against float64 central differences, the forward mode against the
gradient, and the Hessian against central differences of the gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import st_autodiff as st
from st_autodiff.testing import check_grads


@dataclass
class Case:
    id: str
    fn: Callable[..., Any]
    args: tuple
    smooth: bool = True  # second order checked too
    exact: bool = True  # value bit-identical to NumPy's (else to 1e-13)
    tol: float = 1e-6  # of the gradient against central differences


def loss_of(c: Case) -> Callable[..., Any]:
    """``sum(fn(*args) * w)`` with fixed weights ``w``: a scalar that sees every output."""
    out = np.asarray(c.fn(*c.args))
    w = np.random.default_rng(len(c.id)).standard_normal(out.shape)
    fn = c.fn
    if len(c.args) == 1:
        def loss(x):
            return np.sum(fn(x) * w)
    elif len(c.args) == 2:
        def loss(x, y):
            return np.sum(fn(x, y) * w)
    else:
        def loss(x, y, z):
            return np.sum(fn(x, y, z) * w)
    return loss


def _wrt(c: Case) -> tuple[int, ...]:
    return tuple(range(len(c.args)))


def check_value(c: Case) -> None:
    loss = loss_of(c)
    value, _ = st.value_and_grad(loss, wrt=_wrt(c))(*c.args)
    expected = loss(*c.args)
    if c.exact:
        assert value == expected
    else:
        np.testing.assert_allclose(value, expected, rtol=1e-13, atol=1e-14)


def check_gradient(c: Case) -> None:
    loss = loss_of(c)
    check_grads(loss, c.args, st.grad(loss, wrt=_wrt(c)), atol=c.tol, rtol=c.tol)


def check_jvp(c: Case) -> None:
    loss = loss_of(c)
    grads = st.grad(loss, wrt=_wrt(c))(*c.args)
    rng = np.random.default_rng(3)
    tangents = tuple(rng.standard_normal(np.shape(a)) for a in c.args)
    value, dot = st.jvp(loss, c.args, tangents)
    np.testing.assert_allclose(value, loss(*c.args), rtol=1e-13, atol=1e-14)
    expected = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents, strict=True))
    np.testing.assert_allclose(dot, expected, rtol=1e-10, atol=1e-12)


def check_hessian(c: Case) -> None:
    """Second order: the Hessian (in the first argument) times a direction, against the
    central difference of the gradient along it."""
    loss = loss_of(c)
    g = st.grad(loss, wrt=0)
    x, rest = c.args[0], c.args[1:]
    v = np.random.default_rng(5).standard_normal(np.shape(x))
    n = np.size(x)
    got = np.reshape(st.hessian(loss, wrt=0)(*c.args), (n, n)) @ np.ravel(v)
    eps = 1e-5
    expected = (np.ravel(g(x + eps * v, *rest)) - np.ravel(g(x - eps * v, *rest))) / (2 * eps)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
