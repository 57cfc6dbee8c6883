"""Memory layout as part of the compile-time type (ir/layout.py, transforms/layout_queries.py).

Each argument layout (C, F, strided, read-only) of the same shape must get its own,
correct specialisation: values equal to NumPy's, gradients equal to central differences
taken on arrays of that same layout.  Layouts of values computed inside are inferred from
their op; where they cannot be, the query is a located refusal.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import StAutodiffError, UnsupportedSyntaxError

RNG = np.random.default_rng(14)
VALUES = RNG.normal(size=(3, 4))
W = np.arange(1.0, 13.0).reshape(3, 4)
KINDS = ("C", "F", "strided", "readonly")


def make(kind: str, values: np.ndarray) -> np.ndarray:
    """An array holding ``values`` laid out as ``kind`` says."""
    if kind == "C":
        return np.ascontiguousarray(values.copy())
    if kind == "F":
        return np.asfortranarray(values.copy())
    if kind == "strided":
        parent = np.zeros((values.shape[0], 2 * values.shape[1]))
        parent[:, ::2] = values
        return parent[:, ::2]
    out = np.array(values, copy=True)
    out.setflags(write=False)
    return out


def numeric_grad(f, kind: str, values: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of ``f`` at ``values``, every probe laid out as ``kind``."""
    g = np.zeros_like(values)
    for idx in np.ndindex(values.shape):
        up, down = values.copy(), values.copy()
        up[idx] += eps
        down[idx] -= eps
        g[idx] = (f(make(kind, up)) - f(make(kind, down))) / (2 * eps)
    return g


def check(f, kind: str, values: np.ndarray = VALUES) -> None:
    x = make(kind, values)
    value, grad = st.value_and_grad(f)(x)
    assert np.allclose(value, f(make(kind, values)), rtol=1e-12, atol=1e-12)
    assert np.allclose(grad, numeric_grad(f, kind, values), rtol=1e-5, atol=1e-5)


def flags_branch(x):
    scale = 1.0 if x.flags.writeable else 3.0
    if x.flags.c_contiguous:
        return scale * np.sum(np.sin(x) * W)
    if x.flags["F_CONTIGUOUS"]:
        return scale * np.sum(np.cos(x) * W)
    return scale * np.sum(x ** 3 * W)


@pytest.mark.parametrize("kind", KINDS)
def test_flags_of_an_argument_select_the_branch_numpy_takes(kind):
    check(flags_branch, kind)


def test_each_layout_of_one_shape_gets_its_own_specialisation():
    g = st.value_and_grad(flags_branch)
    for kind in KINDS:
        value, grad = g(make(kind, VALUES))
        assert np.isclose(value, flags_branch(make(kind, VALUES)))
    assert len(g.cache_info().specialisations) == 4
    for kind in KINDS:  # now each call finds its own specialisation
        value, _ = g(make(kind, VALUES))
        assert np.isclose(value, flags_branch(make(kind, VALUES)))
    info = g.cache_info()
    assert len(info.specialisations) == 4 and info.misses == 4
    assert all(s.hits > 0 for s in info.specialisations)
    assert "layout" in info.specialisations[-1].reason


def test_a_function_that_asks_nothing_keeps_one_specialisation():
    g = st.grad(lambda x: np.sum(np.sin(x) * W))
    for kind in KINDS:
        g(make(kind, VALUES))
    assert len(g.cache_info().specialisations) == 1


def ravel_k(x):
    return np.sum(np.ravel(x, order="K") * np.arange(12.0)) + np.sum(
        x.ravel("A") ** 2 * np.arange(12.0))


@pytest.mark.parametrize("kind", KINDS)
def test_ravel_k_and_a_read_in_numpys_order(kind):
    check(ravel_k, kind)


@pytest.mark.parametrize("kind", ("C", "F", "readonly"))
def test_ravel_k_after_layout_changing_calls(kind):
    def f(x):
        a = np.ravel(np.asfortranarray(x), order="K") * np.arange(12.0)
        b = x.copy(order="F").ravel("K") * np.arange(12.0) ** 2
        c = np.ravel(np.exp(x.T), order="K") * np.arange(12.0) ** 0.5
        d = np.ascontiguousarray(x.T).ravel(order="K") * np.cos(np.arange(12.0))
        e = np.copy(x, order="K").ravel("K") * np.sin(np.arange(12.0))
        return np.sum(a * b) + np.sum(c) + np.sum(d) + np.sum(e * x.ravel("K"))

    check(f, kind)


#: values computed inside, by op: each's flags are compared with NumPy's own
def e_transpose(x):
    return x.T


def e_exp(x):
    return np.exp(x)


def e_scaled(x):
    return 2.0 * x + 1.0


def e_sum0(x):
    return np.sum(x, axis=0)


def e_sum_keep(x):
    return np.sum(x, axis=1, keepdims=True)


def e_tril(x):
    return np.tril(x)


def e_matmul(x):
    return x @ np.ones((4, 2))


def e_copy(x):
    return x.copy()


def e_copy_f(x):
    return x.copy(order="F")


def e_np_copy(x):
    return np.copy(x)


def e_contiguous(x):
    return np.ascontiguousarray(x)


def e_fortran(x):
    return np.asfortranarray(x)


def e_asarray_f(x):
    return np.asarray(x, order="F")


def e_reshape(x):
    return x.reshape(4, 3)


def e_ravel(x):
    return x.ravel()


def e_expand(x):
    return np.expand_dims(x, 0)


def e_broadcast(x):
    return np.broadcast_to(x, (2, 3, 4))


def e_zeros_like(x):
    return np.zeros_like(x)


def e_astype(x):
    return x.astype(np.float64) * 1.0


def e_concat(x):
    return np.concatenate([x, x])


def e_row(x):
    return np.exp(x)[0]


EXPRESSIONS = {f.__name__[2:]: f for f in (
    e_transpose, e_exp, e_scaled, e_sum0, e_sum_keep, e_tril, e_matmul, e_copy, e_copy_f,
    e_np_copy, e_contiguous, e_fortran, e_asarray_f, e_reshape, e_ravel, e_expand,
    e_broadcast, e_zeros_like, e_astype, e_concat, e_row,
)}


def _flag_code(y) -> float:
    fl = y.flags
    return 1.0 * fl.c_contiguous + 2.0 * fl["F_CONTIGUOUS"] + 4.0 * fl.writeable + \
        8.0 * fl.fortran + 16.0 * fl.forc + 32.0 * fl.fnc + 64.0 * fl.behaved


#: combinations that must be answered (not refused); the rest may be refused, located
_UNKNOWN_FOR_F = {"row", "tril", "reshape", "ravel", "sum0", "sum_keep", "concat", "matmul"}
MUST = ({(n, k) for n in EXPRESSIONS for k in ("C", "readonly") if n != "row"}
        | {(n, "F") for n in EXPRESSIONS if n not in _UNKNOWN_FOR_F}
        | {(n, "strided") for n in ("contiguous", "fortran", "copy", "copy_f", "asarray_f",
                                    "zeros_like", "np_copy", "exp", "scaled", "transpose",
                                    "astype")}) - {(n, k) for n in ("broadcast",) for k in KINDS}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_inferred_flags_equal_numpys(name, kind):
    expr = EXPRESSIONS[name]

    def f(x):
        y = expr(x)
        return np.sum(y * y) * (1.0 + _flag_code(y))

    try:
        check(f, kind)
    except UnsupportedSyntaxError as exc:
        assert (name, kind) not in MUST, exc.message
        assert exc.loc is not None and exc.loc.line > 0  # located in this file
        assert "layout" in exc.message or "order" in exc.message


def test_flags_of_a_basic_slice_are_a_located_refusal():
    def f(x):
        y = x[:, ::2]
        if y.flags.c_contiguous:  # <- refused
            return np.sum(y)
        return np.sum(y * 2.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(make("C", VALUES))
    assert "C-contiguity" in info.value.message and "not known" in info.value.message
    assert info.value.loc.line == f.__code__.co_firstlineno + 2


def test_ravel_k_of_a_reversed_argument_is_a_located_refusal():
    def f(x):
        return np.sum(np.ravel(x, order="K") * np.arange(12.0))

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(make("C", VALUES)[::-1])
    assert "memory order" in info.value.message and "order='C'" in info.value.hint


def test_unsupported_flags_are_located_refusals():
    def owndata(x):
        return np.sum(x) if x.flags.owndata else np.sum(x * 2.0)

    def setflag(x):
        y = x * 2.0
        y.flags.writeable = False
        return np.sum(y)

    for f in (owndata, setflag):
        with pytest.raises(StAutodiffError) as info:
            st.grad(f)(make("C", VALUES))
        assert info.value.loc is not None and info.value.loc.line > f.__code__.co_firstlineno


def test_copy_when_not_writeable_then_write():
    """array_api_extra's ``at(x).set(copy=None)`` pattern: copy only a read-only array."""
    def f(x):
        y = np.exp(x)
        if not y.flags.writeable:
            y = y.copy()
        y[0] = 0.0
        z = x if x.flags.writeable else x.copy()
        return np.sum(y * W) + np.sum(z * z)

    for kind in ("C", "readonly"):
        check(f, kind)


@pytest.mark.parametrize("kind", ("C", "F"))
def test_asarray_with_an_order_is_the_argument_only_when_already_so(kind):
    def f(x):
        same = np.asarray(x, order="F") is x
        return np.sum(x * x) * (2.0 if same else 1.0)

    check(f, kind)


@pytest.mark.parametrize("kind", ("C", "F", "strided"))
def test_hessian_of_a_layout_dependent_function(kind):
    x = make(kind, VALUES)
    h = st.hessian(flags_branch)(x)
    g = st.grad(flags_branch)
    n = VALUES.size
    num = np.zeros((n, n))
    for j in range(n):
        up, down = VALUES.copy().ravel(), VALUES.copy().ravel()
        up[j] += 1e-5
        down[j] -= 1e-5
        num[:, j] = ((g(make(kind, up.reshape(3, 4))) - g(make(kind, down.reshape(3, 4))))
                     / 2e-5).ravel()
    assert np.allclose(np.reshape(h, (n, n)), num, atol=1e-5)


def test_flags_of_a_numpy_scalar_argument():
    def f(x, s):
        return np.sum(x * x) * (2.0 if s.flags.writeable else 3.0) * (
            5.0 if s.flags.c_contiguous else 7.0)

    for s in (np.float64(1.5), np.array(1.5)):
        value, grad = st.value_and_grad(f)(VALUES, s)
        assert np.isclose(value, f(VALUES, s)) and np.allclose(grad, 2 * VALUES * f(
            np.ones((1, 1)), s))


def test_a_value_that_may_be_an_operand_is_writeable_only_if_both_are():
    def f(x, y, c):
        z = x if c > 0 else y  # (one of the arguments: no new array)
        return np.sum(z * z) * (2.0 if z.flags.writeable else 3.0)

    ro = make("readonly", VALUES)
    for c in (1.0, -1.0):
        try:
            value = st.grad(f)(ro, ro.copy(), c)
        except UnsupportedSyntaxError as exc:  # a runtime choice: may stay unknown
            assert "writeability" in exc.message
            continue
        assert np.allclose(value, numeric_grad(lambda a, c=c: f(a, ro.copy(), c), "readonly",
                                               VALUES), rtol=1e-5)


def test_views_keep_or_drop_the_writeable_flag_as_numpy_does():
    def f(x):
        d = np.diag(x[:, :3])  # a read-only view in NumPy; not claimed either way
        t = x.T
        b = np.broadcast_to(x, (2, 3, 4))
        return np.sum(d) + np.sum(t) * (2.0 if t.flags.writeable else 3.0) * (
            5.0 if b.flags.c_contiguous else 7.0)

    for kind in ("C", "readonly"):
        check(f, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_flatten_is_a_new_array_and_ravel_a_view_where_numpy_says(kind):
    def f(x):
        a = x.flatten()
        b = x.flatten("F")
        c = x.ravel()
        d = np.ravel(x, order="F")
        code = sum(2.0 ** i * v.flags.writeable for i, v in enumerate((a, b, c, d)))
        return np.sum(a * b) * (1.0 + code) + np.sum(c * d)

    try:
        check(f, kind)
    except UnsupportedSyntaxError as exc:  # a ravel of a strided array: a copy or a view
        assert kind == "strided" and "writeability" in exc.message


def test_broadcast_views_writeable_flag_is_not_guessed():
    """np.broadcast_to's view is read-only, np.broadcast_arrays' is writeable (NumPy 2, with a
    FutureWarning); both lower to one op, so the flag is refused, never guessed."""
    def f(x, y):
        a, b = np.broadcast_arrays(x, y)
        return np.sum(a * b) * (2.0 if a.flags.writeable else 3.0)

    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(f)(np.ones((3, 1)), np.ones((1, 4)))
    assert "writeability" in info.value.message
    assert info.value.loc.line == f.__code__.co_firstlineno + 2


def test_many_inferred_layouts_agree_with_numpy_or_are_refused():
    """49 expressions x 4 argument layouts: each flags answer equals NumPy's (through the
    value), or the query is a located refusal; most are answered."""
    import warnings  # noqa: PLC0415

    from tests import layout_cases as cases  # noqa: PLC0415

    answered = 0
    for name in cases.NAMES:
        f = getattr(cases, f"f_{name}")
        for kind in KINDS:
            try:
                value = st.value_and_grad(f)(make(kind, VALUES))[0]
            except UnsupportedSyntaxError as exc:
                assert exc.loc is not None and "layout" in exc.message, (name, kind)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = f(make(kind, VALUES))
            assert np.isclose(value, want, rtol=1e-9), (name, kind, value, want)
            answered += 1
    assert answered >= 125


def test_flags_inside_loops_and_printed():
    def unchanged(x):  # the argument itself inside a loop: its layout is known
        s = 0.0
        for i in range(3):
            s = s + (np.sum(x * i) if x.flags.c_contiguous else np.sum(x))
        return s

    def carried(x):  # a value carried through the loop: not known
        s = 0.0
        for i in range(3):
            if x.flags.c_contiguous:
                s = s + np.sum(x * i)
            x = x.T
        return s

    def printed(x):
        print(x.flags)
        return np.sum(x * x)

    for kind in ("C", "F"):
        check(unchanged, kind)
    for f, line, text in ((carried, 3, "C-contiguity"), (printed, 1, "x.flags exists only")):
        with pytest.raises(UnsupportedSyntaxError) as info:
            st.grad(f)(make("C", VALUES))
        assert text in info.value.message
        assert info.value.loc.line == f.__code__.co_firstlineno + line


def test_writeability_of_a_copy_whatever_its_shape():
    # np.array(v) copies into a new ndarray (0-d too): writeable, as array_api_compat's
    # is_writeable_array asks (SciPy's xpx.at); it was refused as an unknown layout
    def f(x):
        r = np.array(np.sum(x * x))
        m = np.array(x[x > 0.0])  # a copy of a data-dependent shape
        w = 2.0 if r.flags.writeable and m.flags["W"] and m.flags.aligned else 1.0
        return w * np.sum(m) + r

    x = np.array([0.5, -1.0, 2.0])
    value, grad = st.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(grad, [3.0, -2.0, 6.0])
