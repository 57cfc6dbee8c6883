"""``vjp``, ``jvp`` and the Jacobians with arguments and outputs that are tuples, lists and
dicts (pytrees), nested or not, of arrays, floats and ints.

JAX's conventions: a tangent has its primal's structure, a cotangent its output's, and
``vjp_fn`` returns one entry per argument in that argument's structure (``None`` for
parts that are not floating point).  Everything is checked against central differences
in float64, and ``vjp`` against ``jvp`` by the dot-product test ``<ct, J t> = <J^T ct, t>``.
"""

import importlib.util
import itertools

import numpy as np
import pytest

import st_autodiff as st

RNG = np.random.default_rng(11)
EPS = 1e-6


# --- trees, written here independently of st_autodiff.trees ----------------------------

def _is_float(x):
    return isinstance(x, float) or (hasattr(x, "dtype") and np.dtype(x.dtype).kind == "f")


def _leaves(tree):
    """Leaves in depth-first order (dicts by sorted key, as JAX orders them)."""
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in _leaves(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [x for v in tree for x in _leaves(v)]
    return [tree]


def _map(fn, tree, *rest):
    if isinstance(tree, dict):
        return {k: _map(fn, v, *(r[k] for r in rest)) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        parts = [_map(fn, v, *(r[i] for r in rest)) for i, v in enumerate(tree)]
        return parts if isinstance(tree, list) else tuple(parts)
    return fn(tree, *rest)


def _same_structure(a, b):
    """Whether ``a`` and ``b`` have the same containers (types, lengths, keys)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and set(a) == set(b) and all(
            _same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(
            _same_structure(x, y) for x, y in zip(a, b))
    return True


def _random_like(tree):
    """Random floats where ``tree`` has floats, ``None`` for ints."""
    def one(x):
        if not _is_float(x):
            return None
        return float(RNG.standard_normal()) if isinstance(x, float) else \
            RNG.standard_normal(np.shape(x))
    return _map(one, tree)


def _move(tree, direction, step):
    return _map(lambda x, d: x if d is None else x + step * d, tree, direction)


def _inner(a, b):
    """``<a, b>`` over the float leaves (``None`` counts as zero)."""
    return sum(float(np.sum(np.asarray(x, float) * np.asarray(y, float)))
               for x, y in zip(_leaves(a), _leaves(b)) if x is not None and y is not None)


def fd_jvp(f, primals, tangents):
    """``J t`` by central differences in float64, in the output's structure."""
    hi = f(*[_move(p, t, EPS) for p, t in zip(primals, tangents)])
    lo = f(*[_move(p, t, -EPS) for p, t in zip(primals, tangents)])
    return _map(lambda a, b: (np.asarray(a, float) - np.asarray(b, float)) / (2 * EPS), hi, lo)


def fd_vjp(f, primals, cotangent):
    """``J^T ct`` by central differences: one per float element of every argument."""
    def grad_of(i):
        leaf_number = itertools.count()

        def leaf_grad(x):
            k = next(leaf_number)
            if not _is_float(x):
                return None
            g = np.zeros(np.shape(x))
            for e in range(int(np.size(x))):
                basis = np.zeros(np.shape(x))
                basis.flat[e] = 1.0
                seen = itertools.count()
                tangents = [_map(lambda _: None, p) for p in primals]
                tangents[i] = _map(lambda _, b=basis, s=seen: b if next(s) == k else None,
                                   primals[i])
                g.flat[e] = _inner(cotangent, fd_jvp(f, primals, tangents))
            return g if np.ndim(x) else float(g)

        return _map(leaf_grad, primals[i])

    return tuple(grad_of(i) for i in range(len(primals)))


def assert_tree_close(got, want, rtol=1e-6, atol=1e-7):
    assert _same_structure(got, want), f"structure {got!r} != {want!r}"
    for g, w in zip(_leaves(got), _leaves(want)):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(np.asarray(g, float), np.asarray(w, float),
                                       rtol=rtol, atol=atol)


# --- the issue's reproductions ------------------------------------------------------------

def f8(x):
    return 2 * x, x + 1


def test_issue_8_vjp_of_a_tuple_output_seeds_every_output():
    out, vjp_fn = st.vjp(f8, 1.0)
    assert out == (2.0, 2.0)
    assert vjp_fn((1.0, 1.0)) == (3.0,)
    assert vjp_fn((1.0, 0.0)) == (2.0,)
    assert vjp_fn((0.0, 1.0)) == (1.0,)


def test_issue_8_jvp_of_a_tuple_output_gives_every_tangent():
    out, tangent = st.jvp(f8, (1.0,), (1.0,))
    assert (out, tangent) == ((2.0, 2.0), (2.0, 1.0))
    assert type(out) is tuple and type(tangent) is tuple


def pair_product(xs):
    return xs[0] * xs[1]


@pytest.mark.parametrize("fn", [pair_product, lambda xs: xs[0] * xs[1]], ids=["def", "lambda"])
@pytest.mark.parametrize("container", [list, tuple])
def test_issue_9_jvp_with_a_list_or_tuple_argument_moves_it(fn, container):
    out, tangent = st.jvp(fn, (container([2.0, 3.0]),), (container([1.0, 0.0]),))
    assert (out, tangent) == (6.0, 3.0)
    _, tangent = st.jvp(fn, (container([2.0, 3.0]),), (container([0.0, 1.0]),))
    assert tangent == 2.0


@pytest.mark.parametrize("container", [list, tuple])
def test_issue_9_vjp_with_a_list_argument_gives_a_list(container):
    out, vjp_fn = st.vjp(pair_product, container([2.0, 3.0]))
    assert out == 6.0
    (g,) = vjp_fn(1.0)
    assert type(g) is container and list(g) == [3.0, 2.0]


# --- functions of structured arguments and outputs ----------------------------------------

def tuple_in_tuple_out(p):
    a, b = p
    return a * b, np.sin(a)


def dict_in_dict_out(d):
    return {"y": d["w"] * d["s"] + d["b"], "norm": np.sum(d["w"] ** 2)}


def nested(t, d):
    a, (b, c) = t
    return {"s": np.sin(a) * d["w"], "l": [b * c, d["n"] * a]}, c ** 2


def with_ints(d, k):
    return d["x"] * d["n"] * k, d["n"]


def list_out(x, y):
    return [x * y, np.sum(x) * y, 3.0 * x]


def mlp(ws, x):
    h = x
    for w in ws:
        h = np.tanh(h @ w)
    return np.sum(h ** 2)


def single_leaf_tuple(p):
    return (p[0] * 2.0,)


X3 = RNG.standard_normal(3)
CASES = {
    "tuple_in_tuple_out": (tuple_in_tuple_out, ((X3, RNG.standard_normal(3)),)),
    "dict_in_dict_out": (dict_in_dict_out, (
        {"w": RNG.standard_normal(4), "s": 1.7, "b": -0.3},)),
    "nested": (nested, ((X3, (1.5, RNG.standard_normal(3))),
                        {"w": RNG.standard_normal(3), "n": 3})),
    "with_ints": (with_ints, ({"x": RNG.standard_normal(2), "n": 4}, 2)),
    "list_out": (list_out, (X3, 0.8)),
    "mlp_list_of_weights": (mlp, ([RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))],
                                  RNG.standard_normal((5, 3)))),
    "one_leaf_tuple": (single_leaf_tuple, ([0.5, 2.0],)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_jvp_matches_finite_differences(name):
    f, primals = CASES[name]
    tangents = tuple(_random_like(p) for p in primals)
    out, tangent = st.jvp(f, primals, tangents)
    assert_tree_close(out, f(*primals))
    assert_tree_close(tangent, fd_jvp(f, primals, tangents))


@pytest.mark.parametrize("name", list(CASES))
def test_vjp_matches_finite_differences(name):
    f, primals = CASES[name]
    out, vjp_fn = st.vjp(f, *primals)
    assert_tree_close(out, f(*primals))
    cotangent = _map(lambda o: RNG.standard_normal(np.shape(o)) if np.ndim(o) else
                     float(RNG.standard_normal()), out)
    got = vjp_fn(cotangent)
    want = fd_vjp(f, primals, cotangent)
    assert type(got) is tuple and len(got) == len(primals)
    assert_tree_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_vjp_and_jvp_pass_the_dot_product_test(name, seed):
    """``<ct, J t> == <J^T ct, t>`` for random ``t`` and ``ct``."""
    f, primals = CASES[name]
    rng = np.random.default_rng(seed)
    tangents = _map(lambda x: None if not _is_float(x) else
                    rng.standard_normal(np.shape(x)) + 0.0 * x, primals)
    out, vjp_fn = st.vjp(f, *primals)
    cotangent = _map(lambda o: rng.standard_normal(np.shape(o)) + 0.0 * np.asarray(o), out)
    _, jt = st.jvp(f, primals, tangents)
    lhs = _inner(cotangent, jt)
    rhs = _inner(vjp_fn(cotangent), tangents)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)


def test_int_leaves_get_none_and_no_tangent():
    d = {"x": np.array([1.0, 2.0]), "n": 4}
    _, vjp_fn = st.vjp(with_ints, d, 2)
    (gd, gk) = vjp_fn((np.ones(2), None))
    assert gk is None and gd["n"] is None
    np.testing.assert_allclose(gd["x"], [8.0, 8.0])
    out, tangent = st.jvp(with_ints, (d, 2), ({"x": np.ones(2), "n": None}, None))
    np.testing.assert_allclose(tangent[0], [8.0, 8.0])
    assert tangent[1] == 0  # an int output does not move
    # a zero tangent for an int is accepted (it is what zeros_like gives)
    _, t2 = st.jvp(with_ints, (d, 2), ({"x": np.ones(2), "n": 0}, 0))
    np.testing.assert_allclose(t2[0], tangent[0])


def test_none_stands_for_a_zero_part_or_a_whole_zero_argument():
    f, (t, d) = CASES["nested"]
    _, tangent = st.jvp(f, (t, d), (None, {"w": np.ones(3), "n": None}))
    want = fd_jvp(f, (t, d), (_map(lambda _: None, t), {"w": np.ones(3), "n": None}))
    assert_tree_close(tangent, want)
    _, vjp_fn = st.vjp(f, t, d)
    only_c = vjp_fn((None, np.ones(3)))
    assert_tree_close(only_c[0], (np.zeros(3), (0.0, 2.0 * t[1][1])))


def test_generated_code_returns_the_structure():
    f, (t, d) = CASES["nested"]
    _, vjp_fn = st.vjp(f, t, d)
    source = vjp_fn.grad_function.source
    assert "return ({'s': out, 'l': [" in source
    assert "out_bar, out_bar_1, out_bar_2, out_bar_3)" in source  # one seed per output


# --- random structures --------------------------------------------------------------------

def _random_tree(rng, depth=0):
    kind = rng.integers(0, 5) if depth < 2 else 3 + rng.integers(0, 2)
    if kind == 0:
        return tuple(_random_tree(rng, depth + 1) for _ in range(rng.integers(1, 4)))
    if kind == 1:
        return [_random_tree(rng, depth + 1) for _ in range(rng.integers(1, 4))]
    if kind == 2:
        return {f"k{i}": _random_tree(rng, depth + 1) for i in range(rng.integers(1, 4))}
    return float(rng.standard_normal()) if kind == 3 else rng.standard_normal(3)


def _paths(tree, at="t"):
    if isinstance(tree, dict):
        return [p for k, v in tree.items() for p in _paths(v, f"{at}[{k!r}]")]
    if isinstance(tree, (tuple, list)):
        return [p for i, v in enumerate(tree) for p in _paths(v, f"{at}[{i}]")]
    return [at]


def _source_of_tree(rng, paths, depth=0):
    """Python source of a random output tree whose leaves compute with the inputs."""
    kind = rng.integers(0, 4) if depth < 2 else 3
    if kind == 3:
        a, b, c = (paths[rng.integers(len(paths))] for _ in range(3))
        return f"np.sin({a}) * {b} + {c} ** 2"
    parts = [_source_of_tree(rng, paths, depth + 1) for _ in range(rng.integers(1, 3))]
    if kind == 0:
        return "(" + ", ".join(parts) + ",)"
    if kind == 1:
        return "[" + ", ".join(parts) + "]"
    return "{" + ", ".join(f"'o{i}': {p}" for i, p in enumerate(parts)) + "}"


@pytest.mark.parametrize("seed", range(12))
def test_random_structures(seed, tmp_path):
    rng = np.random.default_rng(100 + seed)
    t = _random_tree(rng)
    source = "import numpy as np\n\n\ndef f(t):\n    return " + \
        _source_of_tree(rng, _paths(t)) + "\n"
    path = tmp_path / f"random_tree_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"random_tree_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.f
    tangent = _random_like(t)
    out, jt = st.jvp(f, (t,), (tangent,))
    assert_tree_close(out, f(t))
    assert_tree_close(jt, fd_jvp(f, (t,), (tangent,)))
    out, vjp_fn = st.vjp(f, t)
    cotangent = _map(lambda o: rng.standard_normal(np.shape(o)) + 0.0 * np.asarray(o), out)
    (g,) = vjp_fn(cotangent)
    assert _same_structure(g, t)
    np.testing.assert_allclose(_inner(cotangent, jt), _inner(g, tangent), rtol=1e-10,
                               atol=1e-10)


# --- wrong structures and shapes are clear errors -----------------------------------------

def test_a_cotangent_of_the_wrong_length_names_the_structure():
    _, vjp_fn = st.vjp(f8, 1.0)
    with pytest.raises(TypeError, match=r"got a tuple of length 3, expected length 2.*"
                       r"expected the structure \(\*, \*\)"):
        vjp_fn((1.0, 1.0, 1.0))
    with pytest.raises(TypeError, match=r"got float, expected a tuple of length 2"):
        vjp_fn(1.0)


def test_a_cotangent_with_the_wrong_keys_or_shape_is_an_error():
    f, (d,) = CASES["dict_in_dict_out"]
    _, vjp_fn = st.vjp(f, d)
    with pytest.raises(TypeError, match=r"got keys \['y'\], expected keys \['norm', 'y'\]"):
        vjp_fn({"y": np.ones(4)})
    with pytest.raises(ValueError, match=r"cotangent at \['y'\] has shape \(3,\), but the "
                       r"output at \['y'\] has shape \(4,\)"):
        vjp_fn({"y": np.ones(3), "norm": 1.0})


def test_a_scalar_output_needs_a_scalar_cotangent():
    _, vjp_fn = st.vjp(pair_product, [2.0, 3.0])
    with pytest.raises(ValueError, match=r"cotangent has shape \(2,\), but the output has "
                       r"shape \(\)"):
        vjp_fn(np.ones(2))


def test_a_tangent_of_the_wrong_structure_or_shape_is_an_error():
    with pytest.raises(TypeError, match=r"tangents\[0\].*length 3, expected length 2"):
        st.jvp(pair_product, ([2.0, 3.0],), ([1.0, 0.0, 0.0],))
    f, primals = CASES["nested"]
    bad = ((np.ones(3), (1.0, np.ones(2))), {"w": np.ones(3), "n": None})
    with pytest.raises(ValueError, match=r"tangent of argument 0\[1\]\[1\] has shape \(2,\), "
                       r"but its primal has shape \(3,\)"):
        st.jvp(f, primals, bad)
    with pytest.raises(ValueError, match=r"argument 1\['n'\] is not zero, but its primal is "
                       "not floating point"):
        st.jvp(f, primals, (None, {"w": None, "n": 1.0}))


def test_dict_keys_must_be_strings_or_ints():
    with pytest.raises(TypeError, match="dict keys of arguments must be strings or ints"):
        st.vjp(lambda d: d[1.5] * 2.0, {1.5: 1.0})


# --- Jacobians and Hessians ---------------------------------------------------------------

def two_args(x, y):
    return np.sin(x) * y[:3] + np.sum(y ** 2)


def fd_jacobian(f, args, i):
    x = np.asarray(args[i], float)
    cols = []
    for e in range(x.size):
        d = np.zeros_like(x)
        d.flat[e] = 1.0
        ts = [None] * len(args)
        ts[i] = d
        cols.append(fd_jvp(f, args, ts))
    out_shape = np.shape(cols[0])
    return np.stack(cols, axis=-1).reshape(out_shape + x.shape)


@pytest.mark.parametrize("jac", [st.jacrev, st.jacfwd, st.jacobian])
def test_jacobian_with_respect_to_a_tuple_of_arguments(jac):
    x, y = RNG.standard_normal(3), RNG.standard_normal(5)
    jx, jy = jac(two_args, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(jx, fd_jacobian(two_args, (x, y), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jy, fd_jacobian(two_args, (x, y), 1), rtol=1e-6, atol=1e-8)
    assert jx.shape == (3, 3) and jy.shape == (3, 5)
    (only_y,) = jac(two_args, argnums=(1,))(x, y)
    np.testing.assert_allclose(only_y, jy)
    np.testing.assert_allclose(jac(two_args, argnums=1)(x, y), jy)
    by_name = jac(two_args, wrt=("y", "x"))(x, y)
    np.testing.assert_allclose(by_name[0], jy)
    np.testing.assert_allclose(by_name[1], jx)


@pytest.mark.parametrize("jac", [st.jacrev, st.jacfwd, st.hessian])
def test_wrt_and_argnums_together_is_an_error(jac):
    with pytest.raises(TypeError, match="pass wrt or argnums"):
        jac(two_args, wrt=0, argnums=1)


@pytest.mark.parametrize("jac", [st.jacrev, st.jacfwd])
def test_bad_wrt_is_a_clear_error(jac):
    x, y = RNG.standard_normal(3), RNG.standard_normal(5)
    with pytest.raises(st.WrtError, match="wrt is empty"):
        jac(two_args, wrt=())
    with pytest.raises(st.WrtError, match="by position or name"):
        jac(two_args, wrt=(0, 1.5))
    with pytest.raises(st.WrtError, match="no such parameter"):
        jac(two_args, wrt="z")(x, y)
    with pytest.raises(st.WrtError, match="out of range"):
        jac(two_args, wrt=(0, 2))(x, y)
    with pytest.raises(st.WrtError, match="holds no floating-point value"):
        jac(with_ints, wrt=1)({"x": x, "n": 2}, 3)


@pytest.mark.parametrize("jac", [st.jacrev, st.jacfwd])
def test_jacobian_of_a_tuple_output_is_a_tuple(jac):
    assert jac(f8)(1.0) == (2.0, 1.0)
    x, y = RNG.standard_normal(3), 0.7
    jl = jac(list_out, wrt=(0, 1))(x, y)
    assert type(jl) is list and len(jl) == 3 and all(type(j) is tuple for j in jl)
    for k in range(3):
        def part(a, b, k=k):
            return list_out(a, b)[k]
        np.testing.assert_allclose(jl[k][0], fd_jacobian(part, (x, y), 0), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(jl[k][1], fd_jacobian(part, (x, y), 1), rtol=1e-6,
                                   atol=1e-8)


def test_jacobian_of_structured_arguments_has_their_structure():
    f, (t, d) = CASES["nested"]
    rev = st.jacrev(f, wrt=(0, 1))(t, d)
    fwd = st.jacfwd(f, wrt=(0, 1))(t, d)
    assert_tree_close(rev, fwd, rtol=1e-12, atol=1e-12)
    # d out[1] (= c**2) / d t[1][1] (= c) is diag(2c); the int d['n'] has no Jacobian
    np.testing.assert_allclose(rev[1][0][1][1], np.diag(2 * t[1][1]))
    assert rev[0]["s"][1]["n"] is None
    assert np.shape(rev[0]["l"][0][0][1][0]) == (3,)  # d (b*c) / d b: out shape + ()


def test_jacobians_match_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def f(t, d):
        a, (b, c) = t
        return {"s": jnp.sin(a) * d["w"], "l": [b * c, 3.0 * a]}, c ** 2

    t = (X3, (1.5, RNG.standard_normal(3)))
    d = {"w": RNG.standard_normal(3)}

    def ours(t, d):
        a, (b, c) = t
        return {"s": np.sin(a) * d["w"], "l": [b * c, 3.0 * a]}, c ** 2

    for mine, theirs in ((st.jacrev, jax.jacrev), (st.jacfwd, jax.jacfwd)):
        got = mine(ours, argnums=(0, 1))(t, d)
        want = theirs(f, argnums=(0, 1))(t, d)
        assert_tree_close(got, jax.tree_util.tree_map(np.asarray, want), rtol=1e-12,
                          atol=1e-12)
    out, vjp_fn = st.vjp(ours, t, d)
    jout, jvjp_fn = jax.vjp(f, t, d)
    ct = _map(lambda o: RNG.standard_normal(np.shape(o)), out)
    assert_tree_close(vjp_fn(ct), jax.tree_util.tree_map(np.asarray, jvjp_fn(ct)),
                      rtol=1e-12, atol=1e-12)
    tan = (_random_like(t), _random_like(d))
    assert_tree_close(st.jvp(ours, (t, d), tan),
                      jax.tree_util.tree_map(np.asarray, jax.jvp(f, (t, d), tan)),
                      rtol=1e-12, atol=1e-12)


def smooth(x, y):
    return np.sum(np.sin(x) * y) + np.sum(x ** 2 * y ** 3)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_hessian_with_respect_to_a_tuple_of_arguments(mode):
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    h = st.hessian(smooth, argnums=(0, 1), mode=mode)(x, y)
    assert type(h) is tuple and all(type(row) is tuple and len(row) == 2 for row in h)
    grad = st.grad(smooth, wrt=(0, 1))
    for i in range(2):
        for j in range(2):
            def gi(a, b, i=i):
                return grad(a, b)[i]
            np.testing.assert_allclose(h[i][j], fd_jacobian(gi, (x, y), j), rtol=1e-6,
                                       atol=1e-7)
    by_name = st.hessian(smooth, wrt=("x", "y"), mode=mode)(x, y)
    assert_tree_close(by_name, h, rtol=1e-12, atol=1e-12)


# --- outputs of grad: the aux part keeps its structure ------------------------------------

def loss_with_dict_aux(x):
    return np.sum(x ** 2), {"mean": np.mean(x), "parts": [x * 2.0, 3]}


def test_grad_with_a_structured_aux():
    x = np.array([1.0, 2.0])
    g, aux = st.grad(loss_with_dict_aux, has_aux=True)(x)
    np.testing.assert_allclose(g, 2 * x)
    assert list(aux) == ["mean", "parts"] and aux["parts"][1] == 3
    np.testing.assert_allclose(aux["parts"][0], 2 * x)
    (v, aux2), g2 = st.value_and_grad(loss_with_dict_aux, has_aux=True)(x)
    assert v == 5.0 and aux2["mean"] == 1.5
    np.testing.assert_allclose(g2, 2 * x)


def test_grad_of_a_list_output_is_a_clear_error():
    def listed(x):
        return [np.sum(x)]

    with pytest.raises(st.NonScalarOutputError, match=r"returns a list; grad needs one "
                       "scalar"):
        st.grad(listed)(np.ones(2))


# --- None is a tree without leaves (JAX's convention) -------------------------------------

def with_none_output(x, mask):
    return x * 2.0, None, {"m": mask}


def test_none_in_outputs_and_arguments_has_no_leaves():
    out, vjp_fn = st.vjp(with_none_output, 1.5, None)
    assert out == (3.0, None, {"m": None})
    assert vjp_fn((1.0, None, {"m": None})) == (2.0, None)
    out, tangent = st.jvp(with_none_output, (1.5, None), (1.0, None))
    assert tangent == (2.0, None, {"m": None})
    with pytest.raises(TypeError, match=r"at the cotangent\[1\]: got float, expected None"):
        vjp_fn((1.0, 1.0, {"m": None}))
    g, aux = st.grad(lambda x: (x * x, None), has_aux=True)(3.0)
    assert (g, aux) == (6.0, None)


# --- a pullback runs many times (Jacobians call it once per output element) ---------------

def loop_sum(x, n):
    s = x * 0.0
    for i in range(n):
        s = s + np.sin(x) * i
    return s


def rows_sum(xs, n):
    s = 0.0
    for x in xs:
        s = s + x * n
    return s


def appended(x, n):
    ys = []
    for i in range(n):
        ys.append(np.sin(x) * i)
    return ys


@pytest.mark.parametrize("f, primals", [(loop_sum, (X3, 3)),
                                        (rows_sum, (RNG.standard_normal((2, 3)), 3))])
def test_a_pullback_called_twice_gives_the_same_gradient(f, primals):
    """The adjoint's accumulators start from zeros the forward function kept: the
    backward function copies them instead of adding into them (which doubled the second
    gradient and changed the first one after it was returned)."""
    out, vjp_fn = st.vjp(f, *primals)
    ct = RNG.standard_normal(np.shape(out))
    first = vjp_fn(ct)[0]
    kept = np.copy(first)
    second = vjp_fn(ct)[0]
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(second, kept)
    assert_tree_close((first, None), fd_vjp(f, primals, ct), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jac", [st.jacrev, st.jacfwd])
def test_jacobian_of_loops_and_of_a_list_built_in_a_loop(jac):
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(jac(loop_sum)(x, 3), fd_jacobian(loop_sum, (x, 3), 0),
                               rtol=1e-6, atol=1e-8)
    blocks = jac(appended)(x, 3)
    assert type(blocks) is list and len(blocks) == 3
    for i, b in enumerate(blocks):
        np.testing.assert_allclose(b, np.diag(np.cos(x) * i), rtol=1e-12, atol=1e-12)


def test_the_cotangent_of_a_list_built_in_a_loop_is_a_list():
    x = RNG.standard_normal(3)
    out, vjp_fn = st.vjp(appended, x, 3)
    cts = [RNG.standard_normal(3) for _ in range(3)]
    (g, _) = vjp_fn(cts)
    np.testing.assert_allclose(g, np.cos(x) * (cts[1] + 2 * cts[2]), rtol=1e-12)
    (g0, _) = vjp_fn([None, None, cts[2]])
    np.testing.assert_allclose(g0, np.cos(x) * 2 * cts[2], rtol=1e-12)
    with pytest.raises(TypeError, match="is a ndarray, but the output is a list of 3 items"):
        vjp_fn(np.ones((3, 3)))
    with pytest.raises(TypeError, match="list of length 2, but the output is a list of 3"):
        vjp_fn(cts[:2])
    with pytest.raises(ValueError, match=r"cotangent at \[1\] has shape \(2,\)"):
        vjp_fn([cts[0], np.ones(2), cts[2]])
    _, tangent = st.jvp(appended, (x, 3), (np.ones(3), None))
    assert type(tangent) is list
    np.testing.assert_allclose(tangent[2], 2 * np.cos(x), rtol=1e-12)


def test_doctests():
    import doctest

    import st_autodiff.products
    import st_autodiff.trees

    for module in (st_autodiff.products, st_autodiff.trees):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0
