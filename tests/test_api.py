"""The public compiler API: ``grad``, ``value_and_grad`` and ``vjp`` as a user calls them.

Argument selection (``wrt``), decorator forms, ``has_aux``, keyword arguments, the
specialisation cache, the correctness traps every AD system must get right (broadcast
divisors, repeated fancy indices, dtypes, 0-d arrays, ties), and the readable-code
promises: ``inspect.getsource``, tracebacks through generated lines, ``stages()`` and
deterministic output.
"""

from __future__ import annotations

import inspect
import linecache
import traceback

import numpy as np
import pytest

import st_autodiff as st

RNG = np.random.default_rng(0)


def product(x, y):
    return np.sum(x * y * y)


def loss(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2)


def loss_and_pred(x):
    total = np.sum(x**2)
    return total, x * 2.0


def mlp_args(dtype=np.float64):
    return [RNG.standard_normal(s).astype(dtype) for s in ((3, 2), (4, 3), (4, 2))]


def loss_grads(w, x, y):
    """Hand-written gradient of ``loss`` with respect to (w, x, y)."""
    h = np.tanh(x @ w)
    dh = 2.0 * (h - y) / h.size
    dpre = dh * (1.0 - h**2)
    return x.T @ dpre, dpre @ w.T, -dh


X = np.array([1.0, 2.0, 3.0])
Y = np.array([0.5, -1.0, 2.0])


# --- wrt ------------------------------------------------------------------------------


@pytest.mark.parametrize("wrt", [1, -1, "y"])
def test_wrt_single_forms_give_one_gradient(wrt):
    g = st.grad(product, wrt=wrt)(X, Y)
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, 2 * X * Y)


def test_wrt_default_is_first_argument():
    np.testing.assert_allclose(st.grad(product)(X, Y), Y * Y)


@pytest.mark.parametrize("wrt", [(0, 1), ("x", "y"), (0, "y"), ("x", -1)])
def test_wrt_tuple_gives_tuple(wrt):
    g = st.grad(product, wrt=wrt)(X, Y)
    assert isinstance(g, tuple) and len(g) == 2
    np.testing.assert_allclose(g[0], Y * Y)
    np.testing.assert_allclose(g[1], 2 * X * Y)


def test_wrt_one_element_tuple_gives_one_tuple():
    g = st.grad(product, wrt=(1,))(X, Y)
    assert isinstance(g, tuple) and len(g) == 1
    np.testing.assert_allclose(g[0], 2 * X * Y)


def test_wrt_order_is_kept():
    gy, gx = st.grad(product, wrt=("y", "x"))(X, Y)
    np.testing.assert_allclose(gx, Y * Y)
    np.testing.assert_allclose(gy, 2 * X * Y)


def test_mlp_loss_matches_hand_gradient():
    args = mlp_args()
    got = st.grad(loss, wrt=(0, 1, 2))(*args)
    for g, want in zip(got, loss_grads(*args)):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14)


# --- decorator forms ------------------------------------------------------------------


def test_bare_decorator():
    @st.grad
    def cube_sum(x):
        return np.sum(x**3)

    np.testing.assert_allclose(cube_sum(X), 3 * X**2)
    assert cube_sum.__name__ == "cube_sum"


def test_decorator_with_arguments():
    @st.grad(wrt="y")
    def dot(x, y):
        return np.sum(x * y)

    np.testing.assert_allclose(dot(X, Y), X)


def test_one_line_def_decorated():
    @st.value_and_grad(wrt=(0, 1))
    def dot(x, y): return np.sum(x * y)  # fmt: skip

    value, (gx, gy) = dot(X, Y)
    assert value == pytest.approx(np.sum(X * Y))
    np.testing.assert_allclose(gx, Y)
    np.testing.assert_allclose(gy, X)


def test_value_and_grad_returns_value_then_gradient():
    args = mlp_args()
    value, (gw, gx) = st.value_and_grad(loss, wrt=("w", "x"))(*args)
    assert value == pytest.approx(loss(*args))
    want = loss_grads(*args)
    np.testing.assert_allclose(gw, want[0])
    np.testing.assert_allclose(gx, want[1])


# --- has_aux --------------------------------------------------------------------------


def test_grad_has_aux_returns_gradient_and_aux():
    g, aux = st.grad(loss_and_pred, has_aux=True)(X)
    np.testing.assert_allclose(g, 2 * X)
    np.testing.assert_allclose(aux, 2 * X)


def test_value_and_grad_has_aux_returns_value_aux_then_gradient():
    (value, aux), g = st.value_and_grad(loss_and_pred, has_aux=True)(X)
    assert value == pytest.approx(np.sum(X**2))
    np.testing.assert_allclose(aux, 2 * X)
    np.testing.assert_allclose(g, 2 * X)


# --- vjp ------------------------------------------------------------------------------


def tanh_layer(x, a):
    return np.tanh(a @ x)


def test_vjp_of_vector_output_matches_hand_computation():
    a = np.arange(6.0).reshape(2, 3) / 10
    out, vjp_fn = st.vjp(tanh_layer, X, a)
    np.testing.assert_allclose(out, np.tanh(a @ X))
    ct = np.array([1.0, -2.0])
    gx, ga = vjp_fn(ct)
    pre_bar = ct * (1 - np.tanh(a @ X) ** 2)
    np.testing.assert_allclose(gx, a.T @ pre_bar)
    np.testing.assert_allclose(ga, np.outer(pre_bar, X))


def test_vjp_gives_none_for_integer_arguments():
    def scaled(x, n):
        return x * n

    _, vjp_fn = st.vjp(scaled, X, 3)
    gx, gn = vjp_fn(np.ones(3))
    np.testing.assert_allclose(gx, [3.0, 3.0, 3.0])
    assert gn is None


# --- calling conventions and the cache ------------------------------------------------


def weighted(x, scale=2.0, p=2):
    return np.sum(scale * x**p)


def test_keyword_arguments_and_defaults():
    g = st.grad(weighted)
    np.testing.assert_allclose(g(X), 2.0 * 2 * X)
    np.testing.assert_allclose(g(X, scale=3.0), 3.0 * 2 * X)
    np.testing.assert_allclose(g(X, p=3), 2.0 * 3 * X**2)
    np.testing.assert_allclose(g(x=X, scale=1.0), 2 * X)
    np.testing.assert_allclose(g(X, 1.0, 3), 3 * X**2)


def test_missing_argument_is_a_type_error_naming_the_function():
    with pytest.raises(TypeError, match="weighted"):
        st.grad(weighted)(scale=1.0)


def test_second_call_with_same_kinds_does_not_recompile():
    g = st.grad(product)
    g.cache_clear()  # st.grad(product) of another test shares its specialisations
    builds = []
    real_build = g._build
    g._build = lambda *a: builds.append(1) or real_build(*a)
    g(X, Y)
    g(X + 1.0, Y * 2.0)
    assert len(builds) == 1
    assert len(g._compiled) == 1


def test_new_shape_or_dtype_compiles_a_new_specialisation():
    g = st.grad(product)
    g.cache_clear()
    g(X, Y)
    g(np.ones(4), np.ones(4))
    assert len(g._compiled) == 2
    got = g(X.astype(np.float32), Y.astype(np.float32))
    assert len(g._compiled) == 3
    assert got.dtype == np.float32
    g(np.ones(4), np.ones(4))
    assert len(g._compiled) == 3


def power_sum(x, n):
    return np.sum(x**n)


def test_int_arguments_are_compile_time_constants():
    g = st.grad(power_sum)
    g.cache_clear()
    np.testing.assert_allclose(g(X, 2), 2 * X)
    np.testing.assert_allclose(g(X, 3), 3 * X**2)
    assert len(g._compiled) == 2
    g(X, 2)
    assert len(g._compiled) == 2
    # the int is folded into each specialisation rather than read at run time
    sources = {key[1]: c.generated.source for key, c in g._compiled.items()}
    assert "x_bar = out_bar * 2 * x\n" in sources[(int, 2)]
    assert "x_bar = out_bar * 3 * x ** 2\n" in sources[(int, 3)]
    # grad returns no value, so the forward sum is not computed at all
    assert "xp.sum" not in sources[(int, 2)]


# --- correctness traps ----------------------------------------------------------------


def divide(x, d):
    return np.sum(x / d)


@pytest.mark.parametrize("d", [np.arange(1.0, 5.0), np.arange(1.0, 5.0).reshape(1, 4),
                               np.array([[2.0]])], ids=["(4,)", "(1,4)", "(1,1)"])
def test_gradient_of_broadcast_divisor_has_the_divisor_shape(d):
    x = np.arange(1.0, 13.0).reshape(3, 4)
    gx, gd = st.grad(divide, wrt=(0, 1))(x, d)
    assert gd.shape == d.shape
    np.testing.assert_allclose(gd, np.sum(-x / d**2, axis=0).reshape(d.shape)
                               if d.size > 1 else np.full(d.shape, np.sum(-x / d**2)))
    np.testing.assert_allclose(gx, np.broadcast_to(1.0 / d, x.shape))


def test_gradient_of_python_float_divisor_is_a_float():
    x = np.arange(1.0, 13.0).reshape(3, 4)
    gd = st.grad(divide, wrt=1)(x, 2.0)
    assert isinstance(gd, float) and not isinstance(gd, np.ndarray)
    assert gd == pytest.approx(np.sum(-x / 4.0))


def test_gradient_of_0d_divisor_is_a_0d_array():
    x = np.arange(1.0, 13.0).reshape(3, 4)
    gd = st.grad(divide, wrt=1)(x, np.array(2.0))
    assert isinstance(gd, np.ndarray) and gd.shape == () and gd.dtype == np.float64
    assert float(gd) == pytest.approx(np.sum(-x / 4.0))


def test_repeated_fancy_indices_accumulate():
    def pick(x):
        return x[[0, 0, 2]].sum()

    np.testing.assert_allclose(st.grad(pick)(np.arange(3.0)), [2.0, 0.0, 1.0])


def test_repeated_runtime_indices_accumulate():
    def pick(x, i):
        return np.sum(x[i] * 2.0)

    got = st.grad(pick)(np.arange(3.0), np.array([0, 0, 2]))
    np.testing.assert_allclose(got, [4.0, 0.0, 2.0])


def test_float32_inputs_give_float32_value_and_gradients():
    args = mlp_args(np.float32)
    value, grads = st.value_and_grad(loss, wrt=(0, 1, 2))(*args)
    assert np.asarray(value).dtype == np.float32
    assert [g.dtype for g in grads] == [np.float32] * 3
    want = loss_grads(*[a.astype(np.float64) for a in args])
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def squared_sum(x):
    return np.sum(x * x)


def triple(x):
    return x * 3.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn, want", [(squared_sum, 6.0), (triple, 3.0)])
def test_0d_array_in_gives_0d_array_out(fn, want, dtype):
    g = st.grad(fn)(np.array(3.0, dtype=dtype))
    assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == dtype
    assert float(g) == want


def test_numpy_scalar_in_gives_numpy_scalar_out():
    g = st.grad(triple)(np.float32(2.0))
    assert isinstance(g, np.float32) and g == 3.0


@pytest.mark.parametrize("fn, want", [(triple, 3.0), (lambda x: x * x, 6.0)])
def test_python_float_in_gives_float_out(fn, want):
    value, g = st.value_and_grad(fn)(3.0)
    assert isinstance(g, float) and not isinstance(g, np.ndarray)
    assert isinstance(value, float)
    assert g == want


def test_ties_in_max_and_min_split_the_gradient():
    def top(x):
        return np.max(x)

    def bottom(x):
        return x.min()

    def row_max(x):
        return np.sum(np.max(x, axis=1))

    np.testing.assert_allclose(st.grad(top)(np.array([1.0, 3.0, 3.0])), [0, 0.5, 0.5])
    np.testing.assert_allclose(st.grad(bottom)(np.array([1.0, 1.0, 3.0])), [0.5, 0.5, 0])
    np.testing.assert_allclose(st.grad(row_max)(np.array([[1.0, 1.0], [0.0, 2.0]])),
                               [[0.5, 0.5], [0.0, 1.0]])


def test_ties_in_maximum_and_minimum_split_the_gradient():
    def hi(x, y):
        return np.sum(np.maximum(x, y))

    def lo(x, y):
        return np.sum(np.minimum(x, y))

    a, b = np.array([1.0, 2.0]), np.array([1.0, 0.0])
    ga, gb = st.grad(hi, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, [0.5, 1.0])
    np.testing.assert_allclose(gb, [0.5, 0.0])
    ga, gb = st.grad(lo, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(ga, [0.5, 0.0])
    np.testing.assert_allclose(gb, [0.5, 1.0])


# --- reading and debugging the generated code -----------------------------------------


def test_getsource_is_the_generated_source():
    g = st.grad(loss)
    g(*mlp_args())
    assert inspect.getsource(g) == g.source
    assert g.source.startswith("def loss_grad(w, x, y, out_bar=1.0):")


def test_signature_is_the_functions_and_compiles_nothing_it_cannot():
    def f(x, y=2.0, *, scale=1.0):
        if isinstance(x, float):  # the generated code depends on the argument's type
            return x * y * scale
        return np.sum(x * y) * scale

    for product in (st.grad, st.value_and_grad, st.jacfwd, st.jacrev, st.hessian):
        sig = inspect.signature(product(f))  # (it was the compile error of the isinstance)
        assert str(sig) == "(x, y=2.0, *, scale=1.0)", (product, sig)  # no out_bar
    g = st.grad(f)
    assert g(np.ones(2), scale=3.0) == pytest.approx(np.full(2, 6.0))
    assert inspect.getsource(g).startswith("def f_grad(x, y=2.0, scale=1.0, out_bar=1.0)")


def test_generated_code_is_registered_with_linecache():
    g = st.grad(loss)
    g(*mlp_args())
    filename = g.__wrapped__.__code__.co_filename
    assert filename in linecache.cache
    assert "".join(linecache.getlines(filename)) == g.source


def pick_twice(x, i):
    return np.sum(x[i] * 2.0)


def test_runtime_error_traceback_shows_the_generated_line():
    g = st.value_and_grad(pick_twice)  # grad alone would not compute the (failing) value
    g(np.arange(3.0), np.array([0, 0, 2]))
    with pytest.raises(IndexError) as info:
        g(np.arange(3.0), np.array([0, 0, 5]))  # same kinds: runs the cached code
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = g.__wrapped__.__code__.co_filename
    inner = [f for f in frames if f.filename == generated]
    assert inner, [f.filename for f in frames]
    assert inner[-1].line == "out = xp.sum(x[i] * 2.0)"
    assert "out = xp.sum(x[i] * 2.0)" in "".join(traceback.format_exception(info.value))


def test_stages_are_every_pass_in_order():
    g = st.grad(loss)
    g(*mlp_args())
    stages = g.stages()
    assert list(stages) == ["parse", "lower", "activity", "adjoint", "optimize", "codegen"]
    assert stages["lower"] == g.ir
    assert stages["optimize"] == g.adjoint_ir
    assert stages["codegen"] == g.source
    assert stages["parse"].lstrip().startswith("def loss(w, x, y):")
    assert stages["activity"].startswith("active: %w")


def test_source_is_available_before_the_first_call():
    def product_z(x, y):
        z = x * y
        return z.sum()

    source = st.grad(product_z).source
    assert source.startswith("def product_z_grad(x, y, out_bar=1.0):")
    assert "x_bar" in source


def test_compiling_twice_is_deterministic():
    args = mlp_args()
    a, b = st.grad(loss, wrt=(0, 1)), st.grad(loss, wrt=(0, 1))
    a(*args)
    b(*args)
    assert a.source == b.source
    assert a.ir == b.ir
    assert a.adjoint_ir == b.adjoint_ir
    assert a.stages() == b.stages()
    assert a.__wrapped__.__code__.co_filename == b.__wrapped__.__code__.co_filename


def log_softmax_loss(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True)) + m
    return -np.mean(np.sum(labels * (logits - lse), axis=1))


def test_stable_logsumexp_is_differentiated_as_one_op():
    rng = np.random.default_rng(3)
    logits, labels = rng.normal(size=(5, 4)), np.eye(4)[[0, 3, 1, 1, 2]]
    g = st.grad(log_softmax_loss)
    got = g(logits, labels)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, (p - labels) / 5, rtol=1e-12, atol=1e-15)
    # the shift by max(a) has a zero gradient: no tie mask for max is computed, and the
    # softmax reuses the forward's exp and sum (grad does not even compute lse)
    code = "\n".join(ln for ln in g.source.splitlines() if not ln.strip().startswith("#"))
    assert "== m" not in code and "logits - lse" not in code
    assert "logits_bar = _t2 + _t0 * (lse_bar / _t1)" in code


def test_the_public_api_docstring_examples_run():
    import doctest

    import st_autodiff.api

    result = doctest.testmod(st_autodiff.api)
    assert result.attempted >= 2 and result.failed == 0


def _argnums_loss(w, x):
    return np.sum(np.sin(w) * x ** 2)


def test_argnums_is_jax_name_for_wrt():
    w, x = np.array([0.3, -0.7]), np.array([1.5, 2.0])
    gw, gx = st.grad(_argnums_loss, argnums=(0, 1))(w, x)
    np.testing.assert_allclose(gw, np.cos(w) * x ** 2)
    np.testing.assert_allclose(gx, 2 * np.sin(w) * x)
    val, g = st.value_and_grad(_argnums_loss, argnums=1)(w, x)
    assert val == pytest.approx(_argnums_loss(w, x))
    np.testing.assert_allclose(g, 2 * np.sin(w) * x)
    with pytest.raises(TypeError, match="both wrt and argnums"):
        st.grad(_argnums_loss, wrt=0, argnums=1)
