"""In-place writes (``a[i] = v``, ``a[i] op= v``) lowered to the functional ``setitem``.

Every supported write is checked end to end: the compiled function's value against the
function run by NumPy, its gradient (``st.grad``) and its forward derivative (``st.jvp``)
against float64 central differences, and that the caller's arrays are left alone.  Every
refused write must name the construct, point at the written target (file, line, column)
and say what to write instead; the refusals are the writes whose effect the functional
rewrite would miss (arguments, globals, aliases and views), so none may pass silently.
Writes inside loops nested in another region (``write_in_nested_loops``,
``write_in_if_in_loop``) need the loop lowering to report what each carried body argument
stands for (``WriteLowering.note_carried``); without that they are refused.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import UnsupportedSyntaxError
from st_autodiff.testing import check_grads

W = np.array([1.0, 2.0, 3.0, 4.0])  # a global array: read-only for differentiated code


# --- writes that are supported ------------------------------------------------------------


def write_row(x, w):
    a = np.zeros((3, 4))
    a[1] = x
    a[-1] = x * w
    return np.sum(np.sin(a) * w)


def write_slice(x, w):
    a = np.ones((4, 4))
    a[1:3] = np.outer(w[:2], x)
    a[::3, 1] = w[1:3]
    return np.sum(a**2)


def write_column_scalar(x, s):
    a = np.outer(x, x)
    a[:, 2] = s
    a[:, 0] *= s
    return np.sum(np.tanh(a))


def write_mask_scalar(x):
    a = x * 1.0
    a[a > 0.0] = 0.0
    return np.sum(a * a * x)


def write_mask_values(x, w):
    a = x * 2.0
    m = x > 0.0
    a[m] = w[m] ** 2
    return np.sum(np.exp(a))


def write_int_array(x, w):
    a = np.zeros((3, 4))
    idx = np.array([2, 0])
    a[idx] = np.outer(w[:2], x)
    return np.sum(a * np.arange(12.0).reshape(3, 4))


def write_repeated(x, w):
    a = x * 1.0
    a[[1, 1, 3]] = w[:3]  # NumPy keeps the last write to a[1]: w[0] is lost
    idx = np.array([0, 2, 0])
    a[idx] = a[idx] * w[1:]  # a runtime index array with a repeat
    return np.sum(a * np.arange(1.0, 5.0))


def write_broadcast(x, w):
    a = np.zeros((3, 4))
    a[0:2] = x  # a row into two rows
    a[:, 1:3] = w[:3, None]  # a column into two columns
    a[2, ...] = x[1]
    return np.sum(np.cos(a) * x)


def aug_assign_ops(x, w):
    a = np.outer(x, w)
    a[1, 2] += x[0]
    a[:, 1] *= w
    a[[0, 0]] -= x  # each position is updated once, as NumPy does
    a[a > 1.0] /= 2.0
    a[3] **= 2.0
    return np.sum(a)


def overwrite_used(x):
    a = x * 2.0
    b = np.exp(a)
    a[0] = 5.0 * x[1]  # b keeps the value a had: its gradient must too
    return np.sum(a * b)


def write_copies_of_argument(x):
    y = x.copy()
    y[0] = y[1] * y[2]
    z = np.copy(x)
    z[1:] = 0.0
    return np.sum(y * z) + np.sum(y**3)


def write_literal(x):
    c = np.array([1.0, 2.0, 3.0, 4.0])
    c[2] = x[0] * x[1]
    return np.sum(c * x)


def _fill(t, v):
    t[0] = v
    return t


def write_in_helper(x):
    t = _fill(np.zeros(3), x[1] ** 2)
    return np.sum(t * x[:3])


def write_unpacked_targets(x):
    a = x * 1.0
    a[0], a[1] = x[1] * 3.0, x[0]
    return np.sum(a * np.arange(4.0))


def write_advanced_copy(x):
    b = x[[0, 1]]  # integer-list indexing copies: writing b leaves x alone
    b[0] = 5.0 * b[1]
    return np.sum(b * b) + np.sum(x)


def write_static_index(x, k):
    a = np.zeros((2, 4))
    a[k, k + 1] = x[k]
    a[1 - k] = np.sqrt(x)
    return np.sum(a @ a.T)


def write_fresh_arrays(x):
    a = np.ones_like(x)
    a[1] = x[2]
    b = np.zeros_like(x)
    b[2:] = a[:2] * x[:2]
    return np.sum(a * b) + np.sum(np.log(a))


_X = np.array([0.7, -1.3, 0.4, 1.9])
_W = np.array([0.5, 1.2, -0.8, 2.1])
SUPPORTED: list[tuple[Callable[..., Any], tuple]] = [
    (write_row, (_X, _W)),
    (write_slice, (_X, _W)),
    (write_column_scalar, (_X, 0.6)),
    (write_mask_scalar, (_X,)),
    (write_mask_values, (_X, _W)),
    (write_int_array, (_X, _W)),
    (write_repeated, (_X, _W)),
    (write_broadcast, (_X, _W)),
    (aug_assign_ops, (_X, _W)),
    (overwrite_used, (_X,)),
    (write_copies_of_argument, (_X,)),
    (write_literal, (_X,)),
    (write_in_helper, (_X,)),
    (write_unpacked_targets, (_X,)),
    (write_advanced_copy, (_X,)),
    (write_static_index, (np.abs(_X) + 0.5, 0)),
    (write_fresh_arrays, (_X,)),
]
IDS = [fn.__name__ for fn, _ in SUPPORTED]


def _floats(args: tuple) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray))
                 and np.asarray(a).dtype.kind == "f")


def _copies(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("fn, args", SUPPORTED, ids=IDS)
def test_value_and_gradient_match_numpy(fn: Callable[..., Any], args: tuple) -> None:
    wrt = _floats(args)
    vg = st.value_and_grad(fn, wrt=wrt)
    mine = _copies(args)
    for _ in range(2):  # the second call reuses the compiled code and its constants
        value, grads = vg(*mine)
        np.testing.assert_allclose(value, fn(*_copies(args)), rtol=1e-12, atol=1e-12)
    for a, b in zip(mine, args):  # the caller's arrays are left as they were
        np.testing.assert_array_equal(a, b)

    def grad_fn(*a: Any) -> list[Any]:
        got = vg(*a)[1]
        got = got if isinstance(got, tuple) else (got,)
        out: list[Any] = [None] * len(a)
        for i, g in zip(wrt, got, strict=True):
            out[i] = g
        return out

    assert len(grads if isinstance(grads, tuple) else (grads,)) == len(wrt)
    check_grads(fn, args, grad_fn, argnums=wrt)


@pytest.mark.parametrize("fn, args", SUPPORTED, ids=IDS)
def test_forward_mode_matches_central_differences(fn: Callable[..., Any], args: tuple
                                                  ) -> None:
    rng = np.random.default_rng(5)
    wrt = _floats(args)
    tangents = tuple(
        (rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray)
         else float(rng.standard_normal())) if i in wrt else None
        for i, a in enumerate(args))
    value, t = st.jvp(fn, args, tangents)
    eps = 1e-6

    def shifted(sign: float) -> float:
        return fn(*(a if tg is None else a + sign * eps * tg for a, tg in zip(args, tangents)))

    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)
    np.testing.assert_allclose(t, (shifted(1.0) - shifted(-1.0)) / (2 * eps), rtol=1e-5,
                               atol=1e-6)


def test_last_write_wins_in_the_gradient() -> None:
    """``a[[1, 1, 3]] = w[:3]``: only the last write to a[1] (w[1]) reaches the result."""
    g = st.grad(write_repeated, wrt=1)(_X, _W)
    # w[0] is overwritten by w[1] in a[1]; w[3] reaches a only through the second write
    assert g[0] == 0.0
    assert g[1] != 0.0 and g[2] != 0.0


def test_the_old_value_stays_a_separate_node() -> None:
    """``b = exp(a); a[0] = ...``: ``b`` reads the old ``a``, the write makes ``a_1``."""
    lowered = st.grad(overwrite_used).stages()["lower"].splitlines()
    ops = {line.split("=")[0].strip(): line.split("=", 1)[1].split("#")[0].split()
           for line in lowered if line.strip().startswith("%") and "=" in line}
    setitems = [k for k, rhs in ops.items() if rhs[0].startswith("setitem")]
    assert [k.split(":")[0] for k in setitems] == ["%a_1"]
    b = next(rhs for k, rhs in ops.items() if k.startswith("%b:"))
    assert b == ["exp", "%a"]
    assert any(rhs[0] == "mul" and "%a_1," in rhs for rhs in ops.values())


# --- writes inside if/for bodies (reverse mode: forward mode has no region rules yet) ---------


def write_in_loop(x, w):
    h = np.zeros((4, 3))
    for t in range(1, 4):
        h[t] = np.tanh(w * h[t - 1] + x[t])
    return np.sum(h)


def write_in_branch(x, w):
    a = x * 1.0
    if np.sum(x) > 0.0:
        a[0] = w[0] * 3.0
    else:
        a[1] += w[1]
    return np.sum(a * a)


def write_in_nested_loops(x, w):
    m = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            m[i, j] = x[i] * w[j] + m[i, j - 1]
    return np.sum(m**2)


def write_in_if_in_loop(x, w):
    h = np.zeros(3)
    for t in range(3):
        if x[t] > 0.0:
            h[t] = x[t] * w[t]
    return np.sum(h * w)


_V = np.array([0.7, 1.2, -0.4])
REGIONS: list[tuple[Callable[..., Any], tuple]] = [
    (write_in_loop, (_X, _V)),
    (write_in_branch, (_X[:3], _V)),
    (write_in_branch, (-_X[:3], _V)),
    (write_in_nested_loops, (_X[:3], _V)),
    (write_in_if_in_loop, (_X[:3], _V)),
]


@pytest.mark.parametrize("fn, args", REGIONS, ids=[f"{fn.__name__}-{k}" for k, (fn, _) in
                                                   enumerate(REGIONS)])
def test_writes_in_regions(fn: Callable[..., Any], args: tuple) -> None:
    vg = st.value_and_grad(fn, wrt=(0, 1))
    value, _ = vg(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)
    check_grads(fn, args, lambda *a: vg(*a)[1])


# --- writes that are refused --------------------------------------------------------------


def refuse_argument(x):
    x[0] = 0.0  # <- argument
    return np.sum(x)


def refuse_aug_argument(x):
    x[1:] += 1.0  # <- aug-argument
    return np.sum(x)


def refuse_global(x):
    W[0] = x[0]  # <- global
    return np.sum(W * x)


def refuse_view_of_argument(x):
    v = x[1:]
    v[0] = 0.0  # <- view-of-argument
    return np.sum(x)


def refuse_asarray(x):
    y = np.asarray(x)
    y[0] = 1.0  # <- asarray
    return np.sum(y)


def refuse_view(x):
    a = x * 2.0
    b = a[1:]
    b[0] = 1.0  # <- view
    return np.sum(a)


def refuse_live_view(x):
    a = x * 2.0
    v = a[0:2]
    a[0] = 5.0  # <- live-view
    return np.sum(v) + np.sum(a)


def refuse_unpacked_row(x):
    m = np.outer(x, x)[:2]
    r0, r1 = m
    r0[0] = 1.0  # <- unpacked-row
    return np.sum(m) + np.sum(r1)


def _overwrite(t):
    t[0] = 0.0  # <- callee
    return t


def refuse_closure(x):
    a = x * 2.0

    def put(v):
        a[0] = v  # <- closure
        return v

    put(x[1])
    return np.sum(a)


def refuse_scalar(x):
    s = np.sum(x)
    s[0] = 1.0  # <- scalar
    return s


def refuse_float(x):
    s = 2.0
    s[0] = x[0]  # <- float
    return np.sum(x)


def refuse_nested(x):
    a = np.zeros((2, 2))
    a[[0, 1]][1] = x[0]  # <- nested
    return np.sum(a)


def refuse_argument_in_loop(x):
    for t in range(3):
        x[t] = 0.0  # <- loop-argument
    return np.sum(x)


def refuse_view_in_loop(x):
    h = x * 1.0
    for t in range(1, 4):
        prev = h[t - 1 : t]
        h[t] = prev[0] * 2.0  # <- loop-view
    return np.sum(h)


def refuse_passed_in_loop(x):
    total = 0.0
    for i in range(3):
        c = x * (2.0 + i)
        d = c
        total = total + np.sum(d * _overwrite(c))
    return total


REFUSED = [
    # (function, marker, token at the error's column, part of the message, part of the hint)
    (refuse_argument, "argument", "x[0]",
     "writing into 'x' is not supported here: it is an argument, so the caller's array "
     "would change too", "x = x.copy()"),
    (refuse_aug_argument, "aug-argument", "x[1:]",
     "writing into 'x' is not supported here: it is an argument", "x = x.copy()"),
    (refuse_global, "global", "W[0]",
     "writing into 'W' is not supported here: it is a global or closure array, so it would "
     "change for every call", "W = W.copy()"),
    (refuse_view_of_argument, "view-of-argument", "v[0]",
     "writing into 'v' is not supported here: it may be a view of the argument 'x', so the "
     "caller's array would change too", "v = v.copy()"),
    (refuse_asarray, "asarray", "y[0]", "it may be a view of the argument 'x'",
     "y = y.copy()"),
    (refuse_view, "view", "b[0]",
     "writing into 'b' is not supported here: it may be a view of 'a' and would change too",
     "b = b.copy()"),
    (refuse_live_view, "live-view", "a[0]",
     "writing into 'a' is not supported here: 'v' may be a view of it and would change too",
     "make v a copy"),
    (refuse_unpacked_row, "unpacked-row", "r0[0]", "it may be a view of 'm'",
     "r0 = r0.copy()"),
    (refuse_closure, "closure", "a[0]",
     "writing into 'a' is not supported here: it belongs to an enclosing function",
     "a = a.copy()"),
    (refuse_scalar, "scalar", "s[0]",
     "cannot write into an element of 's': it is a 0-d value (a scalar)", "s = ..."),
    (refuse_float, "float", "s[0]",
     "cannot write into an element of 's': it is a float known when compiling, not an array",
     "build a new value instead"),
    (refuse_nested, "nested", "a[[0, 1]]", "writes into a copy", "a[i, j] = v"),
    (refuse_argument_in_loop, "loop-argument", "x[t]",
     "writing into 'x' is not supported here: it is an argument", "x = x.copy()"),
    (refuse_view_in_loop, "loop-view", "h[t]",
     "writing into 'h' is not supported here: 'prev' may be a view of it", "make prev a copy"),
    (refuse_passed_in_loop, "callee", "t[0]",
     "writing into 't' is not supported here: it may be an array passed in by a caller",
     "t = t.copy()"),
]
FILE = inspect.getsourcefile(refuse_argument)
LINES = inspect.getsource(inspect.getmodule(refuse_argument)).splitlines()


def marked(name: str) -> tuple[int, str]:
    """The line number and text of the line marked ``# <- name`` in this file."""
    hits = [k for k, text in enumerate(LINES, 1) if text.rstrip().endswith(f"# <- {name}")]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    return hits[0], LINES[hits[0] - 1]


@pytest.mark.parametrize("fn, marker, token, message, hint", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_refused_write_points_at_the_target(fn: Callable[..., Any], marker: str, token: str,
                                            message: str, hint: str) -> None:
    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(fn)(_X.copy())
    exc = info.value
    line, text = marked(marker)
    col = text.index(token) + 1
    assert message in exc.message
    assert (exc.loc.file, exc.loc.line, exc.loc.col) == (FILE, line, col)
    rendered = str(exc).splitlines()
    assert rendered[0] == f"{FILE}:{line}:{col}: error: {exc.message}"
    assert rendered[1] == "    " + text.strip()
    assert rendered[-1] == f"hint: {exc.hint}" and hint in exc.hint


def test_a_refused_write_leaves_the_argument_alone() -> None:
    x = _X.copy()
    with pytest.raises(UnsupportedSyntaxError):
        st.grad(refuse_argument)(x)
    np.testing.assert_array_equal(x, _X)
    assert W[0] == 1.0
