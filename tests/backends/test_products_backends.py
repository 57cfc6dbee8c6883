"""Issue 15: the derivative products (``vjp``, ``jvp``, ``jacrev``/``jacfwd``/``jacobian``,
``hessian``, ``hvp``) on other array libraries, and their ``backend=``/``device=``.

Each product with ``backend=`` on NumPy, chunked Dask and ``array_api_strict`` inputs
returns arrays of that library equal to NumPy's, and NumPy's equal central finite
differences (float64).  On Dask the results stay lazy and no task runs while compiling or
assembling (a graph whose tasks raise); ``array_api_strict`` inputs are never converted
to host values.  A library mismatch is ``st.grad``'s ``BackendError``, word for word.
Where a CUDA GPU is present, every product also runs on CuPy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.runtime.backend import BackendError, gpu_available

xs = pytest.importorskip("array_api_strict")
da = pytest.importorskip("dask.array")
_XS = type(xs.asarray(0.0))


def layer(w, x):
    return np.tanh(x @ w) * w[0]


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2) + 0.5 * np.sum(w * w * w)


def tree_loss(p, x):
    return np.sum(np.sin(x @ p["a"])) * p["b"][1] + np.sum(p["a"] ** 2 * p["b"])


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.normal(size=3), rng.normal(size=(4, 3))


#: each product as a function of (backend, w, x, ones): ``ones`` makes a cotangent or
#: tangent of ones in the arguments' library (shaped like its argument)
PRODUCTS: dict[str, Callable[..., Any]] = {
    "vjp": lambda b, w, x, one: st.vjp(layer, w, x, backend=b)[1](one(x[:, 0]))[0],
    "jvp": lambda b, w, x, one: st.jvp(layer, (w, x), (one(w), None), backend=b)[1],
    "jacrev": lambda b, w, x, one: st.jacrev(layer, backend=b)(w, x),
    "jacfwd": lambda b, w, x, one: st.jacfwd(layer, backend=b)(w, x),
    "jacobian": lambda b, w, x, one: st.jacobian(layer, 1, backend=b)(w, x),
    "hessian": lambda b, w, x, one: st.hessian(loss, backend=b)(w, x),
    "hessian_reverse": lambda b, w, x, one: st.hessian(loss, mode="reverse",
                                                       backend=b)(w, x),
    "hessian_tree": lambda b, w, x, one: st.hessian(tree_loss, backend=b)(
        {"a": w, "b": w * 0.5}, x)["a"]["b"],
    "hvp": lambda b, w, x, one: st.hvp(loss, (w, x), (one(w), None), backend=b),
    "hvp_reverse": lambda b, w, x, one: st.hvp(loss, (w, x), (one(w), None),
                                               mode="reverse", backend=b),
}

#: per backend: how inputs are made, what a result is, and how it is read back
BACKENDS: dict[str, tuple[Callable[[np.ndarray], Any], type, Callable[[Any], np.ndarray]]] = {
    "numpy": (np.asarray, np.ndarray, np.asarray),
    "dask": (lambda a: da.from_array(a, chunks=2), da.Array, lambda a: a.compute()),
    "array_api_strict": (xs.asarray, _XS, np.from_dlpack),
}


def _ones(to: Callable[[np.ndarray], Any]) -> Callable[[Any], Any]:
    return lambda like: to(np.ones(tuple(like.shape)))


def _central(f: Callable[[np.ndarray], Any], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d f / d x by central differences: shape ``f(x).shape + x.shape``."""
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(f(x)) + x.shape)


def test_products_on_numpy_equal_central_differences() -> None:
    """The reference every backend is compared with: float64 finite differences."""
    w, x = _data()
    jac_w = _central(lambda v: layer(v, x), w)
    jac_x = _central(lambda v: layer(w, v), x)
    hess = _central(lambda v: _central(lambda u: loss(u, x), v, 1e-4), w, 1e-4)
    want = {"vjp": np.ones(4) @ jac_w, "jvp": jac_w @ np.ones(3), "jacrev": jac_w,
            "jacfwd": jac_w, "jacobian": jac_x, "hessian": hess, "hessian_reverse": hess,
            "hvp": hess @ np.ones(3), "hvp_reverse": hess @ np.ones(3)}
    ones = _ones(np.asarray)
    for name, run in PRODUCTS.items():
        if name != "hessian_tree":
            np.testing.assert_allclose(run("numpy", w, x, ones), want[name], rtol=1e-6,
                                       atol=1e-6, err_msg=name)
    # d²f / da_i db_j of tree_loss: differences in b of its differences in a
    b = w * 0.5
    tree = _central(lambda v: _central(lambda u: tree_loss({"a": u, "b": v}, x), w, 1e-4),
                    b, 1e-4)
    np.testing.assert_allclose(PRODUCTS["hessian_tree"]("numpy", w, x, ones), tree,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "dask", "array_api_strict"])
def test_each_product_returns_the_backends_arrays_equal_to_numpys(backend: str) -> None:
    w, x = _data()
    to, kind, back = BACKENDS[backend]
    for name, run in PRODUCTS.items():
        want = run(None, w, x, _ones(np.asarray))
        got = run(backend, to(w), to(x), _ones(to))
        assert isinstance(got, kind), (name, type(got))
        np.testing.assert_allclose(back(got), want, rtol=1e-12, atol=1e-14, err_msg=name)


def test_python_numbers_run_on_the_chosen_backend() -> None:
    """Without an array to take the library from, ``backend=`` decides (as for
    ``st.grad``): the basis vectors and results are that library's."""
    def f(t):
        return np.sin(t) ** 2 * t

    t = 1.5
    first = np.sin(2 * t) * t + np.sin(t) ** 2  # d/dt sin²t·t, and its derivative
    second = 2 * t * np.cos(2 * t) + 2 * np.sin(2 * t)
    for name, run, want in [
            ("jacfwd", st.jacfwd(f, backend="array_api_strict"), first),
            ("jacrev", st.jacrev(f, backend="array_api_strict"), first),
            ("hessian", st.hessian(f, backend="array_api_strict"), second),
            ("hessian_reverse", st.hessian(f, mode="reverse", backend="array_api_strict"),
             second)]:
        got = run(t)
        assert isinstance(got, _XS), (name, type(got))
        np.testing.assert_allclose(np.from_dlpack(got), want, rtol=1e-13, err_msg=name)


def test_dask_products_stay_lazy_and_run_no_task_until_computed() -> None:
    """A Dask graph whose tasks raise when run goes through every product: each result
    is a lazy Dask array, and no task started (a Dask callback counts them)."""
    from dask.callbacks import Callback

    w, x = _data()

    def poison(block: np.ndarray) -> np.ndarray:
        raise AssertionError("a dask task ran")

    lazy_w = da.from_array(w, chunks=2).map_blocks(poison, dtype=w.dtype)
    lazy_x = da.from_array(x, chunks=(2, 3)).map_blocks(poison, dtype=x.dtype)
    started: list[Any] = []
    with Callback(start=lambda dsk: started.append(dsk)):
        results = {name: run("dask", lazy_w, lazy_x, _ones(lambda a: da.from_array(
            a, chunks=2))) for name, run in PRODUCTS.items()}
    assert started == []
    for name, got in results.items():
        assert isinstance(got, da.Array), (name, type(got))
    with pytest.raises(AssertionError, match="a dask task ran"):
        results["hessian"].compute()  # (the poison is real)
    filtered = da.from_array(w, chunks=2)
    filtered = filtered[filtered > 0]  # a size known only once computed: said, not guessed
    with pytest.raises(ValueError, match=r"argument 0 has shape \(nan,\).*compute_chunk_sizes"):
        st.jacfwd(np.sin)(filtered)


_NO_DATA = ("__array__", "__float__", "__int__", "__index__", "__bool__", "__complex__",
            "__dlpack__", "__iter__", "tolist", "to_device")


def test_array_api_inputs_are_never_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way from ``array_api_strict`` to host values raises while each product
    compiles, builds its basis vectors and stacks its blocks."""
    w, x = _data()
    want = {name: run(None, w, x, _ones(np.asarray)) for name, run in PRODUCTS.items()}
    args = (xs.asarray(w), xs.asarray(x))
    cotangent = xs.ones(4, dtype=xs.float64)
    tangent = xs.ones(3, dtype=xs.float64)
    reads: list[str] = []

    def refuse(name: str) -> Any:
        def method(self: Any, *a: Any, **k: Any) -> Any:
            reads.append(name)
            raise AssertionError(f"{name} of an array_api_strict array")
        return method

    got = {}
    with monkeypatch.context() as m:
        for attr in _NO_DATA:
            if hasattr(_XS, attr):
                m.setattr(_XS, attr, refuse(attr))
        for name, run in PRODUCTS.items():
            got[name] = run("array_api_strict", *args,
                            lambda like: cotangent if like.shape == (4,) else tangent)
    assert reads == []
    for name in PRODUCTS:
        np.testing.assert_allclose(np.from_dlpack(got[name]), want[name], rtol=1e-12,
                                   atol=1e-14, err_msg=name)


def _message(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The message of the ``BackendError`` that ``fn(*args, **kwargs)`` raises."""
    with pytest.raises(BackendError) as info:
        fn(*args, **kwargs)
    assert info.value.__traceback__ is not None
    return str(info.value)


@pytest.mark.parametrize("backend", ["dask", "array_api_strict"])
def test_numpy_arguments_for_another_backend_are_grads_error(backend: str) -> None:
    """``backend='dask'`` with NumPy arguments (never moved behind the user's back): the
    error ``st.grad(fn, backend=...)`` gives, for every product."""
    w, x = _data()
    of_layer = _message(lambda: st.grad(layer, backend=backend)(w, x))
    of_loss = _message(lambda: st.grad(loss, backend=backend)(w, x))
    assert "made with backend" in of_layer and "numpy arrays" in of_layer
    for name, run in PRODUCTS.items():
        text = _message(run, backend, w, x, _ones(np.asarray))
        if name.startswith("hessian_tree"):
            assert text == of_loss.replace("loss", "tree_loss", 1), name
        else:
            assert text == (of_layer if name.startswith(("vjp", "jvp", "jac")) else of_loss
                            ), name


def test_mixed_libraries_and_bad_options_are_grads_errors() -> None:
    w, x = _data()
    mixed = _message(lambda: st.grad(loss)(xs.asarray(w), x))
    assert "w is an array of array_api_strict, x is an array of numpy" in mixed
    for name, run in PRODUCTS.items():
        text = _message(run, None, xs.asarray(w), x, _ones(np.asarray))
        if name == "hessian_tree":  # (its arguments are the leaves of p, and x)
            assert "different array namespaces" in text and "x is an array of numpy" in text
        else:
            assert text == mixed, name
    tangent = _message(lambda: st.jvp(layer, (xs.asarray(w), xs.asarray(x)), (w, None)))
    assert "different array namespaces" in tangent and "is an array of numpy" in tangent
    out, pullback = st.vjp(layer, xs.asarray(w), xs.asarray(x))
    assert "the output is an array of array_api_strict, the cotangent is an array of " \
        "numpy" in _message(lambda: pullback(np.ones(4)))
    made = _message(lambda: st.grad(loss, device="cpu")(xs.asarray(w), xs.asarray(x)))
    assert _message(lambda: st.hessian(loss, device="cpu")(xs.asarray(w),
                                                           xs.asarray(x))) == made
    for opts in ({"backend": "no_such_array_library"},
                 {"backend": "array_api_strict", "device": "cpu"}):
        want = _message(st.grad, loss, **opts)
        assert _message(st.jacrev, loss, **opts) == want
        assert _message(st.jacfwd, loss, **opts) == want
        assert _message(st.hessian, loss, **opts) == want
        assert _message(st.vjp, loss, w, x, **opts) == want
        assert _message(st.jvp, loss, (w, x), (w, None), **opts) == want
        assert _message(st.hvp, loss, (w, x), (w, None), **opts) == want


def test_device_cpu_is_numpy_and_each_backend_compiles_once() -> None:
    w, x = _data()
    np.testing.assert_allclose(st.hessian(loss, device="cpu")(w, x), st.hessian(loss)(w, x),
                               rtol=0)
    jac = st.jacrev(layer, backend="array_api_strict")
    a = jac(xs.asarray(w), xs.asarray(x))
    misses = jac.cache_info().misses  # type: ignore[attr-defined]
    b = jac(xs.asarray(w + 1), xs.asarray(x))
    assert jac.cache_info().misses == misses  # type: ignore[attr-defined]
    assert isinstance(a, _XS) and isinstance(b, _XS)
    np.testing.assert_allclose(np.from_dlpack(b), st.jacrev(layer)(w + 1, x), rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU (CuPy) here")
def test_each_product_on_cupy_stays_on_the_device() -> None:
    """On CuPy (which refuses every implicit host conversion) each product returns CuPy
    arrays equal to NumPy's: basis vectors and blocks are made on the device."""
    import cupy

    w, x = _data()
    for name, run in PRODUCTS.items():
        want = run(None, w, x, _ones(np.asarray))
        got = run("cupy", cupy.asarray(w), cupy.asarray(x), _ones(cupy.asarray))
        assert isinstance(got, cupy.ndarray), (name, type(got))
        np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-10, atol=1e-12,
                                   err_msg=name)
