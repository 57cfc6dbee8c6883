"""array_api_compat's type queries (``array_namespace``, ``is_numpy_array`` ...) of values
computed inside the differentiated function, in every copy installed here (SciPy's and
scikit-learn's vendored ones, the package itself): they are answered while compiling on
the stand-ins of the value (a Python float, a NumPy scalar, a 0-d array), where the
``type(x)`` inside them alone could not be.  SciPy 1.18's ``simpson`` calls them through
``apply_where(den != 0, ...)``; its value and gradient are checked here whatever SciPy is
installed, against central differences."""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import numerical_vjp

_COPIES = ["array_api_compat.common._helpers",
           "scipy._external.array_api_compat.common._helpers",
           "scipy._lib.array_api_compat.common._helpers",
           "sklearn.externals.array_api_compat.common._helpers"]


def _installed() -> list[ModuleType]:
    out = []
    for name in _COPIES:
        try:
            out.append(importlib.import_module(name))
        except ImportError:
            continue
    return out


HELPERS = _installed()


def test_some_copy_is_installed() -> None:
    assert HELPERS, "scipy (a test dependency) vendors array_api_compat"


@pytest.mark.parametrize("helpers", HELPERS, ids=lambda m: m.__name__.split(".")[0])
def test_queries_of_computed_values(helpers: ModuleType) -> None:
    a = np.array([[2.0, 1.0], [0.5, 3.0]])

    def f(x):
        d = x[1] - x[0]  # a NumPy scalar
        k = np.linalg.det(a * x[0])  # 0-d, of a kind the compiler does not track
        m = max(x[0], x[2])  # the same
        xp = helpers.array_namespace(d, k, m, x)
        flags = (helpers.is_numpy_array(d), helpers.is_cupy_array(k),
                 helpers.is_torch_array(m), helpers.is_dask_array(k),
                 helpers.is_array_api_obj(x))
        return xp.sum(x * d) * (1.0 + sum(flags[:4])) + k * m * flags[4]  # flags[0] True

    x = np.array([0.3, 1.1, -0.4])
    try:
        helpers.array_namespace(1.0, np.ones(2))
    except TypeError:  # older copies refuse Python floats: the answer depends on the kind
        with pytest.raises(st.errors.StAutodiffError, match="depends on whether a runtime"):
            st.value_and_grad(f)(x)
        return
    value, grad = st.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(grad, numerical_vjp(f, (x,), 1.0)[0], rtol=1e-6)


def test_a_query_whose_answer_depends_on_the_kind_is_refused() -> None:
    helpers = HELPERS[0]

    def f(x):
        k = np.linalg.det(np.diag(x))  # np.float64 in NumPy; unknown to the compiler
        return x[0] * (2.0 if helpers.is_numpy_array(k) else 1.0)

    with pytest.raises(st.errors.StAutodiffError, match="is_numpy_array.. here depends"):
        st.grad(f)(np.array([0.3, 1.1]))


@pytest.mark.parametrize("n", [6, 7])
@pytest.mark.parametrize("with_x", [False, True])
def test_simpson_of_the_installed_scipy(n: int, with_x: bool) -> None:
    from scipy.integrate import simpson

    grid = np.linspace(0.0, 2.0, n) ** 1.5  # uneven spacing

    def f(y):
        return simpson(np.sin(y) * y, x=grid) if with_x else simpson(np.sin(y) * y, dx=0.1)

    y = np.linspace(0.1, 1.0, n)
    value, grad = st.value_and_grad(f)(y)
    assert value == pytest.approx(f(y), rel=1e-13)
    np.testing.assert_allclose(grad, numerical_vjp(f, (y,), 1.0)[0], rtol=1e-6, atol=1e-9)


def test_array_namespace_method_of_arrays() -> None:
    x_data = np.arange(12.0).reshape(4, 3) / 10

    def f(w):  # array API code: the namespace from the argument
        xp = w.__array_namespace__()
        r = xp.matmul(xp.asarray(x_data), w) - 1.0
        return xp.sum(r * r) + xp.sum((w[0] * 2).__array_namespace__().exp(w))

    w = np.array([0.1, -0.2, 0.3])
    value, grad = st.value_and_grad(f)(w)
    assert value == pytest.approx(f(w), rel=1e-14)
    np.testing.assert_allclose(grad, numerical_vjp(f, (w,), 1.0)[0], rtol=1e-6)

    def g(w):
        return float(w[0]).__array_namespace__().sum(w)  # a Python float has none

    with pytest.raises(st.errors.StAutodiffError, match="'float' object has no attribute"):
        st.grad(g)(w)


def test_array_namespace_method_on_another_backend() -> None:
    xps = pytest.importorskip("array_api_strict")

    def f(w):
        xp = w.__array_namespace__()
        return xp.sum(xp.exp(w) * w)

    w = np.array([0.1, -0.2, 0.3])
    got = st.grad(f)(xps.asarray(w))
    assert type(got).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(got), np.exp(w) * (1 + w), rtol=1e-12)
