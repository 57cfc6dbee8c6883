"""Forward over reverse: ``st.jvp`` of a compiled gradient, ``hessian`` as
``jacfwd(grad(f))`` and ``hvp`` as ``jvp(grad(f))``, checked against finite differences of
the gradient and against reverse over reverse."""

import numpy as np
import pytest

import st_autodiff as st

RNG = np.random.default_rng(3)


def poly(x):
    return np.sum(x**4 - 2.0 * x**3 + x * x[::-1])


def tanh_exp(x):
    return np.sum(np.tanh(x) * np.exp(0.3 * x)) + np.log(np.sum(np.exp(x)))


def logdet(a):
    return np.linalg.slogdet(a @ a.T + np.eye(3))[1]


def inv_trace(a):
    return np.trace(np.linalg.inv(a + 4.0 * np.eye(3)))


def solve_norm(a, b):
    return np.sum(np.linalg.solve(a + 3.0 * np.eye(3), b) ** 2)


def picked(x):
    return np.sum(np.tanh(x[[0, 0, 2]]) * x[1:].sum() + x**3)


def outer_sin(x, w):
    return np.sum(np.sin(x[:, None] * w) ** 2)


def mlp(w):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    h = np.tanh(x @ w)
    return np.mean(h**2) + 0.1 * np.sum(w * w)


def cholesky_sum(a):
    return np.sum(np.linalg.cholesky(a @ a.T + 3.0 * np.eye(3)))


def quartic(x):
    return x**4 + np.sin(x) * x


X = RNG.standard_normal(4)
A = RNG.standard_normal((3, 3))
B = RNG.standard_normal(3)

CASES = [
    pytest.param(poly, (X,), 0, id="polynomial"),
    pytest.param(tanh_exp, (X,), 0, id="tanh_exp_logsumexp"),
    pytest.param(logdet, (A,), 0, id="slogdet"),
    pytest.param(inv_trace, (A,), 0, id="inv"),
    pytest.param(solve_norm, (A, B), 0, id="solve_wrt_matrix"),
    pytest.param(solve_norm, (A, B), 1, id="solve_wrt_rhs"),
    pytest.param(picked, (X[:3],), 0, id="fancy_index"),
    pytest.param(outer_sin, (X, B), 1, id="broadcast"),
    pytest.param(mlp, (A,), 0, id="mlp"),
    pytest.param(cholesky_sum, (A,), 0, id="cholesky"),
]


def fd_hessian(f, args, wrt, eps=1e-5):
    """Central differences of the compiled gradient, one column per input element."""
    g = st.grad(f, wrt=wrt)
    x = np.asarray(args[wrt], dtype=np.float64)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        hi = list(args)
        lo = list(args)
        hi[wrt], lo[wrt] = x + e, x - e
        cols.append((g(*hi) - g(*lo)).ravel() / (2 * eps))
    return np.stack(cols, axis=-1).reshape(x.shape + x.shape)


@pytest.mark.parametrize("f, args, wrt", CASES)
def test_hessian_matches_finite_differences_of_the_gradient(f, args, wrt):
    h = st.hessian(f, wrt)(*args)
    x = args[wrt]
    assert h.shape == np.shape(x) + np.shape(x)
    np.testing.assert_allclose(h, fd_hessian(f, args, wrt), rtol=1e-5, atol=1e-7)
    n = np.size(x)
    flat = h.reshape(n, n)
    np.testing.assert_allclose(flat, flat.T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", CASES)
def test_forward_over_reverse_matches_reverse_over_reverse(f, args, wrt):
    fwd = st.hessian(f, wrt)(*args)
    rev = st.hessian(f, wrt, mode="reverse")(*args)
    np.testing.assert_allclose(fwd, rev, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("f, args, wrt", [c for c in CASES if c.values[2] == 0])
def test_hvp_forward_and_reverse_agree_with_the_hessian(f, args, wrt):
    v = RNG.standard_normal(np.shape(args[0]))
    tangents = (v,) + (None,) * (len(args) - 1)
    h = st.hessian(f)(*args)
    n = v.size
    expected = (h.reshape(n, n) @ v.ravel()).reshape(v.shape)
    np.testing.assert_allclose(st.hvp(f, args, tangents), expected, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(st.hvp(f, args, tangents, mode="reverse"), expected,
                               rtol=1e-11, atol=1e-12)


def test_jvp_of_a_gradient():
    g = st.grad(poly)
    v = RNG.standard_normal(4)
    grad_x, hv = st.jvp(g, (X,), (v,))
    np.testing.assert_allclose(grad_x, g(X), rtol=1e-14)
    eps = 1e-6
    np.testing.assert_allclose(hv, (g(X + eps * v) - g(X - eps * v)) / (2 * eps), rtol=1e-6)


def test_jvp_of_a_gradient_with_a_zero_tangent():
    g = st.grad(poly)
    grad_x, t = st.jvp(g, (X,), (None,))
    np.testing.assert_allclose(grad_x, g(X), rtol=1e-14)
    np.testing.assert_array_equal(t, np.zeros(4))


def test_jvp_of_a_gradient_reads_like_generated_code():
    from st_autodiff.products import _JVP_CACHE

    g = st.grad(poly)
    st.jvp(g, (X,), (np.ones(4),))
    (jvp_fn,) = _JVP_CACHE[g].values()
    # the gradient's seed stays an argument (constant 1.0, zero tangent)
    assert jvp_fn.source.startswith("def poly_grad_jvp(x, out_bar, x_dot):")


def test_jvp_of_a_gradient_with_respect_to_a_second_argument():
    g = st.grad(solve_norm, wrt=1)
    ta, tb = RNG.standard_normal((3, 3)), RNG.standard_normal(3)
    _, t = st.jvp(g, (A, B), (ta, tb))  # both arguments move: mixed partials too
    eps = 1e-6
    expected = (g(A + eps * ta, B + eps * tb) - g(A - eps * ta, B - eps * tb)) / (2 * eps)
    np.testing.assert_allclose(t, expected, rtol=1e-6, atol=1e-9)
    _, t_only_b = st.jvp(g, (A, B), (None, tb))
    np.testing.assert_allclose(t_only_b, st.hessian(solve_norm, 1)(A, B) @ tb, rtol=1e-11)


def test_hvp_moves_every_argument_with_a_tangent():
    v, w = RNG.standard_normal(4), RNG.standard_normal(3)
    got = st.hvp(outer_sin, (X, B), (v, w))
    g = st.grad(outer_sin)
    eps = 1e-6
    expected = (g(X + eps * v, B + eps * w) - g(X - eps * v, B - eps * w)) / (2 * eps)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


def test_third_and_fourth_derivatives_by_forward_over_reverse():
    x = 0.7
    d3 = st.jvp(st.grad(st.grad(quartic)), (x,), (1.0,))[1]
    np.testing.assert_allclose(d3, 24 * x - np.cos(x) * x - 3 * np.sin(x), rtol=1e-13)
    d4 = st.jvp(st.grad(st.grad(st.grad(quartic))), (x,), (1.0,))[1]
    np.testing.assert_allclose(d4, 24 + np.sin(x) * x - 4 * np.cos(x), rtol=1e-13)


def test_hessian_of_a_scalar_function():
    h = st.hessian(quartic)(0.7)
    np.testing.assert_allclose(h, 12 * 0.49 - np.sin(0.7) * 0.7 + 2 * np.cos(0.7),
                               rtol=1e-13)


def test_float32_hessian_keeps_its_dtype():
    h = st.hessian(tanh_exp)(X.astype(np.float32))
    assert h.dtype == np.float32
    np.testing.assert_allclose(h, st.hessian(tanh_exp)(X), rtol=2e-4, atol=1e-5)


def test_a_compiled_gradient_is_compiled_once_for_all_columns():
    from st_autodiff.products import _JVP_CACHE

    g = st.grad(poly)
    st.jacfwd(g)(X)
    st.jacfwd(g)(X + 1.0)
    (jvp_fn,) = _JVP_CACHE[g].values()
    assert len(jvp_fn._compiled) == 1


def test_bad_modes_are_errors():
    with pytest.raises(ValueError, match="mode must be 'forward' or 'reverse'"):
        st.hessian(poly, mode="sideways")
    with pytest.raises(ValueError, match="mode must be 'forward' or 'reverse'"):
        st.hvp(poly, (X,), (X,), mode="sideways")
    with pytest.raises(ValueError, match="tangent for the first argument only"):
        st.hvp(outer_sin, (X, B), (X, B), mode="reverse")


def poly_with_aux(x):
    return poly(x), x


def _central(fn, primals, tangents, eps=1e-6):
    """``(fn(p + eps t) - fn(p - eps t)) / 2 eps`` leaf by leaf over tuple/dict outputs."""
    hi = fn(*[p + eps * t for p, t in zip(primals, tangents)])
    lo = fn(*[p - eps * t for p, t in zip(primals, tangents)])

    def diff(a, b):
        if isinstance(a, dict):
            return {k: diff(a[k], b[k]) for k in a}
        if isinstance(a, tuple):
            return tuple(diff(x, y) for x, y in zip(a, b))
        return (np.asarray(a, float) - np.asarray(b, float)) / (2 * eps)

    return diff(hi, lo)


@pytest.mark.parametrize("make, primals", [
    (lambda: st.value_and_grad(poly), (X,)),
    (lambda: st.grad(solve_norm, wrt=(0, 1)), (A, B)),
    (lambda: st.grad(poly_with_aux, has_aux=True), (X,)),
], ids=["value_and_grad", "two_wrt", "has_aux"])
def test_jvp_of_a_gradient_that_returns_a_tuple(make, primals):
    """Each output of the gradient function gets its tangent, in the output's structure
    (this used to be refused: forward mode carried the first output only)."""
    g = make()
    tangents = tuple(RNG.standard_normal(np.shape(p)) for p in primals)
    out, out_dot = st.jvp(g, primals, tangents)
    want = _central(g, primals, tangents)
    assert type(out_dot) is tuple and len(out_dot) == len(want)
    for got, expected in zip(out_dot, want):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_derivative_of_a_gradient_needs_a_call_before_its_source_is_read():
    from st_autodiff.api import GradFunction, Options

    tangent_fn = GradFunction(st.grad(poly), (0,), "jvp", False, Options())
    with pytest.raises(st.WrtError, match="call it first"):
        _ = tangent_fn.source
