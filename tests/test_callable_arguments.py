"""Functions passed as arguments: static values keyed by identity (issue 14)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StAutodiffError, WrtError

X = np.array([0.3, 0.7, -1.1])


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function of one float64 array."""
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def apply(v, f):
    return np.sum(f(v))


def apply_default(v, f=np.sin):
    return np.sum(f(v))


def apply_kw(v, *, f):
    return np.sum(f(v) * v)


def outer(v, f):
    return apply(v, f) + 2.0 * apply(v * v, f)


def sq(v):
    return v * v


def cube(v):
    return v**3


class Scale:
    """A callable object whose class defines ``__call__`` in Python."""

    def __init__(self, w: np.ndarray) -> None:
        self.w = w

    def __call__(self, v):
        return self.w * np.tanh(v)

    def method(self, v):
        return self.w * v * v


def power(v, p):
    return v**p


def kinds() -> list:
    lam = lambda v: np.exp(0.5 * v)  # noqa: E731
    return [np.sin, np.tanh, sq, lam, functools.partial(power, p=3.0),
            functools.partial(np.multiply, 2.5), Scale(np.array([1.0, 2.0, 3.0])),
            Scale(np.array([0.5, -1.0, 2.0])).method, np.exp, abs]


@pytest.mark.parametrize("f", kinds(), ids=lambda f: getattr(f, "__name__", type(f).__name__))
def test_value_and_gradient_of_each_callable_kind(f) -> None:
    value, grad = st.value_and_grad(apply)(X, f)
    assert np.allclose(value, apply(X, f))
    assert np.allclose(grad, numeric_grad(lambda v: apply(v, f), X), rtol=1e-6, atol=1e-8)
    assert np.allclose(st.grad(apply)(X, f), grad)


def test_grad_matches_hips_autograd() -> None:
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def apply_ag(v, f):
        return anp.sum(f(v))

    for ours, theirs in ((np.sin, anp.sin), (sq, sq), (cube, cube)):
        assert np.allclose(st.grad(apply)(X, ours), ag.grad(apply_ag)(X, theirs))


def test_a_class_passed_as_an_argument() -> None:
    def build(v, cls):
        return np.sum(cls(v) ** 2)

    g = st.grad(build)(X, np.asarray)
    assert np.allclose(g, 2 * X)


def test_default_and_keyword_only_callables() -> None:
    assert np.allclose(st.grad(apply_default)(X), np.cos(X))
    assert np.allclose(st.grad(apply_default)(X, sq), 2 * X)
    assert np.allclose(st.grad(apply_default)(X, f=cube), 3 * X**2)
    g = st.grad(apply_kw)(X, f=np.sin)
    assert np.allclose(g, numeric_grad(lambda v: apply_kw(v, f=np.sin), X), atol=1e-8)


def test_nested_calls_pass_the_function_on() -> None:
    for f in (np.sin, sq, Scale(np.array([1.0, -2.0, 0.5]))):
        g = st.grad(outer)(X, f)
        assert np.allclose(g, numeric_grad(lambda v, f=f: outer(v, f), X), atol=1e-7)


def test_cache_misses_per_function_and_hits_for_the_same_one() -> None:
    def fresh(v, f):
        return np.sum(f(v))

    g = st.grad(fresh)
    g(X, np.sin)
    g(X, np.sin)
    info = g.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert np.allclose(g(X, sq), 2 * X)  # another function: another specialisation
    info = g.cache_info()
    assert (info.misses, info.hits, len(info.specialisations)) == (2, 1, 2)
    assert np.allclose(g(X, np.sin), np.cos(X))  # the first one again: a hit
    assert g.cache_info().hits == 2


def test_bound_methods_read_twice_hit_the_cache() -> None:
    s = Scale(np.array([1.0, 2.0, 3.0]))
    g = st.grad(apply)
    g.cache_clear()
    g(X, s.method)
    g(X, s.method)  # a new method object, the same function and receiver
    assert g.cache_info().hits == 1
    other = Scale(np.array([3.0, 2.0, 1.0]))
    assert np.allclose(g(X, other.method), 2 * other.w * X)  # another receiver


def test_changed_closure_is_not_served_stale_code() -> None:
    k = 2.0

    def scaled(v):
        return k * v * v

    g = st.grad(apply)
    assert np.allclose(g(X, scaled), 4 * X)
    k = 5.0
    assert np.allclose(g(X, scaled), 10 * X)
    k = 2.0  # noqa: F841  (the closure reads it)


def test_changed_code_defaults_and_attributes_are_seen() -> None:
    def h(v, a=2.0):
        return a * v

    g = st.grad(apply)
    assert np.allclose(g(X, h), 2.0)
    h.__defaults__ = (3.0,)
    assert np.allclose(g(X, h), 3.0)
    h.__defaults__ = None
    h.__code__ = sq.__code__  # (sq takes one argument: defaults dropped first)
    assert np.allclose(g(X, h), 2 * X)
    s = Scale(np.array([1.0, 1.0, 1.0]))
    assert np.allclose(g(X, s), 1 - np.tanh(X) ** 2)
    s.w = np.array([2.0, 2.0, 2.0])  # a rebinding of the attribute
    assert np.allclose(g(X, s), 2 * (1 - np.tanh(X) ** 2))


def test_wrt_selecting_the_callable_is_a_located_error() -> None:
    with pytest.raises(WrtError) as info:
        st.grad(apply, wrt=1)(X, np.sin)
    msg = str(info.value)
    assert "'f'" in msg and "no gradient" in msg and "test_callable_arguments.py" in msg
    with pytest.raises(WrtError):
        st.grad(apply, wrt=(0, 1))(X, sq)


def test_calling_a_runtime_value_is_a_located_error() -> None:
    def call_array(v):
        return np.sum(v(1.0))

    with pytest.raises(CompileError) as info:
        st.grad(call_array)(X)
    msg = str(info.value)
    assert "Node" not in msg and "st_autodiff." not in msg
    assert "cannot call 'v'" in msg and "array" in msg and "test_callable_arguments.py" in msg

    def call_float(v, s):
        return np.sum(v * s(2))

    with pytest.raises(StAutodiffError) as info:
        st.grad(call_float, wrt=0)(X, 1.5)
    assert "cannot call 's'" in str(info.value) and "float" in str(info.value)


def test_jvp_vjp_hessian_with_a_callable_argument() -> None:
    t = np.array([1.0, -0.5, 2.0])
    value, tangent = st.jvp(lambda v: apply(v, np.sin), (X,), (t,))
    assert np.allclose(tangent, np.cos(X) @ t)
    value, tangent = st.jvp(apply, (X, cube), (t, None))
    assert np.allclose(value, np.sum(X**3)) and np.allclose(tangent, 3 * X**2 @ t)
    value, back = st.vjp(apply, X, np.sin)
    assert np.allclose(back(1.0)[0], np.cos(X))
    h = st.hessian(apply)(X, np.sin)
    assert np.allclose(h, np.diag(-np.sin(X)))
    h = st.hessian(apply)(X, cube)
    assert np.allclose(h, np.diag(6 * X))


def test_calling_a_static_value_that_is_not_callable_is_a_located_error() -> None:
    def call_int(v, s):
        return np.sum(v * s(2))

    with pytest.raises(CompileError) as info:
        st.grad(call_int)(X, 3)
    msg = str(info.value)
    assert "cannot call 's'" in msg and "int 3" in msg and "test_callable_arguments.py" in msg


def test_a_dead_receivers_id_is_never_reused_for_a_cached_method() -> None:
    g = st.grad(apply)
    for k in (1.0, 2.0, 3.0, 4.0, 5.0):
        s = Scale(np.full(3, k))  # the previous receiver is dropped here
        assert np.allclose(g(X, s.method), 2 * k * X)


def test_partials_of_one_function_with_other_arguments_compile_again() -> None:
    g = st.grad(apply)
    assert np.allclose(g(X, functools.partial(power, p=2.0)), 2 * X)
    assert np.allclose(g(X, functools.partial(power, p=3.0)), 3 * X**2)


@pytest.mark.parametrize("transform", [st.jacrev, st.jacfwd, st.hessian])
def test_jacobians_with_wrt_selecting_the_callable_are_located_errors(transform) -> None:
    with pytest.raises(WrtError) as info:
        transform(apply, wrt=1)(X, np.sin)
    msg = str(info.value)
    assert "'f'" in msg and "no gradient" in msg and "test_callable_arguments.py" in msg
    assert np.allclose(st.jacrev(apply)(X, sq), 2 * X)


def test_a_random_generators_method_runs_on_every_call_never_at_compile_time() -> None:
    def noisy(v, draw):
        return np.sum(v * draw(3))

    rng, ref = np.random.default_rng(5), np.random.default_rng(5)
    g = st.grad(noisy)
    first, second = g(X, rng.random), g(X, rng.random)
    assert np.allclose(first, ref.random(3)) and np.allclose(second, ref.random(3))


def sum_each(v, fs):
    total = 0.0
    for f in fs:
        total = total + np.sum(f(v))
    return total


def test_a_tuple_of_functions_is_static_and_keyed_by_its_items() -> None:
    g = st.grad(sum_each)
    assert np.allclose(g(X, (np.sin, np.cos)), np.cos(X) - np.sin(X))
    assert np.allclose(g(X, (np.cos, np.cos)), -2 * np.sin(X))
    assert np.allclose(g(X, (sq, np.sin)), 2 * X + np.cos(X))
    assert np.allclose(g(X, (np.sin, np.cos)), np.cos(X) - np.sin(X))
    assert g.cache_info().misses == 3
    with pytest.raises(WrtError, match="tuple of functions"):
        st.grad(sum_each, wrt=1)(X, (np.sin,))


def test_a_list_of_functions_is_a_located_error_pointing_to_a_tuple() -> None:
    with pytest.raises(CompileError) as info:
        st.grad(sum_each)(X, [np.sin, np.cos])
    msg = str(info.value)
    assert "cannot call 'f'" in msg and "as a tuple" in msg and "Node" not in msg
