"""st.custom_jvp (JAX's defjvp/defjvps): forward mode uses the rule, reverse mode its
transpose; both checked against finite differences in float64 and against each other."""

import doctest
import math
import warnings

import numpy as np
import pytest

import st_autodiff as st
import st_autodiff.custom
from st_autodiff.testing import check_grads, check_vjp

RNG = np.random.default_rng(7)

@pytest.fixture(autouse=True)
def _rules_are_compiled(request):
    """A rule the compiler reads is transposed by compiling it, never numerically: the
    warning of the numerical fallback is an error, except in the tests about it."""
    expected = "unreadable" in request.node.name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if expected else "error",
                              st_autodiff.custom.NumericTransposeWarning)
        yield


def numerical_jvp(f, primals, tangents, eps=1e-6):
    """``J @ tangents`` by one central difference along the tangents."""
    hi = f(*[p + eps * t if t is not None else p for p, t in zip(primals, tangents)])
    lo = f(*[p - eps * t if t is not None else p for p, t in zip(primals, tangents)])
    return (np.asarray(hi) - np.asarray(lo)) / (2 * eps)


# --- functions with custom rules -------------------------------------------------------


@st.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return softplus(x), x_dot * (0.5 * np.tanh(0.5 * x) + 0.5)  # stable sigmoid


@st.custom_jvp
def naive_softplus(x):
    return np.log1p(np.exp(x))


@st.custom_jvp
def rounded(x):
    return np.round(x)


@rounded.defjvp
def rounded_jvp(primals, tangents):  # straight through: the true derivative is 0
    return rounded(primals[0]), tangents[0]


@st.custom_jvp
def scaled_sin(x, y):
    return np.sin(x) * y


@scaled_sin.defjvp
def scaled_sin_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    return scaled_sin(x, y), np.cos(x) * y * x_dot + np.sin(x) * y_dot


@st.custom_jvp
def gram(a):
    return a @ a.T


@gram.defjvp
def gram_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    return gram(a), a_dot @ a.T + a @ a_dot.T


@st.custom_jvp
def power(x, n):
    return x**n


@power.defjvp
def power_jvp(primals, tangents):
    x, n = primals
    x_dot, n_dot = tangents  # n is an int: its tangent is None
    return power(x, n), n * x ** (n - 1) * x_dot


@st.custom_jvp
def xsiny(x, y):
    return x * np.sin(y)


def xsiny_dx(g, ans, x, y):
    return g * np.sin(y)


def xsiny_dy(g, ans, x, y):
    return g * x * np.cos(y)


xsiny.defjvps(xsiny_dx, xsiny_dy)


@st.custom_jvp
def only_first(x, y):
    return x * 2.0 + np.floor(y)


only_first.defjvps(lambda g, ans, x, y: g * 2.0, None)


class Opaque:
    """A callable with no Python source (its ``__call__`` is a C function; a Python
    ``__call__`` would be read): the compiler cannot read a rule that calls it."""

    __call__ = staticmethod(np.cos)


opaque_cos = Opaque()


@st.custom_jvp
def sine(x):
    return np.sin(x)


@sine.defjvp
def sine_jvp(primals, tangents):
    return sine(primals[0]), opaque_cos(primals[0]) * tangents[0]


@st.custom_jvp
def undefined(x):
    return x * 2.0


@st.custom_jvp
def not_a_pair(x):
    return x


@not_a_pair.defjvp
def not_a_pair_jvp(primals, tangents):
    return tangents[0]


@st.custom_jvp
def wrong_shape(x):
    return x * 1.0


@wrong_shape.defjvp
def wrong_shape_jvp(primals, tangents):
    return wrong_shape(primals[0]), np.ones(7)


# --- functions that call them ----------------------------------------------------------


def softplus_loss(x):
    return np.sum(softplus(x) * x)


def mixed(x, y):
    return np.sum(scaled_sin(x * 2.0, y) ** 2) + np.sum(softplus(y - x))


def gram_loss(a):
    return np.sum(np.tanh(gram(a)))


def power_loss(x):
    return np.sum(power(x, 3) + x)


def xsiny_loss(x, y):
    return np.sum(xsiny(x, y) * xsiny(y, x))


def only_first_loss(x, y):
    return np.sum(only_first(x, y) ** 2)


def rounded_loss(x):
    return np.sum(rounded(x) * 3.0)


def sine_loss(x):
    return np.sum(sine(x) ** 2)


def big_sine_loss(x):
    return np.sum(sine(x))


def naive_loss(x):
    return np.sum(naive_softplus(x))


def undefined_loss(x):
    return np.sum(undefined(x))


def not_a_pair_loss(x):
    return np.sum(not_a_pair(x))


def wrong_shape_loss(x):
    return np.sum(wrong_shape(x))


X = RNG.standard_normal(5)
Y = RNG.standard_normal(5)
A = RNG.standard_normal((3, 4))

CASES = [
    pytest.param(softplus_loss, (X,), id="softplus"),
    pytest.param(mixed, (X, Y), id="two_args"),
    pytest.param(gram_loss, (A,), id="matrix"),
    pytest.param(power_loss, (np.abs(X) + 0.5,), id="int_argument"),
    pytest.param(xsiny_loss, (X, Y), id="defjvps"),
    pytest.param(only_first_loss, (X, Y + 0.3), id="defjvps_none"),
    pytest.param(sine_loss, (X,), id="unreadable_rule"),
]


# --- eager calls -----------------------------------------------------------------------


def test_calling_it_runs_the_function():
    np.testing.assert_array_equal(softplus(X), np.log1p(np.exp(X)))
    np.testing.assert_array_equal(rounded(np.array([0.4, 1.6])), [0.0, 2.0])
    assert softplus_jvp.__name__ == "softplus_jvp"  # defjvp is a decorator returning the rule
    assert isinstance(softplus, st.custom_jvp)
    assert softplus.__name__ == "softplus" and "custom_jvp softplus" in repr(softplus)


def test_a_function_without_a_rule_can_be_called():
    np.testing.assert_array_equal(undefined(X), X * 2.0)


# --- against finite differences --------------------------------------------------------


@pytest.mark.parametrize("f, args", CASES)
def test_grad_matches_finite_differences(f, args):
    wrt = tuple(range(len(args)))
    g = st.grad(f, wrt=wrt)
    check_grads(f, args, lambda *a: g(*a))


@pytest.mark.parametrize("f, args", CASES)
def test_jvp_matches_finite_differences(f, args):
    tangents = tuple(RNG.standard_normal(np.shape(a)) for a in args)
    out, t = st.jvp(f, args, tangents)
    np.testing.assert_allclose(out, f(*args), rtol=1e-13)
    np.testing.assert_allclose(t, numerical_jvp(f, args, tangents), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", CASES)
def test_forward_and_reverse_agree(f, args):
    wrt = tuple(range(len(args)))
    grads = st.grad(f, wrt=wrt)(*args)
    for _ in range(3):
        tangents = tuple(RNG.standard_normal(np.shape(a)) for a in args)
        t = st.jvp(f, args, tangents)[1]
        expected = sum(np.sum(g * v) for g, v in zip(grads, tangents))
        np.testing.assert_allclose(t, expected, rtol=1e-12, atol=1e-12)


def test_arguments_that_are_not_floats_get_none_tangents():
    seen = []

    @st.custom_jvp
    def shifted(x, k):
        return x + k

    @shifted.defjvp
    def shifted_jvp(primals, tangents):
        seen.append(tangents)
        return shifted(*primals), tangents[0]

    def loss(x):
        return np.sum(shifted(x, 2))

    assert st.jvp(loss, (X,), (np.ones(5),))[1] == pytest.approx(5.0)
    assert len(seen[-1]) == 2 and seen[-1][1] is None
    np.testing.assert_array_equal(seen[-1][0], np.ones(5))


def test_jvp_with_a_zero_tangent_for_one_argument():
    v = RNG.standard_normal(5)
    t = st.jvp(mixed, (X, Y), (None, v))[1]
    np.testing.assert_allclose(t, numerical_jvp(mixed, (X, Y), (None, v)), rtol=1e-6)


def test_vjp_of_a_vector_valued_custom_function():
    out, pullback = st.vjp(gram, A)
    np.testing.assert_allclose(out, A @ A.T)
    check_vjp(gram, pullback, (A,))


def test_the_custom_function_itself_can_be_differentiated():
    np.testing.assert_allclose(st.grad(softplus)(0.3), 1 / (1 + np.exp(-0.3)))
    out, t = st.jvp(scaled_sin, (X, Y), (np.ones(5), np.zeros(5)))
    np.testing.assert_allclose(out, np.sin(X) * Y)
    np.testing.assert_allclose(t, np.cos(X) * Y)
    _, pullback = st.vjp(scaled_sin, X, Y)
    gx, gy = pullback(np.ones(5))
    np.testing.assert_allclose(gx, np.cos(X) * Y)
    np.testing.assert_allclose(gy, np.sin(X))


def test_float32_gradients_keep_their_dtype():
    x = X.astype(np.float32)
    g = st.grad(softplus_loss)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, st.grad(softplus_loss)(X), rtol=1e-5)


# --- the rule is used ------------------------------------------------------------------


def test_straight_through_rule_replaces_the_true_zero_derivative():
    x = np.array([0.4, 1.6, -2.2])
    np.testing.assert_allclose(st.grad(rounded_loss)(x), [3.0, 3.0, 3.0])
    v = np.array([1.0, 2.0, -1.0])
    assert st.jvp(rounded_loss, (x,), (v,))[1] == pytest.approx(3.0 * v.sum())
    assert "_rounded_jvp(x, x_dot)" in _jvp_source(rounded_loss, x)


def test_stable_rule_avoids_the_nan_of_the_naive_derivative():
    x = np.array([0.0, 800.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # exp(800) overflows in the primal
        naive_softplus.defjvp(lambda p, t: (naive_softplus(p[0]),
                                            t[0] * np.exp(p[0]) / (1 + np.exp(p[0]))))
        assert np.isnan(st.grad(naive_loss)(x)[1])  # inf / inf
        np.testing.assert_allclose(st.grad(lambda x: np.sum(softplus(x)))(x), [0.5, 1.0])
        assert st.jvp(lambda x: np.sum(softplus(x)), (x,), (np.ones(2),))[1] == 1.5


def test_the_generated_code_calls_the_function_and_the_rule():
    g = st.grad(softplus_loss)
    g(X)
    assert "_softplus(x)" in g.source
    assert "_softplus_vjp(" in g.source


def test_redefining_the_rule_takes_effect():
    @st.custom_jvp
    def double(x):
        return 2.0 * x

    def loss(x):
        return np.sum(double(x))

    double.defjvp(lambda p, t: (double(p[0]), 2.0 * t[0]))
    np.testing.assert_allclose(st.grad(loss)(X), 2.0)
    double.defjvp(lambda p, t: (double(p[0]), 5.0 * t[0]))  # a deliberately wrong rule
    np.testing.assert_allclose(st.grad(loss)(X), 5.0)  # a new grad() compiles anew


# --- rules the compiler cannot read ----------------------------------------------------


def test_unreadable_rule_is_transposed_numerically_for_small_inputs():
    @st.custom_jvp
    def cosine(x):
        return np.cos(x)

    @cosine.defjvp
    def cosine_jvp(primals, tangents):
        return cosine(primals[0]), -opaque_cos(primals[0] - np.pi / 2) * tangents[0]

    def loss(x):
        return np.sum(cosine(x) * x)

    g = st.grad(loss)
    with pytest.warns(st_autodiff.custom.NumericTransposeWarning,
                      match="cannot read the custom_jvp rule of cosine.*Opaque"):
        got = g(X)
    np.testing.assert_allclose(got, np.cos(X) - np.sin(X) * X, rtol=1e-12)
    np.testing.assert_allclose(g(X + 1.0), np.cos(X + 1) - np.sin(X + 1) * (X + 1),
                               rtol=1e-12)  # warned once: the filter makes a second an error


def test_unreadable_rule_python_float_argument():
    assert math.isclose(st.grad(sine)(0.3), math.cos(0.3))


def test_unreadable_rule_on_a_large_input_is_a_clear_error():
    x = np.linspace(0.0, 1.0, st_autodiff.custom.NUMERIC_TRANSPOSE_LIMIT + 1)
    with pytest.raises(st.CompileError) as info:
        st.grad(big_sine_loss)(x)
    text = str(info.value)
    assert "custom_jvp function sine" in text
    assert "cannot read the rule" in text
    # forward mode runs the rule as it is, whatever it calls
    np.testing.assert_allclose(st.jvp(big_sine_loss, (x,), (np.ones_like(x),))[1],
                               np.sum(np.cos(x)))


# --- higher orders ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_hessian_through_a_custom_jvp_differentiates_the_rule(mode):
    h = st.hessian(softplus_loss, mode=mode)(X)
    s = 0.5 * np.tanh(0.5 * X) + 0.5
    np.testing.assert_allclose(h, np.diag(s * (1 - s) * X + 2 * s), rtol=1e-12, atol=1e-14)


def test_second_derivative_uses_the_rule_again():
    # d/dx [round(x) * x] = x + round(x) by the rule (round' = 1); its derivative is 1 + 1
    d2 = st.grad(st.grad(lambda x: rounded(x) * x))
    assert d2(0.7) == pytest.approx(2.0)


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("transform", [
    lambda f: st.grad(f)(X),
    lambda f: st.jvp(f, (X,), (X,)),
    lambda f: st.vjp(f, X),
])
def test_missing_rule_names_the_function(transform):
    with pytest.raises(st.NoRuleError) as info:
        transform(undefined_loss)
    text = str(info.value)
    assert "custom_jvp function undefined has no derivative rule" in text
    assert "@f.defjvp" in text
    assert "undefined(x)" in text  # points at the call


def test_missing_rule_when_the_function_itself_is_differentiated():
    with pytest.raises(st.NoRuleError, match="custom_jvp function undefined"):
        st.grad(undefined)(1.0)


@pytest.mark.parametrize("transform", [
    lambda f: st.grad(f)(X),
    lambda f: st.jvp(f, (X,), (X,)),
])
def test_a_rule_that_does_not_return_a_pair_is_a_clear_error(transform):
    # the rule runs when the compiled code runs (never while compiling): a TypeError there
    with pytest.raises(TypeError, match="the custom_jvp rule of not_a_pair must return "
                                              r"a pair \(primal_out, tangent_out\)"):
        transform(not_a_pair_loss)


def test_a_tangent_of_the_wrong_shape_is_a_clear_error():
    with pytest.raises(TypeError, match=r"tangent of shape \(7,\) for a primal output "
                                              r"of shape \(5,\)"):
        st.jvp(wrong_shape_loss, (X,), (X,))


def test_defjvps_needs_one_function_per_argument():
    with pytest.raises(TypeError, match="got 1 functions for 2 arguments"):
        scaled_sin.defjvps(lambda g, ans, x, y: g)


def test_doctests():
    result = doctest.testmod(st_autodiff.custom)
    assert result.failed == 0 and result.attempted > 0


def _jvp_source(f, x):
    from st_autodiff.products import _JVP_CACHE

    st.jvp(f, (x,), (np.ones_like(x),))
    (gf,) = _JVP_CACHE[f].values()
    return gf.source


def test_python_float_arguments():
    assert math.isclose(st.grad(softplus)(0.0), 0.5)
    assert math.isclose(st.jvp(power, (2.0, 3), (1.0, None))[1], 12.0)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f, args", [
    pytest.param(power_loss, (np.abs(X) + 0.5,), id="int_argument"),
    pytest.param(mixed, (X, Y), id="two_args"),
    pytest.param(gram_loss, (A,), id="matrix"),
    pytest.param(xsiny_loss, (X, Y), id="defjvps"),
])
def test_hessian_matches_finite_differences_of_the_gradient(f, args, mode):
    h = st.hessian(f, mode=mode)(*args)
    g = st.grad(f)
    x = args[0]
    eps = 1e-5
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        cols.append(((g(x + e, *args[1:]) - g(x - e, *args[1:])) / (2 * eps)).ravel())
    fd = np.stack(cols, axis=-1).reshape(x.shape + x.shape)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


@st.custom_vjp
def cube(x):
    return x**3


def cube_fwd(x):
    return x**3, x


def cube_bwd(x, g):
    return (3.0 * g * x**2,)


cube.defvjp(cube_fwd, cube_bwd)


def cube_loss(x):
    return np.sum(cube(x) * x)


def test_custom_vjp_rules_are_read_again_for_higher_orders():
    h = st.hessian(cube_loss, mode="reverse")(X)
    np.testing.assert_allclose(h, np.diag(12.0 * X**2), rtol=1e-12)
    # a custom_vjp function has no forward mode (as in JAX): the error says what to do
    with pytest.raises(st.CompileError, match=r"mode='reverse'"):
        st.hessian(cube_loss)(X)


# --- tuple outputs: the tangent is a tuple, reverse mode transposes every item ----------


@st.custom_jvp
def sincos(x):
    return np.sin(x), np.cos(x)


@sincos.defjvp
def _sincos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return (np.sin(x), np.cos(x)), (np.cos(x) * t, -np.sin(x) * t)


def sincos_loss(x):
    s, c = sincos(x)
    return np.sum(s * 2.0 + c ** 2)


def cos_only(x):
    return np.sum(sincos(x)[1] * 3.0)


@pytest.mark.parametrize("f", [sincos_loss, cos_only])
def test_tuple_output_jvp_and_grad_match_finite_differences(f):
    x = np.array([0.3, -1.2, 2.0])
    t = np.array([1.0, -0.5, 0.25])
    _, tangent = st.jvp(f, (x,), (t,))
    np.testing.assert_allclose(tangent, numerical_jvp(f, (x,), (t,)), rtol=1e-7)
    check_grads(f, (x,), lambda x: (st.grad(f)(x),))
    value, g = st.value_and_grad(f)(x)
    assert value == pytest.approx(f(x))
    np.testing.assert_allclose(g, st.grad(f)(x))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_tuple_output_hessian(mode):
    x = np.array([0.3, -1.2, 2.0])
    h = st.hessian(sincos_loss, mode=mode)(x)
    np.testing.assert_allclose(h, np.diag(-2 * np.sin(x) - 2 * np.cos(2 * x)), atol=1e-10)


def test_tuple_output_rule_with_a_tangent_that_is_not_a_tuple_is_a_clear_error():
    @st.custom_jvp
    def pair(x):
        return x, x

    @pair.defjvp
    def _pair_jvp(primals, tangents):
        return pair(*primals), tangents[0]

    def uses(x):
        a, b = pair(x)
        return np.sum(a + b)

    with pytest.raises(TypeError, match="tangent that is not a tuple"):
        st.jvp(uses, (X,), (X,))
