"""Forward mode (``st.jvp``): against reverse mode on the whole corpus, and against finite
differences for functions with array outputs."""

import numpy as np
import pytest
from corpus import CORPUS, Entry

import st_autodiff as st

SCALAR = [e for e in CORPUS if not e.has_aux]


def _tangents(entry: Entry, args: tuple) -> tuple:
    rng = np.random.default_rng(7)
    positions = entry.positions
    return tuple(rng.normal(size=np.shape(a)) if i in positions else None
                 for i, a in enumerate(args))


@pytest.mark.parametrize("entry", [
    pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=e.xfail)]
                 if e.fails("jvp") else []) for e in SCALAR])
def test_jvp_equals_gradient_dot_tangent(entry: Entry):
    """<grad f, v> from reverse mode must equal J v from forward mode."""
    args = entry.bind(entry.args())
    tangents = _tangents(entry, args)
    out, out_dot = st.jvp(entry.fn, args, tangents)
    np.testing.assert_allclose(out, entry.fn(*args), rtol=1e-12)
    grads = st.grad(entry.fn, wrt=entry.positions)(*args)
    expected = sum(float(np.sum(np.asarray(g) * tangents[i]))
                   for i, g in zip(entry.positions, grads))
    scale = max(1.0, abs(expected))
    assert abs(float(out_dot) - expected) <= 1e-9 * scale, (out_dot, expected)


def layer(w, x):
    return np.tanh(x @ w) * np.exp(-x[:, :2].sum(axis=1, keepdims=True))


def stacked(a, b):
    return np.concatenate([np.sin(a), a * b, np.cumsum(b)[None]], axis=0)


@pytest.mark.parametrize("fn, shapes", [(layer, [(3, 2), (4, 3)]), (stacked, [(1, 3), (3,)])],
                         ids=["layer", "stacked"])
def test_jvp_of_array_outputs_matches_finite_differences(fn, shapes):
    rng = np.random.default_rng(3)
    args = tuple(rng.normal(size=s) for s in shapes)
    tangents = tuple(rng.normal(size=s) for s in shapes)
    _, out_dot = st.jvp(fn, args, tangents)
    eps = 1e-6
    plus = fn(*(a + eps * t for a, t in zip(args, tangents)))
    minus = fn(*(a - eps * t for a, t in zip(args, tangents)))
    np.testing.assert_allclose(out_dot, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_float32_tangents_stay_float32():
    x = np.linspace(0.1, 1.0, 5, dtype=np.float32)
    out, out_dot = st.jvp(layer, (np.ones((5, 2), np.float32) * 0.1, x[None, :].repeat(3, 0)),
                          (np.ones((5, 2), np.float32), None))
    assert out.dtype == np.float32 and out_dot.dtype == np.float32


def test_zero_tangent_and_generated_code():
    def f(x, y):
        z = np.sin(x) * y
        return np.sum(z * z)

    x, y = np.array([0.3, 0.7]), np.array([1.5, -2.0])
    out, out_dot = st.jvp(f, (x, y), (np.ones(2), None))
    np.testing.assert_allclose(out_dot, np.sum(2 * np.sin(x) * y * np.cos(x) * y))
    from st_autodiff.products import _JVP_CACHE

    source = _JVP_CACHE[f][(None, (0,))].source
    assert source.startswith("def f_jvp(x, y, x_dot):")
    assert "z_dot = " in source and "return out, out_dot" in source


def test_a_loop_runs_once_in_forward_mode():
    # the tangent loop computes the primal values too: it replaces the primal loop (the
    # primal loop ran a second time before, doubling the cost of jvp/jacfwd/hvp)
    def f(x):
        acc = []
        s = 0.0
        for i in range(3):
            s = s + np.sin(x * i)
            acc.append(s)
        return np.stack(acc)

    x, v = np.linspace(0.0, 1.0, 4), np.array([1.0, -0.5, 0.25, 2.0])
    out, out_dot = st.jvp(f, (x,), (v,))
    np.testing.assert_allclose(out, f(x))
    h = 1e-6
    np.testing.assert_allclose(out_dot, (f(x + h * v) - f(x - h * v)) / (2 * h), atol=1e-8)
    from st_autodiff.products import _JVP_CACHE

    source = _JVP_CACHE[f][(None, (0,))].source
    loops = [line for line in source.splitlines() if line.lstrip().startswith("for ")]
    assert loops == ["    for i in range(3):"]
    assert "out = xp.stack(_stack_s_1)" in source


def test_tangent_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match=r"argument 0 has shape \(3,\), but its primal has"):
        st.jvp(layer, (np.ones((3, 2)), np.ones((4, 3))), (np.ones(3), None))
    with pytest.raises(TypeError, match="2 primals but 1 tangents"):
        st.jvp(layer, (np.ones((3, 2)), np.ones((4, 3))), (np.ones((3, 2)),))


def test_jacrev_and_jacfwd_agree_with_finite_differences():
    rng = np.random.default_rng(5)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    jr = st.jacrev(layer)(w, x)
    jf = st.jacfwd(layer)(w, x)
    assert jr.shape == (4, 2, 3, 2) and st.jacobian is st.jacrev
    np.testing.assert_allclose(jr, jf, rtol=1e-12, atol=1e-14)
    eps = 1e-6
    for k in range(w.size):
        e = np.zeros(w.size)
        e[k] = eps
        e = e.reshape(w.shape)
        fd = (layer(w + e, x) - layer(w - e, x)) / (2 * eps)
        np.testing.assert_allclose(jr[..., k // 2, k % 2], fd, rtol=1e-6, atol=1e-8)
    jx = st.jacfwd(layer, wrt=1)(w, x)
    np.testing.assert_allclose(jx, st.jacrev(layer, wrt=1)(w, x), rtol=1e-12, atol=1e-14)
