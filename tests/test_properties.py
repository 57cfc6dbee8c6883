"""Property tests: random straight-line NumPy programs, compiled gradient vs finite differences.

Hypothesis draws a program: one to three arguments of shapes that broadcast together,
then a few assignments, each a nested expression of NumPy operations over the arguments
and earlier temporaries, and a scalar return.  Two families:

* elementwise: smooth unary and binary operations (and reductions that broadcast back)
  on ``()`` (a Python float), ``(3,)`` and ``(2, 3)`` arguments;
* array: shape-preserving array operations along the last axis (flip, roll, cumsum,
  sort, slicing and fancy indexing, concatenate, stack, einsum, matmul, where, clip …)
  on ``(3,)`` and ``(2, 3)`` arguments.

Every operation is defined on all reals, smooth or with kinks that random inputs do not
hit, and grows at most linearly, so any program is in domain.  The source is written to
a ``.py`` file under a temporary directory and imported, so the compiler reads it with
``inspect`` like any user module.  The compiled gradient (optimizer on and off) must
match central finite differences, the two must agree with each other, and the generated
code must agree with the reference interpreter run on the joint graph.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as hs
from progen import load_module

import st_autodiff as st
from st_autodiff.ir.interpret import interpret
from st_autodiff.testing import check_grads

#: benchmarks/explore_properties.py raises the budget through PROGEN_EXAMPLES
EXAMPLES = int(os.environ.get("PROGEN_EXAMPLES", 30))
SHAPES = [(), (3,), (2, 3)]
ARRAY_SHAPES = [(3,), (2, 3)]

#: smooth on all reals, with outputs that grow at most linearly
UNARY = [
    "np.sin({a})",
    "np.cos({a})",
    "np.tanh({a})",
    "np.arctan({a})",
    "np.exp(np.sin({a}))",
    "np.log1p(({a}) ** 2)",
    "np.sqrt(({a}) ** 2 + 1.0)",
    "np.arcsinh({a})",
    "np.logaddexp({a}, 0.0)",
    "1.0 / (1.0 + ({a}) ** 2)",
    "-({a})",
    "0.5 * ({a})",
    "np.square(np.tanh({a}))",
    "np.sum({a}, axis=-1, keepdims=True)",
    "np.mean({a})",
]

BINARY = [
    "({a}) + ({b})",
    "({a}) - ({b})",
    "({a}) * np.tanh({b})",
    "({a}) / (1.0 + ({b}) ** 2)",
    "np.logaddexp({a}, {b})",
    "np.hypot({a}, 1.0 + ({b}) ** 2)",
    "np.arctan2({a}, 2.0 + np.cos({b}))",
    "np.maximum({a}, {b}) + np.minimum({a}, {b})",
]

#: array operations on a last axis of length 3 (or 1, after a keepdims reduction)
ARRAY_UNARY = [
    "np.flip({a}, axis=-1)",
    "np.roll({a}, 1, axis=-1)",
    "np.cumsum(np.tanh({a}), axis=-1)",
    "np.sort({a}, axis=-1)",
    "np.clip({a}, -1.0, 1.0)",
    "np.abs({a})",
    "({a})[..., ::-1]",
    "np.cumprod(1.0 + 0.1 * np.tanh({a}), axis=-1)",
    "np.max({a}, axis=-1, keepdims=True)",
    "np.linalg.norm({a}, axis=-1, keepdims=True)",
    "np.concatenate([({a})[..., :1], ({a})[..., 1:] * 2.0], axis=-1)",
    "np.stack([{a}, np.sin({a})], axis=0)[1]",
    "np.expand_dims({a}, 0)[0]",
    "({a})[None][0]",
    "np.prod(1.0 + 0.1 * ({a}), axis=-1, keepdims=True)",
    "np.squeeze(np.expand_dims({a}, -1), -1)",
    "np.exp(-({a}) ** 2)",
    "np.where(({a}) > 0.3, {a}, 0.5 * ({a}))",
    "np.sum(np.outer(np.tanh({a}), np.tanh({a})), axis=0)[:3]",
    "(({a}) + np.zeros(3))[..., [2, 0, 2]]",
    "np.tanh({a}).reshape(-1)[:3] * 1.0",
]

ARRAY_BINARY = [
    "np.where(({a}) > ({b}), {a}, ({b}) ** 2)",
    "({a}) @ np.ones((3, 3)) * ({b})",
    "np.einsum('...i,...i->...', ({a}) + np.zeros(3), ({b}) + np.zeros(3))[..., None]",
    "np.fmax({a}, {b})",
    "np.minimum({a}, 0.5) * ({b})",
    "np.dot(({a})[..., :1] * ({b}), np.eye(3))",
    "(({a}) * np.tanh({b})).sum(axis=-1, keepdims=True)",
    "({a}) ** 2 / (1.0 + ({b}) ** 2)",
]


@hs.composite
def programs(draw: hs.DrawFn, shapes_from: list[tuple[int, ...]] = SHAPES,
             unary: list[str] = UNARY, binary: list[str] = BINARY
             ) -> tuple[str, list[tuple[int, ...]]]:
    """Source text of ``def prog(x0, ...)`` and the shapes of its arguments."""
    n_args = draw(hs.integers(1, 3))
    shapes = [draw(hs.sampled_from(shapes_from)) for _ in range(n_args)]
    names = [f"x{i}" for i in range(n_args)]

    def expr(depth: int) -> str:
        kind = draw(hs.sampled_from(["name", "unary", "binary"] if depth else ["name"]))
        if kind == "name":
            return draw(hs.sampled_from(names))
        if kind == "unary":
            return draw(hs.sampled_from(unary)).format(a=expr(depth - 1))
        return draw(hs.sampled_from(binary)).format(a=expr(depth - 1), b=expr(depth - 1))

    lines = []
    for i in range(draw(hs.integers(1, 5))):
        rhs = draw(hs.sampled_from(unary + binary)).format(a=expr(2), b=expr(2))
        lines.append(f"t{i} = {rhs}")
        names.append(f"t{i}")
    last = names[-1]
    extra = draw(hs.sampled_from(names))
    lines.append(f"return np.sum({last}) + 0.5 * np.sum(np.sin({extra}))")
    body = "".join(f"    {line}\n" for line in lines)
    source = f"import numpy as np\n\n\ndef prog({', '.join(names[:n_args])}):\n{body}"
    return source, shapes


def _load(source: str, directory: Path):
    """Write ``source`` to a module file and import it (so ``inspect`` can read it)."""
    return load_module(source, directory, "prog").prog


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("programs")


def _check_program(source: str, shapes: list[tuple[int, ...]], seed: int,
                   directory: Path) -> None:
    note(source)
    fn = _load(source, directory)
    rng = np.random.default_rng(seed)
    args = tuple(float(rng.uniform(-1.5, 1.5)) if s == () else rng.uniform(-1.5, 1.5, s)
                 for s in shapes)
    try:
        value = fn(*args)
    except ValueError:  # shapes that do not broadcast: not a program NumPy runs
        assume(False)
    # central differences lose about |f| * 1e-16 / h to rounding (and more to curvature):
    # the tolerance grows with the value, and values near 1e10 (t ** 2 nested four times)
    # are not checkable at all
    scale = float(np.max(np.abs(value)))
    assume(scale < 1e6)
    wrt = tuple(range(len(args)))
    results = []
    for optimize in (True, False):
        g = st.grad(fn, wrt=wrt, optimize=optimize)
        grads = g(*args)
        check_grads(fn, args, lambda *a, grads=grads: grads, atol=1e-6 * max(1.0, scale),
                    rtol=1e-4)  # sin of values in the hundreds: FD's own error is ~1e-5
        joint = g._latest().joint
        by_interpreter = interpret(joint, *args, 1.0)  # grad's joint graph: gradients only
        for got, want in zip(grads, by_interpreter, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)
        results.append(grads)
    for opt, plain in zip(*results, strict=True):
        assert np.shape(opt) == np.shape(plain)
        np.testing.assert_allclose(opt, plain, rtol=1e-10, atol=1e-10 * np.max(np.abs(plain)))


@settings(max_examples=EXAMPLES, deadline=None)
@given(program=programs(), seed=hs.integers(0, 2**32 - 1))
def test_random_elementwise_program(program, seed, program_dir):
    _check_program(*program, seed, program_dir)


@settings(max_examples=EXAMPLES, deadline=None)
@given(program=programs(ARRAY_SHAPES, ARRAY_UNARY + UNARY[:-1], ARRAY_BINARY + BINARY),
       seed=hs.integers(0, 2**32 - 1))
def test_random_array_program(program, seed, program_dir):
    _check_program(*program, seed, program_dir)


def test_programs_strategy_writes_importable_modules(program_dir):
    """A fixed program through the same path: the loader and inspect see the file."""
    source = ("import numpy as np\n\n\ndef prog(x0, x1):\n    t0 = np.sin(x0) * np.tanh(x1)\n"
              "    return np.sum(t0) + 0.5 * np.sum(np.sin(x0))\n")
    fn = _load(source, program_dir)
    x0, x1 = np.array([0.1, 0.2, 0.3]), 0.7
    g0, g1 = st.grad(fn, wrt=(0, 1))(x0, x1)
    np.testing.assert_allclose(g0, np.cos(x0) * np.tanh(x1) + 0.5 * np.cos(x0))
    np.testing.assert_allclose(g1, np.sum(np.sin(x0)) * (1 - np.tanh(x1) ** 2))
