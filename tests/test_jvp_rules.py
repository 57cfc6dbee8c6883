"""Table-driven tests of every JVP rule in ``st_autodiff.derivatives.JVP_RULES``.

The cases are the VJP case table of ``test_derivatives.py`` (one op, inputs inside its
domain, params).  For each case the rule runs eagerly through ``ArrayOps(numpy)`` with a
random tangent for every float input (``None`` for indices, masks and shapes) and is
checked against

* central differences of the op along the tangent direction (float64, every element);
* the VJP rule of the same op: ``<g, J t> == <vjp(g), t>`` for a random cotangent ``g``,
  which ties the two tables together.

Then: one tangent at a time (the others ``None``, a symbolic zero: the result still has
the output's full shape and no zeros are made for the missing ones), all tangents
``None`` (the rule returns ``None`` and runs nothing), and float32 in, float32 out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff.transforms  # noqa: F401  (the compiler registers the rules of its own ops)
from st_autodiff.derivatives import (
    JVP_RULES,
    NONDIFFERENTIABLE,
    RULES,
    ArrayOps,
    RuleError,
    jvp_of,
)
from st_autodiff.ir.graph import GraphBuilder
from st_autodiff.ir.kernels import run
from st_autodiff.ir.ops import OP_INFO, Op
from st_autodiff.ir.types import type_of
from st_autodiff.transforms.adjoint import Emitter, Var
from st_autodiff.transforms.lower import _evaluate

try:
    import test_derivatives as vjp_tests
except ImportError:  # tests/ imported as a package
    from tests import test_derivatives as vjp_tests  # type: ignore[no-redef]

Case = vjp_tests.Case
#: ``call`` (a registered VJP) has no forward mode by design: its JVP rule raises, which
#: test_custom_rules.py checks; every other case is a real JVP
CASES: list[Case] = [c for c in vjp_tests.CASES if c.op is not Op.CALL]
IDS = [c.id for c in CASES]

#: ops whose JVP must make zeros for the inputs without a tangent (they fill their part
#: of the output: ``setitem`` writes v's tangent into zeros when x has none); every other
#: rule keeps a None tangent symbolic.
JOINING = {Op.CONCATENATE, Op.STACK, Op.HSTACK, Op.VSTACK, Op.SETITEM,
           # the pair ops join their two parts into one complex array: a missing part's
           # tangent is a zero array there
           Op.FFT_C2C, Op.FFT_C2R, Op.CMUL, Op.CDIV}
CREATION = {"zeros", "zeros_like", "full", "full_like"}
KNOWN_OPS = {op.value for op in RULES} | {op.value for op in NONDIFFERENTIABLE}


class RecordingOps(ArrayOps):
    """``ArrayOps(numpy)`` that records the name of every op a rule calls."""

    def __init__(self) -> None:
        super().__init__(np)
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        fn = super().__getattr__(name)

        def call(*inputs: Any, **params: Any) -> Any:
            self.calls.append(name)
            return fn(*inputs, **params)

        return call


# --- running a rule -------------------------------------------------------------------


def differentiable(c: Case) -> list[int]:
    """The inputs that get a tangent: ``argnums`` if the case names them, else floats."""
    if c.argnums is not None:
        return list(c.argnums)
    return [i for i, x in enumerate(c.inputs) if vjp_tests._is_float(x)]


def random_tangents(c: Case, inputs: tuple, only: int | None = None, seed: int = 3) -> tuple:
    """A random tangent like each differentiable input (same dtype), ``None`` elsewhere."""
    rng = np.random.default_rng(seed)
    ts: list[Any] = []
    for i, x in enumerate(inputs):
        if i not in differentiable(c) or (only is not None and i != only):
            ts.append(None)
        elif isinstance(x, float):
            ts.append(float(rng.standard_normal()))
        else:
            ts.append(rng.standard_normal(np.shape(x)).astype(np.asarray(x).dtype))
    return tuple(ts)


def _prepped(c: Case, values: tuple) -> tuple:
    if c.prep is None or values[0] is None:
        return values
    return (c.prep(values[0]), *values[1:])


def rule_jvp(c: Case, inputs: tuple, tangents: tuple, ops: ArrayOps | None = None) -> Any:
    """The JVP rule at ``inputs`` (after ``prep``, which is linear: it maps the tangent
    too)."""
    inputs, tangents = _prepped(c, inputs), _prepped(c, tangents)
    out = run(c.op, np, inputs, c.full_params)
    return JVP_RULES[c.op](ops or vjp_tests.OPS, tangents, out, *inputs, **c.full_params)


def central_difference(c: Case, inputs: tuple, tangents: tuple) -> list[np.ndarray]:
    """``(f(x + eps t) - f(x - eps t)) / 2 eps`` in float64, one array per output."""

    def shifted(sign: float) -> list[np.ndarray]:
        args = tuple(
            x if t is None else np.asarray(x, np.float64) + sign * c.eps * np.asarray(t, np.float64)
            for x, t in zip(inputs, tangents, strict=True)
        )
        return parts(vjp_tests.apply(c, *args))

    return [(hi - lo) / (2 * c.eps) for hi, lo in zip(shifted(1.0), shifted(-1.0), strict=True)]


def parts(value: Any) -> list[np.ndarray]:
    """An op's result (or tangent) as a list of float64 arrays, one per output."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    return [np.asarray(v, np.float64) for v in values]


def tangent_parts(t: Any, out: Any) -> list[Any]:
    """The tangent's parts beside the output's; a None part stays None."""
    ts = t if isinstance(out, (tuple, list)) else (t,)
    assert isinstance(ts, tuple) and len(ts) == len(parts(out)), f"tangent {t!r}"
    return list(ts)


def check_against_differences(c: Case, inputs: tuple, tangents: tuple, t: Any) -> None:
    out = vjp_tests.apply(c, *inputs)
    atol = 1e-6 if c.atol is None else c.atol
    rtol = 1e-5 if c.rtol is None else c.rtol
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for k, (tk, ok, fd) in enumerate(
        zip(tangent_parts(t, out), outs, central_difference(c, inputs, tangents), strict=True)
    ):
        if tk is None:  # a symbolic zero
            np.testing.assert_allclose(fd, 0.0, atol=atol, err_msg=f"output {k}")
            continue
        assert np.shape(tk) == np.shape(ok), f"output {k}: {np.shape(tk)} != {np.shape(ok)}"
        if np.issubdtype(np.asarray(ok).dtype, np.floating):
            assert np.asarray(tk).dtype == np.asarray(ok).dtype, f"output {k}"
        np.testing.assert_allclose(np.asarray(tk, np.float64), fd, atol=atol, rtol=rtol,
                                   err_msg=f"output {k}")


# --- the tests --------------------------------------------------------------------------


def test_every_vjp_rule_has_a_jvp_rule() -> None:
    assert set(JVP_RULES) == set(RULES), sorted(o.value for o in set(JVP_RULES) ^ set(RULES))


def test_every_jvp_rule_has_a_case() -> None:
    lists = {op for op in Op if op.value.startswith("list")}  # checked by the list corpus
    # (a passed-through call's tangent rule is the located error: tests/test_effects.py)
    assert not set(JVP_RULES) - {c.op for c in CASES} - {Op.CALL, Op.CALL_VJP,
                                                        Op.OPAQUE_CALL} - lists - {
        Op.NO_DERIVATIVE,  # stats: its tangent rule is the located error (test_rules_stats)
        Op.RIEMANN_ZETA}  # special family: only an error (tests/test_rules_special_more.py)


def test_jvp_of_explains_missing_rules() -> None:
    assert jvp_of(Op.SIN) is JVP_RULES[Op.SIN]
    with pytest.raises(RuleError, match="no derivative by design"):
        jvp_of(Op.FLOOR)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_matches_central_differences(c: Case) -> None:
    ops = RecordingOps()
    tangents = random_tangents(c, c.inputs)
    check_against_differences(c, c.inputs, tangents, rule_jvp(c, c.inputs, tangents, ops))
    # rules use ops that are themselves in the table (so forward-over-reverse works)
    assert set(ops.calls) <= KNOWN_OPS, set(ops.calls) - KNOWN_OPS


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_agrees_with_vjp(c: Case) -> None:
    """``<g, J t> == <J^T g, t>``: the JVP and VJP rules describe the same Jacobian."""
    tangents = random_tangents(c, c.inputs)
    out = vjp_tests.apply(c, *c.inputs)
    g = vjp_tests.cotangent(out)
    jt = tangent_parts(rule_jvp(c, c.inputs, tangents), out)
    lhs = sum(float(np.sum(gk * tk)) for gk, tk in zip(parts(g), jt, strict=True)
              if tk is not None)
    grads = vjp_tests.rule_vjp(c, c.inputs, g)
    rhs = sum(float(np.sum(np.asarray(grads[i], np.float64) * np.asarray(t, np.float64)))
              for i, t in enumerate(tangents) if t is not None)
    single = any(np.asarray(x).dtype == np.float32 for x in c.inputs)  # rounding of g, t
    tol = c.atol if c.atol is not None else (1e-6 if single else 1e-9)
    assert abs(lhs - rhs) <= tol * (1 + max(abs(lhs), abs(rhs))), (lhs, rhs)


ONE_TANGENT = [(c, i) for c in CASES if len(differentiable(c)) > 1 for i in differentiable(c)]


@pytest.mark.parametrize("c, i", ONE_TANGENT, ids=[f"{c.id}-t{i}" for c, i in ONE_TANGENT])
def test_one_tangent_others_none(c: Case, i: int) -> None:
    ops = RecordingOps()
    tangents = random_tangents(c, c.inputs, only=i)
    check_against_differences(c, c.inputs, tangents, rule_jvp(c, c.inputs, tangents, ops))
    if c.op not in JOINING:
        assert not CREATION & set(ops.calls), f"zeros materialised: {ops.calls}"


def test_binary_ops_have_one_tangent_cases() -> None:
    binary = {op for op in RULES if OP_INFO[op].elementwise and len(OP_INFO[op].inputs) >= 2}
    binary -= {Op.POLYGAMMA, Op.GAMMAINC, Op.GAMMAINCC}  # one input has no derivative
    binary -= vjp_tests.SPECIAL_MORE_LAST_ONLY | {Op.RIEMANN_ZETA}  # (special family)
    binary -= {Op.LDEXP}  # numpy-more family: the exponent is an integer
    assert binary <= {c.op for c, _ in ONE_TANGENT}


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_no_tangents_give_none(c: Case) -> None:
    ops = RecordingOps()
    assert rule_jvp(c, c.inputs, (None,) * len(c.inputs), ops) is None
    assert ops.calls == []


F32_CASES = vjp_tests._F32_CASES


@pytest.mark.parametrize("c", F32_CASES, ids=[c.id for c in F32_CASES])
def test_float32_stays_float32(c: Case) -> None:
    inputs = tuple(x.astype(np.float32) if isinstance(x, np.ndarray) and vjp_tests._is_float(x)
                   else x for x in c.inputs)
    tangents = tuple(t if isinstance(x, np.ndarray) else None
                     for x, t in zip(inputs, random_tangents(c, inputs), strict=True))
    t32 = rule_jvp(c, inputs, tangents)
    assert np.asarray(t32).dtype == np.float32, np.asarray(t32).dtype
    as64 = tuple(x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype == np.float32
                 else x for x in (*inputs, *tangents))
    t64 = np.asarray(rule_jvp(c, as64[:len(inputs)], as64[len(inputs):]))
    scale = max(1.0, float(np.max(np.abs(t64), initial=0.0)))
    np.testing.assert_allclose(t32, t64, rtol=2e-3, atol=2e-3 * scale)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_rule_runs_in_the_compiler(c: Case) -> None:
    """The rule with the compiler's ``Emitter`` as ``ops`` (it writes IR nodes, evaluated
    on the example values as they are built) gives the eager tangent."""
    b = GraphBuilder("jvp", _evaluate)
    em = Emitter(b)

    def value(v: Any, name: str) -> Any:
        if isinstance(v, np.ndarray):
            return Var(b.arg(name, type_of(v), v), em)
        return None if v is None else Var(b.const(v), em)  # lowering makes no None bounds

    inputs = _prepped(c, c.inputs)
    tangents = _prepped(c, random_tangents(c, c.inputs))
    xs = [value(x, f"x{i}") for i, x in enumerate(inputs)]
    ts = [None if t is None else value(np.asarray(t), f"t{i}") for i, t in enumerate(tangents)]
    node = b.emit(c.op, [em.node(x) for x in xs], c.params)
    out: Any = Var(node, em)
    if OP_INFO[c.op].multi:
        n = len(run(c.op, np, inputs, c.full_params))
        out = tuple(Var(b.emit(Op.ITEM, [node], {"index": k}), em) for k in range(n))
    got = JVP_RULES[c.op](em, tuple(ts), out, *xs, **c.full_params)
    want = JVP_RULES[c.op](vjp_tests.OPS, tangents, run(c.op, np, inputs, c.full_params),
                           *inputs, **c.full_params)
    got_parts = got if isinstance(got, tuple) else (got,)
    want_parts = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got_parts, want_parts, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(b.values[g.node], w, rtol=1e-12, atol=1e-12)


# --- explicit values --------------------------------------------------------------------


@pytest.mark.parametrize("op", [Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN])
def test_binary_ties_take_half_of_each_tangent(op: Op) -> None:
    x = np.array([1.0, -2.0, 3.0])
    tx, ty = np.array([2.0, 4.0, -6.0]), np.array([1.0, 0.0, 1.0])
    t = JVP_RULES[op](vjp_tests.OPS, (tx, ty), run(op, np, (x, x), {}), x, x)
    np.testing.assert_array_equal(t, 0.5 * (tx + ty))


def test_prod_with_zero_is_exact() -> None:
    x = np.array([[0.5, 0.0, 2.0], [0.0, 3.0, 0.0], [1.5, -2.0, 4.0]])
    t = np.arange(9.0).reshape(3, 3)
    params = {"axis": 1, "keepdims": False}
    out = run(Op.PROD, np, (x,), params)
    tp = JVP_RULES[Op.PROD](vjp_tests.OPS, (t,), out, x, **params)
    np.testing.assert_array_equal(tp, [1.0 * 1.0, 0.0, 6 * -8.0 + 7 * 6.0 + 8 * -3.0])


def test_elementwise_tangent_is_broadcast_up() -> None:
    x, y = np.ones((3, 1)), np.ones(4)
    t = JVP_RULES[Op.ADD](vjp_tests.OPS, (np.arange(3.0).reshape(3, 1), None), x + y, x, y)
    np.testing.assert_array_equal(t, np.broadcast_to(np.arange(3.0).reshape(3, 1), (3, 4)))


def test_split_and_slogdet_return_tuples() -> None:
    x = np.arange(6.0).reshape(3, 2)
    pieces = run(Op.SPLIT, np, (x,), {"indices_or_sections": 3, "axis": 0})
    ts = JVP_RULES[Op.SPLIT](vjp_tests.OPS, (x,), tuple(pieces), x, indices_or_sections=3)
    assert isinstance(ts, tuple) and len(ts) == 3
    a = np.eye(2) * 2.0
    sign, logdet = JVP_RULES[Op.SLOGDET](vjp_tests.OPS, (np.eye(2),), np.linalg.slogdet(a), a)
    assert sign is None and logdet == pytest.approx(1.0)  # d log det = trace(a^-1 t)
