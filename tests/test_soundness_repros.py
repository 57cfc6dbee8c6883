"""The fifteen silently wrong results of the soundness issue, as reported, one test each.

Each reproduction must now give Python's value and the right derivative (checked against
the closed form and float64 central differences), or a located refusal: an
``StAutodiffError`` whose location is a line of the user's code.  Never a silent
difference.  The root-cause tests live beside the code they test (``test_binding.py``,
``test_guards.py``, ``test_effects_once.py``, ``test_structured.py``,
``test_nested_regions.py``, ``test_aliasing.py``, ``test_complex.py``,
``tests/differential/``); this file is the issue's list, kept as it was written.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StAutodiffError


def right_or_located(call: Callable[[], Any], check: Callable[[Any], None]) -> str:
    """Run ``call``: its result must pass ``check``, or it must raise a located error."""
    try:
        result = call()
    except StAutodiffError as exc:
        if isinstance(exc, CompileError):
            assert exc.loc is not None and exc.loc.line > 0, f"unlocated: {exc}"
        assert "error" in str(exc)
        return "refused"
    check(result)
    return "right"


def fd(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function of a float64 array."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


# --- 1. keyword-only parameters ----------------------------------------------------------

def kwonly_loss(w, *, lam=0.1):
    return np.sum(w ** 2) + lam * np.sum(w)


def test_1_keyword_only_parameters():
    w = np.array([1.0, 2.0])
    np.testing.assert_allclose(st.grad(kwonly_loss)(w), [2.1, 4.1])
    val, g = st.value_and_grad(kwonly_loss)(w, lam=0.5)
    assert val == pytest.approx(6.5)
    np.testing.assert_allclose(g, [2.5, 4.5])


# --- 2. positional-only parameters --------------------------------------------------------

a = np.full(3, 10.0)


def posonly_h(a, /, b=1.0):
    return a * b


def posonly_f(x):
    return np.sum(posonly_h(x))


def test_2_positional_only_parameters():
    val, g = st.value_and_grad(posonly_f)(np.ones(3))
    assert val == pytest.approx(3.0)
    np.testing.assert_allclose(g, [1.0, 1.0, 1.0])


# --- 3. linspace of differentiated ends ----------------------------------------------------

def linspace_f(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def test_3_linspace_ends_are_not_folded():
    ga, gb = st.grad(linspace_f, wrt=(0, 1))(1.2, 3.4)
    assert ga == pytest.approx(8.75)
    assert gb == pytest.approx(14.25)
    # compiled once, called at other ends: nothing of the first example is folded in
    ga, gb = st.grad(linspace_f, wrt=(0, 1))(-0.5, 2.0)
    l5 = np.linspace(-0.5, 2.0, 5)
    t = np.linspace(0.0, 1.0, 5)
    assert ga == pytest.approx(np.sum(2 * l5 * (1 - t)))
    assert gb == pytest.approx(np.sum(2 * l5 * t))


# --- 4. np.array(x, ndmin=2) ---------------------------------------------------------------

def ndmin_f(x):
    return np.sum(np.array(x, ndmin=2).mean(axis=0) ** 2)


def test_4_array_ndmin():
    x = np.array([1.0, 2.0, 3.0])

    def check(r):
        val, g = r
        assert val == pytest.approx(ndmin_f(x)) and val == pytest.approx(14.0)
        np.testing.assert_allclose(g, [2.0, 4.0, 6.0])

    right_or_located(lambda: st.value_and_grad(ndmin_f)(x), check)


# --- 5. globals and closure cells rebound after the first call ------------------------------

K = 2.0
W = np.ones(2)


def global_f(w):
    return K * np.sum(W * w ** 2)


def test_5_rebound_globals_are_not_stale():
    global K, W
    g = st.grad(global_f)
    w = np.ones(2)
    try:
        np.testing.assert_allclose(g(w), [4.0, 4.0])
        K = 5.0
        np.testing.assert_allclose(g(w), [10.0, 10.0])
        W = np.array([1.0, 3.0])
        np.testing.assert_allclose(g(w), [10.0, 30.0])
    finally:
        K, W = 2.0, np.ones(2)


def test_5_rebound_closure_cell_is_not_stale():
    scale = 2.0

    def f(w):
        return scale * np.sum(w ** 2)

    g = st.grad(f)
    np.testing.assert_allclose(g(np.ones(2)), [4.0, 4.0])
    scale = 3.0
    np.testing.assert_allclose(g(np.ones(2)), [6.0, 6.0])


# --- 6. a function with a rule runs once per call -------------------------------------------

CALLS: list[int] = []


def noisy(x):
    CALLS.append(1)
    return x * np.random.rand()


def noisy_loss(x):
    return np.sum(noisy(x))


def quiet(x):  # the same function, registered without saying its output type
    CALLS.append(1)
    return x * np.random.rand()


def quiet_loss(x):
    return np.sum(quiet(x))


# the compiler never runs a registered function to learn its output: it has effects (a
# draw, a list append), so its output type is given
st.register_vjp(noisy, lambda g, out, x: (g * out / x,), out_type=st.ShapeDtype((3,), "float64"))
st.register_vjp(quiet, lambda g, out, x: (g * out / x,))


def test_6_effects_run_once_per_call():
    CALLS.clear()
    x = np.ones(3)
    vg = st.value_and_grad(noisy_loss)
    np.random.seed(0)
    val, g = vg(x)
    assert len(CALLS) == 1
    np.random.seed(0)
    r = np.random.rand()
    assert val == pytest.approx(3 * r)  # the same draw Python would make
    np.testing.assert_allclose(g, [r, r, r])
    vg(x)
    assert len(CALLS) == 2


def test_6_effects_without_a_type_are_refused_not_run():
    CALLS.clear()
    with pytest.raises(CompileError) as info:
        st.value_and_grad(quiet_loss)(np.ones(3))
    assert info.value.loc is not None and "quiet(x)" in info.value.loc.text
    assert "out_type" in str(info.value)
    assert CALLS == []  # never run while compiling


# --- 7. registered rule on a function that returns a tuple -----------------------------------

def two(x):
    return np.sin(x), np.cos(x)


st.register_vjp(two, lambda g, out, x: (g[0] * np.cos(x) - g[1] * np.sin(x),))


def two_loss(x):
    s, c = two(x)
    return np.sum(s + 2 * c)


def eigh_loss(m):
    w, v = np.linalg.eigh(m)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 2 * np.arange(1.0, 4.0))


def _eigh_rule(g, out, m):
    w, v = out
    gw, gv = g
    f = w[None, :] - w[:, None]
    np.fill_diagonal(f, np.inf)
    inner = np.diag(gw) + (v.T @ gv) / f
    grad = v @ inner @ v.T
    return ((grad + grad.T) / 2,)


def test_7_tuple_output_rules():
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(st.grad(two_loss)(x), np.cos(x) - 2 * np.sin(x))


def test_7_register_vjp_on_eigh():
    st.register_vjp(np.linalg.eigh, _eigh_rule)
    try:
        m = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])

        def sym_loss(flat):
            s = flat.reshape(3, 3)
            return eigh_loss((s + s.T) / 2)

        def sym_loss_st(flat):
            s = flat.reshape(3, 3)
            return eigh_loss((s + s.T) / 2)

        g = st.grad(sym_loss_st)(m.ravel())
        np.testing.assert_allclose(g, fd(sym_loss, m.ravel()), atol=1e-6)
    finally:
        from st_autodiff.derivatives import CUSTOM_VJPS
        CUSTOM_VJPS.pop(np.linalg.eigh, None)


# --- 8. vjp and jvp of a function returning a tuple ------------------------------------------

def pair(x):
    return 2 * x, x + 1


def test_8_tuple_outputs_in_vjp_and_jvp():
    out, pullback = st.vjp(pair, 1.0)
    assert out == (2.0, 2.0)
    (gx,) = pullback((1.0, 1.0))
    assert gx == pytest.approx(3.0)
    primal, tangent = st.jvp(pair, (1.0,), (1.0,))
    assert primal == (2.0, 2.0)
    assert tangent == (pytest.approx(2.0), pytest.approx(1.0))


# --- 9. jvp with a list argument --------------------------------------------------------------

def list_product(xs):
    return xs[0] * xs[1]


def test_9_jvp_of_a_list_argument():
    out, t = st.jvp(list_product, ([2.0, 3.0],), ([1.0, 0.0],))
    assert out == pytest.approx(6.0)
    assert t == pytest.approx(3.0)


# --- 10. second order through if{for} --------------------------------------------------------

def if_for(a):
    if a > 0:
        for _ in range(3):
            a = a * a
    else:
        for _ in range(3):
            a = a * a
    return a


def test_10_second_order_through_if_for():
    assert st.grad(st.grad(if_for))(2.0) == pytest.approx(56 * 2.0 ** 6)
    assert st.hvp(if_for, (2.0,), (1.0,)) == pytest.approx(3584.0)
    assert st.jvp(st.grad(if_for), (2.0,), (1.0,))[1] == pytest.approx(3584.0)
    h = st.hessian(if_for)(np.array(2.0))
    assert float(h) == pytest.approx(3584.0)


# --- 11. third order through while ----------------------------------------------------------

def newton_sqrt(a):
    x = a
    k = 0
    while k < 6:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def test_11_third_order_through_while():
    d3 = st.grad(st.grad(st.grad(newton_sqrt)))(2.5)
    assert d3 == pytest.approx(3 / 8 * 2.5 ** -2.5, rel=1e-6)


# --- 12. arrays held in containers ------------------------------------------------------------

def appended_alias(x):
    h = np.zeros(2)
    hs = []
    for i in range(4):
        h += x * i
        hs.append(h)
    return np.sum(hs[0])


def dict_alias(x):
    d = {"a": x * 1.0}
    b = d["a"]
    b += 1
    return np.sum(d["a"])


@pytest.mark.parametrize("fn, value, grad", [(appended_alias, 12.0, [6.0, 6.0]),
                                             (dict_alias, 4.0, [1.0, 1.0])])
def test_12_aliasing_through_containers(fn, value, grad):
    x = np.ones(2)
    assert fn(x) == pytest.approx(value)  # what Python computes

    def check(r):
        assert r[0] == pytest.approx(value)
        np.testing.assert_allclose(r[1], grad)

    right_or_located(lambda: st.value_and_grad(fn)(x), check)


# --- 13. std over a length-1 axis -----------------------------------------------------------

def std_axis(x):
    return np.sum(np.std(x, axis=1))


def test_13_std_over_length_one_axis():
    x = np.array([[2.0], [3.0], [-1.0]])
    g = st.grad(std_axis)(x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, fd(std_axis, x), atol=1e-8)


# --- 14. complex numbers -------------------------------------------------------------------

def square(z):
    return z * z


def abs_sin(z):
    return np.sum(np.abs(np.sin(z)))


def test_14_complex_is_right_or_refused():
    def check_jvp(r):
        out, t = r
        assert out == pytest.approx((1 + 2j) ** 2)
        assert t == pytest.approx(2 * (1 + 2j))

    right_or_located(lambda: st.jvp(square, (1 + 2j,), (1.0 + 0j,)), check_jvp)
    z = np.array([1 + 2j, 0.5 - 1j])

    def check_grad(g):
        # JAX's convention: grad of a real function of z = x + iy is df/dx - i df/dy
        def f_re(v):
            return abs_sin(v[:2] + 1j * v[2:])

        d = fd(f_re, np.concatenate([z.real, z.imag]))
        np.testing.assert_allclose(g, d[:2] - 1j * d[2:], atol=1e-6)

    right_or_located(lambda: st.grad(abs_sin)(z), check_grad)


# --- 15. a source file edited after import ---------------------------------------------------

def test_15_source_edited_after_import(tmp_path: Path):
    path = tmp_path / "edited_module.py"
    path.write_text(textwrap.dedent("""
        import numpy as np

        def f(x):
            return np.sum(x ** 2)
    """))
    spec = importlib.util.spec_from_file_location("edited_module", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["edited_module"] = mod
    try:
        spec.loader.exec_module(mod)
        path.write_text(textwrap.dedent("""
            import numpy as np

            def f(x):
                return np.sum(x ** 3)
        """))
        import linecache
        linecache.checkcache(str(path))
        x = np.array([1.0, 2.0])
        right_or_located(lambda: st.grad(mod.f)(x),
                         lambda g: np.testing.assert_allclose(g, 2 * x))
    finally:
        sys.modules.pop("edited_module", None)
