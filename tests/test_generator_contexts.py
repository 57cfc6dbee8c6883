"""``with`` over ``@contextlib.contextmanager`` functions (generator_contexts.py)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError

X = np.array([0.3, 1.1, -0.7])


def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def _check(f, x=X):
    value, grad = st.value_and_grad(f)(x)
    assert np.allclose(value, f(x))
    assert np.allclose(grad, _fd(f, x), atol=1e-6)


@contextlib.contextmanager
def scaled(k, log):
    log.append(("enter", k))
    try:
        yield 2.0 * k
    finally:
        log.append(("exit", k))


@contextlib.contextmanager
def plain(k):
    print("setup", k)
    yield k + 1.0
    print("teardown", k)


def test_yielded_value_and_gradient():
    def f(x):
        with plain(3.0) as v:
            y = np.sin(x) * v
        return y.sum()
    _check(f)


def test_effects_run_in_python_order_once_per_call(capsys):
    def f(x):
        print("before")
        with plain(2.0) as v:
            print("body")
            y = np.exp(x) * v
        print("after")
        return y.sum()
    g = st.grad(f)
    capsys.readouterr()
    for _ in range(2):
        g(X)
        assert capsys.readouterr().out.split() == ["before", "setup", "2.0", "body",
                                                   "teardown", "2.0", "after"]


def test_nested_and_return_inside_body_runs_exit(capsys):
    def f(x):
        with plain(1.0) as a:
            with plain(2.0) as b:
                return (np.cos(x) * a * b).sum()
    _check(f)
    capsys.readouterr()
    st.grad(f)(X)
    assert capsys.readouterr().out.split() == ["setup", "1.0", "setup", "2.0", "teardown",
                                               "2.0", "teardown", "1.0"]


def test_break_inside_body_runs_exit(capsys):
    def f(x):
        s = 0.0
        for i in range(3):
            with plain(i) as v:
                s = s + (x * x).sum() * v
                if i == 1:
                    break
        return s
    _check(f)
    capsys.readouterr()
    st.grad(f)(X)
    assert capsys.readouterr().out.split() == ["setup", "0", "teardown", "0", "setup", "1",
                                               "teardown", "1"]


def test_static_exception_handled_by_the_generator():
    @contextlib.contextmanager
    def swallow():
        try:
            yield 1.0
        except KeyError:
            pass

    def f(x):
        y = x * 2.0
        with swallow():
            y = y * 3.0
            {}["missing"]
            y = y * 100.0
        return y.sum()
    _check(f)
    assert np.allclose(st.grad(f)(X), 6.0)


def test_static_exception_not_handled_propagates():
    @contextlib.contextmanager
    def passthrough():
        yield

    def f(x):
        try:
            with passthrough():
                {}["missing"]
        except KeyError:
            return (x * 5.0).sum()
        return x.sum()
    _check(f)


def test_handler_around_runtime_code_is_refused():
    @contextlib.contextmanager
    def catching():
        try:
            yield
        except Exception:
            pass

    def f(x):
        with catching():
            y = np.log(x)
        return y.sum()
    with pytest.raises(StAutodiffError, match="except Exception"):
        st.grad(f)(np.abs(X))


def test_outside_list_writes_still_refused():
    log = []

    def f(x):
        with scaled(1.0, log) as v:
            y = x * v
        return y.sum()
    with pytest.raises(StAutodiffError, match="lives outside the function") as err:
        st.grad(f)(X)
    assert "test_generator_contexts.py" in str(err.value)


CONFIG = {"scale": 1.0}


@contextlib.contextmanager
def config(**changes):
    old = dict(CONFIG)
    CONFIG.update(changes)
    try:
        yield
    finally:
        CONFIG.clear()
        CONFIG.update(old)


@contextlib.contextmanager
def leaky(**changes):
    CONFIG.update(changes)
    yield


def _scaled(x):
    return x * CONFIG["scale"]


def test_restored_outside_dict_is_read_while_compiling():
    def f(x):
        with config(scale=3.0):
            y = _scaled(x)
        return (y * _scaled(x)).sum()
    _check(f)
    assert np.allclose(st.grad(f)(X), 6.0 * X)
    assert CONFIG == {"scale": 1.0}
    CONFIG["scale"] = 2.0  # a change between calls is seen (the guards hold)
    try:
        assert np.allclose(st.grad(f)(X), 12.0 * X)
    finally:
        CONFIG["scale"] = 1.0


def test_unrestored_outside_dict_is_refused():
    def f(x):
        with leaky(scale=3.0):
            y = _scaled(x)
        return y.sum()
    try:
        with pytest.raises(StAutodiffError, match="does not restore"):
            st.grad(f)(X)
    finally:
        CONFIG.clear()
        CONFIG["scale"] = 1.0


def test_runtime_value_into_outside_dict_is_refused():
    def f(x):
        with config(scale=x[0]):
            y = _scaled(x)
        return y.sum()
    with pytest.raises(StAutodiffError, match="computed at run time"):
        st.grad(f)(X)
    assert CONFIG == {"scale": 1.0}


def test_two_yields_refused():
    @contextlib.contextmanager
    def twice():
        yield
        yield

    def f(x):
        with twice():
            y = x * 2.0
        return y.sum()
    with pytest.raises(StAutodiffError, match="more than one yield"):
        st.grad(f)(X)


def test_sklearn_config_context():
    sklearn = pytest.importorskip("sklearn")

    def f(x):
        with sklearn.config_context(assume_finite=True):
            assert sklearn.get_config()["assume_finite"]
            y = np.tanh(x)
        return y.sum()
    before = sklearn.get_config()
    _check(f)
    assert sklearn.get_config() == before


def test_sklearn_config_context_in_a_fresh_thread():
    """sklearn fills its thread-local config on first use: in a new thread the compiler
    fills it while compiling, as Python does on the first call."""
    sklearn = pytest.importorskip("sklearn")
    import threading

    def f(x):
        with sklearn.config_context(assume_finite=True):
            k = 2.0 if sklearn.get_config()["assume_finite"] else 1.0
            y = np.tanh(x) * k
        return y.sum()
    out = {}

    def work():
        out["grad"] = st.grad(f)(X)
        out["after"] = sklearn.get_config()["assume_finite"]
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert np.allclose(out["grad"], 2.0 * (1.0 - np.tanh(X) ** 2))
    assert out["after"] is False


def test_generator_raise_after_body_is_static():
    @contextlib.contextmanager
    def checked(limit):
        yield
        if limit < 0:
            raise ValueError("negative limit")

    def f(x):
        with checked(-1):
            y = x * 2.0
        return y.sum()
    with pytest.raises((ValueError, StAutodiffError), match="negative limit"):
        st.grad(f)(X)


def test_finally_with_effects_around_a_may_raise_body_is_refused():
    @contextlib.contextmanager
    def noisy():
        try:
            yield
        finally:
            print("closing")

    def f(a):
        with noisy():
            y = np.linalg.inv(a).sum()
        return y
    with pytest.raises(StAutodiffError, match="may raise at run time") as err:
        st.grad(f)(np.eye(2) * 2.0)
    assert "test_generator_contexts.py" in str(err.value)


class Scaler:
    def __init__(self, k):
        self.k = k

    @contextlib.contextmanager
    def scaled(self, extra):
        print("open", self.k)
        yield self.k * extra
        print("close", self.k)


def test_method_context_manager_and_runtime_yield(capsys):
    s = Scaler(3.0)

    def f(x):
        with s.scaled(x) as v:
            y = np.sin(v) * x
        return y.sum()
    _check(f)
    capsys.readouterr()
    st.grad(f)(X)
    assert capsys.readouterr().out.split() == ["open", "3.0", "close", "3.0"]


def test_errstate_inside_the_generator_covers_the_body():
    @contextlib.contextmanager
    def quiet(x):
        with np.errstate(divide="ignore"):
            yield x * 2.0

    def f(x):
        with quiet(x) as v:
            y = np.log(v * v)
        return y.sum()
    _check(f)
    assert np.allclose(st.grad(f)(X), 2.0 / X)


def test_generator_that_does_not_yield_is_refused():
    @contextlib.contextmanager
    def never(flag):
        if flag:
            yield

    def f(x):
        with never(False):
            y = x * 2.0
        return y.sum()
    with pytest.raises(StAutodiffError, match="did not yield"):
        st.grad(f)(X)


def test_outside_dict_write_under_runtime_condition_is_refused():
    def f(x):
        with config(scale=2.0):
            if x.sum() > 0:
                CONFIG["scale"] = 5.0
            y = _scaled(x)
        return y.sum()
    with pytest.raises(StAutodiffError, match="lives outside the function"):
        st.grad(f)(X)
    assert CONFIG == {"scale": 1.0}


TABLE = {"k": 2.0}


def test_outside_dict_guards_hit_and_see_changes():
    """The items guard of an outside dict (and ``d.get``) holds while the dict is
    unchanged (no compile per call) and fails when an item changes."""
    def f(x):
        return (x * TABLE.get("k")).sum()
    g = st.grad(f)
    g(X)
    g(X)
    assert "1 specialisation" in str(g.cache_info())
    TABLE["k"] = 3.0
    try:
        assert np.allclose(g(X), 3.0)
        assert "2 specialisation" in str(g.cache_info())
    finally:
        TABLE["k"] = 2.0
