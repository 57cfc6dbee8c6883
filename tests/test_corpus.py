"""Every corpus function (``tests/corpus``) checked three ways, plus IR and codegen checks.

(a) the compiled gradient against float64 central finite differences
    (``st_autodiff.testing.check_grads``);
(b) the compiled gradient with the optimizer on against the optimizer off, to 1e-10
    relative to the gradient's largest element;
(c) the generated code against the reference interpreter run on the optimized joint
    graph (primal outputs first, then the gradients), same gradient and same value.

Also: ``value_and_grad`` agrees with ``grad`` and gives the function's value (and aux);
the IR verifier accepts the primal and joint graphs; compiling a function twice (fresh
``st.grad`` objects, and in a process with another ``PYTHONHASHSEED``) gives identical
source; float32 inputs give float32 gradients that pass the gradient check at float32
tolerance.  Entries that fail because of a known compiler bug are strict xfails, only in
the checks they fail (``Entry.xfail_checks``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.ir.interpret import interpret
from st_autodiff.ir.verify import verify
from st_autodiff.testing import check_grads

try:
    from corpus import CATEGORIES, CORPUS, Entry
except ImportError:  # tests/ imported as a package
    from tests.corpus import CATEGORIES, CORPUS, Entry  # type: ignore[no-redef]

OPT_RTOL = 1e-10
INTERP_RTOL = 1e-10


def _params(check: str, entries: list[Entry] = CORPUS) -> list[Any]:
    """One param per entry, id = function name; known compiler bugs are strict xfails."""
    return [pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=e.xfail)]
                         if e.fails(check) else []) for e in entries]


def _compile(entry: Entry, args: tuple, optimize: bool = True) -> tuple[Any, tuple, Any]:
    """``(grad function, gradients in wrt order, aux or None)`` after one call."""
    g = st.grad(entry.fn, wrt=entry.wrt, has_aux=entry.has_aux, optimize=optimize)
    out = g(*args)
    aux = None
    if entry.has_aux:
        out, aux = out
    grads = tuple(out) if isinstance(entry.wrt, tuple) else (out,)
    assert len(grads) == len(entry.positions)
    return g, grads, aux


def _per_argument(entry: Entry, grads: tuple, n_args: int) -> list[Any]:
    """Gradients placed at their argument positions (None elsewhere), for check_grads."""
    out: list[Any] = [None] * n_args
    for pos, grad in zip(entry.positions, grads):
        out[pos] = grad
    return out


def _assert_close(got: Any, want: Any, rtol: float, what: str) -> None:
    """Same shape and dtype; max error within ``rtol`` times the largest element."""
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape} != {want_a.shape}"
    assert got_a.dtype == want_a.dtype, f"{what}: dtype {got_a.dtype} != {want_a.dtype}"
    if got_a.size == 0:
        return
    scale = float(np.max(np.abs(want_a)))
    err = float(np.max(np.abs(got_a.astype(np.float64) - want_a.astype(np.float64))))
    assert err <= rtol * max(scale, 1e-300), (
        f"{what}: max abs error {err:.3g} > {rtol:g} * max |value| {scale:.3g}")


def _assert_same_value(got: Any, want: Any, what: str) -> None:
    """Recursively compare (tuples of) primal values to interpreter precision."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for k, (a, b) in enumerate(zip(got, want)):
            _assert_same_value(a, b, f"{what}[{k}]")
        return
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=1e-12, atol=1e-300,
                               err_msg=what)


# --- the corpus itself -------------------------------------------------------------------


def test_corpus_size_and_categories():
    names = [e.name for e in CORPUS]
    assert len(names) == len(set(names))
    assert len(CORPUS) >= 70
    for category in CATEGORIES:
        assert any(e.category == category for e in CORPUS), category


@pytest.mark.parametrize("entry", _params("domain"))
def test_inputs_are_in_domain(entry: Entry):
    """The builder gives float64 inputs on which the function is finite and scalar."""
    args = entry.bind(entry.args())
    for pos in entry.positions:
        a = args[pos]
        assert isinstance(a, float) or a.dtype == np.float64, entry.name
    value = entry.loss(*args)
    assert np.ndim(value) == 0 and np.isfinite(value)


# --- (a) finite differences --------------------------------------------------------------


@pytest.mark.parametrize("entry", _params("fd"))
def test_gradient_matches_finite_differences(entry: Entry):
    args = entry.args()
    _, grads, aux = _compile(entry, args)  # called without the defaults the builder omits
    for grad in grads:
        assert np.asarray(grad).dtype == np.float64
    check_grads(entry.loss, entry.bind(args), lambda *a: _per_argument(entry, grads, len(a)),
                argnums=entry.positions)
    if entry.has_aux:
        _assert_same_value(aux, entry.fn(*args)[1], f"{entry.name} aux")


@pytest.mark.parametrize("entry", _params("value_and_grad"))
def test_value_and_grad_agrees_with_grad(entry: Entry):
    """``value_and_grad`` gives the function's value and the same gradients as ``grad``."""
    args = entry.args()
    _, grads, aux = _compile(entry, args)
    vg = st.value_and_grad(entry.fn, wrt=entry.wrt, has_aux=entry.has_aux)
    value, vgrads = vg(*args)
    if entry.has_aux:
        value, vaux = value
        _assert_same_value(vaux, aux, f"{entry.name}: aux")
    _assert_same_value(value, entry.loss(*args), f"{entry.name}: value")
    vgrads = tuple(vgrads) if isinstance(entry.wrt, tuple) else (vgrads,)
    for k, (a, b) in enumerate(zip(vgrads, grads, strict=True)):
        _assert_close(a, b, 0.0, f"{entry.name}: gradient {k}, value_and_grad vs grad")


# --- (b) optimizer on vs off ----------------------------------------------------------------


@pytest.mark.parametrize("entry", _params("optimizer"))
def test_optimizer_preserves_gradient(entry: Entry):
    args = entry.args()
    _, opt, _ = _compile(entry, args, optimize=True)
    _, plain, _ = _compile(entry, args, optimize=False)
    for k, (a, b) in enumerate(zip(opt, plain)):
        _assert_close(a, b, OPT_RTOL, f"{entry.name}: gradient {k}, optimized vs not")


# --- (c) generated code vs the reference interpreter ----------------------------------------


@pytest.mark.parametrize("entry", _params("interpreter"))
def test_generated_code_matches_interpreter(entry: Entry):
    args = entry.args()
    _, grads, _ = _compile(entry, args)
    # value_and_grad's joint graph returns the value(s) too (grad's drops them as dead)
    g = st.value_and_grad(entry.fn, wrt=entry.wrt, has_aux=entry.has_aux)
    g(*args)
    compiled = g._latest()
    n_primal = len(compiled.primal.outputs)
    full = entry.bind(args)  # the graphs take every parameter, defaults included
    outs = interpret(compiled.joint, *full, 1.0)
    assert len(outs) == n_primal + len(grads)
    for k, (got, want) in enumerate(zip(grads, outs[n_primal:])):
        _assert_close(got, want, INTERP_RTOL, f"{entry.name}: gradient {k} vs interpreter")
    _assert_same_value(outs[0], entry.loss(*args), f"{entry.name}: joint value")
    primal = interpret(compiled.primal, *full)
    _assert_same_value(primal[0], entry.loss(*args), f"{entry.name}: primal value")


# --- IR verifier, determinism, float32 ---------------------------------------------------


@pytest.mark.parametrize("entry", _params("verify"))
def test_graphs_verify(entry: Entry):
    args = entry.args()
    for optimize in (True, False):
        g, _, _ = _compile(entry, args, optimize=optimize)
        compiled = g._latest()
        verify(compiled.primal)
        verify(compiled.joint)


@pytest.mark.parametrize("entry", _params("deterministic"))
def test_compilation_is_deterministic(entry: Entry):
    args = entry.args()
    first, _, _ = _compile(entry, args)
    second, _, _ = _compile(entry, args)
    assert first is not second
    assert first.source == second.source
    assert first.adjoint_ir == second.adjoint_ir
    assert inspect.getsource(first) == first.source


_DIGESTS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_corpus import source_digests
print(json.dumps(source_digests()))
"""


def source_digests() -> dict[str, str]:
    """SHA-256 of the generated source and joint IR of every corpus function."""
    out = {}
    for e in CORPUS:
        if e.fails("deterministic"):
            continue  # a known gap: the compiler refuses it (strict xfail elsewhere)
        g = st.grad(e.fn, wrt=e.wrt, has_aux=e.has_aux)
        g(*e.args())
        out[e.name] = hashlib.sha256((g.source + g.adjoint_ir).encode()).hexdigest()
    return out


def test_generated_code_is_identical_across_processes():
    """Same code in a process with other string hashing (no set-order leaks)."""
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    proc = subprocess.Popen([sys.executable, "-c", _DIGESTS, str(Path(__file__).parent)],
                            env={**os.environ, "PYTHONHASHSEED": seed}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    here = source_digests()  # meanwhile
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    there = json.loads(out)
    assert there.keys() == here.keys()
    changed = [name for name in here if here[name] != there[name]]
    assert not changed, f"generated code depends on PYTHONHASHSEED: {changed}"


@pytest.mark.parametrize("entry", _params("float32", [e for e in CORPUS if e.float32]))
def test_float32_inputs_give_float32_gradients(entry: Entry):
    args = entry.args(np.float32)
    _, grads, _ = _compile(entry, args)
    for pos, grad in zip(entry.positions, grads):
        assert np.asarray(grad).dtype == np.float32, (
            f"{entry.name}: gradient of argument {pos} is {np.asarray(grad).dtype}")
    check_grads(entry.loss, entry.bind(args), lambda *a: _per_argument(entry, grads, len(a)),
                argnums=entry.positions)
