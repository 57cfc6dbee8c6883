"""Differential tests of every derivative rule: compiler vs eager runtime vs central
differences vs JAX, generated from the spec table in ``specs.py``.

The default run checks a fixed subset (see ``_default``: every spec in reverse, forward
and one second-order mode); ``ST_DIFFERENTIAL=full`` runs every case: all shapes x
dtypes x modes.  See README.md in this folder.  JAX is optional
(``pip install st-autodiff[test-oracles]``); without it the other oracles still run.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.derivatives import JVP_RULES, RULES, STRUCTURAL
from st_autodiff.ir.ops import Op

from .harness import check, fresh, functions, sample
from .specs import SPECS, Spec

FULL = os.environ.get("ST_DIFFERENTIAL") == "full"
MODES = ("vjp", "jvp", "hvp_fwd", "hvp_rev")

#: Ops of the rule table no user writes directly: each with where its rule is exercised.
INTERNAL = {
    Op.UNBROADCAST: "made by the adjoint pass; second order of broadcasting binary specs",
    Op.SCATTER_ADD: "the adjoint of getitem/take; second order of their specs",
    Op.CALL: "registered functions (st.register_vjp): tests/test_custom_rules.py",
    Op.CALL_VJP: "the adjoint of a registered function: tests/test_custom_rules.py",
    Op.OPAQUE_CALL: "passed-through calls; their rule is the located error: "
                    "tests/test_effects.py",
}


def _default(k: int, i: int, dtype: str, mode: str) -> bool:
    """The fixed subset of the default run, for spec ``k``'s shapes number ``i`` (sized
    for the suite's 10-minute budget on 2 cores; ``ST_DIFFERENTIAL=full`` runs the rest):
    the first shapes in reverse and forward mode (float64); one second-order mode on every
    other spec (forward over reverse and reverse over reverse in turn); float32 reverse
    mode and the other shapes in reverse mode on every eighth spec."""
    if dtype == "float32":
        return i == 0 and mode == "vjp" and k % 8 == 0
    if i > 0:
        return mode == "vjp" and k % 8 == 1
    if mode in ("vjp", "jvp"):
        return True
    return k % 2 == 0 and mode == ("hvp_fwd", "hvp_rev")[(k // 2) % 2]


def _cases() -> list[tuple[Spec, tuple, str, str]]:
    out = []
    for k, spec in enumerate(SPECS):
        for i, shapes in enumerate(spec.shapes):
            has_array = any(s is not None for s in shapes)
            for dtype in spec.dtypes:
                if dtype != "float64" and not has_array:
                    continue  # Python floats only: the dtype changes nothing
                for mode in MODES:
                    if mode.startswith("hvp") and (not spec.order2 or dtype != "float64"):
                        continue
                    if FULL or _default(k, i, dtype, mode):
                        out.append((spec, shapes, dtype, mode))
    return out


def _id(case: tuple[Spec, tuple, str, str]) -> str:
    spec, shapes, dtype, mode = case
    shape = "-".join("py" if s is None else "x".join(map(str, s)) or "0d" for s in shapes)
    return f"{spec.name}[{shape}]-{dtype}-{mode}"


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_rule(case: tuple[Spec, tuple, str, str]) -> None:
    spec, shapes, dtype, mode = case
    # JAX on each spec's first shapes in float64, first order (every case with
    # ST_DIFFERENTIAL=full): its compiling of every new shape, dtype and Hessian was half
    # of this file's time; second order is checked against differences of the gradient
    check(spec, shapes, dtype, mode, use_jax=FULL or (
        dtype == "float64" and shapes == spec.shapes[0] and mode in ("vjp", "jvp")))


def test_every_rule_has_a_spec() -> None:
    """A new rule in ``derivatives.py`` needs a spec here (or a reason in INTERNAL)."""
    covered = {op for spec in SPECS for op in spec.ops}
    missing = sorted(op.value for op in set(RULES) - covered - set(INTERNAL) - STRUCTURAL)
    assert not missing, f"rules without a differential spec: {missing}"


_OP_NAME = re.compile(r"= ([a-z_0-9]+)[\[ ]")


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_spec_reaches_its_ops(spec: Spec) -> None:
    """Each spec's graph (or its adjoint) holds the ops it claims to test, so that the
    coverage test above means something."""
    f, s = functions(spec)
    args = sample(spec, spec.shapes[0], "float64", 0)
    out = f(*args)
    g = st.grad(s, wrt=tuple(range(spec.nargs)))
    g(*args, np.ones(np.shape(out)) if hasattr(out, "shape") else 1.0)  # (real: NumPy 2.5's
    # eig gives complex arrays for the real spectra these specs use)
    seen = set(_OP_NAME.findall(g.ir + g.adjoint_ir))
    assert {op.value for op in spec.ops} <= seen, (spec.ops, seen)


_WRONG = {  # a rule off by 1%: each oracle must notice
    "vjp": (RULES, lambda ops, g, out, x: (g * ops.cosh(x) * 1.01,)),
    "jvp": (JVP_RULES, lambda ops, tangents, out, x: tangents[0] * ops.cosh(x) * 1.01),
}


@pytest.mark.parametrize("mode", ["vjp", "jvp", "hvp_fwd", "hvp_rev"])
def test_harness_catches_a_wrong_rule(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: a wrong sinh rule makes every mode of the harness fail."""
    sinh = next(s for s in SPECS if s.name == "sinh")
    check(fresh(sinh, f"right-{mode}"), ((3,),), "float64", mode)  # passes with the rule
    spec = fresh(sinh, f"wrong-{mode}")
    if mode.startswith("hvp"):  # second order differentiates the (right) first-order rule
        monkeypatch.setitem(RULES, Op.COSH, lambda ops, g, out, x: (g * ops.sinh(x) * 1.01,))
        monkeypatch.setitem(JVP_RULES, Op.COSH, lambda ops, tangents, out, x:
                            tangents[0] * ops.sinh(x) * 1.01)
    else:
        table, wrong = _WRONG[mode]
        monkeypatch.setitem(table, Op.SINH, wrong)
    with pytest.raises(AssertionError):
        check(spec, ((3,),), "float64", mode)
