"""Property tests of higher derivatives through nested regions.

* Scalar programs ``prog(x, y)`` (Python floats) with ``if``/``elif``/``else``, ``for``
  and ``while`` nested 2 to 3 deep, carrying floats in bounded forms: the derivative of
  order ``k`` (``st.grad`` applied ``k`` times, ``k`` = 2, 3, 4) is checked against the
  central difference of the compiled derivative of order ``k - 1``, and order 1 against
  the central difference of Python's function.  Runtime conditions get thresholds kept
  ``progen.MARGIN`` away from every value they compare (``progen.fix_thresholds``), so
  no difference step flips a decision.
* Vector programs from ``test_properties_loops.programs`` (loops, branches, appends and
  writes over a (3,) argument): ``st.hessian`` (both modes) against central differences
  of the compiled gradient, and ``st.hvp`` against the Hessian times the tangent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as hs
from progen import assert_close, attempt, fix_thresholds, load_module, property_settings
from test_properties_loops import _args, _finalise, programs

import st_autodiff as st

#: bounded updates of a carried float ``{t}`` by an expression ``{e}``
CARRY = ["0.5 * {t} + 0.5 * np.tanh({e})", "{t} * np.cos({e})", "{t} + 0.2 * np.sin({e})",
         "np.sin({e})", "0.8 * {t} + 0.1 * ({e}) * ({e})"]
#: scalar expressions of the state (``{s}``, ``{u}``: floats in scope)
EXPR = ["{s} * x", "x + {s}", "np.sin(x) * {u}", "{s} - y * x", "x * x * {u}", "{s} * {u}"]
#: central-difference step on compiled derivatives (exact up to rounding)
EPS = 2e-5


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("order_programs")


class _Gen:
    def __init__(self, draw: hs.DrawFn) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.conds: dict[int, tuple[str, str, float]] = {}
        self.n = 0

    def pick(self, options: list[Any]) -> Any:
        return self.draw(hs.sampled_from(options))

    def expr(self, scope: list[str], idx: list[str]) -> str:
        e = self.pick(EXPR).format(s=self.pick(scope), u=self.pick(scope))
        if idx and self.draw(hs.booleans()):
            e = f"({e}) + 0.3 * {self.pick(idx)}"
        return e

    def cond(self, scope: list[str], idx: list[str]) -> str:
        k = len(self.conds)
        self.conds[k] = (f"np.sin({self.expr(scope, idx)})", self.pick([">", "<"]),
                         self.pick([-0.6, -0.3, 0.3, 0.6]))
        return f"__COND{k}__"

    def block(self, scope: list[str], idx: list[str], indent: int, depth: int) -> None:
        for _ in range(self.draw(hs.integers(1, 2))):
            self.statement(scope, idx, indent, depth)

    def statement(self, scope: list[str], idx: list[str], indent: int, depth: int) -> None:
        pad = "    " * indent
        kinds = ["assign"] + (["if", "for", "while"] * 2 if depth > 0 else [])
        kind = self.pick(kinds)
        carried = [v for v in scope if v not in ("x", "y")]
        if kind == "assign":
            t = self.pick(carried)
            self.lines.append(pad + f"{t} = " + self.pick(CARRY).format(
                t=t, e=self.expr(scope, idx)))
        elif kind == "if":
            static = idx and self.draw(hs.booleans())
            test = f"{idx[-1]} % 2 == 0" if static else self.cond(scope, idx)
            self.lines.append(pad + f"if {test}:")
            self.block(scope, idx, indent + 1, depth - 1)
            if self.draw(hs.booleans()):
                self.lines.append(pad + f"elif {self.cond(scope, idx)}:")
                self.block(scope, idx, indent + 1, depth - 1)
            if self.draw(hs.booleans()):
                self.lines.append(pad + "else:")
                self.block(scope, idx, indent + 1, depth - 1)
        elif kind == "for":
            self.n += 1
            i = f"i{self.n}"
            self.lines.append(pad + f"for {i} in range({self.pick([2, 3, 1, 0])}):")
            self.block(scope, idx + [i], indent + 1, depth - 1)
        else:
            self.n += 1
            j = f"j{self.n}"
            test = f"{j} < {self.pick([2, 3, 1])}"
            if self.draw(hs.booleans()):
                test += f" and {self.cond(scope, idx)}"
            self.lines += [pad + f"{j} = 0", pad + f"while {test}:"]
            self.block(scope, idx + [j], indent + 1, depth - 1)
            self.lines.append(pad + f"    {j} += 1")


@hs.composite
def scalar_programs(draw: hs.DrawFn) -> tuple[str, dict[int, tuple[str, str, float]]]:
    """``prog(x, y)`` on floats with regions nested 2 to 3 deep (conditions unfixed)."""
    gen = _Gen(draw)
    gen.lines += ["s = np.sin(x) * y", "u = 0.5 * x"]
    depth = draw(hs.integers(2, 3))
    gen.statement(["x", "y", "s", "u"], [], 0, depth)  # the outer region
    if gen.lines[-1].startswith("s =") or gen.lines[-1].startswith("u ="):
        gen.statement(["x", "y", "s", "u"], [], 0, depth)
    for _ in range(draw(hs.integers(0, 1))):
        gen.statement(["x", "y", "s", "u"], [], 0, depth)
    body = "".join(f"    {line}\n" for line in gen.lines)
    return (f"import numpy as np\n\n\ndef prog(x, y):\n{body}    return s * u + np.sin(s)\n",
            gen.conds)


def _central(f: Callable[[float, float], Any], x: float, y: float) -> float:
    return (float(f(x + EPS, y)) - float(f(x - EPS, y))) / (2 * EPS)


# fourth order of random 2-3 deep nestings compiles for minutes (the gradient of a
# gradient of a gradient: compile cost, not correctness): explore runs it
# (benchmarks/explore_properties.py); tests/test_nested_regions.py checks order 4 in CI
ORDERS = (2, 3) if settings.default.derandomize else (2, 3, 4)


@pytest.mark.parametrize("order", ORDERS)
def test_nested_regions_at_higher_order(order: int, program_dir: Path) -> None:
    """``grad`` applied ``order`` times through nested regions, each order against the
    central difference of the one below."""

    @property_settings({2: 6, 3: 4, 4: 2}[order])
    @given(spec=scalar_programs(), x=hs.floats(-1.2, 1.2), y=hs.floats(-1.2, 1.2))
    def run(spec: tuple[str, dict[int, tuple[str, str, float]]], x: float, y: float) -> None:
        template, conds = spec
        source = fix_thresholds(template, conds, "prog", (x, y))
        assume(source is not None)
        assert source is not None
        note(source)
        note(f"x, y = {x!r}, {y!r}")
        module = load_module(source, program_dir, "orders")
        lower: Callable[..., Any] = module.prog
        for k in range(1, order + 1):
            higher = st.grad(lower, wrt=0)
            ok, got = attempt(lambda h=higher: h(x, y), module, generated=k > 1)
            if not ok:
                return
            want = _central(lower, x, y)
            assert_close(got, want, f"derivative of order {k}", rtol=2e-5)
            lower = higher

    run()


@property_settings(6)
@given(spec=programs(max_depth=1), seed=hs.integers(0, 2**32 - 1),
       mode=hs.sampled_from(["forward", "reverse"]))
def test_hessian_and_hvp_through_regions(spec: Any, seed: int, mode: str,
                                         program_dir: Path) -> None:
    """``st.hessian`` of loop-and-branch programs against central differences of the
    compiled gradient (itself checked by ``test_properties_loops``), ``st.hvp`` against
    the Hessian times the tangent, and a vjp pullback called twice."""
    args = _args(spec, seed)
    source = _finalise(spec, args)
    assume(source is not None)
    assert source is not None
    note(source)
    module = load_module(source, program_dir, "hess")
    g = st.grad(module.prog, wrt=0)
    ok, _ = attempt(lambda: g(*args), module)
    assume(ok)
    ok, got = attempt(lambda: st.vjp(module.prog, *args), module)
    if ok:  # a pullback may be called again: the same cotangent, the same gradient
        pullback = got[1]
        first = np.copy(pullback(1.0)[0])
        assert_close(pullback(1.0)[0], first, "pullback called twice", rtol=1e-12, atol=1e-12)
    x0 = np.asarray(args[0], dtype=np.float64)
    want = np.zeros((3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = EPS
        want[:, j] = (np.asarray(g(x0 + e, *args[1:])) - np.asarray(g(x0 - e, *args[1:]))) \
            / (2 * EPS)
    ok, hess = attempt(lambda: st.hessian(module.prog, wrt=0, mode=mode)(*args), module)
    if ok:
        assert_close(hess, want, f"hessian ({mode})", rtol=2e-5)
    v = np.random.default_rng(seed).standard_normal(3)
    tangents = (v,) + (None,) * (len(args) - 1)
    ok, got = attempt(lambda: st.hvp(module.prog, args, tangents, mode=mode), module)
    if ok:
        assert_close(got, want @ v, f"hvp ({mode})", rtol=2e-5)
