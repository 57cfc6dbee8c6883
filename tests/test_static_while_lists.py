"""Exponentiation by squaring as ``scipy.stats`` writes it: a ``while`` loop on static
numbers with an ``if`` and a list ``append`` in its body runs while compiling, and a list
built at run time may be walked backwards from any constant bound (``xs[-2::-1]``).

``scipy.stats.skew``/``kurtosis``/``moment`` were refused for both reasons; the library
functions are imported at test time, values compared with Python's and gradients with
float64 central differences.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

_X = np.random.default_rng(7).normal(size=12)


def _agrees(f: Callable[..., Any], x: np.ndarray) -> None:
    vg = st.value_and_grad(f)
    value, _ = vg(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-10, atol=1e-12)
    check_grads(f, (x,), lambda a: (vg(a)[1],))


def _powers(x: np.ndarray, order: int) -> Any:
    n_list = [order]
    current = order
    while current > 2:
        if current % 2:
            current = (current - 1) / 2
        else:
            current /= 2
        n_list.append(current)
    s = x if n_list[-1] == 1 else x ** 2
    for n in n_list[-2::-1]:
        s = s ** 2
        if n % 2:
            s = s * x
    return s


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6, 7, 11])
def test_exponentiation_by_squaring(order: int) -> None:
    def f(x: np.ndarray) -> Any:
        return np.sum(_powers(x, order)) / order

    np.testing.assert_allclose(_powers(_X, order), _X ** order, rtol=1e-12)
    _agrees(f, _X)


def test_static_while_runs_while_compiling() -> None:
    def f(x: np.ndarray) -> Any:
        return np.sum(_powers(x, 7))

    g = st.grad(f)
    g(_X)
    # the exponents are constants of the generated code: no loop left
    assert not re.search(r"^\s*(while|for) ", g.source, re.M)


def test_while_on_runtime_data_stays_a_loop() -> None:
    def f(x: np.ndarray) -> Any:
        trips = 0
        s = x
        while np.max(np.abs(s)) > 0.5:
            if trips % 2:
                s = s * 0.5
            else:
                s = s * 0.75
            trips += 1
        return np.sum(s * s) * trips

    g = st.grad(f)
    _agrees(f, _X)
    assert re.search(r"^\s*while ", g.source, re.M)


# (start, stop) of xs[start:stop:-1] over six items: the whole list, the bounds whose
# "+ 1" would wrap (-1), negative and positive bounds, past either end, empty slices
_BOUNDS = [(None, None), (-1, None), (-2, None), (None, -1), (None, 0), (None, 2),
           (3, None), (3, 0), (-2, -5), (8, None), (None, -9), (-9, None), (1, 3), (4, -3),
           (0, None), (-1, -1)]


@pytest.mark.parametrize("start, stop", _BOUNDS)
def test_runtime_list_walked_backwards(start: int | None, stop: int | None) -> None:
    def f(x: np.ndarray) -> Any:
        xs = []
        for i in range(6):
            xs.append(np.sin(x * (i + 1)))
        total = 0.0
        for k, y in enumerate(xs[start:stop:-1]):
            total = total + (k + 2) * np.sum(y * x)
        return total

    _agrees(f, _X)


def test_other_steps_are_located_refusals() -> None:
    def f(x: np.ndarray) -> Any:
        xs = []
        for i in range(6):
            xs.append(x * i)
        return sum(np.sum(y) for y in xs[::2])

    with pytest.raises(st.StAutodiffError, match=r"sliced with step 1 or -1"):
        st.grad(f)(_X)


@pytest.mark.parametrize("name, call", [
    ("skew", lambda s, x: s.skew(x)),
    ("kurtosis", lambda s, x: s.kurtosis(x)),
    ("moment 3", lambda s, x: s.moment(x, 3)),
    ("moment 5", lambda s, x: s.moment(x, order=5)),
    ("moment 4 about 0.3", lambda s, x: s.moment(x, 4, center=0.3)),
    ("skew unbiased", lambda s, x: s.skew(x, bias=False)),
    ("kurtosis unbiased", lambda s, x: s.kurtosis(x, fisher=False, bias=False)),
])
def test_scipy_stats_moments(name: str, call: Callable[[Any, Any], Any]) -> None:
    stats = pytest.importorskip("scipy.stats")
    _agrees(lambda x: call(stats, x), _X)


# --- static while loops with returns, breaks, nested loops and number builtins ---------


def test_statsmodels_next_regular_runs_while_compiling() -> None:
    # ``_next_regular`` (statsmodels' FFT length, used by acf): nested while loops with
    # returns, min() and int.bit_length() on static ints; it was "integers have no
    # supported attribute 'bit_length'" (the loop became a region)
    compat = pytest.importorskip("statsmodels.compat.scipy")

    for n in (3, 7, 20, 33):
        def f(z, n=n):
            return z[0] * compat._next_regular(2 * z.shape[0] + n)

        z = np.ones(n)
        g = st.grad(f)
        np.testing.assert_allclose(g(z)[0], compat._next_regular(2 * n + n))
        assert not re.search(r"^\s*while ", g.source, re.M)  # ran while compiling


def test_statsmodels_acf() -> None:
    stattools = pytest.importorskip("statsmodels.tsa.stattools")
    _agrees(lambda z: np.sum(stattools.acf(z, nlags=3) ** 2), _X)
    _agrees(lambda z: np.sum(stattools.acf(z, nlags=2, fft=True)), _X)


def _smallest_divisor(n: int) -> int:
    d = 2
    while d * d <= n:
        if n % d == 0:
            return d
        d += 1
    return n


def _first_power_above(n: int) -> int:
    k = 0
    while True:
        k += 1
        if (1 << k) > n:
            break
        if k > 60:
            return -1
    return max(k, abs(-1)) + int(float(k).is_integer())


def test_static_while_with_return_break_and_builtins() -> None:
    def f(x):
        n = x.shape[0]
        return x[0] * _smallest_divisor(n * 7) + x[1] * _first_power_above(n)

    x = np.linspace(0.5, 1.5, 9)
    g = st.grad(f)
    want = np.zeros(9)
    want[0], want[1] = _smallest_divisor(63), _first_power_above(9)
    np.testing.assert_allclose(g(x), want)
    assert not re.search(r"^\s*while ", g.source, re.M)


def test_a_while_on_runtime_values_stays_a_loop() -> None:
    def f(x):
        s = x[0]
        k = 0
        while s < 10.0:
            s = s * 2.0
            k += 1
        return s + min(k, 3)

    vg = st.value_and_grad(f)
    x = np.array([0.7, 1.0])
    value, grad = vg(x)
    assert value == f(x)
    np.testing.assert_allclose(grad, [16.0, 0.0])
    assert re.search(r"^\s*while ", vg.source, re.M)


def test_a_shadowed_builtin_keeps_the_loop_compiled_as_a_loop() -> None:
    def min(a, b):  # noqa: A001  (the user's min, not the builtin)
        return a if a < b else b

    def f(x):
        k = 5
        while k > 1:
            k = min(k - 1, 9)
        return x[0] * k

    np.testing.assert_allclose(st.grad(f)(np.array([2.0])), [1.0])
