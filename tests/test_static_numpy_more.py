"""More static NumPy values (static_numpy.py and its neighbours): cases library code reached
after the first version.  Values are checked against the function run by NumPy/SciPy and
gradients against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads


def _check(f, *args):
    """Value equal to the function's own, gradient equal to central differences."""
    argnums = tuple(range(len(args)))
    value, _ = st.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_grads(f, list(args), lambda *a: list(st.grad(f, argnums=argnums)(*a)))


# --- np.array(n, dtype=...) of a runtime Python int -----------------------------------


stats = pytest.importorskip("scipy.stats")


def multivariate_normal_logpdf(x, mean):
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    return stats.multivariate_normal.logpdf(x, mean=mean, cov=cov)


def test_multivariate_normal_rank_cast():
    """SciPy's ``np.array(self._rank, dtype=int)[()]``: the rank is a runtime Python int
    (``len`` of eigenvalues above a cutoff), which has no ``.astype``: it is made an array
    first, as ``np.array`` does."""
    _check(multivariate_normal_logpdf, np.array([0.3, -0.2]), np.array([0.1, 0.4]))


# --- a runtime conditional expression inside an unrolled comprehension -----------------
# (the comprehension's list was rebound to a region's copy, so items appended after the
# if were lost, or the list came out short: SciPy's _pinv_1d gave wrong pseudo-inverses)

C = np.array([0.9, 2.0])


def pinv_1d_of_argument(x):
    return np.sum(np.array([0 if abs(v) <= 1e-5 else 1 / v for v in x], dtype=float))


def pinv_1d_of_constant(x):
    return np.sum(x * np.array([0 if abs(v) <= 1e-5 else 1 / v for v in C], dtype=float))


def pinv_1d_of_sqrt(x):
    s = np.sqrt(C)
    return np.sum(x * np.array([0 if abs(v) <= 1e-5 else 1 / v for v in s], dtype=float))


def ifexp_items_of_list(x):
    items = [(10.0 if v <= 0.5 else v * 2) for v in [x[0], x[1], x[0] * x[1]]]
    return items[0] + 100 * items[1] + 1000 * items[2] + len(items)


def nested_ifexp_comprehension(x):
    rows = [[(a * b if a > b else a - b) for b in x] for a in x]
    return np.sum(np.array(rows) ** 2)


def ifexp_and_filter(x):
    return sum([(v if v > 0.2 else -v) for v in [x[0], x[1]] if True])


@pytest.mark.parametrize("f", [pinv_1d_of_argument, pinv_1d_of_constant, pinv_1d_of_sqrt,
                               ifexp_items_of_list, nested_ifexp_comprehension,
                               ifexp_and_filter])
@pytest.mark.parametrize("x", [np.array([0.9, 2.0]), np.array([-0.7, 0.3]),
                               np.array([0.4, 1e-7])])
def test_runtime_ifexp_in_comprehension(f, x):
    _check(f, x)


# --- a condition on constants only (a global array's values) is decided while compiling --

G = np.array([0.0, 1.0, 2.0])
GUARDED = np.array([[1.0, 0.5], [1.0, -0.5], [1.0, 2.0]])


class Holder:
    """A plain object whose attributes a branch sets."""


def attribute_set_in_constant_branch(x):
    h = Holder()
    if np.all(G >= 0):
        h.k = 1.0
    else:
        h.k = "negative"  # another type: a runtime if could not carry it
    return np.sum(x) * h.k


def constant_column_index(x):
    h = Holder()
    hi, lo = np.max(GUARDED, axis=0), np.min(GUARDED, axis=0)
    idx = np.where(hi == lo)[0].squeeze()
    if GUARDED[:, idx].mean() != 0:
        h.const_idx = int(idx)
    else:
        h.const_idx = None
    return np.sum(x[: h.const_idx + 2] ** 2) if h.const_idx is not None else np.sum(x)


def constant_ifexp(x):
    scale = [1.0] if G.sum() > 2 else (2.0, 3.0)
    return np.sum(x * scale[0])


@pytest.mark.parametrize("f", [attribute_set_in_constant_branch, constant_column_index,
                               constant_ifexp])
def test_constant_condition(f):
    _check(f, np.array([0.3, -1.2, 0.7]))


def test_constant_condition_guarded():
    """The fold reads the global's contents: after it changes, the branch follows it."""
    g = st.value_and_grad(attribute_set_in_constant_branch)
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(g(x)[1], np.ones(3))
    try:
        G[0] = -1.0
        with pytest.raises(TypeError):
            attribute_set_in_constant_branch(x)  # Python: float * str
        with pytest.raises(Exception, match="multiply"):
            g(x)
        G[0] = 0.5
        np.testing.assert_allclose(g(x)[1], np.ones(3))
    finally:
        G[0] = 0.0
    np.testing.assert_allclose(g(x)[1], np.ones(3))


def test_runtime_condition_stays_runtime():
    """A condition on an argument is still a runtime branch (both sides compiled)."""

    def f(x):
        return np.sum(x) * (2.0 if np.all(x + G > 0) else 3.0)

    g = st.grad(f)
    np.testing.assert_allclose(g(np.array([1.0, 1.0, 1.0])), 2.0 * np.ones(3))
    np.testing.assert_allclose(g(np.array([-1.0, 1.0, 1.0])), 3.0 * np.ones(3))


# --- iterating a dict: its keys, as Python does ----------------------------------------


def dict_keys_loop(x):
    d = {"a": 1.0, "b": 2.0}
    s = 0.0
    for k in d:
        s = s + d[k] * x
    return np.sum(s)


def _scaled(x, **kw):
    s = x
    for k in kw:
        s = s * kw[k]
    return np.sum(s)


def kwargs_loop(x):
    return _scaled(x, a=2.0, b=x[0]) + _scaled(x)


@pytest.mark.parametrize("f", [dict_keys_loop, kwargs_loop])
def test_dict_iteration(f):
    _check(f, np.array([0.3, -1.2, 0.7]))


def test_dict_changed_while_iterated_is_refused():
    def f(x):
        d = {"a": 1.0}
        for k in d:
            d[k + "x"] = 2.0
        return np.sum(x)

    with pytest.raises(RuntimeError):
        f(np.ones(2))
    with pytest.raises(st.StAutodiffError, match="changed size during iteration") as info:
        st.grad(f)(np.ones(2))
    assert "test_static_numpy_more.py" in str(info.value)


# --- obj.__dict__.pop of an object built inside -------------------------------------------


class Built:
    def __init__(self, w):
        self.w = w
        self.extra = 2.0

    def take(self):
        return self.__dict__.pop("extra"), self.__dict__.pop("missing", 5.0)


def instance_dict_pop(x):
    b = Built(x)
    extra, missing = b.take()
    return np.sum(b.w * extra * missing) + float(hasattr(b, "extra"))


def test_instance_dict_pop():
    _check(instance_dict_pop, np.array([0.3, -1.2, 0.7]))


# --- a for over a static range whose body reads static values only runs while compiling --


def paired_sections(x):
    """butter's zpk2sos: complex static roots paired section by section, written into a
    static array, then used with the argument."""
    p = np.array([0.5 + 0.3j, 0.5 - 0.3j, -0.2 + 0.1j, -0.2 - 0.1j])
    sos = np.zeros((2, 3))

    def worst(v):
        return np.argmin(np.abs(1 - np.abs(v)))

    for si in range(1, -1, -1):
        i = worst(p)
        p1 = p[i]
        p = np.delete(p, i)
        j = np.argmin(np.abs(p - p1.conj()))
        p2 = p[j]
        p = np.delete(p, j)
        sos[si] = np.real(np.poly([p1, p2]))
    return np.sum((sos @ x[:3]) ** 2)


def static_writes_in_loop(x):
    w = np.zeros(4)
    for k in range(4):
        w[k] = k * k + 1
    return np.sum(x[:4] * w)


def rebound_complex(x):
    z = np.array([1 + 1j, 2 - 1j])
    for _ in range(3):
        z = z * 1j + 0.5
    return np.sum(x[:2] * np.real(z)) + np.sum(x[2:] * np.imag(z[0]))


def runtime_read_stays_a_loop(x):
    w = np.ones(2)
    for k in range(3):
        w = w * x[:2] + k
    return np.sum(w)


@pytest.mark.parametrize("f", [paired_sections, static_writes_in_loop, rebound_complex,
                               runtime_read_stays_a_loop])
def test_static_for_loop(f):
    _check(f, np.array([0.3, -1.2, 0.7, 0.4]))


def test_long_static_loop_is_not_unrolled():
    """Past the bound the loop is a region: its complex carried array is a located
    refusal, not thousands of copies of the body."""

    def f(x):
        z = np.array([1 + 1j])
        for _ in range(1000):
            z = z * 0.999
        return np.sum(x * np.real(z))

    with pytest.raises(st.StAutodiffError) as info:
        st.grad(f)(np.ones(2))
    assert "test_static_numpy_more.py" in str(info.value)


def test_sosfilt_matches_scipy():
    signal = pytest.importorskip("scipy.signal")
    x = np.sin(np.linspace(0.0, 3.0, 9))

    def f(v):
        sos = signal.butter(2, 0.3, output="sos")
        return np.sum(signal.sosfilt(sos, v) ** 2)

    _check(f, x)


# --- setattr on an object built inside; its own lists ------------------------------------


class SetsByName:
    def __init__(self, w):
        for key, value in {"w": w * 2, "scale": 3.0}.items():
            setattr(self, key, value)
        self.names = []
        self.names.extend(["w", "scale"])


def setattr_built(x):
    s = SetsByName(x)
    return np.sum(getattr(s, s.names[0]) * s.scale) + len(s.names)


class DefaultList:
    def __init__(self, names=[]):  # noqa: B006  (Python's shared default, on purpose)
        self.names = names
        self.names.append("w")


def getattr_runtime_attribute(x):
    s = SetsByName(x)
    return np.sum(getattr(s, "w")) + getattr(s, "missing", 1.5)  # noqa: B009


def test_setattr_on_built_object():
    _check(setattr_built, np.array([0.3, -1.2, 0.7]))
    _check(getattr_runtime_attribute, np.array([0.3, -1.2, 0.7]))


def test_default_list_on_object_still_refused():
    """A mutable default stored on the object lives outside the call: appending to it
    stays a located refusal (Python changes it on every call)."""

    def f(x):
        return np.sum(x) * len(DefaultList().names)

    with pytest.raises(st.StAutodiffError, match="lives outside the function"):
        st.grad(f)(np.ones(2))


def test_setattr_in_runtime_branch_refused():
    def f(x):
        s = SetsByName(x)
        if np.sum(x) > 0:
            setattr(s, "scale", x[0])  # noqa: B010  (setattr itself is under test)
        return np.sum(s.w * s.scale)

    with pytest.raises(st.StAutodiffError, match="branch taken at run time") as info:
        st.grad(f)(np.ones(2))
    assert "test_static_numpy_more.py" in str(info.value)


# --- NumPy calls without an op of their own on arrays read from outside -------------------

LABELS = np.array([1, -1, -1, 1, 1])


def unique_of_global(x):
    classes = np.unique(LABELS)
    return np.sum(x) * classes.size + np.sum(x[: len(classes)])


def unique_counts_of_global(x):
    values, counts = np.unique(LABELS, return_counts=True)
    return np.sum(x[: counts.max()] * values[-1])


def masked_size_of_global(x):
    return np.sum(x) * LABELS[LABELS > 0].size


@pytest.mark.parametrize("f", [unique_of_global, unique_counts_of_global,
                               masked_size_of_global])
def test_numpy_call_on_global(f):
    _check(f, np.array([0.3, -1.2, 0.7, 0.4]))


def test_numpy_call_on_global_guarded():
    g = st.grad(unique_of_global)
    x = np.array([0.3, -1.2, 0.7, 0.4])
    np.testing.assert_allclose(g(x), [3.0, 3.0, 2.0, 2.0])
    try:
        LABELS[1] = 0
        np.testing.assert_allclose(g(x), [4.0, 4.0, 4.0, 3.0])
    finally:
        LABELS[1] = -1
    np.testing.assert_allclose(g(x), [3.0, 3.0, 2.0, 2.0])


# --- NumPy integers folded while compiling, in indices and constants of generated code -----


def numpy_int_slice_bound(x):
    n = np.array([1, 3, 2]).max()  # np.int64: generated code has no ``np``
    return np.sum(x[:n] ** 2) + np.sum(x[[n, 0]])


def numpy_int_constant(x):
    k = np.array([2, 5]).min()
    return np.sum(x * k) + np.sum(x[k:])


@pytest.mark.parametrize("f", [numpy_int_slice_bound, numpy_int_constant])
def test_numpy_integer_in_generated_code(f):
    _check(f, np.array([0.3, -1.2, 0.7, 0.4]))
