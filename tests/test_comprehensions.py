"""Comprehensions, generator expressions and generator functions through the compiler.

Each differentiated function is checked against float64 central differences and, where
the same code runs under JAX, against ``jax.grad``.  Python 3 scoping is checked
exactly (loop variables do not leak, closures bind late), and every construct that
stays refused must be refused with a location in the user's code.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StAutodiffError
from st_autodiff.testing import check_grads

X = np.array([0.3, 0.7, 1.1])
WS = (np.arange(6.0).reshape(2, 3) / 5.0, np.ones((2, 3)) * 0.5)
SCALES = {"a": 1.5, "b": -0.5}


def check(f, *args):
    """Value equal to Python's, gradient (wrt the first argument) equal to central
    differences; returns the gradient."""
    value, grad = st.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_grads(f, args, lambda *a: (st.grad(f)(*a),) + (None,) * (len(a) - 1),
                argnums=[0])
    return grad


# --- list comprehensions -------------------------------------------------------------------

def scaled_copies(x):
    ys = [x * i for i in range(3)]
    return np.sum(ys[0] + ys[1] + ys[2])


def test_tangent_ad_regression_gives_three_not_five():
    # tangent-ad's comprehension path gave [5, 5, 5]: each item must be x * i
    np.testing.assert_array_equal(check(scaled_copies, X), [3.0, 3.0, 3.0])


def weights_sum(h):
    return sum(np.sum(W @ h) for W in WS)


def weights_argument(h, ws):
    return sum(np.sum(np.tanh(W @ h)) for W in ws)


def test_over_a_tuple_of_parameters():
    check(weights_sum, X)
    check(weights_argument, X, WS)


def pairwise(x):
    return sum(x[i] * x[j] ** 2 for i in range(3) for j in range(i + 1))


def nested(x):
    table = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    return np.sum(np.array(table) ** 2)


def test_multiple_for_clauses_and_nested_comprehensions():
    check(pairwise, X)
    check(nested, X)


def static_filter(x):
    return np.sum(np.stack([x[i] * x for i in range(4) if i % 2 == 0 if i < 3]))


def runtime_filter_rows(m):
    kept = [np.sin(row) for row in m if np.sum(row) > 1.0]
    return sum(np.sum(r) for r in kept) if kept else 0.0


def runtime_filter_range(x):
    return np.sum(np.stack([x * x[i] for i in range(3) if x[i] > 0.5]))


def test_filters_static_and_on_runtime_data():
    check(static_filter, X)
    check(runtime_filter_range, X)
    m = np.array([[0.2, 0.3], [0.9, 0.8], [1.5, -0.1]])
    check(runtime_filter_rows, m)


def zipped_rows(w):
    terms = [(x @ w - y) ** 2 for x, y in zip(WS[0], np.array([0.1, 0.2]))]
    return sum(terms) / len(terms)


def enumerated(x):
    return np.sum(np.stack([x * (k + 1) + v for k, v in enumerate(x)]))


def test_zip_enumerate_and_rows():
    check(zipped_rows, X)
    check(enumerated, X)


def dict_of_params(x):
    d = {k: x * v for k, v in SCALES.items()}
    return np.sum(d["a"] * d["b"]) + len({k for k in d})


def test_dict_and_set_comprehensions():
    check(dict_of_params, X)


def in_loop_body(x):
    s = 0.0
    for k in range(3):  # a loop region: the comprehension unrolls in its body
        s = s + np.sum(np.stack([x ** 2 * k + j for j in range(2)]))
    return s


def over_runtime_list(x):
    hs = []
    for i in range(3):  # a runtime list (a loop builds it)
        hs.append(x * i)
    return np.sum(np.stack([np.sin(h) for h in hs]))


def long_range(x):
    return sum(x[i % 3] * np.cos(i * 0.01) for i in range(300))  # above the unroll limit


def test_in_loops_over_runtime_lists_and_long_ranges():
    check(in_loop_body, X)
    check(over_runtime_list, X)
    check(long_range, X)


def test_second_order_and_forward_mode():
    def f(x):
        return np.sum(np.stack([np.sin(x * i) * x[i] for i in range(3)]))

    h = st.hessian(f)(X)
    eps = 1e-5
    g = st.grad(f)
    fd = np.stack([(g(X + eps * e) - g(X - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-7)
    v = np.array([0.5, -1.0, 2.0])
    value, tangent = st.jvp(f, (X,), (v,))
    np.testing.assert_allclose(value, f(X))
    np.testing.assert_allclose(tangent, g(X) @ v, rtol=1e-10)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def ours(x):
        ys = [x * i for i in range(3)]
        return np.sum(ys[0] + ys[1] + ys[2]) + sum(np.sum(np.tanh(W @ x)) for W in WS)

    def theirs(x):
        ys = [x * i for i in range(3)]
        return jnp.sum(ys[0] + ys[1] + ys[2]) + sum(jnp.sum(jnp.tanh(W @ x)) for W in WS)

    np.testing.assert_allclose(st.grad(ours)(X), jax.grad(theirs)(X), rtol=1e-12)


# --- scoping -------------------------------------------------------------------------------

def loop_variable_does_not_leak(x):
    i = 5.0
    ys = [x * i for i in range(3)]
    return np.sum(ys[2]) * i  # i is still 5.0


def late_binding(x):
    fs = [lambda: x * i for i in range(3)]  # noqa: B023  (every closure sees the last i)
    return np.sum(fs[0]() + fs[1]())


def early_binding(x):
    fs = [lambda i=i: x * i for i in range(3)]
    return np.sum(fs[0]() + 2.0 * fs[1]())


def reads_comprehension_variable(x):
    ys = [x * j for j in range(2)]
    return np.sum(ys[0]) + j  # noqa: F821  (NameError in Python too)


def test_python3_scoping():
    np.testing.assert_allclose(check(loop_variable_does_not_leak, X), [10.0] * 3)
    np.testing.assert_allclose(check(late_binding, X), [4.0] * 3)
    np.testing.assert_allclose(check(early_binding, X), [2.0] * 3)
    with pytest.raises(CompileError, match="name 'j' is not defined") as info:
        st.grad(reads_comprehension_variable)(X)
    assert info.value.loc.line == _line(reads_comprehension_variable, "+ j")


# --- generator expressions -----------------------------------------------------------------

def consumers(x):
    total = sum(v * v for v in x)
    a, b, c = (np.exp(v) for v in x)
    big = max(v * 2.0 for v in x) - min(v ** 2 for v in x)
    t = tuple(v + 1.0 for v in x)
    ok = 1.0 if all(len(w) == 2 for w in WS) and any(w.shape[0] > 1 for w in WS) else 0.0
    d = dict((k, x * s) for k, s in SCALES.items())
    label = ",".join(k for k in SCALES)
    return total + a * b + c + big + t[2] + np.sum(d["b"]) * ok + len(label)


def zipped_generators(x):
    s = 0.0
    for p, q in zip((v * 2.0 for v in x), (np.sin(v) for v in x)):
        s = s + p * q
    return s


def stored_generator(x):
    terms = (np.sin(v) * k for k, v in enumerate(x))
    return sum(terms) + sum(terms)  # the second sum sees an exhausted generator


def _total(items):
    return sum(items)


def passed_to_a_function(x):
    return _total(np.sin(v) * v for v in x)


def test_generator_expression_consumers():
    check(consumers, X)
    check(passed_to_a_function, X)
    check(zipped_generators, X)
    g = check(stored_generator, X)
    np.testing.assert_allclose(g, np.cos(X) * np.arange(3))


def numpy_sum_of_generator(x):
    return np.sum(np.sin(v) for v in x)  # TypeError in NumPy 2.4 (deprecated before)


def rebound_after(x):
    a = 2.0
    g = (v * a for v in x)
    a = 3.0
    return sum(g)  # Python: 3.0 * sum(x)


def written_between(x):
    y = x.copy()
    g = (v * 2.0 for v in y)
    y[0] = 10.0
    return sum(g)


def written_while_iterating(x):
    y = x * 1.0
    s = 0.0
    for v in (y[i] * 2.0 for i in range(3)):
        y[2] = v
        s = s + v
    return s


def consumed_in_a_branch(x):
    g = (v * 2.0 for v in x)
    if np.sum(x) > 1.0:
        s = sum(g)
    else:
        s = max(g)
    return s


def stack_of_generator(x):
    return np.sum(np.stack(v * 2.0 for v in x))


def filter_over_python_tuple(x):
    return np.sum(np.stack([v for v in (x, 2.0 * x) if np.sum(v) > 1.0]))


CONSTS = tuple(float(c) for c in np.linspace(0.0, 1.0, 300))


def too_long_python_list(x):
    return sum(x * c for c in CONSTS)


@pytest.mark.parametrize("fn, token, message", [
    (rebound_after, "sum(g)", "a may be assigned after it was made"),
    (written_between, "sum(g)", "was changed in place since it was made"),
    (written_while_iterating, "y[i] * 2.0 for", "changes a list, dict or array in place while it"),
    (stack_of_generator, "np.stack(", "np.stack() of a generator"),
    (consumed_in_a_branch, "sum(g)", "inside an if or a loop that the generator is not in"),
    (numpy_sum_of_generator, "np.sum(", "np.sum() of a generator"),
    (filter_over_python_tuple, "np.sum(v) > 1.0", "filter depends on values known only"),
    (too_long_python_list, "CONSTS)", "unrolled into 300 copies"),
])
def test_refusals_are_located(fn, token, message):
    with pytest.raises(StAutodiffError, match=message.replace("(", r"\(").replace(")", r"\)")
                       ) as info:
        st.grad(fn)(X)
    loc = info.value.loc
    line, col = _line(fn, token), _col(fn, token)
    assert (loc.line, loc.col) == (line, col), str(info.value)


# --- generator functions -------------------------------------------------------------------

def powers(x, n):
    p = x
    for _ in range(n):
        yield p
        p = p * x


def halves(x):
    yield x[0]
    yield from (x[i] / 2.0 for i in range(1, 3))


def uses_generator_functions(x):
    s = np.sum(sum(powers(x, 3)))
    for v in powers(x, 2):
        s = s + np.sum(np.sin(v))
    s = s + np.sum(np.stack(list(powers(x, 2))))
    for a, b in zip(powers(x[:1], 2), halves(x)):
        s = s + np.sum(a * b)
    g = powers(x, 3)
    first = next(g)
    return s + sum(halves(x)) + np.sum(first) + np.sum(sum(g))


def is_a_generator(x):
    yield np.sum(x)


def sends_into_generator(x):
    def gen(y):
        got = yield y
        yield got

    return sum(gen(x))


def test_generator_functions():
    check(uses_generator_functions, X)
    with pytest.raises(CompileError, match="is a generator function") as info:
        st.grad(is_a_generator)(X)
    assert info.value.loc.line == _line(is_a_generator, "yield np.sum")
    with pytest.raises(StAutodiffError, match="yield inside an expression") as info:
        st.grad(sends_into_generator)(X)
    assert info.value.loc.line == _line(sends_into_generator, "got = yield")


def test_code_without_comprehensions_is_unchanged():
    # the comprehension machinery adds no node to code that has none
    def f(x):
        ys = []
        for i in range(3):
            ys.append(x * i)
        return np.sum(ys[0] + ys[1] + ys[2])

    assert st.grad(f)(X).tolist() == st.grad(scaled_copies)(X).tolist() == [3.0] * 3


def _line(fn, token: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, text in enumerate(lines) if token in text]
    assert hits, token
    return hits[0]


def _col(fn, token: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return next(text.index(token) + 1 for text in lines if token in text)
