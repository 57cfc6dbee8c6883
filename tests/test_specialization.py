"""Specialisation the user can see and control: log lines saying what changed,
``cache_info()``/``st.explain``, the LRU limit, ``static_argnums``/``dynamic_argnums``, and
``st.grad(f)`` written again reusing the first one's code.

Module-level names below are rebound by some tests; each restores what it changes.
"""

from __future__ import annotations

import gc
import logging
import os
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads, numerical_vjp

ROOT = Path(__file__).resolve().parents[1]
X3 = np.array([0.3, -0.7, 1.1])
K = 2.0


def power_sum(x, n):
    return np.sum(x**n)


def scaled(x):
    return np.sum(np.sin(x) * K)


def loop_sum(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i]) * x[i + 1]
    return s


def loop_branch(x, n):
    s = np.sum(x)
    if n > 2:
        s = s * np.sum(x * x)
    for i in range(n):
        s = s + x[i % 3] ** 2
    return s


def with_scale(x, scale, n):
    out = 0.0
    for i in range(n):
        out = out + np.sum(np.tanh(x * scale)) * (i + 1)
    return out


@pytest.fixture
def info_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="st_autodiff")
    return caplog


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "st_autodiff"]


def _fresh(fn, **kw):
    g = st.grad(fn, **kw)
    g.cache_clear()  # another test may have compiled st.grad(fn) with the same options
    return g


# --- log lines --------------------------------------------------------------------------


def test_each_specialisation_is_logged_with_what_changed(info_log):
    g = _fresh(power_sum)
    g(X3, 2)
    g(X3, 2)
    g(np.ones(4), 2)
    g(np.ones(4), 3)
    lines = [m for m in _lines(info_log) if "compiling power_sum" in m]
    assert len(lines) == 3  # the cached call logs nothing
    assert lines[0].endswith("first call")
    assert lines[1].endswith("x: f64[3] -> f64[4]")
    assert lines[2].endswith("n: int 2 -> 3")


def test_a_failed_guard_is_logged_as_the_reason(info_log):
    global K
    g = _fresh(scaled)
    g(X3)
    try:
        K = 3.0
        np.testing.assert_allclose(g(X3), 3.0 * np.cos(X3))
    finally:
        K = 2.0
    assert any("guard on global 'K'" in m and m.endswith("failed")
               for m in _lines(info_log)), _lines(info_log)


def test_log_specialization_switch_logs_at_warning(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger="st_autodiff")
    monkeypatch.setattr(st.config, "log_specialization", True)
    g = _fresh(power_sum)
    g(X3, 4)
    assert [r.levelno for r in caplog.records if "compiling power_sum" in r.getMessage()] == [
        logging.WARNING]


def test_environment_variable_turns_the_log_on():
    code = ("import numpy as np, st_autodiff as st\n"
            "from tests.test_specialization import power_sum\n"
            "g = st.grad(power_sum)\n"
            "g(np.ones(3), 2); g(np.ones(3), 2); g(np.ones(3), 5)\n")
    env = {**os.environ, "ST_AUTODIFF_LOG_SPECIALIZATION": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    lines = [ln for ln in done.stderr.splitlines() if "compiling power_sum" in ln]
    assert len(lines) == 2, done.stderr
    assert lines[1].endswith("n: int 2 -> 5")


# --- cache_info and explain ---------------------------------------------------------------


def test_cache_info_lists_specialisations_hits_and_reasons():
    g = _fresh(power_sum)
    for _ in range(3):
        g(X3, 2)
    g(X3, 3)
    info = g.cache_info()
    assert (info.currsize, info.hits, info.misses, info.evictions) == (2, 2, 2, 0)
    first, second = info.specialisations
    assert (first.key, first.hits, first.reason) == ("x: f64[3], n: int 2", 2, "first call")
    assert (second.key, second.hits, second.reason) == ("x: f64[3], n: int 3", 0,
                                                        "n: int 2 -> 3")
    assert "power_sum: 2 specialisation(s)" in str(info)


def test_explain_says_which_specialisation_a_call_would_use_without_compiling():
    g = _fresh(power_sum)
    g(X3, 2)
    builds = []
    real = g._build
    g._build = lambda *a: builds.append(1) or real(*a)
    reuse = st.explain(g, X3 + 1.0, 2)
    assert "reuses a cached specialisation" in reuse and "first call" in reuse
    new = st.explain(g, np.ones(5), n=3)
    assert "would compile a new specialisation" in new
    assert "x: f64[3] -> f64[5]; n: int 2 -> 3" in new
    assert builds == [] and g.cache_info().misses == 1


def test_explain_names_a_failed_guard():
    global K
    g = _fresh(scaled)
    g(X3)
    try:
        K = 5.0
        assert "guard on global 'K'" in st.explain(g, X3)
    finally:
        K = 2.0
    assert "reuses" in st.explain(g, X3)


def test_explain_needs_a_compiled_function():
    with pytest.raises(TypeError, match=r"st\.explain\(st\.grad\(f\)"):
        st.explain(power_sum, X3, 2)


def test_cache_info_of_value_and_grad_vjp_and_jacobians():
    vg = st.value_and_grad(power_sum)
    vg.cache_clear()
    vg(X3, 2)
    vg(X3, 2)
    assert vg.cache_info().hits == 1
    _, pullback = st.vjp(lambda x: np.tanh(x), X3)
    pullback(np.ones(3))
    assert pullback.grad_function.cache_info().currsize == 1

    def f(x):
        return np.sin(x) * x

    jr, jf = st.jacrev(f), st.jacfwd(f)
    jr(X3)
    jr(X3)
    jf(X3)
    assert jr.cache_info().currsize == 1 and jr.cache_info().hits >= 1
    assert jf.cache_info().currsize == 1  # one tangent function, reused per column
    assert "reuses" in jr.explain(X3) and "would compile" in jr.explain(np.ones(2))
    assert "reuses" in jf.explain(X3)
    h = st.hessian(lambda x: np.sum(np.sin(x) * x))
    h(X3)
    assert h.cache_info().currsize == 1 and "reuses" in h.explain(X3)


# --- the LRU limit ----------------------------------------------------------------------


def test_lru_limit_per_function_evicts_the_least_recently_used(info_log):
    g = _fresh(power_sum, cache_size=2)
    g(X3, 2)
    g(X3, 3)
    g(X3, 2)  # 2 is now the most recently used
    g(X3, 4)  # evicts 3
    info = g.cache_info()
    assert [s.key for s in info.specialisations] == ["x: f64[3], n: int 2",
                                                     "x: f64[3], n: int 4"]
    assert (info.evictions, info.maxsize) == (1, 2)
    assert any("evicted the specialisation for x: f64[3], n: int 3" in m
               for m in _lines(info_log))
    np.testing.assert_allclose(g(X3, 3), 3 * X3**2)  # compiled again, right
    assert g.cache_info().misses == 4


def test_config_cache_size_is_the_default_limit(monkeypatch):
    assert st.config.cache_size == 64
    monkeypatch.setattr(st.config, "cache_size", 3)
    g = _fresh(power_sum)
    for n in range(2, 8):
        g(X3, n)
    assert g.cache_info().currsize == 3 and g.cache_info().evictions == 3


def test_bad_cache_sizes_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        st.grad(power_sum, cache_size=0)
    with pytest.raises(TypeError, match="must be an int"):
        st.grad(power_sum, cache_size=2.5)
    with pytest.raises(ValueError, match="at least 1"):
        st.config.cache_size = 0


# --- static arguments -------------------------------------------------------------------


def test_static_float_is_a_compile_time_constant_keyed_by_value():
    g = _fresh(with_scale, static_argnums=1)
    for scale in (0.5, 2.0, 0.5):
        check_grads(lambda x, s=scale: with_scale(x, s, 2), [X3], lambda x, s=scale: (
            g(x, s, 2),))
    assert g.cache_info().currsize == 2 and g.cache_info().hits == 1
    assert [s.key for s in g.cache_info().specialisations] == [
        "x: f64[3], scale: static float 2.0, n: int 2",
        "x: f64[3], scale: static float 0.5, n: int 2"]  # 0.5 used most recently


def test_static_argnames_and_negative_argnums():
    g = _fresh(with_scale, static_argnames="scale")
    h = _fresh(with_scale, static_argnums=-2)
    for fn in (g, h):
        np.testing.assert_allclose(fn(X3, 1.5, 1), 1.5 / np.cosh(1.5 * X3) ** 2)
        assert "static float 1.5" in fn.cache_info().specialisations[0].key


def test_static_values_of_different_types_are_different_specialisations():
    def f(x, c):
        return np.sum(x * c)

    g = st.grad(f, static_argnums=1)
    for c in (1, 1.0, True):
        np.testing.assert_allclose(g(X3, c), np.full(3, 1.0))
    assert g.cache_info().currsize == 3


def test_unhashable_static_argument_is_a_type_error():
    g = st.grad(with_scale, static_argnums=1)
    with pytest.raises(TypeError, match=r"static argument 'scale' is a ndarray, which is not "
                                        r"hashable"):
        g(X3, np.ones(3), 1)
    with pytest.raises(TypeError, match="is a list"):
        g(X3, [1.0], 1)


def test_static_argument_cannot_be_differentiated():
    with pytest.raises(ValueError, match="cannot differentiate with respect to the static"):
        st.grad(with_scale, wrt=1, static_argnums=1)(X3, 2.0, 1)
    with pytest.raises(ValueError, match="out of range"):
        st.grad(with_scale, static_argnums=5)(X3, 2.0, 1)
    with pytest.raises(ValueError, match="no such parameter"):
        st.grad(with_scale, static_argnames="nope")(X3, 2.0, 1)
    with pytest.raises(TypeError, match="static_argnums must be an int"):
        st.grad(with_scale, static_argnums="scale")


@dataclass(frozen=True)
class Config:
    scale: float
    depth: int


def uses_config(x, cfg):
    y = x
    for _ in range(cfg.depth):
        y = np.tanh(y * cfg.scale)
    return np.sum(y)


def test_static_hashable_object_is_keyed_by_value():
    g = _fresh(uses_config, static_argnums=1)
    for cfg in (Config(0.5, 2), Config(0.5, 2), Config(1.5, 1)):
        check_grads(lambda x, c=cfg: uses_config(x, c), [X3], lambda x, c=cfg: (g(x, c),))
    assert g.cache_info().currsize == 2 and g.cache_info().hits == 1


def test_value_and_grad_takes_static_and_dynamic_arguments():
    vg = st.value_and_grad(with_scale, static_argnums=1, dynamic_argnames="n")
    for n in (1, 3, 2):
        value, grad = vg(X3, 0.7, n)
        np.testing.assert_allclose(value, with_scale(X3, 0.7, n))
        np.testing.assert_allclose(grad, numerical_vjp(lambda x, n=n: with_scale(x, 0.7, n), [X3],
                                                       1.0)[0], rtol=1e-6, atol=1e-8)
    assert vg.cache_info().misses == 1


# --- dynamic arguments ------------------------------------------------------------------


def test_dynamic_loop_length_compiles_once_with_right_gradients():
    g = _fresh(loop_sum, dynamic_argnums=1)
    x = np.linspace(-1.0, 1.0, 12)
    for n in range(0, 11):
        check_grads(lambda x, n=n: loop_sum(x, n), [x], lambda x, n=n: (g(x, n),))
    info = g.cache_info()
    assert (info.misses, info.currsize, info.hits) == (1, 1, 10)
    assert "n: int (runtime value)" in info.specialisations[0].key
    assert "range(n)" in g.source  # a loop of the generated code, not unrolled


def test_dynamic_int_in_a_runtime_branch():
    g = _fresh(loop_branch, dynamic_argnames="n")
    for n in (1, 4, 2, 5):
        check_grads(lambda x, n=n: loop_branch(x, n), [X3], lambda x, n=n: (g(x, n),))
    assert g.cache_info().misses == 1


def sliced(x, n):
    z = np.zeros(n)
    return np.sum(x[:n] * x[:n]) + np.sum(z * x[0])


def flagged(x, flag):
    if flag:
        return np.sum(x * x)
    return np.sum(np.sin(x))


def test_dynamic_int_as_a_slice_bound_and_a_shape_and_a_dynamic_bool():
    g = _fresh(sliced, dynamic_argnums=1)
    x = np.linspace(0.5, 2.0, 6)
    for n in (1, 4, 6, 2):
        check_grads(lambda x, n=n: sliced(x, n), [x], lambda x, n=n: (g(x, n),))
    h = _fresh(flagged, dynamic_argnums=1)
    for flag in (True, False, True):
        check_grads(lambda x, f=flag: flagged(x, f), [x], lambda x, f=flag: (h(x, f),))
    assert g.cache_info().misses == 1 and h.cache_info().misses == 1


def test_dynamic_argument_must_be_an_int_or_bool():
    g = st.grad(with_scale, dynamic_argnums=2)
    with pytest.raises(TypeError, match="only ints and bools can be made runtime values"):
        g(X3, 1.0, "3")
    with pytest.raises(ValueError, match="both static and dynamic"):
        st.grad(with_scale, static_argnums=2, dynamic_argnums=2)(X3, 1.0, 2)


def test_jacobians_and_hessian_take_static_and_dynamic_arguments():
    def f(x, s, n):
        out = x * 0.0
        for i in range(n):
            out = out + np.sin(x * s) * (i + 1)
        return out

    def loss(x, s, n):
        return np.sum(f(x, s, n))

    jr = st.jacrev(f, static_argnums=1, dynamic_argnums=2)
    jf = st.jacfwd(f, static_argnames="s", dynamic_argnames="n")
    for s, n in ((2.0, 1), (2.0, 3), (0.5, 2)):
        expected = np.diag(s * np.cos(s * X3) * n * (n + 1) / 2)
        np.testing.assert_allclose(jr(X3, s, n), expected, atol=1e-12)
        np.testing.assert_allclose(jf(X3, s, n), expected, atol=1e-12)
        for mode in ("forward", "reverse"):
            h = st.hessian(loss, static_argnums=1, dynamic_argnums=2, mode=mode)
            np.testing.assert_allclose(h(X3, s, n), np.diag(
                -s * s * np.sin(s * X3) * n * (n + 1) / 2), atol=1e-12)
    assert jr.cache_info().currsize == 2 and jf.cache_info().currsize == 2  # one per s
    with pytest.raises(ValueError, match="it is static"):
        st.jacrev(f, wrt=1, static_argnums=1)(X3, 2.0, 1)


# --- st.grad(f) written again -----------------------------------------------------------


def test_grad_written_inline_reuses_the_first_ones_code():
    st.grad(power_sum).cache_clear()
    for _ in range(20):
        np.testing.assert_allclose(st.grad(power_sum)(X3, 2), 2 * X3)
    info = st.grad(power_sum).cache_info()
    assert (info.misses, info.hits) == (1, 19)
    # other options are other code
    assert st.grad(power_sum, optimize=False).cache_info().misses == 0
    assert st.value_and_grad(power_sum).cache_info() is not None


def test_inline_grad_of_a_closure_made_in_a_loop_is_right_and_collected():
    refs = []
    for k in (1.0, 2.0, 3.0):
        def f(x, k=k):
            return np.sum(x * x) * k

        np.testing.assert_allclose(st.grad(f)(X3), 2 * k * X3)
        refs.append(weakref.ref(f))
    del f
    gc.collect()
    assert all(r() is None for r in refs)  # the shared cache does not keep them alive


class Model:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(self.w * x * x)


def test_inline_grad_of_bound_methods_uses_each_receiver():
    a, b = Model(1.0), Model(3.0)
    for _ in range(2):
        np.testing.assert_allclose(st.grad(a.loss)(X3), 2 * X3)
        np.testing.assert_allclose(st.grad(b.loss)(X3), 6 * X3)


def test_inline_grad_costs_little_more_than_a_reused_object():
    g = st.grad(power_sum)
    g(X3, 2)

    def best(fn, n=2000):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    reused = best(lambda: g(X3, 2))
    inline = best(lambda: st.grad(power_sum)(X3, 2))
    # the target is about 2x; the bound here only catches a recompile (100x and more)
    assert inline < 10 * reused, (inline, reused)


def test_explain_with_structured_arguments():
    def f(p):
        return np.sum(p["w"] ** 2)

    g = st.grad(f)
    assert "first call with this structure" in st.explain(g, {"w": X3})
    np.testing.assert_allclose(g({"w": X3})["w"], 2 * X3)
    assert "reuses a cached specialisation" in st.explain(g, {"w": X3 + 1.0})
    assert "p_0: f64[3] -> f64[2]" in st.explain(g, {"w": np.ones(2)})  # leaf 0 of p


def softplus_like(x):
    return np.logaddexp(0.0, x)


def uses_softplus(x):
    return np.sum(softplus_like(x))


def test_a_rule_registered_later_is_used_by_a_later_st_grad():
    from st_autodiff.derivatives import CUSTOM_VJPS

    try:
        st.register_vjp(softplus_like, lambda g, out, x: (g / (1 + np.exp(-x)),))
        np.testing.assert_allclose(st.grad(uses_softplus)(X3), 1 / (1 + np.exp(-X3)))
        st.register_vjp(softplus_like, lambda g, out, x: (2.0 * g / (1 + np.exp(-x)),))
        np.testing.assert_allclose(st.grad(uses_softplus)(X3), 2 / (1 + np.exp(-X3)))
    finally:
        CUSTOM_VJPS.pop(softplus_like, None)
