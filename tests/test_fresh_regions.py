"""In-place updates after branches and loops (issue 14): freshness through region outputs.

``v -= ...`` (or ``v[i] = ...``) on an array that every branch of the preceding ``if``
made fresh, or that a loop made fresh at every iteration (with at least one iteration),
shares memory with nothing else and is accepted; where an alias is really possible (a
branch or a zero-trip loop leaves ``v`` bound to an array another name holds) it stays a
located refusal.  The generated programs over ``x``, ``y`` (shape (3,)) and a runtime
condition value ``c`` make arrays, alias them, take views, branch, loop and write in
place; the compiled value and gradient must equal Python's and central differences, or
the compiler refuses at a line of the program.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as hs

import st_autodiff as st
from st_autodiff import StAutodiffError
from st_autodiff.testing import check_grads
from tests.progen import (
    ProgramWriter,
    assert_close,
    attempt,
    fd_grad,
    load_module,
    property_settings,
)

FRESH = ["np.sin({s}) * 1.5", "{s} * {s2}", "np.zeros(3) + {s}", "{s}.copy()",
         "np.tanh({s}) + 0.5"]
WRITES = ["{t} -= 0.3 * np.sin({s})", "{t} *= np.cos({s})", "{t} += 0.2 * {s}",
          "{t}[1] = {s}[0] * 2.0", "{t}[0] += np.sin({s}[2])", "{t}[1:] -= 0.5 * {s}[:2]"]


class _Gen(ProgramWriter):
    def __init__(self, draw: Any) -> None:
        super().__init__(draw)
        self.names = ["x", "y"]
        self.depth = 0

    def line(self, text: str) -> None:
        self.lines.append("    " * (self.depth + 1) + text)

    def src(self) -> str:
        return self.pick(self.names)

    def bind(self, fresh_name: bool, target: str | None = None) -> None:
        local = [n for n in self.names if n not in ("x", "y")]
        if target is None and (fresh_name or not local):
            target = self.fresh("v")
        elif target is None:
            target = self.pick(local)
        kind = "fresh" if target in self.names and self.draw(hs.booleans()) else self.pick(
            ["fresh", "fresh", "alias", "view"] if local else ["fresh"])
        s = self.src() if kind == "fresh" else self.pick(local)  # arguments: read only
        if kind == "fresh":
            text = self.pick(FRESH).format(s=s, s2=self.src())
        elif kind == "alias":
            text = s
        else:
            text = self.pick([f"{s}[:]", f"{s}[::1]", f"{s}.reshape(3)"])
        self.line(f"{target} = {text}")
        if target not in self.names:
            self.names.append(target)

    def write(self) -> None:
        local = [n for n in self.names if n not in ("x", "y")]
        if not local:
            return
        self.line(self.pick(WRITES).format(t=self.pick(local), s=self.src()))

    def region_body(self) -> str | None:
        """A body that often starts by rebinding a name (fresh or not), which the
        statement after the region then writes into: the pattern of issue 14."""
        local = [n for n in self.names if n not in ("x", "y")]
        target = self.pick(local) if local and self.draw(hs.booleans()) else None
        self.depth += 1
        if target is not None:
            self.bind(False, target)
        self.block(self.draw(hs.integers(0 if target else 1, 2)))
        self.depth -= 1
        return target

    def body_or_pass(self, start: int) -> None:
        if len(self.lines) == start:
            self.line("    pass")

    def block(self, n: int) -> None:
        for _ in range(n):
            kind = self.pick(["bind", "write", "write", "if", "for", "while"]
                             if self.depth < 2 else ["bind", "write"])
            if kind == "bind":
                self.bind(fresh_name=self.depth == 0 and self.draw(hs.booleans()))
            elif kind == "write":
                self.write()
            elif kind == "if":
                self.line(f"if c {self.pick(['>', '<'])} 0.0:")
                target = self.region_body()
                if self.draw(hs.booleans()):
                    self.line("else:")
                    start = len(self.lines)
                    self.depth += 1
                    if target is not None:
                        self.bind(False, target)
                    self.block(self.draw(hs.integers(0, 2)))
                    self.depth -= 1
                    self.body_or_pass(start)
                self.write_after(target)
            elif kind == "for":
                self.line(f"for i{self.depth} in range({self.pick([0, 1, 2, 3])}):")
                self.write_after(self.region_body())
            else:  # a runtime trip count: while on a value the body changes
                k = self.fresh("k")
                self.line(f"{k} = {self.pick([0.0, 1.0, 3.0])}")
                self.line(f"while {k} < 2.0 * abs(c):")
                target = self.region_body()
                self.lines.append("    " * (self.depth + 2) + f"{k} += 1.0")
                self.write_after(target)

    def write_after(self, target: str | None) -> None:
        if target is not None and self.draw(hs.booleans()):
            self.line(self.pick(WRITES).format(t=target, s=self.src()))


@hs.composite
def region_programs(draw: hs.DrawFn) -> str:
    gen = _Gen(draw)
    gen.bind(fresh_name=True)
    gen.block(draw(hs.integers(2, 6)))
    gen.write()
    terms = " + ".join(f"np.sum(np.sin({n}))" for n in gen.names)
    body = "\n".join(gen.lines)
    return f"import numpy as np\n\n\ndef prog(x, y, c):\n{body}\n    return {terms}\n"


def alias_possible(source: str, args: list[Any]) -> bool:
    """Whether some in-place write of the program, run by Python with ``c`` of either
    sign (the two paths a compiled specialisation covers; trip counts are static),
    writes into an array that shares memory with another bound name or an argument: an
    alias the compiler must refuse (or model).  No such write: a refusal is a false one."""
    lines = []
    for line in source.splitlines():
        body = line.lstrip()
        target = body.split(" ", 1)[0].split("[", 1)[0]
        if any(op in body for op in ("-=", "+=", "*=")) or "] = " in body:
            indent = line[:len(line) - len(body)]
            lines.append(f"{indent}_chk({target!r}, locals())")
        lines.append(line)
    hit = [False]

    def chk(name: str, scope: dict[str, Any]) -> None:
        mine = scope[name]
        for k, v in scope.items():
            if k != name and isinstance(v, np.ndarray) and np.shares_memory(mine, v):
                hit[0] = True
            if k in ("x", "y") and k != name and v is mine:
                hit[0] = True

    namespace: dict[str, Any] = {"np": np, "_chk": chk}
    exec(compile("\n".join(lines), "<checked>", "exec"), namespace)  # noqa: S102
    for c in (1.0, -1.0):
        namespace["prog"](*_copies([*args[:2], c]))
    return hit[0]


def _copies(args: list[Any]) -> list[Any]:
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def check_program(source: str, seed: int, program_dir: Path) -> bool:
    """Python's value, its writes into the caller's arrays and central differences, or a
    located refusal (False)."""
    note(source)
    module = load_module(source, program_dir, "fresh")
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3),
            float(rng.choice([-1.0, 1.0]))]
    py_args = _copies(args)
    want_value = module.prog(*py_args)

    def f(*a: Any) -> Any:
        return module.prog(*_copies(list(a)))

    want = fd_grad(f, args, [0, 1])
    st_args = _copies(args)
    ok, got = attempt(lambda: st.value_and_grad(module.prog, wrt=(0, 1))(*st_args), module)
    if not ok:
        if not alias_possible(source, args):
            COUNTS["false"] += 1
            if os.environ.get("FRESH_VERBOSE"):
                print("FALSE REFUSAL\n" + source + "\n" + str(got) + "\n")
        return False
    assert_close(got[0], want_value, "value", rtol=1e-9, atol=1e-9)
    for i in range(2):
        assert_close(got[1][i], want[i], f"gradient of argument {i}")
        np.testing.assert_allclose(st_args[i], py_args[i], rtol=1e-12, atol=1e-12,
                                   err_msg=f"the caller's argument {i} after the call")
    return True


COUNTS: dict[str, int] = {"programs": 0, "refused": 0, "false": 0}


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fresh_programs")


def test_generated_programs_with_regions_and_writes(program_dir: Path) -> None:
    """Value, gradient and caller's arrays as Python, or a located refusal."""

    @property_settings(int(os.environ.get("FRESH_EXAMPLES", "60")))
    @given(source=region_programs(), seed=hs.integers(0, 2**32 - 1))
    def run(source: str, seed: int) -> None:
        COUNTS["programs"] += 1
        COUNTS["refused"] += not check_program(source, seed, program_dir)

    run()
    print(f"\nfresh regions: {COUNTS['refused']} of {COUNTS['programs']} programs refused, "
          f"{COUNTS['false']} of them without a possible alias")


# --- the reproductions --------------------------------------------------------------------

X = np.array([0.3, -0.5, 0.7])


def _grad_matches(fn: Any, *args: Any) -> None:
    got = st.grad(fn, wrt=0)(*_copies(list(args)))
    want = fd_grad(lambda *a: fn(*_copies(list(a))), list(args), [0])[0]
    assert_close(got, want, "gradient")


def test_if_fresh_in_every_branch_then_update() -> None:
    def f(x, c):
        u = x * 1.0
        v = u
        if c > 0:
            v = x * 2.0
        else:
            v = np.sin(x)
        v -= x ** 2
        return np.sum(v * u)

    for c in (1.0, -1.0):
        _grad_matches(f, X, c)


def test_loop_with_trips_makes_fresh_then_write() -> None:
    def f(x):
        v = x * 1.0
        w = v
        for _ in range(2):
            v = v + 1.0
        v[0] = 0.0
        return np.sum(v * w)

    _grad_matches(f, X)


def test_loop_fresh_at_every_iteration_end_then_write() -> None:
    def f(x):
        v = x * 1.0
        w = v
        for _ in range(3):
            v = np.sin(v) * x
        v -= w
        return np.sum(v ** 2)

    _grad_matches(f, X)


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_alias_through_one_branch_still_refused(c: float) -> None:
    def f(x, c):
        v = x * 2.0
        u = v
        if c > 0:
            v = v * 3.0
        v -= 1.0  # when c <= 0, v is u's array: NumPy changes u too
        return np.sum(v * u)

    with pytest.raises(StAutodiffError, match="would change too"):
        st.grad(f)(X, c)


def test_zero_trip_loop_alias_is_rebound() -> None:
    # a loop that never runs leaves v holding u's array: the update changes u too, and
    # the write rebinds both (``aliases``); a stale u would give sum((2x - 1) * 2x)
    def f(x):
        v = x * 2.0
        u = v
        for _ in range(0):
            v = v * 3.0
        v -= 1.0
        return np.sum(v * u)

    value, _ = st.value_and_grad(f)(X.copy())
    np.testing.assert_allclose(value, f(X.copy()))
    assert not np.isclose(value, np.sum((2 * X - 1) * 2 * X))
    check_grads(f, (X.copy(),), lambda a: (st.grad(f)(a),))


def test_view_of_argument_in_one_branch_still_refused() -> None:
    def f(x, c):
        if c > 0:
            v = x[:2]
        else:
            v = x[1:] * 1.0
        v -= 1.0
        return np.sum(v)

    with pytest.raises(StAutodiffError, match="argument"):
        st.grad(f)(X, 1.0)
