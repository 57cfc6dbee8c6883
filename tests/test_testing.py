"""The gradient checker is itself tested: it must pass right rules and fail wrong ones."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import st_autodiff.testing
from st_autodiff.derivatives import RULES, ArrayOps
from st_autodiff.ir.ops import Op
from st_autodiff.testing import check_grads, check_vjp, numerical_vjp, tolerance

OPS = ArrayOps(np)
rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
Y = rng.standard_normal((3, 4))


def sin_rule(ops, g, out, x):
    return (g * ops.cos(x),)


def wrong_sin_rule(ops, g, out, x):
    return (g * ops.sin(x),)


def mul_rule(ops, g, out, x, y):
    return (g * y, g * x)


def wrong_mul_rule(ops, g, out, x, y):
    return (g, g * x)  # forgot the factor y


def vjp_of(rule, f, *args):
    """The VJP function ``check_vjp`` wants, from a rule in the table's protocol."""
    out = f(*args)
    return lambda g: rule(OPS, g, out, *args)


def grad_of(rule, f):
    """The gradient of ``sum(f(*args))`` from a rule, for ``check_grads``."""
    return lambda *args: rule(OPS, np.ones_like(f(*args)), f(*args), *args)


def total(f):
    return lambda *args: np.sum(f(*args))


# --- right rules pass -----------------------------------------------------------------


def test_doctest() -> None:
    assert doctest.testmod(st_autodiff.testing).failed == 0


def test_right_rules_pass() -> None:
    check_vjp(np.sin, vjp_of(sin_rule, np.sin, X), (X,))
    check_vjp(np.multiply, vjp_of(mul_rule, np.multiply, X, Y), (X, Y))
    check_grads(total(np.sin), (X,), grad_of(sin_rule, np.sin))
    check_grads(total(np.multiply), (X, Y), grad_of(mul_rule, np.multiply))


def test_table_rules_pass() -> None:
    check_vjp(np.sin, vjp_of(RULES[Op.SIN], np.sin, X), (X,))
    check_vjp(np.multiply, vjp_of(RULES[Op.MUL], np.multiply, X, Y), (X, Y))


def test_numerical_vjp_matches_matmul() -> None:
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    g = rng.standard_normal((2, 4))
    ga, gb = numerical_vjp(np.matmul, (a, b), g)
    np.testing.assert_allclose(ga, g @ b.T, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(gb, a.T @ g, rtol=1e-7, atol=1e-8)


def test_tuple_outputs() -> None:
    def f(x):
        return np.sin(x), x**2

    def vjp(g):
        return (g[0] * np.cos(X) + g[1] * 2 * X,)

    check_vjp(f, vjp, (X,))
    with pytest.raises(AssertionError, match="argument 0"):
        check_vjp(f, lambda g: (g[0] * np.cos(X),), (X,))  # forgot the second output


def test_integer_arguments_are_not_perturbed() -> None:
    idx = np.array([0, 2, 2])

    def f(x, i):
        return x[i]

    def vjp(g):
        out = np.zeros_like(X)
        np.add.at(out, idx, g)
        return out, None

    check_vjp(f, vjp, (X, idx))
    check_grads(
        lambda x, i: np.sum(np.sin(x[i])), (X, idx), lambda x, i: (vjp(np.cos(x[i]))[0], None)
    )
    assert numerical_vjp(f, (X, idx), np.ones((3, 4)))[1] is None


# --- wrong rules fail -------------------------------------------------------------------


def test_wrong_sin_rule_fails_dot_product_test() -> None:
    with pytest.raises(AssertionError, match=r"check_vjp: argument 0 .*abs error"):
        check_vjp(np.sin, vjp_of(wrong_sin_rule, np.sin, X), (X,))


def test_wrong_sin_rule_fails_elementwise() -> None:
    with pytest.raises(
        AssertionError,
        match=r"check_grads: argument 0 .*max abs error "
        r"\S+, max rel error",
    ):
        check_grads(total(np.sin), (X,), grad_of(wrong_sin_rule, np.sin))


def test_mul_missing_a_factor_names_the_argument() -> None:
    with pytest.raises(AssertionError, match="argument 0"):
        check_vjp(np.multiply, vjp_of(wrong_mul_rule, np.multiply, X, Y), (X, Y))
    with pytest.raises(AssertionError, match="argument 0"):
        check_grads(total(np.multiply), (X, Y), grad_of(wrong_mul_rule, np.multiply))
    # the right half of the wrong rule is still right: only argument 1 checked passes
    check_vjp(np.multiply, vjp_of(wrong_mul_rule, np.multiply, X, Y), (X, Y), argnums=[1])


def test_transposed_matmul_rule_fails() -> None:
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    with pytest.raises(AssertionError, match="argument 0"):
        check_vjp(np.matmul, lambda g: (g @ b, a.T @ g), (a, b))  # g @ b.T is right


def test_small_relative_error_fails_in_float64() -> None:
    with pytest.raises(AssertionError):
        check_vjp(np.sin, lambda g: (g * np.cos(X) * 1.001,), (X,))
    with pytest.raises(AssertionError):
        check_grads(total(np.sin), (X,), lambda x: (np.cos(x) * 1.001,))


def test_nan_gradient_fails() -> None:
    bad = np.cos(X)
    bad[1, 2] = np.nan
    with pytest.raises(AssertionError, match=r"index \(1, 2\)"):
        check_grads(total(np.sin), (X,), lambda x: (bad,))
    with pytest.raises(AssertionError):
        check_vjp(np.sin, lambda g: (g * bad,), (X,))


def test_wrong_shape_fails() -> None:
    with pytest.raises(AssertionError, match=r"shape \(3, 4\) but its gradient has shape"):
        check_vjp(np.sin, lambda g: (np.sum(g * np.cos(X), axis=0),), (X,))


def test_missing_gradient_fails() -> None:
    with pytest.raises(AssertionError, match="argument 1 is differentiable"):
        check_vjp(np.multiply, lambda g: (g * Y, None), (X, Y))
    with pytest.raises(AssertionError, match="got 1 gradients for 2 arguments"):
        check_vjp(np.multiply, lambda g: (g * Y,), (X, Y))


def test_check_grads_needs_a_scalar_function() -> None:
    with pytest.raises(ValueError, match="scalar"):
        check_grads(np.sin, (X,), lambda x: (np.cos(x),))


# --- per-dtype tolerances ---------------------------------------------------------------


def test_tolerance_follows_the_least_precise_dtype() -> None:
    assert tolerance(np.float64) < tolerance(np.float32) < tolerance(np.float16)
    assert tolerance(np.float64, np.float32) == tolerance(np.float32)
    assert tolerance(np.int64) == tolerance(np.float64)


def test_float32_rule_passes_with_float32_tolerance() -> None:
    x32 = X.astype(np.float32)
    check_vjp(np.sin, lambda g: (g * np.cos(x32),), (x32,))
    check_grads(total(np.sin), (x32,), lambda x: (np.cos(x),))
    assert np.cos(x32).dtype == np.float32
    # float32 rounding would fail float64 tolerances, but a real error fails either way
    with pytest.raises(AssertionError, match="float32"):
        check_vjp(np.sin, lambda g: (g * np.cos(x32) * 1.05,), (x32,))


def test_explicit_tolerances_override() -> None:
    check_vjp(np.sin, lambda g: (g * np.cos(X) * 1.001,), (X,), rtol=1e-2)
    check_grads(total(np.sin), (X,), lambda x: (np.cos(x) * 1.001,), rtol=1e-2)
