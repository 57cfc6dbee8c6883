"""Backend selection for compiled gradients: the namespace comes from the inputs (or
``backend=``/``device=``), one generated source is bound per namespace and cached per
namespace, arrays of two namespaces in one call are a located-by-name error, and compiling
reads types only: a Dask input is never computed and an ``array_api_strict`` input is
never converted to NumPy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.runtime.backend import (
    BackendError,
    BackendUnsupportedError,
    bound_namespace,
    namespace_for,
    namespace_of,
)

xs = pytest.importorskip("array_api_strict")
da = pytest.importorskip("dask.array")
_ARRAY = type(xs.asarray(0.0))


def tanh_loss(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2) + 0.5 * np.sum(w * w)


def contracted(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=3), rng.normal(size=(40, 3)), rng.normal(size=40)


def test_namespace_of_each_kind_of_input() -> None:
    assert namespace_of(np.ones(2)) is np and namespace_of(np.float64(1.0)) is np
    assert namespace_of(1.0) is None and namespace_of("text") is None
    assert namespace_of(xs.asarray([1.0])) is xs
    assert namespace_of(da.ones(3)) is da
    assert namespace_of((1.0, [xs.asarray([1.0])])) is xs  # containers are searched
    assert namespace_for(1.0, 2) is np  # no array at all: NumPy
    assert bound_namespace(np) is np  # NumPy's code calls NumPy itself


def test_arrays_of_two_namespaces_are_an_error_naming_the_arguments() -> None:
    w, x, y = _data()
    with pytest.raises(BackendError, match=r"w is an array of numpy, x is an array of "
                                           r"array_api_strict"):
        st.grad(tanh_loss)(w, xs.asarray(x), y)


def test_one_source_bound_per_namespace_and_cached_per_namespace() -> None:
    w, x, y = _data()
    g = st.grad(tanh_loss)
    misses, hits = g.cache_info().misses, g.cache_info().hits
    want = g(w, x, y)
    numpy_source = g.source
    got = g(xs.asarray(w), xs.asarray(x), xs.asarray(y))
    assert isinstance(got, _ARRAY)
    assert g.source == numpy_source  # the same generated text, bound to another xp
    np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-13)
    g(w, x, y)
    g(xs.asarray(w), xs.asarray(x), xs.asarray(y))
    info = g.cache_info()
    assert info.misses - misses <= 2 and info.hits - hits >= 2  # one per namespace
    assert sum("Array f64[3]" in r.key for r in info.specialisations) == 1


def test_backend_and_device_options() -> None:
    w, x, y = _data()
    g = st.grad(tanh_loss, backend="array_api_strict")
    assert isinstance(g(xs.asarray(w), xs.asarray(x), xs.asarray(y)), _ARRAY)
    with pytest.raises(BackendError, match="made with backend 'array_api_strict'"):
        g(w, x, y)  # never copied behind the user's back
    assert isinstance(st.value_and_grad(tanh_loss, device="cpu")(w, x, y)[1], np.ndarray)
    with pytest.raises(BackendError, match="disagree"):
        st.grad(tanh_loss, backend="array_api_strict", device="cpu")
    with pytest.raises(BackendError, match="unknown backend"):
        st.grad(tanh_loss, backend="no_such_array_library")


def test_a_numpy_function_outside_the_namespace_is_a_located_compile_error() -> None:
    a = xs.asarray(np.ones((2, 3)))
    with pytest.raises(BackendUnsupportedError) as info:
        st.grad(contracted)(a, a.T)
    err = info.value
    assert err.loc is not None and err.loc.file == __file__
    assert err.loc.line == contracted.__code__.co_firstlineno + 1
    assert "numpy.einsum" in str(err) and "array_api_strict" in str(err)


_NO_DATA = ("__array__", "__float__", "__int__", "__index__", "__bool__", "__complex__",
            "__dlpack__", "__iter__", "tolist", "to_device")


def test_array_api_inputs_are_never_converted_while_compiling_or_running(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way out of ``array_api_strict`` to host values raises while the gradient
    compiles and runs; the result is then read (once) and equals NumPy's."""
    w, x, y = _data()
    want = st.grad(tanh_loss)(w, x, y)
    args = (xs.asarray(w), xs.asarray(x), xs.asarray(y))
    reads: list[str] = []

    def refuse(name: str) -> Any:
        def method(self: Any, *a: Any, **k: Any) -> Any:
            reads.append(name)
            raise AssertionError(f"{name} of an array_api_strict input")
        return method

    with monkeypatch.context() as m:
        for name in _NO_DATA:
            if hasattr(_ARRAY, name):
                m.setattr(_ARRAY, name, refuse(name))
        got = st.grad(tanh_loss)(*args)
    assert reads == [] and isinstance(got, _ARRAY)
    np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-13)


def test_dask_inputs_are_never_computed_while_compiling_or_running() -> None:
    """A Dask graph whose tasks raise when run compiles and returns a lazy gradient;
    no compute happens (a dask callback counts task starts) until the caller asks."""
    from dask.callbacks import Callback

    w, x, y = _data()
    want = st.grad(tanh_loss)(w, x, y)
    started: list[Any] = []

    def poison(block: np.ndarray) -> np.ndarray:
        raise AssertionError("a dask task ran")

    lazy_x = da.from_array(x, chunks=(10, 3))
    poisoned = lazy_x.map_blocks(poison, dtype=x.dtype)
    g = st.grad(tanh_loss)
    misses = g.cache_info().misses
    with Callback(start=lambda dsk: started.append(dsk)):
        lazy = g(da.from_array(w), poisoned, da.from_array(y, chunks=10))
        assert isinstance(lazy, da.Array) and lazy.shape == (3,)
        good = g(da.from_array(w), lazy_x, da.from_array(y, chunks=10))
        assert started == []  # nothing computed: compiling read types only
    assert g.cache_info().misses == misses + 1  # the same kinds: compiled once
    np.testing.assert_allclose(good.compute(), want, rtol=1e-12)
    with pytest.raises(AssertionError, match="a dask task ran"):
        lazy.compute()  # (the poison is real)


def test_disk_cache_keeps_one_entry_per_namespace(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setattr(st.config, "cache_dir", tmp_path)
    w, x, y = _data()

    def fresh() -> Any:  # a new function object each time: no in-memory reuse
        def loss(w, x, y):
            return np.sum(np.tanh(x @ w) * y)
        return loss

    st.grad(fresh())(w, x, y)
    st.grad(fresh())(xs.asarray(w), xs.asarray(x), xs.asarray(y))
    assert len(list(tmp_path.glob("*.stad"))) == 2
    got = st.grad(fresh())(xs.asarray(w), xs.asarray(x), xs.asarray(y))  # from disk
    assert isinstance(got, _ARRAY)
    np.testing.assert_allclose(np.from_dlpack(got), st.grad(fresh())(w, x, y), rtol=1e-13)


def layer(w, x):
    return np.tanh(x @ w)


def test_vjp_jvp_jacobians_and_hessian_on_array_api_inputs() -> None:
    """Every transform returns arrays of the inputs' namespace equal to NumPy's (their
    seeds, basis vectors and stacked blocks are made in that namespace too)."""
    w, x, y = _data()
    on = (xs.asarray(w), xs.asarray(x), xs.asarray(y))
    cases = {
        "vjp": lambda w, x, y: st.vjp(layer, w, x)[1](y * 1.0)[0],
        "jvp": lambda w, x, y: st.jvp(tanh_loss, (w, x, y), (w * 0 + 1, x * 0, y * 0))[1],
        "jacrev": lambda w, x, y: st.jacrev(layer)(w, x),
        "jacfwd": lambda w, x, y: st.jacfwd(layer)(w, x),
        "hessian": lambda w, x, y: st.hessian(tanh_loss)(w, x, y),
        "jacfwd of grad": lambda w, x, y: st.jacfwd(st.grad(tanh_loss))(w, x, y),
    }
    for name, run in cases.items():
        want, got = run(w, x, y), run(*on)
        assert isinstance(got, _ARRAY), (name, type(got))
        np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-12, err_msg=name)


def chol_loss(s):
    chol = np.linalg.cholesky(s @ s.T + np.eye(3))
    return np.sum(np.log(np.diag(chol))) + np.sum(chol**2) + np.sum(np.repeat(s, 2) ** 2)


def test_dask_names_that_mean_something_else_get_numpys_meaning() -> None:
    """``dask.array.linalg.cholesky`` returns the upper factor and ``dask.array.repeat``
    needs an axis: generated code on Dask gets NumPy's meaning (a wrong gradient
    otherwise)."""
    s = np.random.default_rng(1).normal(size=(3, 3))
    want = st.grad(chol_loss)(s)
    got = st.grad(chol_loss)(da.from_array(s, chunks=(3, 3)))
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12)
