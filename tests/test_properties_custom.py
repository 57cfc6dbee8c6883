"""Property tests of custom derivative rules inside programs: functions with a rule from
``st.register_vjp``, ``st.custom_vjp`` or ``st.custom_jvp``, returning one array or a
tuple of two, called from random programs (outputs unpacked, indexed, fed to later
calls).

Checks: ``value_and_grad`` (value against Python's, gradient against central
differences), ``jvp`` against the gradient dotted with the tangent, and call counters:
a function with a rule runs exactly as often as in one Python run of the program on
every compiled call, the first one (which compiles) included, so never at compile time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as hs
from progen import assert_close, attempt, fd_grad, known, load_module, property_settings

import st_autodiff as st

#: the functions with rules each generated module defines (one output, or a pair)
PRELUDE = '''import numpy as np

import st_autodiff as st

CALLS = {"rv1": 0, "rv2": 0, "cv1": 0, "cv2": 0, "cj1": 0, "cj2": 0}


def rv1(a, b):
    CALLS["rv1"] += 1
    return np.sin(a) * b


st.register_vjp(rv1, lambda g, out, a, b: (g * np.cos(a) * b, g * np.sin(a)))


def rv2(a, b):
    CALLS["rv2"] += 1
    return np.sin(a) * b, a * np.cos(b)


def _rv2_rule(g, out, a, b):
    ga, gb = g
    return ga * np.cos(a) * b + gb * np.cos(b), ga * np.sin(a) - gb * a * np.sin(b)


st.register_vjp(rv2, _rv2_rule)


@st.custom_vjp
def cv1(a, b):
    CALLS["cv1"] += 1
    return np.tanh(a) * b


cv1.defvjp(lambda a, b: (np.tanh(a) * b, (a, b)),
           lambda res, g: (g * (1 - np.tanh(res[0]) ** 2) * res[1], g * np.tanh(res[0])))


@st.custom_vjp
def cv2(a, b):
    CALLS["cv2"] += 1
    return np.tanh(a) * b, a + b * b


def _cv2_bwd(res, g):
    a, b = res
    ga, gb = g
    return ga * (1 - np.tanh(a) ** 2) * b + gb, ga * np.tanh(a) + 2 * gb * b


cv2.defvjp(lambda a, b: ((np.tanh(a) * b, a + b * b), (a, b)), _cv2_bwd)


@st.custom_jvp
def cj1(a, b):
    CALLS["cj1"] += 1
    return np.cos(a * b)


@cj1.defjvp
def _cj1_jvp(primals, tangents):
    (a, b), (da, db) = primals, tangents
    return np.cos(a * b), -np.sin(a * b) * (b * da + a * db)


@st.custom_jvp
def cj2(a, b):
    CALLS["cj2"] += 1
    return np.sin(a) * b, np.cos(a * b)


@cj2.defjvp
def _cj2_jvp(primals, tangents):
    (a, b), (da, db) = primals, tangents
    out = (np.sin(a) * b, np.cos(a * b))
    return out, (np.cos(a) * b * da + np.sin(a) * db, -np.sin(a * b) * (b * da + a * db))
'''

UNARY = ["np.sin({a})", "np.tanh({a})", "0.5 * {a}", "{a}", "np.cos({a})"]

#: families: the functions drawn, and the known-bug marks of the family
FAMILIES: dict[str, tuple[list[str], list[pytest.MarkDecorator]]] = {
    "one-output": (["rv1", "cv1", "cj1"], known("custom-calls")),
    "tuple-output": (["rv2", "cv2", "cj2", "rv1"], known("custom-tuple", "custom-calls")),
}


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("custom_programs")


@hs.composite
def custom_programs(draw: hs.DrawFn, functions: list[str]) -> str:
    """``prog(x, y)`` calling the drawn functions with rules on expressions of earlier
    values, some in a two-trip loop; pairs are unpacked or indexed."""
    vecs = ["x", "y"]
    lines = []
    for k in range(draw(hs.integers(1, 4))):
        fn = draw(hs.sampled_from(functions))
        a, b = (draw(hs.sampled_from(UNARY)).format(a=draw(hs.sampled_from(vecs)))
                for _ in range(2))
        call = f"{fn}({a}, {b})"
        new: list[str] = []
        if fn.endswith("2"):
            how = draw(hs.sampled_from(["unpack", "index", "keep"]))
            if how == "unpack":
                new.append(f"p{k}, q{k} = {call}")
                vecs += [f"p{k}", f"q{k}"]
            elif how == "index":
                new.append(f"p{k} = {call}[{draw(hs.sampled_from([0, 1, -1]))}]")
                vecs.append(f"p{k}")
            else:
                new += [f"t{k} = {call}", f"p{k} = t{k}[0] * t{k}[1]"]
                vecs.append(f"p{k}")
        else:
            new.append(f"p{k} = {call}")
            vecs.append(f"p{k}")
        if draw(hs.integers(0, 3)) == 0:  # in a loop: the function runs once per trip
            lines.append(f"for i{k} in range(2):")
            new = ["    " + line for line in new]
        lines += new
    terms = " + ".join(f"np.sum({draw(hs.sampled_from(UNARY)).format(a=v)})"
                       for v in vecs[2:])
    body = "".join(f"    {line}\n" for line in lines)
    return PRELUDE + f"\n\ndef prog(x, y):\n{body}    return {terms}\n"


def _counted(module: Any, thunk: Any) -> tuple[Any, dict[str, int]]:
    for k in module.CALLS:
        module.CALLS[k] = 0
    out = thunk()
    return out, dict(module.CALLS)


@pytest.mark.parametrize("family", [pytest.param(n, marks=m, id=n) for n, (_, m) in
                                    FAMILIES.items()])
def test_custom_rules_in_programs(family: str, program_dir: Path) -> None:
    """Value, gradient, jvp and call counts of programs calling functions with rules."""

    @property_settings(10)
    @given(source=custom_programs(FAMILIES[family][0]), seed=hs.integers(0, 2**32 - 1))
    def run(source: str, seed: int) -> None:
        note(source.split("\n\n\ndef prog")[-1])
        module = load_module(source, program_dir, "custom")
        rng = np.random.default_rng(seed)
        args = [rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3)]
        want_value, want_calls = _counted(module, lambda: module.prog(*args))
        want = fd_grad(module.prog, args, [0, 1])
        vg = st.value_and_grad(module.prog, wrt=(0, 1))
        for call in ("first (compiling)", "second"):
            ok, res = attempt(lambda: _counted(module, lambda: vg(*args)), module)
            if not ok:
                return
            got, calls = res
            assert_close(got[0], want_value, "value", rtol=1e-9, atol=1e-9)
            for i in (0, 1):
                assert_close(got[1][i], want[i], f"gradient of argument {i}")
            assert calls == want_calls, f"{call} call ran the functions {calls}, " \
                                        f"Python {want_calls}"
        tangents = (rng.standard_normal(3), rng.standard_normal(3))
        ok, res = attempt(lambda: _counted(module, lambda: st.jvp(module.prog, args,
                                                                  tangents)), module)
        if ok:
            (out, out_dot), calls = res
            assert_close(out, want_value, "jvp value", rtol=1e-9, atol=1e-9)
            assert_close(out_dot, sum(float(np.sum(w * t)) for w, t in zip(want, tangents)),
                         "jvp tangent")
            assert calls == want_calls, f"jvp ran the functions {calls}, Python {want_calls}"

    run()
