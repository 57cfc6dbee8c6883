"""``st.grad(np.sin)``: differentiating a library function itself, from the rule table.

NumPy ufuncs, scipy.special functions and the library functions the compiler decomposes
have no Python source of their own to read; they are differentiated through a generated
caller whose call resolves to the op (``st_autodiff/library_callers.py``), as JAX's
``jax.grad(jnp.sin)``.  Gradients are checked against central differences in float64.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import NoRuleError
from st_autodiff.testing import check_grads

sp = pytest.importorskip("scipy.special")

X = np.array([0.3, 0.7, 1.1])

UNARY: list[tuple[Callable[..., Any], float]] = [
    (np.sin, 0.4), (np.tanh, -0.8), (np.exp, 0.5), (np.log1p, 0.3), (np.arcsin, 0.2),
    (np.sqrt, 2.5), (np.cbrt, 1.7), (sp.gammaln, 2.5), (sp.expit, -0.3), (sp.erf, 0.6),
    (sp.digamma, 1.5), (math.sin, 0.9), (math.exp, 0.2),
]


@pytest.mark.parametrize("fn,x", UNARY, ids=lambda v: getattr(v, "__name__", str(v)))
def test_grad_of_a_library_function_at_a_float(fn: Callable[..., Any], x: float) -> None:
    check_grads(fn, [x], lambda a: [st.grad(fn)(a)])


@pytest.mark.parametrize("fn", [np.sin, np.tanh, sp.expit], ids=lambda f: f.__name__)
def test_second_and_third_order(fn: Callable[..., Any]) -> None:
    d1 = st.grad(fn)
    d2 = st.grad(d1)
    check_grads(d1, [0.7], lambda a: [d2(a)])
    check_grads(d2, [0.7], lambda a: [st.grad(d2)(a)])


def test_every_transformation_takes_a_ufunc() -> None:
    np.testing.assert_allclose(st.jacfwd(np.exp)(X), np.diag(np.exp(X)))
    np.testing.assert_allclose(st.jacrev(np.sin)(X), np.diag(np.cos(X)))
    _, pull = st.vjp(np.sin, X)
    np.testing.assert_allclose(pull(np.ones(3))[0], np.cos(X))
    out, tangent = st.jvp(np.tanh, (X,), (np.ones(3),))
    np.testing.assert_allclose(out, np.tanh(X))
    np.testing.assert_allclose(tangent, 1.0 - np.tanh(X) ** 2)
    np.testing.assert_allclose(st.hessian(np.sin)(0.5), -np.sin(0.5))
    value, grad = st.value_and_grad(np.prod)(X)
    assert value == pytest.approx(np.prod(X))
    np.testing.assert_allclose(grad, np.prod(X) / X)


def test_binary_ufunc_differentiates_each_argument() -> None:
    gx, gy = st.grad(np.arctan2, wrt=(0, 1))(0.5, 2.0)
    check_grads(np.arctan2, [0.5, 2.0], lambda a, b: list(st.grad(np.arctan2, wrt=(0, 1))(a, b)))
    assert gx == pytest.approx(2.0 / 4.25) and gy == pytest.approx(-0.5 / 4.25)


@pytest.mark.parametrize("fn,args", [
    (np.sum, (X,)), (np.linalg.det, (np.array([[2.0, 1.0], [0.5, 3.0]]),)),
    (np.linalg.norm, (X,)), (np.mean, (X,)), (np.dot, (X, X[::-1].copy())),
], ids=["sum", "det", "norm", "mean", "dot"])
def test_python_level_numpy_functions_use_the_table(fn: Callable[..., Any], args: tuple
                                                    ) -> None:
    """NumPy functions written in Python are read through the caller too: their call is
    the op, not NumPy's implementation (which calls C code without a rule)."""
    wrt = tuple(range(len(args)))
    got = st.grad(fn, wrt=wrt)(*args)
    check_grads(fn, list(args), lambda *a: list(st.grad(fn, wrt=wrt)(*a)))
    assert len(got) == len(args)


def test_keywords_reach_the_library_function() -> None:
    a = np.array([[0.3, -1.2, 0.5], [2.0, 0.1, -0.4]])
    got = st.grad(np.linalg.norm)(a, ord=1)  # the largest column sum of |a|: column 0
    np.testing.assert_allclose(got, np.sign(a) * np.array([[1.0, 0.0, 0.0]] * 2))
    check_grads(lambda m: np.linalg.norm(m, ord=1), [a],
                lambda m: [st.grad(np.linalg.norm)(m, ord=1)])


def test_generated_caller_reads_like_the_call() -> None:
    g = st.grad(np.sin)
    g(0.3)
    assert "np.sin(x)" in g.source
    assert "xp.cos(x)" in g.source
    assert inspect.getsource(g) == g.source


def test_compiled_code_without_a_rule_says_so() -> None:
    with pytest.raises(NoRuleError, match=r"numpy\.random\.RandomState\.rand has no "
                                          r"derivative rule.*no Python source"):
        st.grad(np.random.rand)(1)


def test_users_functions_are_still_read_from_their_source() -> None:
    def sin(x: Any) -> Any:
        return np.sin(x) * 2.0

    assert st.grad(sin)(0.4) == pytest.approx(2.0 * np.cos(0.4))


def _hessenberg_loss(x: Any) -> Any:
    import scipy.linalg  # noqa: PLC0415

    return np.sum(scipy.linalg.hessenberg(np.outer(x, x) + np.eye(3)))


def test_library_code_without_a_rule_says_it_has_none() -> None:
    """A library function with no rule whose own Python cannot be compiled (it calls
    LAPACK wrappers) is reported as having no derivative rule, at the user's call, with
    the register hint (not only as the construct that failed deep inside)."""
    from st_autodiff.errors import CompileError  # noqa: PLC0415

    with pytest.raises(CompileError) as info:
        st.grad(_hessenberg_loss)(X)
    text = str(info.value)
    assert "hessenberg has no derivative rule, and its Python code cannot be compiled" in text
    assert "st.register_vjp(hessenberg, rule)" in text
    assert text.splitlines()[0].startswith(f"{__file__}:")
