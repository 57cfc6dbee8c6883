"""A function with a custom rule runs exactly as often as Python runs it: once per call of
the compiled code, never while compiling (its rule once per backward pass).

Each test counts calls with a counter in the user's function (an effect, so the compiler
cannot read the function for its output type: ``out_type=`` gives it) and compares the
count with what Python does on the same inputs.
"""

import sys

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

CALLS = {"f": 0, "rule": 0}


def noisy(x):
    """A random scale: each call draws a new one (and counts itself)."""
    CALLS["f"] += 1
    return x * np.random.rand()


def noisy_rule(g, out, x):
    CALLS["rule"] += 1
    return (g * out / x,)


st.register_vjp(noisy, noisy_rule, out_type=lambda x: x)


def one_call(x):
    return np.sum(noisy(x))


def in_a_loop(x):
    s = 0.0
    for _ in range(4):
        s = s + np.sum(noisy(x * s + 1.0))
    return s


def result_unused(x):
    noisy(x)
    return np.sum(x * 2.0)


def two_calls(x):
    return np.sum(noisy(x) + noisy(x))


def in_a_branch(x):
    y = x
    if np.sum(x) > 0:
        y = noisy(x)
    return np.sum(y)


def in_a_while_loop(x):
    k = 0
    while k < 3:
        x = noisy(x) + 1.0
        k += 1
    return np.sum(x)


def counts(run):
    """How often ``noisy`` and its rule ran during ``run()``."""
    CALLS.update(f=0, rule=0)
    run()
    return CALLS["f"], CALLS["rule"]


X = np.ones(3)
PYTHON_CALLS = {one_call: 1, in_a_loop: 4, result_unused: 1, two_calls: 2, in_a_branch: 1,
                in_a_while_loop: 3}
BACKWARD_CALLS = {one_call: 1, in_a_loop: 4, result_unused: 0, two_calls: 2, in_a_branch: 1,
                  in_a_while_loop: 3}


@pytest.mark.parametrize("fn", list(PYTHON_CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp"])
def test_first_and_later_calls_run_it_as_python_does(fn, transform):
    assert counts(lambda: fn(X)) == (PYTHON_CALLS[fn], 0)  # plain Python
    if transform == "vjp":
        def run():
            _, back = st.vjp(fn, X)
            back(1.0)
    else:
        g = getattr(st, transform)(fn)

        def run():
            g(X)
    for _ in range(3):  # the first call compiles: it must not call noisy more often
        assert counts(run) == (PYTHON_CALLS[fn], BACKWARD_CALLS[fn])


def test_value_and_gradient_use_the_same_draw():
    # out = x * r with one draw r: d sum(out)/dx = r, and the value is 3 r
    for _ in range(3):
        value, g = st.value_and_grad(one_call)(X)
        np.testing.assert_allclose(g, np.full(3, value / 3))


def test_the_forward_function_of_the_bridge_calls_it_once():
    torch = st  # the eager runtime speaks PyTorch
    f = st.function(one_call)
    x = torch.tensor(X, requires_grad=True)
    CALLS.update(f=0, rule=0)
    out = f(x)
    assert CALLS == {"f": 1, "rule": 0}
    out.backward()
    assert CALLS == {"f": 1, "rule": 1}
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, float(out) / 3))


def test_no_out_type_and_effects_is_a_located_error_that_says_what_to_do():
    def counted(x):
        CALLS["f"] += 1
        return x * 2.0

    st.register_vjp(counted, lambda g, out, x: (2.0 * g,))

    def uses(x):
        return np.sum(counted(x))

    CALLS.update(f=0)
    with pytest.raises(st.CompileError) as info:
        st.grad(uses)(X)
    text = str(info.value)
    assert "test_effects_once.py" in text and "counted(x)" in text
    assert "out_type=" in text and "does not call it while compiling" in text
    assert CALLS["f"] == 0  # not even to find its type


def test_out_type_given_as_shape_dtype():
    def counted(x):
        CALLS["f"] += 1
        return np.sum(x) * 2.0

    st.register_vjp(counted, lambda g, out, x: (2.0 * g * np.ones_like(x),),
                    out_type=st.ShapeDtype((), np.float64))

    def uses(x):
        return counted(x) * 3.0

    g = st.grad(uses)
    CALLS.update(f=0)
    np.testing.assert_allclose(g(X), np.full(3, 6.0))
    np.testing.assert_allclose(g(X), np.full(3, 6.0))
    assert CALLS["f"] == 2


def test_a_readable_function_is_typed_by_reading_it_not_running_it():
    def double(x):
        return x * 2.0

    st.register_vjp(double, lambda g, out, x: (2.0 * g,))

    def uses(x):
        return np.sum(double(x) ** 2)

    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is double.__code__:
            seen.append(1)

    g = st.grad(uses)
    sys.setprofile(profile)
    try:
        got = g(X)
    finally:
        sys.setprofile(None)
    np.testing.assert_allclose(got, 8.0 * X)
    assert len(seen) == 1  # the compiled code's one call: none while compiling


def test_a_pure_library_function_types_itself_and_gets_its_rule():
    # np.linalg.eigvalsh is pure (no random draw): running it on the example is allowed
    def rule(g, out, a):
        w, v = np.linalg.eigh(a)
        return (v @ np.diag(g) @ v.T,)

    st.register_vjp(np.linalg.eigvalsh, rule)
    try:
        def uses(a):
            return np.sum(np.linalg.eigvalsh(a) ** 3)

        a = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 3.0]])
        check_grads(lambda a: uses((a + a.T) / 2), (a,),
                    lambda a: ((st.grad(uses)(a) + st.grad(uses)(a).T) / 2,))
    finally:
        from st_autodiff.derivatives import CUSTOM_VJPS

        del CUSTOM_VJPS[np.linalg.eigvalsh]


def test_random_library_functions_are_not_run_while_compiling():
    from st_autodiff.transforms.call_types import is_pure_library

    assert is_pure_library(np.linalg.eigh) and is_pure_library(np.exp)
    assert not is_pure_library(np.random.rand)
    assert not is_pure_library(np.random.default_rng(0).normal)
    assert not is_pure_library(noisy)


@st.custom_jvp(out_type=lambda x: x)
def counted_tanh(x):
    CALLS["f"] += 1
    return np.tanh(x)


@counted_tanh.defjvp
def _counted_tanh_jvp(primals, tangents):
    CALLS["rule"] += 1
    (x,), (t,) = primals, tangents
    y = np.tanh(x)
    return y, (1.0 - y * y) * t


def uses_tanh(x):
    return np.sum(counted_tanh(x) * 3.0)


def test_jvp_calls_the_function_once_and_the_rule_once():
    t = np.array([1.0, 0.5, -1.0])
    for _ in range(3):
        CALLS.update(f=0, rule=0)
        value, tangent = st.jvp(uses_tanh, (X,), (t,))
        assert CALLS == {"f": 1, "rule": 1}
        np.testing.assert_allclose(tangent, np.sum(3.0 * (1 - np.tanh(X) ** 2) * t))


def test_grad_through_a_custom_jvp_whose_rule_has_effects_transposes_it_numerically():
    with pytest.warns(st.custom.NumericTransposeWarning, match="effects"):
        got = st.grad(uses_tanh)(X)
    np.testing.assert_allclose(got, 3.0 * (1 - np.tanh(X) ** 2))
    CALLS.update(f=0, rule=0)
    st.grad(uses_tanh)(X)
    assert CALLS["f"] == 1  # the function once; the rule once per input element


def test_a_rule_with_effects_is_not_read_for_second_derivatives():
    with pytest.raises(st.NoRuleError, match="has effects"):
        st.hessian(one_call)(X)


class _Log:
    """A module-like holder of a helper with an effect, called as ``LOG.write(x)``."""

    @staticmethod
    def write(x):
        CALLS["rule"] += 1
        return x


LOG = _Log()


def test_the_effect_scan_follows_called_functions_but_not_numpy():
    from st_autodiff.transforms.call_types import effect_free

    def helper(x):
        CALLS["f"] += 1
        return x

    def calls_helper(x):
        return helper(x) * 2.0

    def calls_method(x):
        return LOG.write(x) * 2.0

    def local_list(x):
        ys = []
        for i in range(3):
            ys.append(x * i)
        out = np.zeros(3)
        out[0] = np.sum(np.stack(ys))
        return out

    def prints(x):
        print(x)
        return x

    def writes_argument(x):
        x[0] = 1.0
        return x

    assert effect_free(local_list) and effect_free(double_it)
    for fn in (helper, calls_helper, calls_method, prints, writes_argument, noisy):
        assert not effect_free(fn), fn.__name__


def double_it(x):
    return np.sum(np.linalg.norm(x) * x) * 2.0


def distinct(x):
    CALLS["f"] += 1
    return np.unique(x)


st.register_vjp(distinct, lambda g, out, x: (np.zeros_like(x),),
                out_type=st.ShapeDtype(None, np.float64))  # the length depends on the data


def uses_distinct(x):
    return np.sum(distinct(x) ** 2) + np.sum(x * 3.0)


def test_an_output_shape_known_only_at_run_time():
    g = st.value_and_grad(uses_distinct)
    CALLS.update(f=0)
    assert g(np.array([1.0, 2.0, 2.0]))[0] == pytest.approx(5.0 + 15.0)
    value, grad = g(np.array([1.0, 2.0, 2.0, 4.0]))  # same kind, another unique length
    assert value == pytest.approx(21.0 + 27.0)
    np.testing.assert_allclose(grad, np.full(4, 3.0))
    assert CALLS["f"] == 2


SINGULAR = np.zeros((2, 2))


def branch_on_a_call(x):
    if np.sum(noisy(x)) > 0.0:  # the stand-in (zeros) would say "not taken"
        return np.sum(x * 2.0)
    return np.sum(x) * np.linalg.inv(SINGULAR)[0, 0]  # fails on the examples: never runs


def test_a_branch_on_a_call_is_not_decided_by_its_stand_in():
    x = np.ones(2)
    for _ in range(2):
        CALLS.update(f=0, rule=0)
        np.testing.assert_allclose(st.grad(branch_on_a_call)(x), [2.0, 2.0])
        assert CALLS["f"] == 1


def shape_of_a_call(x):
    y = noisy(x)
    out = np.zeros(y.shape[0] + 1)  # the shape of a call's output is known when compiling
    out[1:] = y
    return np.sum(out * 2.0)


def test_the_shape_of_a_call_is_static():
    CALLS.update(f=0, rule=0)
    value, g = st.value_and_grad(shape_of_a_call)(X)
    np.testing.assert_allclose(g, np.full(3, value / 3))
    assert CALLS == {"f": 1, "rule": 1}


COUNTS_VJP = {"f": 0, "fwd": 0, "bwd": 0}


@st.custom_vjp(out_type=lambda x: x)  # it counts: not readable for its type
def counted_square(x):
    COUNTS_VJP["f"] += 1
    return x * x


def _square_fwd(x):
    COUNTS_VJP["fwd"] += 1
    return counted_square(x), 2.0 * x  # JAX's usual fwd: calls f


def _square_bwd(two_x, g):
    COUNTS_VJP["bwd"] += 1
    return (g * two_x,)


counted_square.defvjp(_square_fwd, _square_bwd)


def square_in_a_loop(x):
    s = 0.0
    for _ in range(3):
        s = s + np.sum(counted_square(x + s))
    return s


def square_once(x):
    return np.sum(counted_square(x))


@pytest.mark.parametrize("loss, n", [(square_once, 1), (square_in_a_loop, 3)])
def test_custom_vjp_runs_fwd_once_and_bwd_once_as_jax_does(loss, n):
    x = np.array([0.5, -1.0])
    g = st.grad(loss)
    for _ in range(2):
        COUNTS_VJP.update(f=0, fwd=0, bwd=0)
        g(x)
        assert COUNTS_VJP == {"f": n, "fwd": n, "bwd": n}  # f only inside fwd
    check_grads(loss, (x,), lambda x: (g(x),))


def tripled(x):
    CALLS["f"] += 1
    return x * 3.0


def _tripled_rule(g, out, x):  # readable and without effects: read again for 2nd order
    return (g * 3.0,)


st.register_vjp(tripled, _tripled_rule, out_type=lambda x: x)


def tripled_loss(x):
    return np.sum(tripled(x) ** 2)


def test_reverse_over_reverse_calls_it_once_per_evaluation():
    h = st.hessian(tripled_loss, mode="reverse")
    for _ in range(2):
        CALLS.update(f=0)
        np.testing.assert_allclose(h(X), 18.0 * np.eye(3))
        assert CALLS["f"] == 1
