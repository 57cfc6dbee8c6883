"""Derivative products compose, as in JAX (``product_compose.py``): third derivatives
through any nesting, products called inside differentiated functions, closures and
``@st.grad``-decorated functions.  Each value is checked against central finite
differences of the next lower derivative (computed without composition) and, when JAX
is installed, against JAX in float64."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError

X = np.array([0.3, 0.7, -0.4])
Y = np.array([1.1, -0.5, 0.2])
V = np.array([0.5, -1.0, 2.0])
W = np.array([[1.0, -2.0, 0.5], [0.3, 0.8, -1.2], [2.0, 0.1, 0.4]])


def f(x):
    return np.sum(np.sin(x) ** 3)


def vf(x):
    return np.sin(x) * np.cos(x[::-1])


def g2(x, y):
    return np.sum(np.tanh(x) * y**2) + np.sum(x * x) * y[0]


def pair(x):
    return np.sin(x) * x[0], np.sum(x**3)


def fd(fun: Callable[..., Any], args: tuple[Any, ...], i: int = 0, eps: float = 1e-5) -> Any:
    """Central finite differences of ``fun`` (array or tuple-of-arrays valued) with
    respect to argument ``i``: shape ``out.shape + args[i].shape`` per output."""
    x = np.asarray(args[i], dtype=np.float64)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        hi = fun(*args[:i], x + e, *args[i + 1:])
        lo = fun(*args[:i], x - e, *args[i + 1:])
        if isinstance(hi, tuple):
            cols.append(tuple((np.asarray(a) - np.asarray(b)) / (2 * eps)
                              for a, b in zip(hi, lo)))
        else:
            cols.append((np.asarray(hi) - np.asarray(lo)) / (2 * eps))
    if isinstance(cols[0], tuple):
        return tuple(np.moveaxis(np.stack([c[j] for c in cols]), 0, -1).reshape(
            np.shape(cols[0][j]) + x.shape) for j in range(len(cols[0])))
    return np.moveaxis(np.stack(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)


def close(got: Any, want: Any, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for a, b in zip(got, want):
            close(a, b, rtol, atol)
        return
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


#: JAX is optional: without it only the comparisons with JAX are left out (every test
#: still checks finite differences; ``test_jax_comparisons_run`` reports the skip)
HAS_JAX = importlib.util.find_spec("jax") is not None


def test_jax_comparisons_run() -> None:
    pytest.importorskip("jax")


def jax_close(got: Any, make: Callable[[Any, Any], Any]) -> None:
    """``got`` against JAX (float64); left out where JAX is not installed."""
    if not HAS_JAX:
        return
    import jax  # noqa: PLC0415

    jax.config.update("jax_enable_x64", True)
    want = make(jax, jax.numpy)
    leaves = jax.tree_util.tree_leaves(want)
    mine = jax.tree_util.tree_leaves(got)
    assert len(leaves) == len(mine)
    for a, b in zip(mine, leaves):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


def fj(jnp: Any) -> Callable[[Any], Any]:
    return lambda x: jnp.sum(jnp.sin(x) ** 3)


def vfj(jnp: Any) -> Callable[[Any], Any]:
    return lambda x: jnp.sin(x) * jnp.cos(x[::-1])


def g2j(jnp: Any) -> Callable[[Any, Any], Any]:
    return lambda x, y: jnp.sum(jnp.tanh(x) * y**2) + jnp.sum(x * x) * y[0]


# --- third derivatives through nested products ---------------------------------------------

@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
def test_jacobian_of_hessian_is_the_third_derivative(outer: str) -> None:
    got = getattr(st, outer)(st.hessian(f))(X)
    close(got, fd(st.hessian(f), (X,)))
    assert np.allclose(got, np.swapaxes(got, 0, 2))  # symmetric, as a third derivative is
    jax_close(got, lambda jax, jnp: getattr(jax, outer)(jax.hessian(fj(jnp)))(X))


def test_jacfwd_of_jacrev_of_jacfwd() -> None:
    got = st.jacfwd(st.jacrev(st.jacfwd(vf)))(X)
    close(got, fd(st.jacrev(st.jacfwd(vf)), (X,)))
    jax_close(got, lambda jax, jnp: jax.jacfwd(jax.jacrev(jax.jacfwd(vfj(jnp))))(X))


def test_hessian_of_a_function_calling_grad() -> None:
    def lin(x):
        return np.sum(st.grad(f)(x) * V)

    got = st.hessian(lin)(X)
    close(got, fd(st.grad(lin), (X,)))
    jax_close(got, lambda jax, jnp: jax.hessian(
        lambda x: jnp.sum(jax.grad(fj(jnp))(x) * V))(X))


def test_hessian_of_the_sum_of_a_hessian_is_a_fourth_derivative_contraction() -> None:
    def total(x):
        return np.sum(st.hessian(f)(x))

    got = st.hessian(total)(X)
    close(got, fd(st.grad(total), (X,)), rtol=1e-5)
    jax_close(got, lambda jax, jnp: jax.hessian(lambda x: jnp.sum(jax.hessian(fj(jnp))(x)))(X))


def test_jvp_and_vjp_of_a_hessian() -> None:
    out, t = st.jvp(st.hessian(f), (X,), (V,))
    close(t, fd(st.hessian(f), (X,)) @ V)
    jax_close(t, lambda jax, jnp: jax.jvp(jax.hessian(fj(jnp)), (X,), (V,))[1])
    ct = np.outer(V, Y)
    (back,) = st.vjp(st.hessian(f), X)[1](ct)
    close(back, np.tensordot(ct, fd(st.hessian(f), (X,)), axes=2))
    jax_close(back, lambda jax, jnp: jax.vjp(jax.hessian(fj(jnp)), X)[1](ct)[0])


# --- products called inside a differentiated function ---------------------------------------

def test_grad_through_jvp() -> None:
    def lin(x):
        return st.jvp(f, (x,), (V,))[1]

    got = st.grad(lin)(X)
    close(got, fd(lin, (X,)))
    jax_close(got, lambda jax, jnp: jax.grad(lambda x: jax.jvp(fj(jnp), (x,), (V,))[1])(X))


def test_grad_through_jvp_of_two_arguments_with_a_moving_tangent() -> None:
    def lin(x, y):
        return st.jvp(g2, (x, y), (V, y))[1]

    gx, gy = st.grad(lin, wrt=(0, 1))(X, Y)
    close(gx, fd(lin, (X, Y), 0))
    close(gy, fd(lin, (X, Y), 1))
    jax_close((gx, gy), lambda jax, jnp: jax.grad(
        lambda x, y: jax.jvp(g2j(jnp), (x, y), (V, y))[1], argnums=(0, 1))(X, Y))


def test_gradient_penalty_loss() -> None:
    def loss(x, y):
        return g2(x, y) + np.sum(st.grad(g2)(x, y) ** 2)

    gx, gy = st.grad(loss, argnums=(0, 1))(X, Y)
    close(gx, fd(loss, (X, Y), 0))
    close(gy, fd(loss, (X, Y), 1))
    jax_close((gx, gy), lambda jax, jnp: jax.grad(
        lambda x, y: g2j(jnp)(x, y) + jnp.sum(jax.grad(g2j(jnp))(x, y) ** 2),
        argnums=(0, 1))(X, Y))


def test_grad_through_hvp_and_hessian() -> None:
    def by_hvp(x):
        return np.sum(st.hvp(f, (x,), (V,)) ** 2)

    def by_hessian(x):
        return np.sum(st.hessian(f)(x) * W)

    for fun, jfun in [(by_hvp, lambda jax, jnp: lambda x: jnp.sum(
                           jax.jvp(jax.grad(fj(jnp)), (x,), (V,))[1] ** 2)),
                      (by_hessian, lambda jax, jnp: lambda x: jnp.sum(
                          jax.hessian(fj(jnp))(x) * W))]:
        got = st.grad(fun)(X)
        close(got, fd(fun, (X,)))
        jax_close(got, lambda jax, jnp, jfun=jfun: jax.grad(jfun(jax, jnp))(X))


@pytest.mark.parametrize("product", ["jacfwd", "jacrev", "jacobian"])
def test_grad_through_jacobians_with_argnums(product: str) -> None:
    def one(x, y):
        return np.sum(getattr(st, product)(g2, argnums=1)(x, y) ** 2)

    def both(x, y):
        jx, jy = getattr(st, product)(g2, argnums=(0, 1))(x, y)
        return np.sum(jx * y) + np.sum(jy**3)

    for fun in (one, both):
        gx, gy = st.grad(fun, wrt=(0, 1))(X, Y)
        close(gx, fd(fun, (X, Y), 0))
        close(gy, fd(fun, (X, Y), 1))
    jax_close(st.grad(one, wrt=(0, 1))(X, Y), lambda jax, jnp: jax.grad(
        lambda x, y: jnp.sum(jax.jacfwd(g2j(jnp), argnums=1)(x, y) ** 2),
        argnums=(0, 1))(X, Y))


def test_grad_through_the_jacobian_of_a_tuple_output() -> None:
    def total(x):
        ja, jb = st.jacfwd(pair)(x)
        return np.sum(ja * W) + np.sum(jb * V)

    got = st.grad(total)(X)
    close(got, fd(total, (X,)))

    def pairj(jnp: Any) -> Any:
        return lambda x: (jnp.sin(x) * x[0], jnp.sum(x**3))

    jax_close(got, lambda jax, jnp: jax.grad(lambda x: jnp.sum(
        jax.jacfwd(pairj(jnp))(x)[0] * W) + jnp.sum(jax.jacfwd(pairj(jnp))(x)[1] * V))(X))


def test_grad_through_vjp_and_value_and_grad() -> None:
    def by_vjp(x):
        out, pullback = st.vjp(vf, x)
        return np.sum(pullback(V)[0] ** 2) + np.sum(out)

    def by_vg(x):
        value, g = st.value_and_grad(f)(x)
        return value * np.sum(g)

    got = st.grad(by_vjp)(X)
    close(got, fd(by_vjp, (X,)))
    jax_close(got, lambda jax, jnp: jax.grad(lambda x: jnp.sum(
        jax.vjp(vfj(jnp), x)[1](V)[0] ** 2) + jnp.sum(vfj(jnp)(x)))(X))
    got = st.grad(by_vg)(X)
    close(got, fd(by_vg, (X,)))
    jax_close(got, lambda jax, jnp: jax.grad(lambda x: jax.value_and_grad(fj(jnp))(x)[0]
                                             * jnp.sum(jax.grad(fj(jnp))(x)))(X))


def test_hessian_of_a_jvp() -> None:
    def lin(x):
        return st.jvp(f, (x,), (V,))[1]

    got = st.hessian(lin)(X)
    close(got, fd(st.grad(lin), (X,)))
    jax_close(got, lambda jax, jnp: jax.hessian(lambda x: jax.jvp(fj(jnp), (x,), (V,))[1])(X))


# --- closures and @st.grad -------------------------------------------------------------------

def make(a):
    def closed(x):
        return np.sum(a * np.sin(x) ** 3)
    return closed


def test_third_derivative_of_a_function_closing_over_data() -> None:
    fa = make(Y)
    got = st.jacfwd(st.hessian(fa))(X)
    close(got, fd(st.hessian(fa), (X,)))
    jax_close(got, lambda jax, jnp: jax.jacfwd(jax.hessian(
        lambda x: jnp.sum(Y * jnp.sin(x) ** 3)))(X))


@st.grad
def decorated(x):
    return np.sum(np.sin(x) ** 3)


def test_products_of_a_grad_decorated_function() -> None:
    got = st.jacfwd(st.jacrev(decorated))(X)
    close(got, fd(st.jacrev(decorated), (X,)))
    jax_close(got, lambda jax, jnp: jax.jacfwd(jax.jacrev(jax.grad(fj(jnp))))(X))

    def lin(x):
        return np.sum(decorated(x) * V)

    got = st.hessian(lin)(X)
    close(got, fd(st.grad(lin), (X,)))


SCALE = 2.0


def scaled(x):
    return np.sum(SCALE * np.sin(x) ** 3)


def test_a_changed_global_is_seen_by_composed_products(monkeypatch: Any) -> None:
    third = st.jacfwd(st.hessian(scaled))
    inside = st.grad(lambda x: np.sum(st.hessian(scaled)(x)))
    through_vjp = st.grad(lambda x: np.sum(st.vjp(scaled, x)[1](1.0)[0]))
    before = [third(X), inside(X), through_vjp(X)]
    monkeypatch.setitem(globals(), "SCALE", 5.0)
    for got, old in zip([third(X), inside(X), through_vjp(X)], before):
        close(got, 2.5 * old)
    close(third(X), fd(st.hessian(scaled), (X,)))


# --- what stays refused: located at the user's call ----------------------------------------

def _line(marker: str) -> int:
    with open(__file__) as fh:
        return next(i for i, text in enumerate(fh, 1)
                    if marker in text and "_line(" not in text)


def _refused(fun: Callable[..., Any], marker: str, *words: str) -> None:
    with pytest.raises(CompileError) as info:
        st.grad(fun)(X)
    err = info.value
    assert err.loc is not None and err.loc.file == __file__
    assert err.loc.line == _line(marker)
    text = str(err)
    assert text.startswith(f"{__file__}:{err.loc.line}:")
    for w in words:
        assert w in text
    assert err.hint


def tree_f(xs):
    return np.sum(xs[0] * np.sin(xs[1]))


def dict_f(d, y):
    return np.sum(d["a"] * np.sin(d["b"])) * y


def dict_fj(jnp: Any) -> Callable[..., Any]:
    return lambda d, y: jnp.sum(d["a"] * jnp.sin(d["b"])) * y


def test_products_of_tuple_and_dict_arguments_inside() -> None:
    def by_jvp(x):
        return st.jvp(dict_f, ({"a": x, "b": x**2}, 2.0), ({"a": V, "b": x}, 0.5))[1]

    def by_vjp(x):
        out, pullback = st.vjp(dict_f, {"a": x, "b": x**2}, 2.0)
        (d, dy) = pullback(1.5)
        return np.sum(d["a"] * d["b"]) + out * dy

    def by_jacfwd(x):
        jd, jy = st.jacfwd(dict_f, argnums=(0, 1))({"a": x, "b": x**2}, 2.0)
        return np.sum(jd["a"] * jd["b"]) + jy

    def by_jacrev(x):
        return np.sum(st.jacrev(tree_f)((x, x**2))[1] ** 2)

    def jx(jax: Any, jnp: Any, which: str) -> Any:
        d = dict_fj(jnp)

        def tf(xs):
            return jnp.sum(xs[0] * jnp.sin(xs[1]))

        if which == "jvp":
            return lambda x: jax.jvp(d, ({"a": x, "b": x**2}, 2.0), ({"a": V, "b": x}, 0.5))[1]
        if which == "vjp":
            def vj(x):
                out, pullback = jax.vjp(d, {"a": x, "b": x**2}, 2.0)
                dd, dy = pullback(1.5)
                return jnp.sum(dd["a"] * dd["b"]) + out * dy
            return vj
        if which == "jacfwd":
            def jf(x):
                jd, jy = jax.jacfwd(d, argnums=(0, 1))({"a": x, "b": x**2}, 2.0)
                return jnp.sum(jd["a"] * jd["b"]) + jy
            return jf
        return lambda x: jnp.sum(jax.jacrev(tf)((x, x**2))[1] ** 2)

    for fun, which in [(by_jvp, "jvp"), (by_vjp, "vjp"), (by_jacfwd, "jacfwd"),
                       (by_jacrev, "jacrev")]:
        got = st.grad(fun)(X)
        close(got, fd(fun, (X,)))
        jax_close(got, lambda jax, jnp, which=which: jax.grad(jx(jax, jnp, which))(X))


def test_hessians_of_tuple_and_dict_arguments_compose() -> None:
    got = st.jacfwd(st.hessian(tree_f))((X, Y))  # got[i][j][k]: d H[i][j] / d xs[k]
    for k in range(2):
        for i in range(2):
            for j in range(2):
                close(got[i][j][k], fd(lambda a, b, i=i, j=j: st.hessian(tree_f)((a, b))[i][j],
                                       (X, Y), k))
    jax_close(got, lambda jax, jnp: jax.jacfwd(jax.hessian(
        lambda xs: jnp.sum(xs[0] * jnp.sin(xs[1]))))((X, Y)))

    def total(x):  # JAX's nesting: H[i] in argument i's structure, then a tuple over j
        h = st.hessian(dict_f, argnums=(0, 1))({"a": x, "b": x**2}, 2.0)
        return np.sum(h[0]["a"][0]["b"] * W) + np.sum(h[1][0]["b"]) + h[1][1]

    got = st.grad(total)(X)
    close(got, fd(total, (X,)), rtol=1e-5)

    def totalj(jax: Any, jnp: Any) -> Any:
        def t(x):
            h = jax.hessian(dict_fj(jnp), argnums=(0, 1))({"a": x, "b": x**2}, 2.0)
            return jnp.sum(h[0]["a"][0]["b"] * W) + jnp.sum(h[1][0]["b"]) + h[1][1]
        return t

    jax_close(got, lambda jax, jnp: jax.grad(totalj(jax, jnp))(X))


class Params(NamedTuple):
    w: np.ndarray
    b: float


def nt_f(p):
    return np.sum(np.sin(p.w) * p.b)


def nt_out(x):
    return Params(np.sin(x), np.sum(x**2))


def test_namedtuple_arguments_and_outputs_compose() -> None:
    p = Params(X, 2.0)
    got = st.jacfwd(st.jacrev(nt_f))(p)
    assert type(got) is Params and type(got.w) is Params
    close(got.w.w, fd(lambda w: st.jacrev(nt_f)(Params(w, 2.0)).w, (X,)))
    close(got.b.w, fd(lambda w: st.jacrev(nt_f)(Params(w, 2.0)).b, (X,)))

    def total(x):
        j = st.jacfwd(nt_out)(x)
        return np.sum(j.w * j.b)

    got_t = st.grad(total)(X)
    close(got_t, fd(total, (X,)))

    def jparams(jax: Any, jnp: Any) -> Any:
        return jax.jacfwd(jax.jacrev(lambda q: jnp.sum(jnp.sin(q.w) * q.b)))(p)

    jax_close(got, jparams)

    def jtotal(jax: Any, jnp: Any) -> Any:
        def t(x):
            j = jax.jacfwd(lambda y: Params(jnp.sin(y), jnp.sum(y**2)))(x)
            return jnp.sum(j.w * j.b)
        return jax.grad(t)(X)

    jax_close(got_t, jtotal)


def test_static_argnums_compose() -> None:
    def power(x, n):
        return np.sum(np.sin(x) ** n)

    h = st.hessian(power, static_argnums=1)
    got = st.jacfwd(h)(X, 3)
    close(got, fd(lambda x: h(x, 3), (X,)))
    jax_close(got, lambda jax, jnp: jax.jacfwd(jax.hessian(
        lambda x: jnp.sum(jnp.sin(x) ** 3)))(X))


def test_a_keyword_argument_to_a_jacobian_inside_is_refused_at_the_call() -> None:
    def lin(x):
        return np.sum(st.jacfwd(g2)(x, y=Y))  # refused: keyword

    _refused(lin, "# refused: keyword", "keyword", "jacfwd")


def test_backend_keyword_of_a_product_inside_is_refused_at_the_call() -> None:
    def lin(x):
        return st.jvp(f, (x,), (V,), backend="numpy")[1]  # refused: backend

    _refused(lin, "# refused: backend", "backend")


def test_a_function_defined_inside_is_refused_at_the_call() -> None:
    def lin(x):
        def inner(y):
            return np.sum(y**2)
        return st.jvp(inner, (x,), (V,))[1]  # refused: inner function

    _refused(lin, "# refused: inner function", "defined inside")


def tree_power(xs, n):
    return np.sum(xs[0] * np.sin(xs[1]) ** n)


def test_a_refusal_met_at_the_top_level_is_not_located_inside_st_autodiff() -> None:
    h = st.hessian(tree_power, static_argnums=1)
    with pytest.raises(CompileError) as info:
        st.jacfwd(h)((X, Y), 3)
    err = info.value
    assert err.loc is None or err.loc.file == __file__
    assert "st_autodiff" not in str(err).splitlines()[0].split(": error")[0]
    assert "static" in str(err) and err.hint


# --- the generic false refusal ---------------------------------------------------------------

def test_math_prod_and_fsum_of_a_generator() -> None:
    def scaled(x):
        return f(x) * math.prod(d for d in x.shape) + math.fsum(float(d) for d in x.shape)

    got = st.grad(scaled)(X)
    close(got, fd(scaled, (X,)))
    assert np.allclose(got, 3 * st.grad(f)(X))
