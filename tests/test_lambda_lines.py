"""Lambdas whose lines are not a statement, and runtime bools with a static ``and``/``or``.

SciPy's ``_axis_nan_policy_factory(lambda x: x, result_to_tuple=lambda x, _: (x,))``
(behind ``stats.skew``, ``gmean``, ``sem`` …) puts its lambdas on lines that only parse
inside the decorator's parentheses; the compiler read them as a module and refused.  Its
``if any(contains_nan) and nan_policy == 'omit':`` has a runtime left side and a static
false right side, so the branch is never taken, whatever the data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _factory(first: Any, result_to_tuple: Any = None, n: int = 1) -> Any:
    def decorate(fn: Any) -> Any:
        def wrapped(x: Any) -> Any:
            return result_to_tuple(first(fn(x)), n)[0]
        return wrapped
    return decorate


@_factory(
    lambda x: x, result_to_tuple=lambda x, _: (x,), n=1)
def _squares(x: Any) -> Any:
    return np.sum(x ** 2)


@_factory(
        lambda x: x * 2.0, n=1,
        result_to_tuple=lambda x, _: (x,))
def _doubled(x: Any) -> Any:
    return np.sum(np.sin(x))


X = np.array([0.3, -1.2, 2.0])


@pytest.mark.parametrize("fn", [_squares, _doubled])
def test_lambdas_inside_a_decorators_arguments(fn: Any) -> None:
    value, grad = st.value_and_grad(fn)(X)
    assert value == pytest.approx(fn(X))
    check_grads(fn, [X], lambda a: [st.grad(fn)(a)])


def _nan_policy(x: Any, policy: str = "propagate") -> Any:
    flags = [bool(np.isnan(x).any()), bool(np.isinf(x).any())]
    samples = [x]
    if any(flags) and policy == "omit":  # false whatever the data: `and False`
        samples = [x[~np.isnan(x)]]
    if any(flags) or policy != "omit":  # true whatever the data: `or True`
        samples.append(x * 2.0)
    return sum(np.sum(s ** 2) for s in samples)


def test_runtime_bool_and_static_false_is_false() -> None:
    value, grad = st.value_and_grad(_nan_policy)(X)
    assert value == pytest.approx(_nan_policy(X))
    check_grads(_nan_policy, [X], lambda a: [st.grad(_nan_policy)(a)])


def _runtime_and_runtime(x: Any) -> Any:
    return np.sum(x) * 2.0 if (x[0] > 0) and (x[1] < 0) else np.sum(x)


@pytest.mark.parametrize("x", [X, -X])
def test_runtime_and_runtime_still_decides_at_run_time(x: Any) -> None:
    assert st.value_and_grad(_runtime_and_runtime)(x)[0] == pytest.approx(
        _runtime_and_runtime(x))


def _apply(v: Any, f: Any) -> Any:
    return np.sum(f(v))


def test_lambda_on_a_for_header_line() -> None:
    """A lambda written in a ``for`` statement's header (its line alone is no statement)."""
    for f in (np.sin, lambda v: v ** 3):
        check_grads(lambda a, f=f: _apply(a, f), [X], lambda a, f=f: [st.grad(_apply)(a, f)])

    def inner(x: Any) -> Any:
        out = 0.0
        for g in [lambda v: v * 2.0]:
            out = out + np.sum(g(x) ** 2)
        return out

    np.testing.assert_allclose(st.grad(inner)(X), 8.0 * X)


LOSSES = {
    "sine": lambda x: np.sum(np.sin(x)),
    "cube": lambda x: np.sum(x ** 3),
}
# (two lambdas in one list display are told apart by their code positions, which Python
# 3.10 does not record: tests/test_calls_objects.py)
LOSS_LIST = [np.sum,
             lambda x: np.sum(np.cos(x) * x)]


@pytest.mark.parametrize("fn", [LOSSES["sine"], LOSSES["cube"], LOSS_LIST[1]])
def test_lambdas_as_dict_values_and_list_items(fn: Any) -> None:
    """A lambda on a ``'key': lambda x: ...,`` line parses as a dict item (it was refused
    as unparsable source), and one on a list's continuation line as a list item."""
    check_grads(fn, [X], lambda a: [st.grad(fn)(a)])



def _factory1(first: Any, result_to_tuple: Any = None) -> Any:
    def decorate(fn: Any) -> Any:
        def wrapped(x: Any) -> Any:
            return result_to_tuple(first(fn(x)))[0]
        return wrapped
    return decorate


@_factory1(
    lambda x: x, result_to_tuple=lambda x: (x,))
def _same_parameters(x: Any) -> Any:
    return np.sum(np.cos(x) * x)


@_factory1(
    lambda x: x * 1.0, result_to_tuple=lambda x: (x,) if True else (x * 3.0,))
def _both_with_constants(x: Any) -> Any:
    return np.sum(np.exp(x / 4.0))


@pytest.mark.parametrize("fn", [_same_parameters, _both_with_constants])
def test_two_lambdas_with_the_same_parameters_on_one_line(fn: Any) -> None:
    """SciPy 1.15's ``lambda x: x, result_to_tuple=lambda x: (x,)``: the parameter names
    do not tell the lambdas apart; the code's positions do (3.11+), and before 3.11 the
    instructions that each lambda's text compiles to."""
    x = np.linspace(-1.0, 1.5, 5)
    g = st.grad(fn)
    np.testing.assert_allclose(st.value_and_grad(fn)(x)[0], fn(x), rtol=1e-12)
    check_grads(fn, (x,), lambda a: (g(a),))
