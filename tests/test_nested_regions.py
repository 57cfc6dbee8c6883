# ruff: noqa: B007  (loop variables unused on purpose: the loops only repeat)
"""Higher derivatives through nested control-flow regions (orders 2 to 4).

Each order is the gradient of the generated code of the order below (``grad(grad(f))``
re-transforms generated code), so every order is checked against central differences of
the next-lower compiled derivative, in float64.  The functions nest ``if``, ``for``
(static and runtime bounds) and ``while`` two deep, with ``break``, ``continue`` and an
early ``return``; the points keep every branch decision away from its boundary.
"""

import numpy as np
import pytest

import st_autodiff as st


def if_for(a):  # issue bug 10: grad(grad(f)) was 0.0 (a stack returned by an if)
    if a > 0:
        for i in range(3):
            a = a * a
    else:
        for i in range(3):
            a = a * a
    return a


def newton_while(a):  # issue bug 11: the third derivative dropped a dependence
    x = a
    k = 0
    while k < 6:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def for_if(a):
    y = a
    for i in range(4):
        if y > 1.5:
            y = np.sin(y) * a + 1.0
        else:
            y = y * y + a
    return y


def while_if(a):
    y = a
    k = 0
    while k < 4:
        if k % 2 == 0:
            y = y * np.cos(y) + a
        else:
            y = np.exp(-y) * a
        k += 1
    return y


def while_if_data(a):
    y = a
    while y < 5.0:
        if y > 1.0:
            y = y * a
        else:
            y = y + a * a
    return y * a


def if_while(a):
    if a > 0.5:
        x = a
        k = 0
        while k < 3:
            x = x * np.sin(x) + a
            k += 1
        y = x
    else:
        y = a**3
    return y


def for_for(a):  # nested stacks: their adjoints were concatenated, not added
    y = a
    for i in range(2):
        for j in range(3):
            y = y * np.tanh(y) + a * 0.1
    return y


def for_while(a):
    y = a
    for i in range(3):
        k = 0
        while k < 2:
            y = np.sin(y) * a + y
            k += 1
    return y


def while_for(a):
    y = a
    k = 0
    while k < 2:
        for i in range(3):
            y = y * a * 0.5 + np.cos(y)
        k += 1
    return y


def if_if(a):
    if a > 0:
        if a > 1:
            y = a**3 * np.sin(a)
        else:
            y = np.exp(a) * a
    else:
        y = a * a
    return y * a


def for_break(a):
    y = a
    for i in range(6):
        y = y * a + np.sin(y)
        if y > 4.0:
            break
    return y


def for_continue(a):
    y = a
    for i in range(5):
        if i % 2 == 1:
            continue
        y = y * np.cos(y) + a
    return y


def for_continue_data(a):
    y = a
    for i in range(5):
        if y > 2.0:
            y = y * 0.5
            continue
        y = y * y + a
    return y


def early_return(a):
    y = a
    for i in range(5):
        y = y * a + 0.1
        if y > 3.0:
            return y * y
    return y


def while_break(a):
    y = a
    while True:
        y = y * a + np.sin(a)
        if y > 3.0:
            break
    return y


def runtime_range(a):
    n = 2 + (a > 1.0) + (a > 2.0)  # a bound known only at run time
    y = a
    for i in range(n):
        y = np.sin(y) * a + y
    return y


def if_for_break(a):
    if a > 0:
        y = a
        for i in range(5):
            y = y * a
            if y > 2.0:
                break
    else:
        y = -a
    return y


def if_pow_sin(a):  # third order was wrong where the example took the other branch
    if a > 1:
        y = a**3 * np.sin(a)
    else:
        y = np.exp(a) * a
    return y


def for_if_for(a):
    y = a
    for i in range(2):
        if y > 0:
            for j in range(2):
                y = y * np.sin(y) + a
        else:
            y = y * a
    return y


#: (function, points, highest order checked)
CASES = [
    (if_for, (2.0, -1.1), 3),
    (newton_while, (2.5,), 4),
    (for_if, (0.7, 1.9), 3),
    (while_if, (0.6,), 3),
    (while_if_data, (1.3,), 4),
    (if_while, (0.9, 0.3), 4),
    (for_for, (0.8,), 4),
    (for_while, (0.6,), 3),
    (while_for, (0.4,), 3),
    (if_if, (0.5, 1.3, -0.7), 4),
    (for_break, (1.3, 0.9), 4),
    (for_continue, (0.8,), 4),
    (for_continue_data, (0.9, 1.3), 4),
    (early_return, (1.2, 0.5), 4),
    (while_break, (1.1,), 4),
    (runtime_range, (0.7, 1.3, 2.6), 4),
    (if_for_break, (1.2, -0.5), 4),
    (for_if_for, (0.7,), 3),
    (if_pow_sin, (0.5, 1.3), 4),
]


def _fd(f, a, h=1e-5):
    return (f(a + h) - f(a - h)) / (2 * h)


@pytest.mark.parametrize("fn, points, top", CASES, ids=[c[0].__name__ for c in CASES])
def test_each_order_is_the_derivative_of_the_one_below(fn, points, top):
    ds = [fn]
    for _ in range(top):
        ds.append(st.grad(ds[-1]))
    # one compiled chain for every point: code specialised on the first point's example
    # (which takes one path) must be right on the paths the other points take
    for a in points:
        for order in range(1, top + 1):
            got = ds[order](a)
            want = _fd(ds[order - 1], a)
            assert np.isfinite(got), (fn.__name__, a, order)
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5,
                                       err_msg=f"{fn.__name__} order {order} at {a}")


def test_issue_reproductions_have_their_closed_forms():
    d2 = st.grad(st.grad(if_for))
    assert d2(2.0) == pytest.approx(56 * 2.0**6)
    for mode in ("forward", "reverse"):
        assert st.hessian(if_for, mode=mode)(2.0) == pytest.approx(56 * 2.0**6)
        assert st.hvp(if_for, (2.0,), (1.0,), mode=mode) == pytest.approx(56 * 2.0**6)
    assert st.jvp(st.grad(if_for), (2.0,), (1.0,))[1] == pytest.approx(56 * 2.0**6)
    d3 = st.grad(st.grad(st.grad(newton_while)))
    assert d3(2.5) == pytest.approx(3 / 8 * 2.5**-2.5, rel=1e-6)


def arr_for_if(x):
    y = x
    for i in range(3):
        if np.sum(y) > 0:
            y = np.tanh(y) * x + 0.5
        else:
            y = y * y
    return np.sum(y**2)


def arr_if_for(x):
    if np.sum(x) > 0:
        y = x
        for i in range(3):
            y = np.sin(y) * x
    else:
        y = x
        for i in range(3):
            y = y * y
    return np.sum(y)


def arr_while_if(x):
    y = x
    k = 0
    while k < 3:
        if np.max(y) > 1.0:
            y = y * 0.5 + x
        else:
            y = np.exp(y) * x
        k += 1
    return np.sum(y * y)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("fn", [arr_for_if, arr_if_for, arr_while_if],
                         ids=lambda f: f.__name__)
def test_hessian_and_hvp_of_array_functions(fn, mode):
    x = np.array([0.3, 0.45, 0.2])
    g = st.grad(fn)
    h = 1e-6
    want = np.stack([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(st.hessian(fn, mode=mode)(x), want, rtol=1e-5, atol=1e-6)
    v = np.array([1.0, -2.0, 0.5])
    hv = st.hvp(fn, (x,), (v,), mode=mode)
    np.testing.assert_allclose(hv, want @ v, rtol=1e-5, atol=1e-6)
