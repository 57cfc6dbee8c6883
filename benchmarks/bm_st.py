"""st_autodiff's side of the benchmark: which function it differentiates, and the costs
that only it has: first-call (compile) time, cached-call overhead, peak memory.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import statistics
import tempfile
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import bm_timing
import numpy as np
from bm_problems import Problem
from bm_source import import_source
from bm_timing import Settings, time_many

import st_autodiff as st

_TMP = tempfile.mkdtemp(prefix="st_autodiff_bench_")
_counter = itertools.count()
_shift = itertools.count()


def cleanup() -> None:
    shutil.rmtree(_TMP, ignore_errors=True)


def load_module_source(source: str, stem: str) -> Any:
    """Write ``source`` to a fresh module file and import it (a new code object)."""
    return import_source(source, f"_stbench_{stem}_{os.getpid()}_{next(_counter)}", _TMP)


def fresh_copy(fn: Callable) -> Callable:
    """The same function from a brand-new module file, shifted down by a unique number of
    blank lines: no cache of st_autodiff, nor linecache, has seen its code object.

    The shift matters: code objects compare equal when only ``co_filename`` differs, so a
    plain copy of the file would hit st_autodiff's per-code-object parse cache."""
    path = fn.__code__.co_filename
    with open(path) as fh:
        src = fh.read()
    mod = load_module_source("\n" * (next(_shift) + 1) + src, fn.__name__)
    return getattr(mod, fn.__name__)


@dataclass
class StFunction:
    fn: Callable | None  # what st.grad differentiates (None: unsupported or failed)
    form: str  # "loop" | "unrolled" | "as written" | "unsupported" | "error"
    note: str = ""
    g: Any = None  # st.grad(fn), already called once with the benchmark's arguments
    first_call_s: float | None = None  # that first call, when fn was brand new (unrolled)

    def thunk(self, args: tuple) -> Callable[[], Any]:
        g = self.g

        def call() -> Any:
            return g(*args)
        return call


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message, without a diagnostic's ``file:line:col:
    error:`` prefix; other than ``CompileError``s are prefixed with their type name."""
    text = str(exc).strip()
    line = re.sub(r"^.*?error: ", "", text.splitlines()[0]) if text else ""
    if isinstance(exc, st.CompileError):
        return line
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


def _compile(fn: Callable, wrt: tuple[int, ...], args: tuple) -> tuple[Any, float]:
    """``st.grad(fn)`` and its first call on ``args``; the seconds that took."""
    t0 = bm_timing.clock()
    g = st.grad(fn, wrt=wrt)
    g(*args)
    return g, bm_timing.clock() - t0


def choose(problem: Problem, args: tuple) -> StFunction:
    """The loop form when the compiler accepts it, else the unrolled one (see bm_problems).

    Support is detected by compiling the function as written once: a ``CompileError``
    (base of every diagnostic the compiler raises on purpose, e.g. "for loops are not
    supported") means "unsupported"; with an unrolled form, that one is timed instead.
    Any other exception is a compiler failure, reported as an error, never raised.  The
    returned ``g`` has compiled for ``args`` (compile time is not in the timings)."""
    try:
        g, _ = _compile(problem.forward, problem.wrt, args)
        loop = problem.unrolled is not None or problem.group == "loops"
        return StFunction(problem.forward, "loop" if loop else "as written", g=g)
    except st.CompileError as exc:
        reason, form = first_line(exc), "unsupported"
    except Exception as exc:  # a crash inside the compiler is a result, not a crash here
        reason, form = first_line(exc), "error"
    if problem.unrolled is None:
        return StFunction(None, form, reason)
    name, src = problem.unrolled()
    try:
        fn = getattr(load_module_source(src, name), name)
        g, first_s = _compile(fn, problem.wrt, args)
    except Exception as exc:
        return StFunction(None, "error", f"loop form: {reason}; unrolled form: "
                          f"{first_line(exc)}")
    what = "rejected" if form == "unsupported" else "failed"
    return StFunction(fn, "unrolled", f"loop form {what} ({reason}); "
                      "timed the unrolled source", g=g, first_call_s=first_s)


# --------------------------------------------------------------------------------------
# First call: parse -> lower -> ... -> loaded code, plus one run of the generated code
# --------------------------------------------------------------------------------------


@dataclass
class FirstCall:
    problem: str
    form: str
    cached_call_s: float
    warm_parse_s: list[float] = field(default_factory=list)  # same fn, new st.grad object
    fresh_s: list[float] = field(default_factory=list)  # new module file every time

    def summary(self) -> dict[str, Any]:
        def stat(xs: list[float]) -> dict[str, float] | None:
            if not xs:
                return None
            comp = [x - self.cached_call_s for x in xs]
            return {"first_call_min_s": min(xs), "first_call_median_s": statistics.median(xs),
                    "compile_min_s": min(comp), "compile_median_s": statistics.median(comp),
                    "n": len(xs)}
        return {"problem": self.problem, "form": self.form,
                "cached_call_s": self.cached_call_s,
                "warm_parse_cache": stat(self.warm_parse_s),
                "fresh_function": stat(self.fresh_s)}


def _first_call(fn: Callable, wrt: tuple[int, ...], args: tuple) -> float:
    t0 = bm_timing.clock()
    st.grad(fn, wrt=wrt)(*args)
    return bm_timing.clock() - t0


def first_call(problem: Problem, chosen: StFunction, settings: Settings,
               quick: bool) -> FirstCall | None:
    """Time first calls on ``problem.compile_inputs`` (small arrays of the same kinds), so
    that what is timed is the compiler plus a negligible run.  Repeats shrink when one
    compile is slow (unrolled sources)."""
    if chosen.fn is None:
        return None
    budget = 1.0 if quick else 4.0
    max_n = 3 if quick else 7
    if quick and chosen.first_call_s is not None and chosen.first_call_s > budget:
        # a slow compile (unrolled source): --quick reuses choose()'s first call, made on
        # the benchmark's own (small) arguments
        args = problem.inputs(np.random.default_rng(0))
        g = chosen.g
        fc = FirstCall(problem.name, chosen.form,
                       time_many([lambda: g(*args)], settings)[0].best)
        fc.fresh_s.append(chosen.first_call_s)
        return fc
    make = problem.compile_inputs or problem.inputs
    args = make(np.random.default_rng(0))
    g = st.grad(chosen.fn, wrt=problem.wrt)
    g(*args)
    fc = FirstCall(problem.name, chosen.form, time_many([lambda: g(*args)], settings)[0].best)
    for bucket, get_fn in ((fc.fresh_s, lambda: fresh_copy(chosen.fn)),
                           (fc.warm_parse_s, lambda: chosen.fn)):
        spent = 0.0
        while len(bucket) < max_n and (not bucket or spent < budget):
            fn = get_fn()  # the import of a fresh copy is not timed
            t = _first_call(fn, problem.wrt, args)
            bucket.append(t)
            spent += t
    return fc


# --------------------------------------------------------------------------------------
# Cached-call overhead: g(*args) minus the generated function called directly
# --------------------------------------------------------------------------------------


def tiny_sumsq(x):
    return np.sum(x * x)


def tiny_mixed(x, a, n):
    return np.sum(np.sin(x) * a) * n


def tiny_six(a, b, c, d, e, f):
    return np.sum(a * b)


@dataclass
class Overhead:
    case: str
    g_s: float
    direct_s: float

    @property
    def overhead_s(self) -> float:
        return self.g_s - self.direct_s


def overheads(settings: Settings) -> list[Overhead]:
    rng = np.random.default_rng(1)
    cases = [
        ("1 array arg: sum(x*x), x f64[3]", tiny_sumsq, (0,), (rng.standard_normal(3),)),
        ("array, float, int args: x f64[3]", tiny_mixed, (0, 1),
         (rng.standard_normal(3), 0.5, 3)),
        ("6 array args: sum(a*b), a..f f64[3]", tiny_six, (0,),
         tuple(rng.standard_normal(3) for _ in range(6))),
    ]
    hi = Settings(target_s=max(settings.target_s, 0.05), repeats=max(settings.repeats, 5) + 6)
    out = []
    for label, fn, wrt, args in cases:
        g = st.grad(fn, wrt=wrt)
        g(*args)
        direct = g.__wrapped__
        tg, td = time_many([lambda g=g, a=args: g(*a), lambda d=direct, a=args: d(*a)], hi)
        out.append(Overhead(label, tg.best, td.best))
    return out


# --------------------------------------------------------------------------------------
# Peak memory (tracemalloc sees NumPy's data allocations)
# --------------------------------------------------------------------------------------


def peak_bytes(thunk: Callable[[], Any]) -> int:
    """Peak traced memory above what was allocated before the call (result included)."""
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        res = thunk()
        _, peak = tracemalloc.get_traced_memory()
        del res
    finally:
        tracemalloc.stop()
    return peak - base
