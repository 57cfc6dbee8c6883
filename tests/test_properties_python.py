"""Property tests of Python constructs: parameter kinds, globals rebound between calls,
and containers (lists, tuples, dicts of arrays), inside programs and as arguments.

Every generated module is written to a file and imported (``progen.load_module``), and
every compiled call must give Python's value and the central-difference gradient, or
raise a refusal located in that file (``progen.attempt``).  Families that reach an open
compiler bug carry its xfail mark from ``progen.KNOWN_BUGS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as hs
from progen import as64, assert_close, attempt, fd_grad, known, load_module, property_settings

import st_autodiff as st

UNARY = ["np.sin({a})", "np.tanh({a})", "0.5 * {a}", "{a} * {a}", "np.cos({a})"]


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("python_programs")


# --- parameter kinds -----------------------------------------------------------------------


@dataclass
class Param:
    """One parameter: ``kind`` is posonly, normal, kwonly, varargs or varkw; ``vec``: an
    array of shape (3,) (else a float); ``default``: its source, or None; ``extra``: the
    names a ``*args``/``**kwargs`` parameter receives."""

    name: str
    kind: str
    vec: bool
    default: str | None = None
    extra: tuple[str, ...] = ()


ORDER = {"posonly": 0, "normal": 1, "varargs": 2, "kwonly": 3, "varkw": 4}


def signature(params: list[Param]) -> str:
    out: list[str] = []
    for k, p in enumerate(params):
        if p.kind == "varargs":
            out.append(f"*{p.name}")
        elif p.kind == "varkw":
            out.append(f"**{p.name}")
        else:
            if p.kind == "kwonly" and not any(q.kind in ("kwonly", "varargs")
                                              for q in params[:k]):
                out.append("*")
            out.append(p.name + (f"={p.default}" if p.default else ""))
        nxt = params[k + 1].kind if k + 1 < len(params) else None
        if p.kind == "posonly" and nxt != "posonly":
            out.append("/")
    return ", ".join(out)


@hs.composite
def param_lists(draw: hs.DrawFn, features: frozenset[str], prefix: str) -> list[Param]:
    """Named parameters of the kinds in ``features`` (sorted as Python needs), defaults
    on a suffix of the positional ones and on any keyword-only one, and possibly one
    ``*args`` and one ``**kwargs`` with the names their callers pass."""
    kinds = ["normal"] + [k for k in ("posonly", "kwonly") if k in features]
    n = draw(hs.integers(1, 4))
    chosen = sorted((draw(hs.sampled_from(kinds)) for _ in range(n)), key=ORDER.get)
    params = [Param(f"{prefix}{i}", k, draw(hs.booleans())) for i, k in enumerate(chosen)]
    if "defaults" in features:
        positional = [p for p in params if p.kind != "kwonly"]
        start = draw(hs.integers(1 if positional else 0, len(positional)))
        for p in positional[start:] + [p for p in params if p.kind == "kwonly"
                                        and draw(hs.booleans())]:
            p.default = draw(hs.sampled_from(["D_VEC", "0.35 * D_VEC"])) if p.vec else \
                draw(hs.sampled_from(["0.35", "-1.25", "D_FLOAT"]))
    if "varargs" in features and draw(hs.booleans()):
        extra = tuple(f"{prefix}e{i}" for i in range(draw(hs.integers(1, 2))))
        params.append(Param(f"{prefix}rest", "varargs", True, extra=extra))
    if "varkw" in features and draw(hs.booleans()):
        extra = tuple(f"{prefix}k{i}" for i in range(draw(hs.integers(1, 2))))
        params.append(Param(f"{prefix}kw", "varkw", True, extra=extra))
    params.sort(key=lambda p: ORDER[p.kind])
    return params


def body_terms(params: list[Param]) -> list[str]:
    """One read per value the parameters carry (``rest[i]``, ``kw['k0']`` included)."""
    terms = []
    for p in params:
        if p.kind == "varargs":
            terms += [f"{p.name}[{i}]" for i in range(len(p.extra))]
        elif p.kind == "varkw":
            terms += [f"{p.name}[{k!r}]" for k in p.extra]
        else:
            terms.append(p.name)
    return terms


@hs.composite
def call_forms(draw: hs.DrawFn, params: list[Param]) -> tuple[list[str], list[str]]:
    """A valid call: the names passed positionally (in order) and by keyword (in a drawn
    order); parameters with defaults may be left out.  ``*args`` extras come by
    position after every positional parameter, ``**kwargs`` extras by keyword."""
    pos: list[str] = []
    kw: list[str] = []
    positional = True
    forced = any(p.kind == "varargs" for p in params)
    for p in params:
        if p.kind in ("posonly", "normal"):
            options = []
            if positional:
                options.append("pos")
            if p.kind == "normal" and not forced:
                options.append("kw")
            if p.default is not None and not forced:
                options.append("omit")
            how = draw(hs.sampled_from(options))
            positional = positional and how == "pos"
            (pos if how == "pos" else kw if how == "kw" else []).append(p.name)
        elif p.kind == "varargs":
            pos += list(p.extra)
        elif p.kind == "kwonly":
            if p.default is None or draw(hs.booleans()):
                kw.append(p.name)
        else:
            kw += list(p.extra)
    return pos, draw(hs.permutations(kw))


def render_call(fn: str, pos: list[str], kw: list[str], value: dict[str, str]) -> str:
    return f"{fn}(" + ", ".join([value[n] for n in pos] + [f"{n}={value[n]}" for n in kw]) + ")"


@hs.composite
def param_programs(draw: hs.DrawFn, features: frozenset[str]) -> dict[str, Any]:
    """A module: ``helper`` and ``prog`` with drawn signatures, ``prog`` calling
    ``helper`` in a drawn valid way; and a drawn valid call of ``prog``."""
    hp = draw(param_lists(features, "a"))
    pp = draw(param_lists(features, "x"))
    h_terms = body_terms(hp)
    h_body = " + ".join(f"{draw(hs.sampled_from(UNARY)).format(a=t)} * {t2}"
                        for t, t2 in zip(h_terms, h_terms[1:] + h_terms[:1]))
    p_terms = body_terms(pp)
    pos, kw = draw(call_forms(hp))
    value = {n: draw(hs.sampled_from(UNARY)).format(a=draw(hs.sampled_from(p_terms)))
             for n in pos + kw}
    call = render_call("helper", pos, kw, value)
    extra = " + ".join(f"np.sum({draw(hs.sampled_from(UNARY)).format(a=t)})" for t in p_terms)
    source = ("import numpy as np\n\nD_FLOAT = 0.8\nD_VEC = np.array([0.5, -0.3, 1.1])\n\n\n"
              f"def helper({signature(hp)}):\n    return {h_body}\n\n\n"
              f"def prog({signature(pp)}):\n    t = {call}\n"
              f"    return np.sum(t * {p_terms[0]}) + {extra}\n")
    top_pos, top_kw = draw(call_forms(pp))
    named = [p for p in pp if p.kind not in ("varargs", "varkw")]
    wrt_params = draw(hs.lists(hs.sampled_from(named), min_size=1, max_size=len(named),
                               unique_by=lambda p: p.name))
    by_name = draw(hs.booleans())
    # positions index the positional arguments (JAX's argnums); keyword-only ones are named
    wrt = [p.name if by_name or p.kind == "kwonly" else pp.index(p) for p in wrt_params]
    single = len(wrt) == 1 and draw(hs.booleans())
    return {"source": source, "params": pp, "pos": top_pos, "kw": top_kw,
            "wrt": wrt[0] if single else tuple(wrt), "wrt_names": [p.name for p in wrt_params],
            "mode": draw(hs.sampled_from(["grad", "value_and_grad"])),
            "variadic": any(p.kind in ("varargs", "varkw") for p in hp + pp)}


def _values(params: list[Param], module: Any, rng: np.random.Generator) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for p in params:
        names = p.extra if p.kind in ("varargs", "varkw") else (p.name,)
        for n in names:
            values[n] = rng.uniform(-1.5, 1.5, 3) if p.vec or p.kind in (
                "varargs", "varkw") else float(rng.uniform(-1.5, 1.5))
        if p.default is not None:
            values[p.name + "#default"] = eval(p.default, vars(module))
    return values


def _full_call(prog: Any, params: list[Param], values: dict[str, Any]) -> Any:
    """Call ``prog`` with every parameter given (omitted ones at their defaults)."""
    def get(n: str) -> Any:
        return values[n] if n in values else values[n + "#default"]

    pos: list[Any] = []
    kw: dict[str, Any] = {}
    for p in params:
        if p.kind in ("posonly", "normal"):
            pos.append(get(p.name))
        elif p.kind == "varargs":
            pos += [values[n] for n in p.extra]
        elif p.kind == "kwonly":
            kw[p.name] = get(p.name)
        else:
            kw.update({n: values[n] for n in p.extra})
    return prog(*pos, **kw)


PARAM_FEATURES = {
    "keyword-defaults": (frozenset({"defaults"}), []),
    "keyword-only": (frozenset({"kwonly", "defaults"}), known("param-kinds")),
    "positional-only": (frozenset({"posonly", "defaults"}), known("param-kinds")),
    "all-named-kinds": (frozenset({"posonly", "kwonly", "defaults"}), known("param-kinds")),
    "varargs": (frozenset({"varargs", "defaults"}), []),
    "varkw": (frozenset({"varkw", "kwonly"}), known("param-kinds")),
}


def _param_cases() -> list[Any]:
    return [pytest.param(name, marks=marks, id=name)
            for name, (_, marks) in PARAM_FEATURES.items()]


@pytest.mark.parametrize("family", _param_cases())
def test_parameter_kinds(family: str, program_dir: Path) -> None:
    """``grad``/``value_and_grad`` of programs whose function and inlined helper take
    positional-only, keyword-only, defaulted, ``*args`` and ``**kwargs`` parameters,
    called positionally and by keyword, ``wrt`` by name or position."""
    features = PARAM_FEATURES[family][0]

    @property_settings(12)
    @given(case=param_programs(features), seed=hs.integers(0, 2**32 - 1))
    def run(case: dict[str, Any], seed: int) -> None:
        note(case["source"])
        module = load_module(case["source"], program_dir, "params")
        params: list[Param] = case["params"]
        values = _values(params, module, np.random.default_rng(seed))
        for p in params:  # left out of the call: the default is the value
            if p.kind in ("posonly", "normal", "kwonly") and p.name not in case["pos"] + \
                    case["kw"]:
                del values[p.name]
        args = [values[n] for n in case["pos"]]
        kwargs = {n: values[n] for n in case["kw"]}
        note(f"call prog(*{case['pos']}, **{case['kw']}), wrt={case['wrt']!r}, "
             f"{case['mode']}")
        want_value = module.prog(*args, **kwargs)
        names = case["wrt_names"]

        def f(*x: Any) -> Any:
            return _full_call(module.prog, params, {**values, **dict(zip(names, x))})

        point = [as64(values.get(n, values.get(n + "#default"))) for n in names]
        want = fd_grad(f, point, range(len(names)))
        maker = st.grad if case["mode"] == "grad" else st.value_and_grad
        gfn = maker(module.prog, wrt=case["wrt"])
        # named parameters of every kind are plain Python: no refusal is right
        ok, got = attempt(lambda: gfn(*args, **kwargs), module, refusals=case["variadic"])
        if not ok:
            return
        if case["mode"] == "value_and_grad":
            value, got = got
            assert_close(value, want_value, "value", rtol=1e-9, atol=1e-9)
        got = [got] if not isinstance(case["wrt"], tuple) else list(got)
        assert len(got) == len(names)
        for n, g, w in zip(names, got, want):
            assert_close(g, w, f"gradient of {n}")

    run()


# --- globals, closure cells and helpers rebound between calls ----------------------------

GLOBAL_REFS = ["C0", "A0", "helper({e})", "k"]
#: families of rebinding (test ids) -> the mutations drawn, and known-bug marks
MUTATIONS: dict[str, tuple[list[str], list[pytest.MarkDecorator]]] = {
    "float-global": (["C0", "C0-array"], known("stale-globals")),
    "array-global": (["A0"], known("stale-globals")),
    "array-in-place": (["A0-inplace", "A0-augmented"], []),
    "helper-function": (["helper"], known("stale-globals")),
    "closure-cell": (["cell"], known("stale-globals")),
}


@hs.composite
def global_programs(draw: hs.DrawFn, mutations: list[str]) -> dict[str, Any]:
    """``prog(x)`` (a closure of ``make``) reading module globals, a closure cell and a
    global helper; and a sequence of rebindings to apply between calls."""
    terms = []
    for _ in range(draw(hs.integers(1, 4))):
        ref = draw(hs.sampled_from(GLOBAL_REFS)).format(
            e=draw(hs.sampled_from(UNARY)).format(a="x"))
        terms.append(f"np.sum({draw(hs.sampled_from(UNARY)).format(a='x')} * {ref})")
    source = ("import numpy as np\n\nC0 = 0.7\nA0 = np.array([0.3, -0.4, 0.9])\n\n\n"
              "def helper(v):\n    return np.sin(v) * C0\n\n\n"
              "def helper_alt(v):\n    return np.cos(v) * A0\n\n\n"
              "def make(k):\n    def prog(x):\n"
              f"        return {' + '.join(terms)} + 0.0 * k\n    return prog\n\n\n"
              "prog = make(1.3)\n")
    muts = draw(hs.lists(hs.sampled_from(mutations), min_size=1, max_size=3))
    return {"source": source, "mutations": muts}


def _mutate(module: Any, what: str, rng: np.random.Generator) -> None:
    if what == "C0":
        module.C0 = float(rng.uniform(-2, 2))
    elif what == "C0-array":
        module.C0 = rng.uniform(-2, 2, 3)
    elif what == "A0":
        module.A0 = rng.uniform(-2, 2, 3)
    elif what == "A0-inplace":
        module.A0[int(rng.integers(3))] = float(rng.uniform(-2, 2))
    elif what == "A0-augmented":
        module.A0 *= float(rng.uniform(0.5, 2))
    elif what == "helper":
        module.helper, module.helper_alt = module.helper_alt, module.helper
    else:
        module.prog.__closure__[0].cell_contents = float(rng.uniform(-2, 2))


@pytest.mark.parametrize("family", [pytest.param(name, marks=marks, id=name) for name, (_, marks)
                                    in MUTATIONS.items()])
def test_globals_rebound_between_calls(family: str, program_dir: Path) -> None:
    """One ``grad`` and one ``value_and_grad`` object, called again after each rebinding
    of a global (float, array, helper function), a closure cell, or an in-place change
    of a global array: each result must match a fresh finite difference."""

    @property_settings(6)
    @given(case=global_programs(MUTATIONS[family][0]), seed=hs.integers(0, 2**32 - 1))
    def run(case: dict[str, Any], seed: int) -> None:
        _rebound(case, seed, program_dir)

    run()


def _rebound(case: dict[str, Any], seed: int, program_dir: Path) -> None:
    note(case["source"])
    note(f"mutations: {case['mutations']}")
    module = load_module(case["source"], program_dir, "globals")
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.5, 1.5, 3)
    g = st.grad(module.prog)
    vg = st.value_and_grad(module.prog)
    for step, what in enumerate([None, *case["mutations"]]):
        if what is not None:
            _mutate(module, what, rng)
        want = fd_grad(module.prog, [x], [0])[0]
        ok, got = attempt(lambda: g(x), module)
        if ok:
            assert_close(got, want, f"gradient after {case['mutations'][:step]}")
        ok, got = attempt(lambda: vg(x), module)
        if ok:
            assert_close(got[0], module.prog(x), f"value after {case['mutations'][:step]}",
                         rtol=1e-9, atol=1e-9)
            assert_close(got[1], want, f"gradient after {case['mutations'][:step]}")
