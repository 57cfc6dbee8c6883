"""Shared pieces of the Python-construct property tests (``test_properties_python.py``,
``test_properties_alias.py``, ``test_properties_orders.py``).

* ``load_module``: write generated source to a ``.py`` file and import it, so the
  compiler reads it with ``inspect`` like any user module;
* ``attempt``: the one outcome rule of these tests.  A compiled call either returns (and
  the caller checks the value against Python and the derivative against central
  differences) or raises a *located refusal*: an ``StAutodiffError`` whose location (or
  message) points into the generated module.  Anything else fails: an internal
  exception (``TypeError``, ``KeyError``...) escaping from ``st_autodiff``, an unlocated
  error, or an ``EvaluationError`` ("the function failed on the example arguments") for
  a program that Python has just run without error;
* ``fd_grad``/``assert_close``: float64 central differences and a tolerance scaled by
  the size of the values compared;
* ``KNOWN_BUGS``/``known``: the one place listing the open compiler bugs these
  generators hit, each with a minimal reproduction in ``test_properties_repros.py``;
  ``known("name")`` gives the non-strict xfail mark of a test that fails because of it.
  Remove an entry (and its marks go) once the bug is fixed.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, settings
from hypothesis.errors import InvalidArgument

from st_autodiff import StAutodiffError
from st_autodiff.errors import EvaluationError
from st_autodiff.testing import numerical_vjp

#: Open compiler bugs the generators hit (name -> reason of the xfail mark).  Each has a
#: strict-xfail reproduction in ``test_properties_repros.py``; a test parametrized with
#: ``known(name)`` is the family of programs that reaches it.
KNOWN_BUGS: dict[str, str] = {
    "stale-globals": "known bug (guards for globals): a compiled function keeps the "
                     "values of globals, closure cells and helpers seen at its first "
                     "call (stale results after they are rebound)",
    # NEW: found by test_containers_as_outputs
    "pytree-outputs": "NEW bug (containers as outputs): vjp of a function returning a "
                      "tuple raises a raw ValueError (inhomogeneous array); jvp gives the "
                      "first output's tangent only; a returned list comes back stacked "
                      "into one array",
    # NEW: found by test_hessian_and_hvp_through_regions (reverse mode), first order
    "vjp-pullback-reuse": "NEW bug (first order): a vjp pullback called a second time "
                          "adds the first call's gradient (buf[i] += ... in a loop): "
                          "silent wrong results, and wrong jacrev/hessian(mode='reverse')",
    "aliasing": "known bug (aliasing): an in-place update of an array that a view or a "
                "list/dict item also holds is not seen through them (wrong value and "
                "gradient, no error): b[1:] then b += 1; [b] then b += 1; d['k'] *= 2",
    "param-kinds": "known bug (parameter kinds): positional-only parameters hide the "
                   "others ('f() takes 1 arguments'); a keyword-only parameter without "
                   "a default raises IndexError inside lower.py",
    "higher-order-regions": "known bug (higher order through nested regions): wrong "
                            "third derivatives through nested for loops, zero Hessians "
                            "through while loops, internal errors (AttributeError, "
                            "errors located in generated code) at order 2 and up",
    "custom-tuple": "known bug (tuple outputs of custom rules): a function with a rule "
                    "that returns a tuple is refused or mis-differentiated",
    "custom-calls": "bug (custom rules, call counts): the first compiled call runs a "
                    "function with a rule 3 times (twice while compiling), not once",
    # NEW (not in the coordinator's list): found by test_properties_containers.py
    "pytree-args": "NEW bug (containers as arguments): jvp silently drops a tuple/list/dict "
                   "tangent (wrong tangent); dict arguments fail with an EvaluationError "
                   "(KeyError) that Python does not raise",
}


#: Bugs of ``KNOWN_BUGS`` that are fixed: tests naming them run unmarked.
FIXED: frozenset[str] = frozenset({
    "stale-globals", "pytree-outputs", "vjp-pullback-reuse", "aliasing", "param-kinds",
    "custom-tuple", "custom-calls", "pytree-args", "higher-order-regions"})


def known(*names: str) -> list[pytest.MarkDecorator]:
    """The non-strict xfail mark (one, in a list for ``pytest.param(marks=...)``) of a
    test that fails because of the named known bugs; ``known(...)[0]`` decorates.  When
    every named bug is fixed the mark is a no-op, so the test must pass."""
    still = [n for n in names if n not in FIXED]
    if not still:  # an xfail whose condition is false marks nothing
        return [pytest.mark.xfail(False, reason="fixed: " + ", ".join(names))]
    return [pytest.mark.xfail(strict=False, reason=" AND ".join(KNOWN_BUGS[n]
                                                                for n in still))]


def property_settings(ci_examples: int) -> settings:
    """Hypothesis settings: ``ci_examples`` derandomized in the CI profile; when
    exploring (a profile that does not derandomize), the profile's budget, or
    ``PROGEN_EXAMPLES`` when set (``benchmarks/explore_properties.py`` sets it)."""
    default = settings.default
    assert default is not None
    budget = os.environ.get("PROGEN_EXAMPLES")
    if budget is not None:
        examples = int(budget)
    elif default.derandomize:
        examples = ci_examples
    else:
        examples = default.max_examples
    # no shrinking in CI (examples are fixed, and the known bugs' minimal reproductions
    # live in test_properties_repros.py; PROGEN_SHRINK=1 turns it on), never the slow
    # explain phase
    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    shrink = not default.derandomize or os.environ.get("PROGEN_SHRINK")
    if shrink and not os.environ.get("PROGEN_NO_SHRINK"):
        phases.append(Phase.shrink)
    return settings(max_examples=examples, phases=phases,
                    deadline=None, database=None,
                    derandomize=default.derandomize,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


#: programs loaded and refusals, per test (``PYTEST_CURRENT_TEST``); written as JSON to
#: the file ``PROGEN_STATS`` names when the process exits (the explore script reads it)
STATS: dict[str, dict[str, int]] = {}


def _count(what: str) -> None:
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0]
    counts = STATS.setdefault(test, {})
    counts[what] = counts.get(what, 0) + 1


def _dump_stats() -> None:
    Path(os.environ["PROGEN_STATS"]).write_text(json.dumps(STATS, indent=1))


if os.environ.get("PROGEN_STATS"):
    atexit.register(_dump_stats)


def load_module(source: str, directory: Path, prefix: str = "prog") -> ModuleType:
    """Write ``source`` to ``directory`` and import it as a fresh module (one program
    generated, for the statistics)."""
    _count("programs")
    name = f"{prefix}_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def _where(exc: StAutodiffError) -> str:
    loc = getattr(exc, "loc", None)
    return f"{loc.file}:{loc.line}" if loc is not None else ""


def attempt(thunk: Callable[[], Any], module: ModuleType, refusals: bool = True,
            generated: bool = False) -> tuple[bool, Any]:
    """``(True, thunk())``, or ``(False, error)`` for a refusal located in ``module``.

    Any other exception propagates (the test fails): an unlocated or misplaced
    ``StAutodiffError``, an ``EvaluationError`` (Python itself ran the program), or an
    internal exception of the compiler.  With ``refusals=False`` (programs made only of
    constructs the compiler documents as accepted) a located refusal fails too.  With
    ``generated`` (derivatives of derivatives), a refusal located in the generated code
    being differentiated again counts as located too: that code is what the compiler
    reads at that order, and users read it with ``.source`` (such refusals are counted,
    as a refusal of valid code is a bug to fix, but not a wrong answer).
    """
    path = str(module.__file__)
    try:
        return True, thunk()
    except EvaluationError as exc:
        raise AssertionError("the compiler's evaluation failed on a program Python ran "
                             f"without error (an internal bug):\n{exc}") from exc
    except StAutodiffError as exc:
        in_generated = generated and "<st_autodiff " in _where(exc) + str(exc)[:200]
        if in_generated:
            _count("refusals in generated code")
        elif path not in _where(exc) and path not in str(exc):
            raise AssertionError(f"refusal not located in the program ({path}):\n{exc}"
                                 ) from exc
        _count("refusals")
        if not refusals:
            raise AssertionError(f"refused a program it should compile:\n{exc}") from exc
        try:
            event("refused: " + _reason(exc))
        except InvalidArgument:  # outside a Hypothesis test: no statistics to keep
            pass
        return False, exc


def _reason(exc: StAutodiffError) -> str:
    """The message of a refusal without its location and names (a statistics key)."""
    text = str(getattr(exc, "message", None) or str(exc).splitlines()[0])
    text = re.sub(r"'[^']*'", "'_'", text.split("error: ")[-1])
    return text[:70]


def as64(a: Any) -> Any:
    """A float64 copy (Python floats stay floats)."""
    return a if isinstance(a, float) else np.array(a, dtype=np.float64)


def fd_grad(f: Callable[..., Any], args: Sequence[Any], nums: Sequence[int],
            eps: float = 1e-6) -> list[np.ndarray]:
    """Central-difference gradients of the scalar ``f`` for the arguments ``nums``."""
    grads = numerical_vjp(f, list(args), 1.0, eps, argnums=list(nums))
    return [np.asarray(grads[i]) for i in nums]


def assert_close(got: Any, want: Any, what: str, rtol: float = 1e-5,
                 atol: float = 1e-6) -> None:
    """``got`` equals ``want`` within ``atol + rtol * |want|`` after scaling ``atol`` by
    the largest entry (values grow with the program; differences grow with them)."""
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape} != {want_a.shape}"
    scale = 1.0 + float(np.max(np.abs(want_a), initial=0.0))
    np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=atol * scale, err_msg=what)


# --- runtime conditions, kept away from their thresholds ----------------------------------

#: a runtime condition must stay this far from its threshold at every evaluation
MARGIN = 1e-2
#: offsets (threshold minus the first value) tried, scaled by the drawn offset, in order
OFFSET_SCALES = (1.0, 1.7, 0.45, -1.0, 2.9, -0.6)


def fix_thresholds(source: str, conds: dict[int, tuple[str, str, float]], entry: str,
                   args: Sequence[Any]) -> str | None:
    """``source`` with each ``__COND{k}__`` replaced by ``expr op threshold``, where the
    threshold is the expression's value at its first evaluation plus its offset, chosen
    so that every evaluation stays ``MARGIN`` away (else None): small perturbations of
    the inputs then never flip a decision.  ``conds[k] = (expr, op, offset)``."""
    hooked = source
    for k, (e, op, _) in conds.items():
        hooked = hooked.replace(f"__COND{k}__", f"_cond({k}, {e}, {op!r})")
    for scale in OFFSET_SCALES:
        thresholds: dict[int, float] = {}
        closest = [np.inf]

        def hook(k: int, value: Any, op: str, thresholds=thresholds, closest=closest,
                 scale=scale) -> bool:
            v = float(value)
            c = thresholds.setdefault(k, v + scale * conds[k][2])
            closest[0] = min(closest[0], abs(v - c))
            return v > c if op == ">" else v < c

        namespace: dict[str, Any] = {"_cond": hook, "np": np}
        exec(compile(hooked, "<hooked>", "exec"), namespace)
        namespace[entry](*args)
        if closest[0] >= MARGIN:
            out = source
            for k, (e, op, _) in conds.items():
                out = out.replace(f"__COND{k}__", f"{e} {op} {thresholds.get(k, 0.0)!r}")
            return out
    return None


class ProgramWriter:
    """What every program generator keeps: the Hypothesis ``draw``, the lines written so
    far, and a counter for fresh names."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.n = 0

    def pick(self, options: list[Any]) -> Any:
        """One of ``options``, drawn."""
        from hypothesis import strategies as hs  # noqa: PLC0415

        return self.draw(hs.sampled_from(options))

    def fresh(self, prefix: str) -> str:
        """A name not used before in this program."""
        self.n += 1
        return f"{prefix}{self.n}"
