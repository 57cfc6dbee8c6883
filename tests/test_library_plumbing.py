"""Library plumbing read while compiling (issue 14): introspection of functions
(``isinstance(f, types.MethodType)``, ``inspect.signature(f)``, as scipy.stats'
``_axis_nan_policy`` wrappers do), dict keys beside runtime values, ``np.iterable``,
static iterators passed as ``*args`` and NumPy 2's ``_array_converter``.

Gradients are checked against central differences; values against the library's own.
"""

from __future__ import annotations

import inspect
import itertools
import types

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads
from st_autodiff.transforms.array_converter import NUMPY_CONVERTER, ArrayConverter

V = np.array([0.5, -1.2, 2.0, 0.7])
M = np.arange(1.0, 7.0).reshape(2, 3) / 4.0


def check(f, *args):
    """``st.grad(f)`` of the first argument against central differences, and its value."""
    def grads(*a):
        return (st.grad(f)(*a), *[np.zeros_like(v) for v in a[1:]])

    check_grads(f, args, grads, argnums=[0])
    value, _ = st.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)


# --- introspection of functions -------------------------------------------------------------


def _target(x, scale=2.0, *, power=2):
    return scale * np.sum(x ** power)


class _Holder:
    def method(self, x):
        return np.sum(np.sin(x))


def _dispatch(fn, x):
    """What scipy's wrapper does: ask about the function, then call it."""
    if isinstance(fn, types.MethodType):
        return fn(x) * 3.0
    params = list(inspect.signature(fn).parameters)
    spec = inspect.getfullargspec(fn)
    if callable(fn) and inspect.isfunction(fn) and params[:2] == ["x", "scale"] and \
            spec.kwonlyargs == ["power"]:
        return fn(x, len(spec.args))
    return np.sum(x)


def test_signature_of_a_plain_function():
    check(lambda x: _dispatch(_target, x), V)


def test_isinstance_of_a_bound_method():
    holder = _Holder()
    check(lambda x: _dispatch(holder.method, x), V)


def test_issubclass_and_type_of_functions():
    def f(x):
        kind = type(_target)
        if issubclass(kind, types.FunctionType) and not inspect.isclass(_target):
            return np.sum(x * x)
        return np.sum(x)
    check(f, V)


def test_inner_def_stays_uncompiled_by_introspection():
    def f(x):
        def inner(y):
            return y * 2.0
        return np.sum(inner(x)) if callable(inner) else np.sum(x)
    check(f, V)


# --- dict keys beside runtime values ---------------------------------------------------------


def test_set_of_a_dict_holding_runtime_values():
    def f(x, y):
        d = dict(zip(["a", "b"], [x, y]))
        common = set(d) & {"b", "c"}
        names = sorted(d)
        return np.sum(d["a"] ** 2) * len(common) + np.sum(d[names[1]]) * len(tuple(d))
    check(f, V, V[::-1].copy())


# --- np.iterable ----------------------------------------------------------------------------


def test_np_iterable_of_runtime_values():
    def f(x):
        s = np.sum(x)
        if np.iterable(x) and not np.iterable(s):
            return s * np.sum(x ** 2)
        return s
    check(f, V)


# --- static iterators as *args -------------------------------------------------------------


def test_map_object_as_star_arguments():
    def f(x):
        def pick(*ks):
            return ks
        i, j, k = pick(*map(abs, (-1, 2, -3)))
        return x[i] * x[j] * x[k] ** 2 - np.sum(x[list(pick(*reversed((0, 2))))])
    check(f, V)


# --- NumPy's _array_converter -------------------------------------------------------------

_INPUTS = [2.0, 3, True, np.float32(1.5), np.float64(2.0), np.int64(3), np.array(2.0),
           np.ones(3), np.ones(2, dtype=np.float32), np.arange(3)]


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and getattr(a, "dtype", None) == getattr(b, "dtype", None) \
        and np.array_equal(a, b)


@pytest.mark.skipif(NUMPY_CONVERTER is None, reason="NumPy 1 has no _array_converter")
@pytest.mark.parametrize("n", [1, 2])
def test_model_matches_numpy_converter(n):
    """The Python model answers as NumPy's C class on every kind of input."""
    for ins in itertools.product(_INPUTS, repeat=n):
        real, model = NUMPY_CONVERTER(*ins), ArrayConverter(*ins)
        assert real.scalar_input == model.scalar_input, ins
        assert len(real) == len(model)
        assert _same(real[0], model[0]), ins
        for p in ("convert", "preserve", "convert_if_no_array"):
            assert _same(real.as_arrays(pyscalars=p), model.as_arrays(pyscalars=p)), (ins, p)
        for r in (np.array(2.0), np.ones(2), np.float64(3.0), np.float32(1.5), [1.0, 2.0]):
            for ts in (None, True, False):
                assert _same(real.wrap(r, to_scalar=ts), model.wrap(r, to_scalar=ts)), ins
        for ts in (None, False):  # a Python number: NumPy's own value (as a NumPy scalar
            got = model.wrap(2.5, to_scalar=ts)  # where it is made a scalar)
            assert got == real.wrap(2.5, to_scalar=ts) and isinstance(got, float)
        for ex, ei in ((None, False), (None, True), (np.float32, False), (np.int8, False)):
            assert real.result_type(extra_dtype=ex, ensure_inexact=ei) == \
                model.result_type(extra_dtype=ex, ensure_inexact=ei), (ins, ex, ei)
    with pytest.raises(TypeError):
        ArrayConverter(1.0).result_type(extra_dtype=np.float32, ensure_inexact=True)


@pytest.mark.skipif(NUMPY_CONVERTER is None, reason="NumPy 1 has no _array_converter")
def test_converter_in_compiled_code():
    def f(x, y):
        conv = NUMPY_CONVERTER(x, 2.0, y)
        a, b, c = conv.as_arrays()
        first = conv[0]
        dt = conv.result_type(ensure_inexact=True)
        out = conv.wrap(np.sum(a * b + c).astype(dt), to_scalar=False)
        assert conv.scalar_input == (False, True, False)
        return out + np.sum(first ** 2)
    check(f, V, V[::-1].copy())


@pytest.mark.skipif(NUMPY_CONVERTER is None, reason="NumPy 1 has no _array_converter")
def test_converter_scalar_wrap_in_compiled_code():
    def f(x):
        conv = NUMPY_CONVERTER(x)
        (arr,) = conv
        return conv.wrap(np.sum(np.cos(arr)))
    check(f, V)


@pytest.mark.parametrize("fn", [
    lambda x: np.sum(np.ediff1d(x) ** 2),  # conv[0]
    lambda x: np.sum(np.linspace(x[0], x[1], 5) ** 2),  # result_type, wrap of scalars
], ids=["ediff1d", "linspace"])
def test_real_numpy_functions_using_the_converter(fn):
    """NumPy functions written in Python around ``_array_converter``."""
    check(fn, V)


# --- np.broadcast and np.broadcast_arrays ---------------------------------------------------


def test_broadcast_model_matches_numpy():
    from st_autodiff.transforms.array_converter import Broadcast

    for ins in [(), (2.0,), (np.ones((2, 1)), np.ones(3), 2.0), (np.ones((0, 3)), np.ones(3))]:
        real, model = np.broadcast(*ins), Broadcast(*ins)
        for attr in ("shape", "nd", "ndim", "size", "numiter", "index"):
            assert getattr(real, attr) == getattr(model, attr), (ins, attr)
    with pytest.raises(ValueError):
        Broadcast(np.ones(2), np.ones(3))


def test_broadcast_shape_in_compiled_code():
    def f(x, y):
        b = np.broadcast(x[:, None], y, 1.0)
        out = np.zeros(b.shape) + x[:, None] * y
        return np.sum(out ** 2) * b.size / b.nd
    check(f, V, M[0].copy())


def test_broadcast_arrays():
    def f(x, y):
        a, b, c = np.broadcast_arrays(x[:, None], y, 2.0)
        same, also = np.broadcast_arrays(x, x * 2.0)
        return np.sum(a * b ** 2 * c) + np.sum(same * also)
    check(f, V, M[0].copy())
    check(lambda y, x: f(x, y), M[0].copy(), V)


# --- __getitem__ of objects built in the differentiated code -------------------------------


class _Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __getitem__(self, i):
        return self.a if i == 0 else self.b * 2.0


def test_getitem_of_a_built_object_reads_its_runtime_attributes():
    def f(x):
        p = _Pair(np.sin(x), x ** 2)
        return np.sum(p[0] * p[1])
    check(f, V)


# --- namedtuples built in the differentiated code; exec refused ----------------------------


def test_namedtuple_built_inside():
    import collections
    from typing import NamedTuple

    spec = collections.namedtuple("spec", "scale flag")

    class Pt(NamedTuple):
        x: object
        y: float = 2.0

    def f(x):
        s = spec(2.0, None)
        p = Pt(np.sin(x))
        q = Pt(x * 3.0, y=0.5)
        a, b = q
        return np.sum(p.x * s.scale * p.y + a * b + q[0]) if s.flag is None else np.sum(x)
    check(f, V)


def test_scipy_fullargspec_inside():
    """scipy's getfullargspec_no_self reads inspect.signature(...).parameters and builds
    a FullArgSpec namedtuple: answered while compiling."""
    from scipy._lib._util import getfullargspec_no_self

    def f(x):
        spec = getfullargspec_no_self(_target)
        if spec.varkw is None and "scale" in spec.args and spec.kwonlyargs == ["power"]:
            return np.sum(x ** 3) * len(spec.args)
        return np.sum(x)
    check(f, V)


def test_exec_is_refused_where_it_is_called():
    from st_autodiff.errors import StAutodiffError

    def f(x):
        ns = {}
        exec("def g(y):\n    return y * 2\n", ns)
        return np.sum(ns["g"](x))
    with pytest.raises(StAutodiffError, match="exec"):
        st.grad(f)(V)
