"""Property tests of containers: lists, tuples and dicts of arrays built and read inside
programs (nested, appended to, unpacked, rebound by item, stacked and summed), and
passed as arguments (pytrees) to ``grad``, ``jvp`` and ``vjp`` with structured tangents
and cotangents.

Each program must give Python's value and the central-difference derivative, or a
refusal located in its file (``progen.attempt``).
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
    as64,
    assert_close,
    attempt,
    fd_grad,
    known,
    load_module,
    property_settings,
)

import st_autodiff as st

UNARY = ["np.sin({a})", "np.tanh({a})", "0.5 * {a}", "{a} * {a}", "np.cos({a})"]

#: a container model: ("list" | "tuple", [item, ...]) or ("dict", {key: item}); an
#: item is "v" (an array of shape (3,)) or a nested model
Model = Any


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("container_programs")


def _leaves(model: Model, path: str = "") -> list[str]:
    """Subscript paths of the array leaves of ``model``."""
    if model == "v":
        return [path]
    kind, items = model
    if kind == "dict":
        return [q for k, it in items.items() for q in _leaves(it, f"{path}[{k!r}]")]
    n = len(items)
    out = []
    for i, it in enumerate(items):
        index = i if i % 2 == 0 else i - n  # negative indices too
        out += _leaves(it, f"{path}[{index}]")
    return out


class _Gen(ProgramWriter):
    """Statements over arrays (``vecs``) and containers (``boxes``: name -> model)."""

    def __init__(self, draw: hs.DrawFn, vecs: list[str]) -> None:
        super().__init__(draw)
        self.vecs = list(vecs)
        self.boxes: dict[str, Model] = {}

    def vec(self) -> str:
        return self.pick(UNARY).format(a=self.pick(self.vecs))

    def item(self, depth: int) -> tuple[str, Model]:
        """Source and model of a container item: an array or (once) a nested container."""
        if depth > 0 and self.boxes and self.draw(hs.booleans()):
            name = self.pick(sorted(self.boxes))
            return name, self.boxes[name]
        return self.vec(), "v"

    def statement(self) -> None:
        kinds = ["list", "tuple", "dict"]
        if self.boxes:
            kinds += ["read", "read", "unpack", "append", "setitem", "reduce"]
        getattr(self, "st_" + self.pick(kinds))()

    def st_list(self, kind: str = "list") -> None:
        items = [self.item(1) for _ in range(self.draw(hs.integers(1, 3)))]
        name = self.fresh("L" if kind == "list" else "T")
        src = ", ".join(s for s, _ in items) + ("," if kind == "tuple" and len(items) == 1
                                               else "")
        self.lines.append(f"{name} = {'[' if kind == 'list' else '('}{src}"
                          f"{']' if kind == 'list' else ')'}")
        self.boxes[name] = (kind, [m for _, m in items])

    def st_tuple(self) -> None:
        self.st_list("tuple")

    def st_dict(self) -> None:
        keys = self.draw(hs.lists(hs.sampled_from(["a", "b", "c"]), min_size=1, max_size=3,
                                  unique=True))
        items = {k: self.item(1) for k in keys}
        name = self.fresh("D")
        self.lines.append(f"{name} = {{" + ", ".join(f"{k!r}: {s}" for k, (s, _) in
                                                      items.items()) + "}")
        self.boxes[name] = ("dict", {k: m for k, (_, m) in items.items()})

    def st_read(self) -> None:
        name = self.pick(sorted(self.boxes))
        path = self.pick(_leaves(self.boxes[name]))
        v = self.fresh("v")
        self.lines.append(f"{v} = {self.pick(UNARY).format(a=name + path)}")
        self.vecs.append(v)

    def st_unpack(self) -> None:
        seqs = [n for n, m in self.boxes.items() if m[0] != "dict" and
                all(it == "v" for it in m[1])]
        if not seqs:
            return self.st_read()
        name = self.pick(seqs)
        targets = [self.fresh("u") for _ in self.boxes[name][1]]
        self.lines.append(f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {name}")
        self.vecs += targets

    def st_append(self) -> None:
        lists = [n for n, m in self.boxes.items() if m[0] == "list"]
        if not lists:
            return self.st_read()
        name = self.pick(lists)
        self.lines.append(f"{name}.append({self.vec()})")
        self.boxes[name][1].append("v")

    def st_setitem(self) -> None:
        boxes = [n for n, m in self.boxes.items() if m[0] != "tuple"]
        if not boxes:
            return self.st_read()
        name = self.pick(boxes)
        kind, items = self.boxes[name]
        if kind == "dict":
            key = self.pick(["a", "b", "c", "d"])
            self.lines.append(f"{name}[{key!r}] = {self.vec()}")
            items[key] = "v"
        else:
            i = self.draw(hs.integers(0, len(items) - 1))
            self.lines.append(f"{name}[{i}] = {self.vec()}")
            items[i] = "v"

    def st_reduce(self) -> None:
        flat = [n for n, m in self.boxes.items() if m[0] == "list" and
                all(it == "v" for it in m[1])]
        if not flat:
            return self.st_read()
        name = self.pick(flat)
        v = self.fresh("v")
        form = self.pick(["np.sum(np.stack({L}), axis=0)", "sum({L})",
                          "np.stack({L})[-1] * len({L})"])
        self.lines.append(f"{v} = {form.format(L=name)}")
        self.vecs.append(v)


@hs.composite
def container_programs(draw: hs.DrawFn) -> str:
    """``prog(x, y)`` building and reading containers of arrays."""
    gen = _Gen(draw, ["x", "y"])
    for _ in range(draw(hs.integers(2, 7))):
        gen.statement()
    terms = [f"np.sum({gen.pick(UNARY).format(a=v)})" for v in gen.vecs[2:]] or ["0.0"]
    for name, model in gen.boxes.items():
        if draw(hs.booleans()):
            terms.append(f"np.sum({name}{gen.pick(_leaves(model))})")
    body = "".join(f"    {line}\n" for line in gen.lines)
    return (f"import numpy as np\n\n\ndef prog(x, y):\n{body}"
            f"    return np.sum(x * y) + {' + '.join(terms)}\n")


@property_settings(25)
@given(source=container_programs(), seed=hs.integers(0, 2**32 - 1))
def test_containers_inside_programs(source: str, seed: int, program_dir: Path) -> None:
    """Lists, tuples and dicts of arrays built, nested, read, unpacked, appended to and
    rebound by item inside the program: value and gradient (of both arguments)."""
    note(source)
    module = load_module(source, program_dir, "boxes")
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3)]
    want = fd_grad(module.prog, [as64(a) for a in args], [0, 1])
    ok, got = attempt(lambda: st.value_and_grad(module.prog, wrt=(0, 1))(*args), module)
    if ok:
        assert_close(got[0], module.prog(*args), "value", rtol=1e-9, atol=1e-9)
        for i in (0, 1):
            assert_close(got[1][i], want[i], f"gradient of argument {i}")


# --- containers as arguments -------------------------------------------------------------


@hs.composite
def pytrees(draw: hs.DrawFn, kinds: list[str], depth: int = 1) -> Model:
    kind = draw(hs.sampled_from(kinds))
    n = draw(hs.integers(1, 3))

    def item() -> Model:
        if depth > 0 and draw(hs.integers(0, 3)) == 0:
            return draw(pytrees(kinds, depth - 1))
        return draw(hs.sampled_from(["v", "s"]))

    if kind == "dict":
        return ("dict", {k: item() for k in ["a", "b", "c"][:n]})
    return (kind, [item() for _ in range(n)])


def _tree_leaves(model: Model, path: str = "") -> list[tuple[str, str]]:
    """(path, "v" or "s") of each leaf, "v" an array of shape (3,), "s" a float."""
    if model in ("v", "s"):
        return [(path, model)]
    kind, items = model
    pairs = items.items() if kind == "dict" else enumerate(items)
    return [q for k, it in pairs for q in _tree_leaves(it, f"{path}[{k!r}]")]


def _build(model: Model, leaf: Any) -> Any:
    """A value of ``model`` with leaves from ``leaf(kind)``."""
    if model in ("v", "s"):
        return leaf(model)
    kind, items = model
    if kind == "dict":
        return {k: _build(it, leaf) for k, it in items.items()}
    built = [_build(it, leaf) for it in items]
    return built if kind == "list" else tuple(built)


def _flat(tree: Any) -> list[Any]:
    if isinstance(tree, dict):
        return [q for v in tree.values() for q in _flat(v)]
    if isinstance(tree, (list, tuple)):
        return [q for v in tree for q in _flat(v)]
    return [tree]


def _same_structure(got: Any, like: Any) -> bool:
    if isinstance(like, dict):
        return isinstance(got, dict) and list(got) == list(like) and all(
            _same_structure(got[k], v) for k, v in like.items())
    if isinstance(like, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(like) and all(
            _same_structure(g, v) for g, v in zip(got, like))
    return got is not None and np.shape(got) == np.shape(like)


PYTREE_FAMILIES = {
    "tuple-list": (["tuple", "list"], known("pytree-args")),
    "dict": (["dict"], known("pytree-args")),
}


@pytest.mark.parametrize("family", [pytest.param(n, marks=m, id=n) for n, (_, m) in
                                    PYTREE_FAMILIES.items()])
def test_containers_as_arguments(family: str, program_dir: Path) -> None:
    """``prog(p, x)`` with ``p`` a (nested) tuple/list/dict of arrays and floats:
    ``grad`` gives a gradient shaped like ``p``, ``jvp`` takes a structured tangent,
    ``vjp`` gives structured cotangents; all against central differences."""

    @property_settings(8)
    @given(model=pytrees(PYTREE_FAMILIES[family][0]), seed=hs.integers(0, 2**32 - 1),
           terms=hs.lists(hs.sampled_from(UNARY), min_size=6, max_size=6))
    def run(model: Model, seed: int, terms: list[str]) -> None:
        leaves = _tree_leaves(model)
        body = " + ".join(f"np.sum({terms[i % 6].format(a='p' + path)} * x)"
                          for i, (path, _) in enumerate(leaves))
        source = f"import numpy as np\n\n\ndef prog(p, x):\n    return {body}\n"
        note(source)
        module = load_module(source, program_dir, "pytree")
        rng = np.random.default_rng(seed)

        def leaf(kind: str) -> Any:
            return rng.uniform(-1.5, 1.5, 3) if kind == "v" else float(rng.uniform(-1.5, 1.5))

        p, x = _build(model, leaf), rng.uniform(-1.5, 1.5, 3)
        tp, tx = _build(model, leaf), rng.uniform(-1.5, 1.5, 3)
        flat_p = _flat(p)
        n = len(flat_p)

        def f(*vals: Any) -> Any:
            it = iter(vals[:n])
            return module.prog(_build(model, lambda _k: next(it)), vals[n])

        want = fd_grad(f, [as64(v) for v in flat_p] + [as64(x)], range(n + 1))
        ok, got = attempt(lambda: st.grad(module.prog, wrt=(0, 1))(p, x), module)
        if ok:
            assert _same_structure(got[0], p), f"gradient {got[0]!r} not shaped like {p!r}"
            for i, g in enumerate(_flat(got[0]) + [got[1]]):
                assert_close(g, want[i], f"gradient leaf {i}")
        ok, got = attempt(lambda: st.jvp(module.prog, (p, x), (tp, tx)), module)
        if ok:
            assert_close(got[0], module.prog(p, x), "jvp value", rtol=1e-9, atol=1e-9)
            directional = sum(float(np.sum(w * t)) for w, t in zip(want, _flat(tp) + [tx]))
            assert_close(got[1], directional, "jvp tangent")
        ok, got = attempt(lambda: st.vjp(module.prog, p, x), module)
        if ok:
            cot = got[1](1.0)
            assert _same_structure(cot[0], p), f"vjp cotangent {cot[0]!r} not shaped like p"
            for i, g in enumerate(_flat(cot[0]) + [cot[1]]):
                assert_close(g, want[i], f"vjp leaf {i}")

    run()


# --- containers as outputs ---------------------------------------------------------------

OUTPUT_FAMILIES = {
    "tuple": ("tuple", known("pytree-outputs")),
    "list": ("list", known("pytree-outputs")),
    "dict": ("dict", []),
}


@pytest.mark.parametrize("family", [pytest.param(n, marks=m, id=n) for n, (_, m) in
                                    OUTPUT_FAMILIES.items()])
def test_containers_as_outputs(family: str, program_dir: Path) -> None:
    """``prog(x, y)`` returning a tuple, list or dict of arrays and scalars: ``vjp``
    gives Python's output (same structure) and takes a structured cotangent, ``jvp``
    gives a tangent shaped like the output; both against central differences."""
    kind = OUTPUT_FAMILIES[family][0]

    @property_settings(6)
    @given(leaves=hs.lists(hs.tuples(hs.sampled_from(UNARY), hs.booleans()), min_size=1,
                           max_size=3), seed=hs.integers(0, 2**32 - 1))
    def run(leaves: list[tuple[str, bool]], seed: int) -> None:
        items = [f"{form.format(a='x')} * y" if vec else f"np.sum({form.format(a='y')} * x)"
                 for form, vec in leaves]
        if kind == "dict":
            ret = "{" + ", ".join(f"'k{i}': {e}" for i, e in enumerate(items)) + "}"
        else:
            ret = ("[" if kind == "list" else "(") + ", ".join(items) + \
                ("]" if kind == "list" else ",)")
        source = f"import numpy as np\n\n\ndef prog(x, y):\n    return {ret}\n"
        note(source)
        module = load_module(source, program_dir, "outputs")
        rng = np.random.default_rng(seed)
        x, y = rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3)
        want_out = module.prog(x, y)
        ct = _build_like(want_out, rng)
        want = fd_grad(lambda a, b: sum(float(np.sum(c * o)) for c, o in zip(
            _flat(ct), _flat(module.prog(a, b)))), [x, y], [0, 1])
        ok, got = attempt(lambda: st.vjp(module.prog, x, y), module)
        if ok:
            out, pullback = got
            assert _same_structure(out, want_out) and type(out) is type(want_out), \
                f"vjp output {out!r}, Python {want_out!r}"
            for o, w in zip(_flat(out), _flat(want_out)):
                assert_close(o, w, "vjp output", rtol=1e-9, atol=1e-9)
            ok, grads = attempt(lambda: pullback(ct), module)
            if ok:
                for i in (0, 1):
                    assert_close(grads[i], want[i], f"vjp gradient {i}")
        tx, ty = rng.standard_normal(3), rng.standard_normal(3)
        ok, got = attempt(lambda: st.jvp(module.prog, (x, y), (tx, ty)), module)
        if ok:
            out, tangent = got
            assert _same_structure(tangent, want_out), \
                f"jvp tangent {tangent!r} not shaped like the output {want_out!r}"
            eps = 1e-6
            hi, lo = module.prog(x + eps * tx, y + eps * ty), module.prog(x - eps * tx,
                                                                          y - eps * ty)
            for t, h, lw in zip(_flat(tangent), _flat(hi), _flat(lo)):
                assert_close(t, (np.asarray(h) - np.asarray(lw)) / (2 * eps), "jvp tangent")

    run()


def _build_like(tree: Any, rng: np.random.Generator) -> Any:
    """A random cotangent with the structure of ``tree``."""
    if isinstance(tree, dict):
        return {k: _build_like(v, rng) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_build_like(v, rng) for v in tree)
    return rng.standard_normal(np.shape(tree)) if np.ndim(tree) else float(
        rng.standard_normal())
