"""Property tests of aliasing: names bound to the same array, views, arrays held by lists
and dicts, all written in place.

The program over ``x``, ``y`` (shape (3,)) and ``m`` (shape (2, 3)) makes arrays
(copies, new results, zeros), binds other names to them (``c = b``), takes views
(``b[1:]``, ``b[::-1]``, ``m2.T``, ``m2[0]``, ``reshape``), stores them in lists and
dicts and reads them back, and writes through any of these (``t += e``, ``t *= e``,
``t[i] = e``, ``t[1:] = e``, ``L[0][i] = e``, ``D['k'] *= e``), the arguments
included.  Right-hand sides read the current state, so a write the compiler misses, or
applies to one alias only, changes the value.  The compiler must give exactly Python's
value (and leave the caller's arrays as Python does) and the central-difference
gradient, or refuse with an error located in the program; never a wrong answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as hs
from progen import (
    ProgramWriter,
    assert_close,
    attempt,
    fd_grad,
    known,
    load_module,
    property_settings,
)

import st_autodiff as st


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("alias_programs")


#: views of a (3,) array and of a (2, 3) array: source template and resulting shape
VIEWS_1D = [("{b}[1:]", (2,)), ("{b}[::-1]", (3,)), ("{b}[:]", (3,)),
            ("{b}.reshape(3)", (3,)), ("{b}.T", (3,)), ("{b}[:2]", (2,))]
VIEWS_2D = [("{b}.T", (3, 2)), ("{b}[0]", (3,)), ("{b}[1]", (3,)),
            ("{b}.reshape(6)", (6,)), ("{b}.reshape(3, 2)", (3, 2)), ("{b}[:, 1:]", (2, 2))]
#: bounded in-place updates (``{s}``: a scalar expression)
INPLACE = ["{t} += 0.3 * np.sin({s})", "{t} *= np.cos({s})", "{t} -= 0.2 * np.tanh({s})"]


#: families (test ids) -> statement kinds drawn, whether the arguments are written, and
#: the known-bug marks of the family
FAMILIES: dict[str, tuple[list[str], bool, list[pytest.MarkDecorator]]] = {
    "names": (["make", "alias", "write", "write", "rebind"], False, []),
    "views": (["make", "view", "view", "write", "write", "rebind"], False, known("aliasing")),
    "containers": (["make", "box", "box", "unbox", "write", "write", "rebind"], False,
                   known("aliasing")),
    "arguments": (["alias", "view", "write", "write"], True, []),
    "everything": (["make", "alias", "view", "write", "write", "box", "unbox", "rebind"],
                   True, known("aliasing")),
}


class _Gen(ProgramWriter):
    def __init__(self, draw: hs.DrawFn, kinds: list[str], write_args: bool) -> None:
        super().__init__(draw)
        self.kinds = kinds
        self.write_args = write_args
        self.shapes: dict[str, tuple[int, ...]] = {"x": (3,), "y": (3,), "m": (2, 3)}
        self.boxes: dict[str, list[str]] = {}  # container -> its subscripts of arrays

    def scalar(self) -> str:
        """A scalar reading the current state."""
        name = self.pick(sorted(self.shapes))
        return self.pick(["np.sum(np.sin({a}))", "np.mean({a})", "{a}.sum() * 0.5",
                          "np.sum({a} * {a}) * 0.1"]).format(a=name)

    def target(self) -> tuple[str, tuple[int, ...]]:
        """Something to write through: a name, or an item of a list or dict."""
        options = [(n, s) for n, s in self.shapes.items() if n not in ("x", "y", "m")]
        if self.write_args or not options:
            options += [(n, s) for n, s in self.shapes.items() if n in ("x", "y", "m")]
        for box, subs in self.boxes.items():
            options += [(box + sub, self.shapes[box + sub]) for sub in subs]
        return self.pick(options)

    def statement(self) -> None:
        getattr(self, "st_" + self.pick(self.kinds))()

    def st_make(self) -> None:
        name = self.fresh("b")
        src, shape = self.pick([("x * 1.0", (3,)), ("x.copy()", (3,)), ("np.sin(y)", (3,)),
                                ("np.zeros(3)", (3,)), ("m * 1.0", (2, 3)),
                                ("np.array(m)", (2, 3)), ("m.copy()", (2, 3))])
        self.lines.append(f"{name} = {src}")
        self.shapes[name] = shape

    def st_alias(self) -> None:
        src = self.pick(sorted(self.shapes))
        name = self.fresh("c")
        self.lines.append(f"{name} = {src}")
        self.shapes[name] = self.shapes[src]

    def st_view(self) -> None:
        src = self.pick(sorted(self.shapes))
        have = self.shapes[src]
        if have == (3,):
            form, shape = self.pick(VIEWS_1D)
        elif have == (2, 3):
            form, shape = self.pick(VIEWS_2D)
        else:  # views of views: shapes the tables do not cover
            form, shape = self.pick([("{b}[:]", have), ("{b}.T", have[::-1])])
        name = self.fresh("v")
        self.lines.append(f"{name} = {form.format(b=src)}")
        self.shapes[name] = shape
        self._touch(src)

    def _touch(self, name: str) -> None:
        """Sometimes update ``name`` in place right away: a view or container item just
        made of it must see the change."""
        if self.draw(hs.booleans()) and (self.write_args or name not in ("x", "y", "m")):
            self.lines.append(self.pick(INPLACE).format(t=name, s=self.scalar()))

    def st_write(self) -> None:
        t, shape = self.target()
        s = self.scalar()
        kind = self.pick(["inplace", "item", "slice"])
        if kind == "inplace":
            self.lines.append(self.pick(INPLACE).format(t=t, s=s))
        elif kind == "item":
            index = ", ".join(str(self.draw(hs.integers(0, d - 1))) for d in shape)
            op = self.pick(["=", "+="])
            self.lines.append(f"{t}[{index}] {op} np.tanh({s})")
        else:
            self.lines.append(f"{t}[1:] = np.tanh({s})")

    def st_box(self) -> None:
        names = self.draw(hs.lists(hs.sampled_from(sorted(self.shapes)), min_size=1,
                                   max_size=3))
        if self.draw(hs.booleans()):
            box = self.fresh("L")
            self.lines.append(f"{box} = [{', '.join(names)}]")
            subs = [f"[{i}]" for i in range(len(names))]
        else:
            box = self.fresh("D")
            keys = [f"k{i}" for i in range(len(names))]
            self.lines.append(f"{box} = {{" + ", ".join(f"{k!r}: {n}" for k, n in
                                                        zip(keys, names)) + "}")
            subs = [f"[{k!r}]" for k in keys]
        self.boxes[box] = subs
        for sub, n in zip(subs, names):
            self.shapes[box + sub] = self.shapes[n]
        self._touch(self.pick(names))

    def st_unbox(self) -> None:
        if not self.boxes:
            return self.st_alias()
        box = self.pick(sorted(self.boxes))
        sub = self.pick(self.boxes[box])
        name = self.fresh("e")
        self.lines.append(f"{name} = {box}{sub}")
        self.shapes[name] = self.shapes[box + sub]

    def st_rebind(self) -> None:
        names = [n for n in self.shapes if "[" not in n and n not in ("x", "y", "m")]
        if not names:
            return self.st_make()
        t = self.pick(names)
        self.lines.append(f"{t} = {t} * np.cos({self.scalar()})")


@hs.composite
def alias_programs(draw: hs.DrawFn, family: str) -> str:
    kinds, write_args, _ = FAMILIES[family]
    gen = _Gen(draw, kinds, write_args)
    if not write_args:
        gen.st_make()
    for _ in range(draw(hs.integers(2, 8))):
        gen.statement()
    names = [n for n in gen.shapes if "[" not in n]
    terms = " + ".join(f"np.sum(np.sin({n}))" for n in names)
    body = "".join(f"    {line}\n" for line in gen.lines)
    return f"import numpy as np\n\n\ndef prog(x, y, m):\n{body}    return {terms}\n"


def _copies(args: list[np.ndarray]) -> list[np.ndarray]:
    return [np.array(a, copy=True) for a in args]


@pytest.mark.parametrize("family", [pytest.param(n, marks=m, id=n) for n, (_, _, m) in
                                    FAMILIES.items()])
def test_aliasing_and_writes(family: str, program_dir: Path) -> None:
    """Python's value (and its writes into the caller's arrays) and the central-difference
    gradient, or a located refusal."""

    @property_settings(30)
    @given(source=alias_programs(family), seed=hs.integers(0, 2**32 - 1))
    def run(source: str, seed: int) -> None:
        _check(source, seed, program_dir)

    run()


def _check(source: str, seed: int, program_dir: Path) -> None:
    note(source)
    module = load_module(source, program_dir, "alias")
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3),
            rng.uniform(-1.5, 1.5, (2, 3))]
    py_args = _copies(args)
    want_value = module.prog(*py_args)

    def f(*a: Any) -> Any:
        return module.prog(*_copies(list(a)))

    want = fd_grad(f, args, [0, 1, 2])
    st_args = _copies(args)
    ok, got = attempt(lambda: st.value_and_grad(module.prog, wrt=(0, 1, 2))(*st_args),
                      module)
    if not ok:
        return
    assert_close(got[0], want_value, "value", rtol=1e-9, atol=1e-9)
    for i in range(3):
        assert_close(got[1][i], want[i], f"gradient of argument {i}")
    for i in range(3):
        np.testing.assert_allclose(st_args[i], py_args[i], rtol=1e-12, atol=1e-12,
                                   err_msg=f"the caller's argument {i} after the call")
