"""Compiling reads types, never data (issue 10): every corpus function compiles with
arguments whose data raises when read, and the code compiled from them is right.

``Poisoned`` is an ``np.ndarray`` subclass whose dtype, shape, rank, size and length can
be read, and whose every other use raises ``DataRead`` and is logged: ufuncs and NumPy
functions on it, indexing, conversion to a number or a bool, iteration, ``repr``, copies,
views and every array method.  ``DataRead`` is a ``BaseException``, so a broad ``except
Exception`` in the compiler cannot swallow it, and the log is checked too.  Its memory
holds NaN (int arrays: their most negative value) and is zero-strided and read-only: a
read that bypasses Python (``np.asarray`` of a subclass, the buffer protocol) would fold
NaN into the generated code and fail the derivative checks below.  A Python float is
poisoned the only way a float can be: it is NaN while compiling.

For the grad checks the poisoned arrays are keyed like the arrays they stand for (the
``_KINDS`` entry below), so the public call with the real arrays afterwards reuses the
specialisation compiled from the poison (asserted through ``cache_info``) and is checked
against central finite differences.  Forward mode, ``vjp`` and second order (forward over
reverse and reverse over reverse) are compiled the same way for the control-flow corpus.

Also here: functions with custom rules run once per call of the compiled code and never
while compiling (what ``test_effects_once.py`` does not cover: ``compile``, custom_vjp in
branches and while loops, loops of a dynamic length), and compiling costs memory and work
independent of the data's size and of a loop's trip count.
"""

from __future__ import annotations

import gc
import importlib
import sys
import tracemalloc
import types
import zlib
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff import api, products
from st_autodiff.testing import check_grads

try:
    import corpus as corpus_package
    from corpus import CORPUS, Entry
except ImportError:  # tests/ imported as a package
    import tests.corpus as corpus_package  # type: ignore[no-redef]
    from tests.corpus import CORPUS, Entry  # type: ignore[no-redef]

importlib.import_module(corpus_package.__name__ + ".control")  # registers the control corpus
ENTRIES = list(CORPUS)  # (test_corpus_modes may take the control entries out of CORPUS)
PLAIN = [e for e in ENTRIES if not e.has_aux]
CONTROL = [e for e in PLAIN if e.fn.__module__.endswith("control")]


# --- the poison ----------------------------------------------------------------------------


class DataRead(BaseException):  # noqa: N818  (not an Exception: nothing may catch it)
    """Array data was read while compiling."""


#: every data read attempted (also those a broad ``except`` might have swallowed)
READS: list[str] = []

#: what a compiler may read of an argument: its type, never its data
_METADATA = {"dtype", "shape", "ndim", "size", "itemsize", "nbytes", "__len__",
             "__class__", "__array_finalize__", "__array_priority__", "__init__", "__new__",
             "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__init_subclass__",
             "__subclasshook__", "__class_getitem__", "__sizeof__", "__eq__", "__ne__",
             "__hash__", "__doc__", "__module__", "__dict__", "__weakref__"}
#: NumPy functions that read only metadata (``jvp`` checks its tangents' shapes with them)
_METADATA_FUNCTIONS = {np.shape, np.ndim, np.size, np.iscomplexobj, np.isrealobj}


class Poisoned(np.ndarray):
    """An array whose type can be read and whose data cannot (see the module docstring)."""

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _METADATA_FUNCTIONS:
            return super().__array_function__(func, types, args, kwargs)
        return _read(self, f"np.{getattr(func, '__name__', func)}")


def _read(a: Any, what: str) -> Any:
    where = f"{what} of a poisoned {a.dtype}{list(a.shape)} argument"
    READS.append(where)
    raise DataRead(f"the compiler read array data: {where}")


def _raiser(name: str) -> Any:
    def method(self: Poisoned, *args: Any, **kwargs: Any) -> Any:
        return _read(self, name)

    method.__name__ = name
    return method


for _name in dir(np.ndarray):
    if _name in _METADATA or _name == "__array_function__":
        continue
    _raise = _raiser(_name)
    setattr(Poisoned, _name, _raise if callable(getattr(np.ndarray, _name)) else property(_raise))


def poisoned(a: Any) -> Any:
    """``a`` with its data poisoned: arrays (in tuples, lists and dicts too) become
    ``Poisoned`` of the same dtype and shape, floats NaN; other values stay."""
    if isinstance(a, np.ndarray):
        kind = a.dtype.kind
        fill = np.nan if kind in "fc" else np.iinfo(a.dtype).min if kind in "iu" else True
        base = np.broadcast_to(np.array(fill, dtype=a.dtype), a.shape)  # O(1) memory
        return np.ndarray.view(base, Poisoned)
    if type(a) is float:
        return float("nan")
    if type(a) in (tuple, list):
        return type(a)(poisoned(x) for x in a)
    if type(a) is dict:
        return {k: poisoned(v) for k, v in a.items()}
    return a


@pytest.fixture(autouse=True)
def poison_is_keyed_like_an_array(monkeypatch: pytest.MonkeyPatch) -> None:
    """A poisoned array has the cache key of the array it stands for, so that the real
    call after compiling reuses what was compiled from the poison.  (Each test asserts
    that ``READS`` is empty after compiling.)"""
    monkeypatch.setitem(api._KINDS, Poisoned, api._KINDS[np.ndarray])
    READS.clear()


def _params(entries: list[Entry]) -> list[Any]:
    return [pytest.param(e, id=e.name) for e in entries]


def _rng(entry: Entry, salt: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(entry.name.encode()) + salt)


def _direction(rng: np.random.Generator, a: Any) -> Any:
    return float(rng.standard_normal()) if isinstance(a, float) else rng.standard_normal(
        np.shape(a))


def _misses(g: Any) -> int:
    return g.cache_info().misses  # type: ignore[no-any-return]


# --- the poison itself -------------------------------------------------------------------


@pytest.mark.parametrize("use", [
    lambda p: p + 1.0, lambda p: np.sin(p), lambda p: np.sum(p), lambda p: p.sum(),
    lambda p: p[0], lambda p: p[:1], lambda p: float(p[0:1]), lambda p: bool(p),
    lambda p: list(p), lambda p: p.tolist(), lambda p: p.copy(), lambda p: p.astype(float),
    lambda p: p.view(np.ndarray), lambda p: p.T, lambda p: p.reshape(-1), lambda p: repr(p),
    lambda p: p.item(), lambda p: p.tobytes(),
    lambda p: np.concatenate([p, p]), lambda p: p == p, lambda p: operator_index(p)])
def test_every_use_of_the_data_raises(use):
    p = poisoned(np.ones(3))
    with pytest.raises(DataRead):
        use(p)
    assert READS
    READS.clear()


def operator_index(p: Any) -> Any:
    return [0, 1, 2][p]


def test_the_type_is_readable_and_costs_no_memory():
    p = poisoned(np.ones((10**6, 100)))
    assert (p.dtype, p.shape, p.ndim, p.size, len(p)) == (np.float64, (10**6, 100), 2,
                                                          10**8, 10**6)
    assert np.shape(p) == (10**6, 100) and not np.iscomplexobj(p)
    assert np.ndarray.strides.__get__(p) == (0, 0)  # a zero-strided view: 8 bytes of NaN
    # what Python cannot intercept (np.asarray of a subclass) sees NaN
    assert np.isnan(np.asarray(poisoned(np.ones(2)))).all()


# --- every corpus function, compiled on poison -------------------------------------------


@pytest.mark.parametrize("entry", _params(ENTRIES))
def test_grad_compiles_without_reading_data(entry: Entry):
    args = entry.args()
    g = st.grad(entry.fn, wrt=entry.wrt, has_aux=entry.has_aux)
    spec = g.compile(*(poisoned(a) for a in args))
    assert spec.source.startswith("def ") and not READS
    misses = _misses(g)
    out = g(*args)  # the real arrays: the specialisation compiled from the poison
    assert _misses(g) == misses, f"the real call compiled again:\n{g.cache_info()}"
    if entry.has_aux:
        out, aux = out
        np.testing.assert_allclose(np.asarray(aux, dtype=float),
                                   np.asarray(entry.fn(*args)[1], dtype=float), rtol=1e-12)
    grads = tuple(out) if isinstance(entry.wrt, tuple) else (out,)
    full = entry.bind(args)
    per_argument: list[Any] = [None] * len(full)
    for pos, grad in zip(entry.positions, grads):
        per_argument[pos] = grad
    check_grads(entry.loss, full, lambda *a: per_argument, argnums=entry.positions)


@pytest.mark.parametrize("entry", _params(CONTROL))
def test_jvp_compiles_without_reading_data(entry: Entry):
    """Forward mode: compiled on poisoned primals and tangents, ``J t`` then equals
    ``<grad f, t>`` (the gradient is checked against finite differences above)."""
    args = entry.bind(entry.args())
    rng = _rng(entry, 1)
    tangents = tuple(_direction(rng, a) if i in entry.positions else None
                     for i, a in enumerate(args))
    flat, dots, gj = products._jvp_function(entry.fn, poisoned(args), poisoned(tangents),
                                            None)
    gj.compile(*flat.leaves, *(dots[k] for k in gj._wrt_spec))
    assert not READS
    misses = _misses(gj)
    _, out_dot = st.jvp(entry.fn, args, tangents)
    assert _misses(gj) == misses, f"the real call compiled again:\n{gj.cache_info()}"
    grads = st.grad(entry.fn, wrt=entry.positions)(*args)
    terms = [np.asarray(g, dtype=float) * np.asarray(tangents[p])
             for p, g in zip(entry.positions, grads)]
    expected = sum(float(np.sum(t)) for t in terms)
    scale = sum(float(np.sum(np.abs(t))) for t in terms)
    assert abs(float(out_dot) - expected) <= 1e-9 * scale + 1e-300, (out_dot, expected)


@pytest.mark.parametrize("entry", _params(CONTROL))
def test_vjp_compiles_without_reading_data(entry: Entry):
    args = entry.bind(entry.args())
    flat, _, gv = products._vjp_function(entry.fn, poisoned(args), None)
    spec = gv.compile(*flat.leaves)
    assert spec.compiled.fwd is not None and spec.compiled.bwd is not None and not READS
    misses = _misses(gv)
    out, pullback = st.vjp(entry.fn, *args)
    assert _misses(gv) == misses, f"the real call compiled again:\n{gv.cache_info()}"
    grads = pullback(1.0)
    np.testing.assert_allclose(out, entry.fn(*args), rtol=1e-12)
    per_argument = [grads[p] if p in entry.positions else None for p in range(len(args))]
    check_grads(entry.loss, args, lambda *a: per_argument, argnums=entry.positions)


#: second order: control-flow entries whose first argument is differentiated (st.hvp's)
SECOND = [e for e in CONTROL if e.positions[0] == 0 and not e.fails("second_order")
          and not e.fails("hvp_forward") and not e.fails("hvp_reverse")]


@pytest.mark.parametrize("entry, mode", [pytest.param(e, mode, id=f"{e.name}-{mode}")
                                         for e in SECOND for mode in ("forward", "reverse")])
def test_second_order_compiles_without_reading_data(entry: Entry, mode: str):
    """``st.hvp`` (forward over reverse, reverse over reverse) compiled on poison, then
    checked against central differences of the gradient along the same direction."""
    args = entry.bind(entry.args())
    v = _direction(_rng(entry, 2), args[0])
    tangents = (v,) + (None,) * (len(args) - 1)
    g = products._grad_of(entry.fn)
    if mode == "forward":
        flat, dots, inner = products._jvp_function(g, poisoned(args), poisoned(tangents),
                                                   None)
        inner.compile(*flat.leaves, *(dots[k] for k in inner._wrt_spec))
    else:
        flat, _, inner = products._vjp_function(g, poisoned(args), None)
        inner.compile(*flat.leaves)
    assert not READS
    misses = _misses(inner)
    got = st.hvp(entry.fn, args, tangents, mode=mode)
    assert _misses(inner) == misses, f"the real call compiled again:\n{inner.cache_info()}"
    eps = 1e-5
    hi = np.asarray(g(*((args[0] + eps * v),) + args[1:]), dtype=float)
    lo = np.asarray(g(*((args[0] - eps * v),) + args[1:]), dtype=float)
    want = (hi - lo) / (2 * eps)
    scale = max(1.0, float(np.max(np.abs(g(*args)))))
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-5,
                               atol=1e-7 * scale)


def test_shape_dtype_compiles_the_specialisation_that_calls_then_use():
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    g = st.grad(loss)
    spec = g.compile(st.ShapeDtype((3, 2)), st.ShapeDtype((5, 3)))
    assert spec.reason == "first call" and "def loss_grad(w, x" in spec.source
    assert g.compile(st.ShapeDtype((3, 2)), st.ShapeDtype((5, 3))) is spec  # cached
    w, x = np.random.default_rng(0).standard_normal((2, 3, 2))[0], np.ones((5, 3))
    check_grads(lambda w: loss(w, x), (w,), lambda w: (g(w, x),))
    info = g.cache_info()
    assert (info.misses, info.hits, info.currsize) == (1, 1, 1)
    with pytest.raises(ValueError, match="no shape"):
        g.compile(st.ShapeDtype(None), st.ShapeDtype((5, 3)))


# --- functions with custom rules run once per call, never while compiling ------------------

EFFECTS = {"f": 0, "rule": 0, "cv": 0, "fwd": 0, "bwd": 0}


def scaled(x):
    """Registered rule (``register_vjp``), counted."""
    EFFECTS["f"] += 1
    return x * 1.5


def _scaled_rule(g, out, x):
    EFFECTS["rule"] += 1
    return (1.5 * g,)


st.register_vjp(scaled, _scaled_rule, out_type=lambda x: x)


@st.custom_vjp(out_type=lambda x: x)
def cubed(x):
    EFFECTS["cv"] += 1
    return x * x * x


def _cubed_fwd(x):
    EFFECTS["fwd"] += 1
    return cubed(x), 3.0 * x * x


def _cubed_bwd(three_x2, g):
    EFFECTS["bwd"] += 1
    return (g * three_x2,)


cubed.defvjp(_cubed_fwd, _cubed_bwd)


def branch_on_data(x):
    if np.sum(x) > 0.0:  # decided at run time: the compiled code holds both branches
        y = scaled(x)
    else:
        y = cubed(x)
    return np.sum(y * y)


def dynamic_loop(x, n):
    s = x
    for _ in range(n):  # n is a runtime int (dynamic_argnums)
        s = scaled(s) * 0.5 + cubed(s) * 0.1
    return np.sum(s)


def while_on_data(x):
    k = 0
    while np.sum(x) < 4.0 and k < 20:  # the trip count depends on the data
        x = cubed(x) * 0.2 + scaled(x)
        k += 1
    return np.sum(x)


def branch_in_loop(x):
    s = 0.0
    for i in range(4):
        if i % 2 == 0:
            s = s + np.sum(scaled(x))
        else:
            s = s + np.sum(cubed(x * s * 0.1))
    return s


EFFECT_CASES = [
    (branch_on_data, (np.array([0.5, 0.25]),), {}),
    (branch_on_data, (np.array([-0.5, 0.25]),), {}),
    (dynamic_loop, (np.array([0.3, -0.2]), 3), {"dynamic_argnums": 1}),
    (dynamic_loop, (np.array([0.3, -0.2]), 0), {"dynamic_argnums": 1}),
    (while_on_data, (np.array([0.6, 0.9]),), {}),
    (while_on_data, (np.array([2.5, 2.0]),), {}),
    (branch_in_loop, (np.array([0.4, 0.7]),), {}),
]


def _python_counts(fn: Any, args: tuple) -> tuple[int, int]:
    """How often plain Python calls ``scaled`` and ``cubed``."""
    EFFECTS.update(dict.fromkeys(EFFECTS, 0))
    fn(*args)
    return EFFECTS["f"], EFFECTS["cv"]


@pytest.mark.parametrize("transform", ["grad", "value_and_grad"])
@pytest.mark.parametrize("fn, args, spec", EFFECT_CASES,
                         ids=lambda c: c.__name__ if callable(c) else None)
def test_custom_rules_run_once_per_call_and_never_while_compiling(fn, args, spec, transform):
    n_f, n_cv = _python_counts(fn, args)
    want = {"f": n_f, "rule": n_f, "cv": n_cv, "fwd": n_cv, "bwd": n_cv}  # JAX's counts
    g = getattr(st, transform)(fn, **spec)
    g.cache_clear()
    EFFECTS.update(dict.fromkeys(EFFECTS, 0))
    g.compile(*poisoned(args))
    assert EFFECTS == dict.fromkeys(EFFECTS, 0) and not READS  # compiling ran nothing
    for _ in range(3):  # the first call after compile, and later ones
        EFFECTS.update(dict.fromkeys(EFFECTS, 0))
        g(*args)
        assert EFFECTS == want
    g.cache_clear()
    EFFECTS.update(dict.fromkeys(EFFECTS, 0))
    g(*args)  # a first call that compiles: still once
    assert EFFECTS == want
    grad = g(*args)[1] if transform == "value_and_grad" else g(*args)
    check_grads(lambda x: fn(x, *args[1:]), args[:1], lambda x: (grad,))


def test_a_dynamic_trip_count_changes_the_count_without_compiling_again():
    g = st.grad(dynamic_loop, dynamic_argnums=1)
    g.cache_clear()
    x = np.array([0.2, 0.1])
    g.compile(poisoned(x), 1)
    for n in (0, 1, 4, 7):
        EFFECTS.update(dict.fromkeys(EFFECTS, 0))
        got = g(x, n)
        assert EFFECTS == {"f": n, "rule": n, "cv": n, "fwd": n, "bwd": n}
        check_grads(lambda x, n=n: dynamic_loop(x, n), (x,), lambda x, got=got: (got,))
    assert g.cache_info().misses == 1


# --- compiling costs what the program costs, not what the data costs ---------------------

PEAK_LIMIT = 20 * 2**20  # bytes of compile-time peak memory, whatever the data's size


def chain(x):
    return np.sum(np.exp(np.sin(x)) * x**2)


def recurrence(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * 0.5 + x * (0.01 * i)
    return np.sum(s)


def _copy(fn: Any, name: str) -> Any:
    """A new function object with ``fn``'s code: its own specialisation cache."""
    return types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                              fn.__closure__)


def _cost(compile_it: Any) -> tuple[int, int, Any]:
    """``(Python calls, peak traced bytes, result)`` of ``compile_it()``: a count of the
    interpreter's call events (deterministic, unlike a time) and tracemalloc's peak."""
    calls = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        calls[0] += 1

    gc.collect()  # (a collection inside runs weakref callbacks: calls that vary)
    gc.disable()
    tracemalloc.start()
    sys.setprofile(profile)
    try:
        result = compile_it()
    finally:
        sys.setprofile(None)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        gc.enable()
    return calls[0], peak, result


def _same_work(small: int, large: int) -> bool:
    """Within what caches explain (the probe cache of ``ir/infer_core`` fills up over a
    session), far below a cost per element or per iteration."""
    return large <= 1.5 * small + 2000


def test_compiling_does_not_depend_on_the_data_size():
    st.grad(_copy(chain, "warm_up")).compile(np.ones(3))  # (first-use caches: not measured)
    small, large = st.grad(_copy(chain, "small")), st.grad(_copy(chain, "large"))
    calls_small, peak_small, _ = _cost(lambda: small.compile(np.ones(10)))
    huge = np.broadcast_to(np.float64(1.0), (10**8,))  # 800 MB if it were ever computed on
    calls_large, peak_large, _ = _cost(lambda: large.compile(huge))
    assert peak_small < PEAK_LIMIT and peak_large < PEAK_LIMIT, (peak_small, peak_large)
    assert _same_work(calls_small, calls_large), (calls_small, calls_large)
    x = np.array([0.3, -1.2, 2.0])
    check_grads(chain, (x,), lambda x: (st.grad(chain)(x),))


@pytest.mark.parametrize("how", ["static", "dynamic"])
def test_a_100000_step_loop_compiles_like_a_10_step_loop(how):
    """Neither unrolled nor run while compiling: the same work, memory and code."""
    spec = {"dynamic_argnums": 1} if how == "dynamic" else {}
    x = np.array([0.5, -0.25, 1.0])
    st.grad(_copy(recurrence, "warm_up"), **spec).compile(x, 7)
    short_fn, long_fn = _copy(recurrence, "short"), _copy(recurrence, "long")
    short, long_ = st.grad(short_fn, **spec), st.grad(long_fn, **spec)
    calls_short, peak_short, short_spec = _cost(lambda: short.compile(poisoned(x), 10))
    calls_long, peak_long, long_spec = _cost(lambda: long_.compile(poisoned(x), 100_000))
    assert not READS
    assert peak_short < PEAK_LIMIT and peak_long < PEAK_LIMIT, (peak_short, peak_long)
    assert _same_work(calls_short, calls_long), (calls_short, calls_long)
    assert len(long_spec.source.splitlines()) == len(short_spec.source.splitlines()) < 100
    check_grads(lambda x: recurrence(x, 10), (x,), lambda x: (short(x, 10),))
    if how == "dynamic":  # the same code for every trip count
        check_grads(lambda x: recurrence(x, 40), (x,), lambda x: (long_(x, 40),))
        assert long_.cache_info().misses == 1
