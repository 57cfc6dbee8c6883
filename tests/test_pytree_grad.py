"""grad and value_and_grad of functions taking tuples, lists and dicts of arrays and
floats (pytrees, JAX's convention): the gradient of a differentiated argument has its
structure, checked against float64 central differences and, when installed, JAX."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff import trees

X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
PARAMS = {"W": np.arange(6.0).reshape(3, 2) / 10, "b": np.array([0.1, -0.2])}


def mlp_loss(p, x):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2) + 0.1 * np.sum(p["W"] ** 2)


def pair_loss(ws, x):
    w1, w2 = ws
    return np.sum(np.sin(x @ w1) * w2)


def nested_loss(p):
    return np.sum(p["a"][0] * p["a"][1]) + p["s"] ** 2 + 0.0 * p["n"]


def fd_tree(f, tree, h=1e-6):
    leaves, spec = trees.flatten(tree)
    out = []
    for k, leaf in enumerate(leaves):
        if not isinstance(leaf, (float, np.ndarray)):
            out.append(None)
            continue
        arr = np.array(leaf, dtype=np.float64)
        g = np.zeros_like(arr)
        for i in range(arr.size):
            for sign in (1, -1):
                moved = arr.copy()
                moved.flat[i] += sign * h
                new = list(leaves)
                new[k] = moved if isinstance(leaf, np.ndarray) else float(moved)
                g.flat[i] += sign * f(trees.unflatten(spec, new)) / (2 * h)
        out.append(g if isinstance(leaf, np.ndarray) else float(g))
    return trees.unflatten(spec, out)


def assert_tree_close(got, want):
    g_leaves, g_spec = trees.flatten(got)
    w_leaves, w_spec = trees.flatten(want)
    assert repr(g_spec) == repr(w_spec)
    for a, b in zip(g_leaves, w_leaves):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_dict_of_parameters():
    g = st.grad(mlp_loss)(PARAMS, X)
    assert set(g) == {"W", "b"}
    assert_tree_close(g, fd_tree(lambda p: mlp_loss(p, X), PARAMS))


def test_value_and_grad_of_a_dict_and_an_array():
    val, (gp, gx) = st.value_and_grad(mlp_loss, wrt=(0, 1))(PARAMS, X)
    assert val == pytest.approx(mlp_loss(PARAMS, X))
    assert_tree_close(gp, fd_tree(lambda p: mlp_loss(p, X), PARAMS))
    np.testing.assert_allclose(gx, fd_tree(lambda x: mlp_loss(PARAMS, x), X), rtol=1e-6)


def test_tuple_of_arrays():
    ws = (np.full((3, 2), 0.3), np.array([1.0, 2.0]))
    g = st.grad(pair_loss)(ws, X)
    assert isinstance(g, tuple) and len(g) == 2
    assert_tree_close(g, fd_tree(lambda w: pair_loss(w, X), ws))


def test_nested_structure_with_an_int_leaf():
    p = {"a": [np.ones(2), np.full(2, 3.0)], "s": 1.5, "n": 2}
    g = st.grad(nested_loss)(p)
    assert g["n"] is None  # not floating point: no gradient, as in vjp
    assert g["s"] == pytest.approx(3.0)
    np.testing.assert_allclose(g["a"][0], [3.0, 3.0])
    np.testing.assert_allclose(g["a"][1], [1.0, 1.0])


def test_compiled_once_per_structure():
    g = st.grad(mlp_loss)
    g(PARAMS, X)
    g({"W": PARAMS["W"] * 2, "b": PARAMS["b"]}, X)
    assert len(g._trees) == 1
    g({"W": PARAMS["W"], "b": PARAMS["b"], "c": 1.0}, X)  # another structure
    assert len(g._trees) == 2


def test_agrees_with_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def jl(p, x):
        return jnp.sum(jnp.tanh(x @ p["W"] + p["b"]) ** 2) + 0.1 * jnp.sum(p["W"] ** 2)

    want = jax.grad(jl)(PARAMS, X)
    got = st.grad(mlp_loss)(PARAMS, X)
    for k in PARAMS:
        np.testing.assert_allclose(got[k], np.asarray(want[k]), rtol=1e-10)
