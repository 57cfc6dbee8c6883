"""NamedTuple and dataclass arguments, outputs and aux values as pytrees (issue 14)."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff import trees
from st_autodiff.errors import StAutodiffError


class Params(NamedTuple):
    w: np.ndarray
    b: float


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray
    act: object = np.tanh
    name: str = "dense"
    n: int = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    scale: float
    shift: np.ndarray
    tag: str | None = None


@dataclasses.dataclass
class WithProperty:
    log_s: np.ndarray

    @property
    def s(self) -> np.ndarray:
        return np.exp(self.log_s)

    def apply(self, x: np.ndarray) -> np.ndarray:
        return self.s * x


RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)


def fd_grad(f, tree, eps=1e-6):
    """Central differences of scalar ``f`` at every float leaf of ``tree``, same structure."""
    leaves, spec = trees.flatten(tree)
    out = []
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, float):
            def at(v, k=k):
                ls = list(leaves)
                ls[k] = v
                return f(trees.unflatten(spec, ls))
            out.append((at(leaf + eps) - at(leaf - eps)) / (2 * eps))
        elif isinstance(leaf, np.ndarray) and leaf.dtype.kind == "f":
            g = np.zeros_like(leaf)
            for i in np.ndindex(leaf.shape):
                def at(v, k=k, i=i, leaf=leaf):
                    ls = list(leaves)
                    a = leaf.copy()
                    a[i] = v
                    ls[k] = a
                    return f(trees.unflatten(spec, ls))
                g[i] = (at(leaf[i] + eps) - at(leaf[i] - eps)) / (2 * eps)
            out.append(g)
        else:
            out.append(None)
    return out


def assert_tree_close(got, want_leaves, tree):
    """``got`` is a tree of ``tree``'s structure whose float leaves match ``want_leaves``."""
    got_leaves, got_spec = trees.flatten(got)
    _, spec = trees.flatten(tree)
    assert repr(got_spec) == repr(spec)
    assert type(got) is type(tree)
    want = [w for w in want_leaves if w is not None]
    assert len(got_leaves) == len(want)
    for g, w in zip(got_leaves, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


def loss_attr(p, x):
    return np.sum((x * p.w + p.b) ** 2)


def loss_layer(layer, x):
    return np.sum(layer.act(x * layer.w + layer.b) ** layer.n)


@pytest.mark.parametrize("p", [Params(RNG.standard_normal(3), 0.5),
                               Layer(RNG.standard_normal(3), RNG.standard_normal(3))])
def test_grad_attribute_reads_same_structure(p):
    f = loss_attr if isinstance(p, Params) else loss_layer
    g = st.grad(f)(p, X)
    assert type(g) is type(p)
    assert_tree_close(g, fd_grad(lambda q: f(q, X), p), p)


def test_layer_static_fields_carried_and_keyed_by_value():
    layer = Layer(RNG.standard_normal(3), RNG.standard_normal(3))
    g = st.grad(loss_layer)
    out = g(layer, X)
    assert (out.act, out.name, out.n) == (np.tanh, "dense", 2)
    inner = next(iter(g._trees.values()))
    hits = inner.cache_info().hits
    g(Layer(RNG.standard_normal(3), RNG.standard_normal(3)), X)  # same structure: a hit
    assert inner.cache_info().hits == hits + 1 and len(g._trees) == 1
    cubed = Layer(layer.w, layer.b, n=3)
    got = g(cubed, X)  # another static value: another specialisation, right answer
    assert len(g._trees) == 2
    assert_tree_close(got, fd_grad(lambda q: loss_layer(q, X), cubed), cubed)
    sine = Layer(layer.w, layer.b, act=np.sin)
    got = g(sine, X)
    assert len(g._trees) == 3
    assert_tree_close(got, fd_grad(lambda q: loss_layer(q, X), sine), sine)


def test_index_unpack_and_len_of_namedtuple():
    def f(p, x):
        w, b = p
        return np.sum(p[0] * x) + b * len(p) + np.sum(w)

    p = Params(RNG.standard_normal(3), 1.5)
    got = st.grad(f)(p, X)
    assert_tree_close(got, fd_grad(lambda q: f(q, X), p), p)


def test_frozen_dataclass_and_none_field_and_property_and_method():
    fr = Frozen(2.0, RNG.standard_normal(3))

    def f(a, x):
        return np.sum(a.scale * x + a.shift ** 2)

    got = st.grad(f)(fr, X)
    assert type(got) is Frozen and got.tag is None
    assert_tree_close(got, fd_grad(lambda q: f(q, X), fr), fr)
    wp = WithProperty(RNG.standard_normal(3))

    def h(m, x):
        return np.sum(m.apply(x) + m.s)

    got = st.grad(h)(wp, X)
    assert_tree_close(got, fd_grad(lambda q: h(q, X), wp), wp)


def test_nested_mixes_and_argnums():
    params = {"l1": Params(RNG.standard_normal(3), 0.1),
              "l2": [Layer(RNG.standard_normal(3), RNG.standard_normal(3))]}
    pair = (Params(RNG.standard_normal(3), -0.3), {"k": 2.0})

    def f(ps, pr, x):
        h = np.tanh(ps["l1"].w * x + ps["l1"].b)
        h = loss_layer(ps["l2"][0], h)
        return h * pr[1]["k"] + np.sum(pr[0].w * x) * pr[0].b

    for kw in ({"wrt": (0, 1)}, {"argnums": (0, 1)}):
        g0, g1 = st.grad(f, **kw)(params, pair, X)
        assert_tree_close(g0, fd_grad(lambda q: f(q, pair, X), params), params)
        assert_tree_close(g1, fd_grad(lambda q: f(params, q, X), pair), pair)
    v, gp = st.value_and_grad(f, argnums=1)(params, pair, X)
    assert np.isclose(v, f(params, pair, X))
    assert_tree_close(gp, fd_grad(lambda q: f(params, q, X), pair), pair)
    gn = st.grad(f, wrt="pr")(params, pair, X)
    assert_tree_close(gn, fd_grad(lambda q: f(params, q, X), pair), pair)


def test_record_outputs_and_aux():
    def f(p, x):
        return np.sum((x * p.w) ** 2) * p.b, p

    p = Params(RNG.standard_normal(3), 0.5)
    g, aux = st.grad(f, has_aux=True)(p, X)
    assert type(aux) is Params and aux.b == p.b
    np.testing.assert_allclose(aux.w, p.w)
    assert_tree_close(g, fd_grad(lambda q: f(q, X)[0], p), p)
    (v, aux2), g2 = st.value_and_grad(f, has_aux=True)(p, X)
    assert type(aux2) is Params and np.isclose(v, f(p, X)[0])
    assert_tree_close(g2, fd_grad(lambda q: f(q, X)[0], p), p)

    def out(layer, x):  # a record output (static fields carried), read back by vjp
        return {"layer": layer, "y": np.sin(layer.w * x) + layer.b}

    lay = Layer(RNG.standard_normal(3), RNG.standard_normal(3), name="out")
    y, vjp_fn = st.vjp(out, lay, X)
    assert type(y["layer"]) is Layer and y["layer"].name == "out"
    np.testing.assert_allclose(y["y"], np.sin(lay.w * X) + lay.b)
    ct = {"layer": Layer(np.ones(3), np.full(3, 2.0), name="out"), "y": np.full(3, 3.0)}
    gl, gx = vjp_fn(ct)
    assert type(gl) is Layer and gl.act is np.tanh
    np.testing.assert_allclose(gl.w, 1.0 + 3.0 * np.cos(lay.w * X) * X)
    np.testing.assert_allclose(gl.b, 2.0 + 3.0)
    np.testing.assert_allclose(gx, 3.0 * np.cos(lay.w * X) * lay.w)


def test_jvp_and_jacobians():
    p = Params(RNG.standard_normal(3), 0.7)

    def vec(p, x):
        return np.sin(p.w) * x + p.b

    y, t = st.jvp(vec, (p, X), (Params(np.ones(3), 2.0), np.zeros(3)))
    np.testing.assert_allclose(y, vec(p, X))
    np.testing.assert_allclose(t, np.cos(p.w) * X + 2.0)
    for jac in (st.jacrev, st.jacfwd):
        for kw in ({"wrt": 0}, {"argnums": 0}):
            j = jac(vec, **kw)(p, X)
            assert type(j) is Params
            np.testing.assert_allclose(j.w, np.diag(np.cos(p.w) * X))
            np.testing.assert_allclose(j.b, np.ones(3))
        j0, j1 = jac(vec, argnums=(0, 1))(p, X)
        assert type(j0) is Params
        np.testing.assert_allclose(j1, np.diag(np.sin(p.w)))


def test_eager_and_compiled_agree_with_autograd_style_reference():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    p = Params(RNG.standard_normal(3), 0.25)

    def f_np(p, x):
        return np.sum(np.tanh(x * p.w + p.b) ** 2)

    def f_jax(p, x):
        return jnp.sum(jnp.tanh(x * p.w + p.b) ** 2)

    got = st.grad(f_np)(p, X)
    want = jax.grad(f_jax)(p, X)
    assert type(want) is Params
    np.testing.assert_allclose(got.w, want.w)
    np.testing.assert_allclose(got.b, want.b)


def test_wrong_structure_cotangent_and_attribute_write_refused():
    p = Params(RNG.standard_normal(3), 0.5)

    def out(p, x):
        return p, np.sum(p.w * x)

    _, vjp_fn = st.vjp(out, p, X)
    with pytest.raises(TypeError, match="expected a Params"):
        vjp_fn(((np.ones(3), 1.0), 1.0))

    def writes(layer, x):
        layer.w = layer.w * 2.0
        return np.sum(layer.w * x)

    with pytest.raises(StAutodiffError) as info:
        st.grad(writes)(Layer(np.ones(3), np.ones(3)), X)
    assert "test_pytree_classes.py" in str(info.value)


def test_opaque_object_field_is_a_leaf_not_a_silent_constant():
    @dataclasses.dataclass
    class Holder:
        w: np.ndarray
        rng: object

    def f(h, x):
        return np.sum(h.w * x)

    h = Holder(RNG.standard_normal(3), np.random.default_rng(1))
    got = st.grad(f)(h, X)
    np.testing.assert_allclose(got.w, X)
    assert got.rng is None  # not floating point: no gradient


def test_hessian_of_records_and_dicts_jax_nesting():
    p = Params(RNG.standard_normal(3), 0.7)

    def scal(p, x):
        return np.sum(np.sin(p.w) * x) * p.b

    for kw in ({"wrt": 0}, {"argnums": 0}, {"argnums": 0, "mode": "reverse"}):
        h = st.hessian(scal, **kw)(p, X)
        assert type(h) is Params and type(h.w) is Params
        np.testing.assert_allclose(h.w.w, np.diag(-np.sin(p.w) * X * p.b))
        np.testing.assert_allclose(h.w.b, np.cos(p.w) * X)
        np.testing.assert_allclose(h.b.w, np.cos(p.w) * X)
        np.testing.assert_allclose(h.b.b, 0.0)
    h = st.hessian(scal, argnums=(0, 1))(p, X)  # JAX's nesting: H[0] is a Params
    assert type(h[0]) is Params and type(h[0].w) is tuple and type(h[0].w[0]) is Params
    np.testing.assert_allclose(h[0].w[1], np.diag(np.cos(p.w) * p.b))
    np.testing.assert_allclose(h[0].b[1], np.sin(p.w))
    np.testing.assert_allclose(h[0].w[0].w, np.diag(-np.sin(p.w) * X * p.b))
    np.testing.assert_allclose(h[1][0].w, np.diag(np.cos(p.w) * p.b))
    np.testing.assert_allclose(h[1][1], np.zeros((3, 3)))

    def dd(d):
        return np.sum(d["a"] ** 3) * d["b"]

    h = st.hessian(dd)({"a": np.array([1.0, 2.0]), "b": 2.0})
    np.testing.assert_allclose(h["a"]["a"], np.diag([12.0, 24.0]))
    np.testing.assert_allclose(h["a"]["b"], [3.0, 12.0])
    np.testing.assert_allclose(h["b"]["b"], 0.0)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    want = jax.hessian(lambda d: jax.numpy.sum(d["a"] ** 3) * d["b"])(
        {"a": np.array([1.0, 2.0]), "b": 2.0})
    np.testing.assert_allclose(h["a"]["b"], want["a"]["b"])
    np.testing.assert_allclose(h["b"]["a"], want["b"]["a"])

    def scal_j(p, x):
        return jax.numpy.sum(jax.numpy.sin(p.w) * x) * p.b

    pairs = [({"argnums": (0, 1)}, scal, scal_j), ({"argnums": (1, 0)}, scal, scal_j)]
    for kw, f, fj in pairs:  # the whole nesting for tuple argnums, leaf by leaf
        got = st.hessian(f, **kw)(p, X)
        want = jax.hessian(fj, **kw)(p, X)
        tu = jax.tree_util
        assert tu.tree_structure(got) == tu.tree_structure(want)
        for a, b in zip(tu.tree_leaves(got), tu.tree_leaves(want), strict=True):
            np.testing.assert_allclose(a, b, atol=1e-12)


def test_static_field_change_and_explain_and_compile():
    layer = Layer(RNG.standard_normal(3), RNG.standard_normal(3))
    g = st.grad(loss_layer)
    g.compile(layer, X)
    assert "would compile" not in g.explain(layer, X)
    assert "would compile" in g.explain(Layer(layer.w, layer.b, name="other"), X)


@dataclasses.dataclass
class Holds:
    w: np.ndarray
    hist: list


@dataclasses.dataclass(slots=True)
class Slotted:
    w: np.ndarray
    k: int = 2


@dataclasses.dataclass
class PostInit:
    w: np.ndarray

    def __post_init__(self) -> None:
        self.scale = 2.0


def test_list_field_of_argument_is_the_callers_and_appends_are_refused():
    def f(h, x):
        h.hist.append(1.0)
        return np.sum(h.w * x)

    with pytest.raises(StAutodiffError, match="lives outside the function"):
        st.grad(f)(Holds(np.ones(3), []), X)


def test_slots_and_post_init_attributes():
    def s(q, x):
        return np.sum(q.w ** q.k * x)

    q = Slotted(RNG.standard_normal(3))
    got = st.grad(s)(q, X)
    assert type(got) is Slotted and got.k == 2
    np.testing.assert_allclose(got.w, 2 * q.w * X)

    def p(q, x):
        return np.sum(q.w * x) * q.scale

    q2 = PostInit(RNG.standard_normal(3))
    got = st.grad(p)(q2, X)
    np.testing.assert_allclose(got.w, 2.0 * X)
    np.testing.assert_allclose(got.scale, np.sum(q2.w * X))  # its own attribute, a leaf


class Twin(NamedTuple):
    w: np.ndarray
    b: float


def test_same_fields_other_class_respecialises_and_keeps_its_class():
    g = st.grad(loss_attr)
    a = g(Params(X * 2.0, 0.5), X)
    b = g(Twin(X * 2.0, 0.5), X)
    assert type(a) is Params and type(b) is Twin
    assert len(g._trees) == 2
    np.testing.assert_allclose(a.w, b.w)
    c = g(Twin(X * 2.0, np.array(0.5)), X)  # another leaf kind: a 0-d array for b
    np.testing.assert_allclose(c.b, b.b)
