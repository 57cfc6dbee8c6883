"""The control-flow corpus (``tests/corpus/control.py``) in every differentiation mode.

For each entry (branches, for and while loops, in-place writes, lists, dicts):

(a) reverse mode against float64 central finite differences
    (``st_autodiff.testing.check_grads``);
(b) forward mode against reverse mode: for a random tangent ``t`` over the differentiated
    arguments, ``st.jvp`` must give ``<grad f, t>`` to 1e-9 relative;
(c) second order against finite differences of the compiled gradient: ``st.hvp`` in both
    modes (forward over reverse and reverse over reverse; when the first differentiated
    argument is not the first argument, ``st.jvp`` and ``st.vjp`` of ``st.grad`` at that
    argument) along a random direction ``v`` against ``(grad(x + eps v) - grad(x - eps
    v)) / (2 eps)``; and ``st.grad(st.grad(f))`` for entries whose first argument is a
    Python float.

Importing ``control`` registers its entries in ``CORPUS``.  The package itself does not
import it yet; until it does, this module takes the entries back out of the shared
``CORPUS`` once it has selected them (the other corpus tests are not ready for them).  The
builders keep every branch decision and trip count fixed under the finite-difference
steps used here (see ``control``'s docstring).
"""

from __future__ import annotations

import importlib
import zlib
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

try:
    import corpus as corpus_package
    from corpus import CORPUS, Entry
    from corpus.registry import CONTROL_CATEGORIES
except ImportError:  # tests/ imported as a package
    import tests.corpus as corpus_package  # type: ignore[no-redef]
    from tests.corpus import CORPUS, Entry  # type: ignore[no-redef]
    from tests.corpus.registry import CONTROL_CATEGORIES  # type: ignore[no-redef]

_PACKAGE_IMPORTS_CONTROL = hasattr(corpus_package, "control")
control = importlib.import_module(corpus_package.__name__ + ".control")  # registers it
CONTROL = [e for e in CORPUS if e.category in CONTROL_CATEGORIES]
if not _PACKAGE_IMPORTS_CONTROL:
    # Until the package imports ``control``, its entries stay out of the shared CORPUS,
    # so that the other corpus tests (test_corpus.py, test_forward.py) collected in the
    # same session do not pick them up.
    _ours = {id(e) for e in CONTROL}
    CORPUS[:] = [e for e in CORPUS if id(e) not in _ours]
#: entries checked in forward mode and at second order (a loss without aux)
PLAIN = [e for e in CONTROL if not e.has_aux]
#: entries whose first argument is a differentiated Python float: grad(grad(f)) applies
SCALAR_FIRST = [e for e in PLAIN if 0 in e.positions and isinstance(e.args()[0], float)]

JVP_RTOL = 1e-9
HVP_EPS = 1e-5
HVP_RTOL = 1e-5
HVP_ATOL = 1e-7  # times the gradient's largest element (at least 1): finite-difference noise


def _params(check: str, entries: list[Entry]) -> list[Any]:
    """One param per entry, id = function name; known compiler bugs are strict xfails."""
    return [pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=e.xfail)]
                         if e.fails(check) else []) for e in entries]


def _rng(entry: Entry, salt: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(entry.name.encode()) + salt)


def _random_like(rng: np.random.Generator, a: Any) -> Any:
    """A standard normal direction shaped like ``a`` (a Python float for a float)."""
    if isinstance(a, float):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(a))


def _with(args: tuple, pos: int, value: Any) -> tuple:
    out = list(args)
    out[pos] = value
    return tuple(out)


def _grads(entry: Entry, args: tuple, wrt: Any = None) -> tuple:
    """The compiled gradients (reverse mode) of ``entry`` at ``args``, in ``wrt`` order."""
    wrt = entry.wrt if wrt is None else wrt
    out = st.grad(entry.fn, wrt=wrt, has_aux=entry.has_aux)(*args)
    if entry.has_aux:
        out = out[0]
    return tuple(out) if isinstance(wrt, tuple) else (out,)


def _assert_close(got: Any, want: Any, atol: float, rtol: float, what: str) -> None:
    """Same shape; ``max |got - want| <= atol + rtol * max |want|``."""
    got_a = np.asarray(got, dtype=np.float64)
    want_a = np.asarray(want, dtype=np.float64)
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape} != {want_a.shape}"
    if want_a.size == 0:
        return
    err = float(np.max(np.abs(got_a - want_a)))
    scale = float(np.max(np.abs(want_a)))
    assert err <= atol + rtol * scale, (
        f"{what}: max abs error {err:.3g} > {atol:.3g} + {rtol:g} * max |value| {scale:.3g}")


# --- the corpus itself -------------------------------------------------------------------


def test_control_corpus_size_and_categories():
    names = [e.name for e in CONTROL]
    assert len(names) == len(set(names))
    assert len(CONTROL) >= 75
    for category in CONTROL_CATEGORIES:
        count = sum(e.category == category for e in CONTROL)
        assert count >= 6, f"{category}: {count} entries"
    assert all(e.fn.__module__ == control.__name__ for e in CONTROL)
    assert len(SCALAR_FIRST) >= 5


@pytest.mark.parametrize("entry", _params("domain", CONTROL))
def test_control_inputs_are_in_domain(entry: Entry):
    """Plain NumPy runs the function on its float64 inputs: a finite scalar."""
    args = entry.bind(entry.args())
    for pos in entry.positions:
        a = args[pos]
        assert isinstance(a, float) or a.dtype == np.float64, entry.name
    value = entry.loss(*args)
    assert np.ndim(value) == 0 and np.isfinite(value)


# --- (a) reverse mode vs finite differences ------------------------------------------------


@pytest.mark.parametrize("entry", _params("fd", CONTROL))
def test_reverse_mode_matches_finite_differences(entry: Entry):
    args = entry.bind(entry.args())
    grads = _grads(entry, args)
    assert len(grads) == len(entry.positions)
    per_argument: list[Any] = [None] * len(args)
    for pos, grad in zip(entry.positions, grads):
        assert np.asarray(grad).dtype == np.float64, f"gradient of argument {pos}"
        per_argument[pos] = grad
    check_grads(entry.loss, args, lambda *a: per_argument, argnums=entry.positions)


# --- (b) forward mode vs reverse mode ------------------------------------------------------


@pytest.mark.parametrize("entry", _params("jvp", PLAIN))
def test_forward_mode_matches_reverse_mode(entry: Entry):
    """``J t`` by ``st.jvp`` equals ``<grad f, t>`` by ``st.grad`` (non-wrt tangents: None)."""
    args = entry.bind(entry.args())
    rng = _rng(entry, 1)
    tangents = tuple(_random_like(rng, a) if i in entry.positions else None
                     for i, a in enumerate(args))
    out, out_dot = st.jvp(entry.fn, args, tangents)
    np.testing.assert_allclose(np.asarray(out, dtype=np.float64), entry.fn(*args), rtol=1e-10,
                               err_msg=f"{entry.name}: jvp's primal value")
    assert np.ndim(out_dot) == 0
    terms = [np.asarray(g, dtype=np.float64) * np.asarray(tangents[pos])
             for pos, g in zip(entry.positions, _grads(entry, args))]
    expected = sum(float(np.sum(t)) for t in terms)
    scale = sum(float(np.sum(np.abs(t))) for t in terms)  # no cancellation in the bound
    err = abs(float(out_dot) - expected)
    assert err <= JVP_RTOL * scale + 1e-300, (
        f"{entry.name}: jvp {float(out_dot):.17g} but <grad, t> = {expected:.17g} "
        f"(abs error {err:.3g}, scale {scale:.3g})")


# --- (c) second order vs finite differences of the gradient --------------------------------


def _hvp(entry: Entry, args: tuple, v: Any, mode: str) -> Any:
    """Hessian-vector product in the first differentiated argument, the others fixed."""
    pos = entry.positions[0]
    tangents = tuple(v if i == pos else None for i in range(len(args)))
    if pos == 0:
        return st.hvp(entry.fn, args, tangents, mode=mode)
    # st.hvp differentiates the gradient in argument 0; the same two ways, at ``pos``
    grad = st.grad(entry.fn, wrt=pos)
    if mode == "forward":
        return st.jvp(grad, args, tangents)[1]
    _, pullback = st.vjp(grad, *args)
    return pullback(v)[pos]


def _fd_of_gradient(entry: Entry, args: tuple, pos: int, v: Any, eps: float) -> np.ndarray:
    grad = st.grad(entry.fn, wrt=pos)
    x = args[pos]
    hi = np.asarray(grad(*_with(args, pos, x + eps * v)), dtype=np.float64)
    lo = np.asarray(grad(*_with(args, pos, x - eps * v)), dtype=np.float64)
    return (hi - lo) / (2 * eps)


def _hvp_params(entries: list[Entry]) -> list[Any]:
    """(entry, mode) pairs; each mode is its own check (``hvp_forward``/``hvp_reverse``)."""
    return [pytest.param(e, mode, id=f"{e.name}-{mode}", marks=[pytest.mark.xfail(
        strict=True, reason=e.xfail)] if e.fails(f"hvp_{mode}") else [])
        for e in entries for mode in ("forward", "reverse")]


@pytest.mark.parametrize(("entry", "mode"), _hvp_params(PLAIN))
def test_hvp_matches_finite_differences_of_gradient(entry: Entry, mode: str):
    """Forward over reverse (jvp of the gradient) and reverse over reverse (its pullback)."""
    args = entry.bind(entry.args())
    pos = entry.positions[0]
    v = _random_like(_rng(entry, 2), args[pos])
    got = _hvp(entry, args, v, mode)
    want = _fd_of_gradient(entry, args, pos, v, HVP_EPS)
    g_scale = float(np.max(np.abs(_grads(entry, args, wrt=pos)[0]), initial=1.0))
    _assert_close(got, want, HVP_ATOL * g_scale, HVP_RTOL,
                  f"{entry.name}: hvp ({mode}) in argument {pos}")


@pytest.mark.parametrize("entry", _params("second_order", SCALAR_FIRST))
def test_grad_of_grad_matches_finite_differences(entry: Entry):
    args = entry.bind(entry.args())
    d1 = st.grad(entry.fn, wrt=0)
    d2 = st.grad(d1, wrt=0)
    got = d2(*args)
    want = _fd_of_gradient(entry, args, 0, 1.0, HVP_EPS)
    g_scale = max(1.0, abs(float(d1(*args))))
    _assert_close(got, want, HVP_ATOL * g_scale, HVP_RTOL, f"{entry.name}: grad(grad(f))")
