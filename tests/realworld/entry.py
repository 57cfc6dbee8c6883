"""Corpus entries and the one check they all go through.

An entry is a small user wrapper (``def loss(x, ...)``) that calls a function imported
from an installed package, example float64 arguments and the positions to differentiate.
``outcome(entry)`` compiles it with ``st.value_and_grad`` and sorts the result into:

* ``pass``: the value equals the wrapper called directly and the gradient agrees with
  float64 central differences (and with the package's own analytic gradient where the
  entry names one);
* ``refused``: an ``st_autodiff.StAutodiffError`` whose location names a file and line;
* ``wrong``: a wrong value or gradient, a NaN where differences are finite, an
  ``StAutodiffError`` without a location, or any other exception (an unlocated crash).

Only ``wrong`` fails a test.  Outcomes are cached per entry so the count test and the
report reuse the per-entry runs of the same process.
"""

from __future__ import annotations

import copy
import os
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import st_autodiff as st
from st_autodiff.testing import numerical_vjp

#: Value agreement between the compiled function and the wrapper run directly.
VALUE_RTOL, VALUE_ATOL = 1e-9, 1e-12


@dataclass(eq=False)
class Entry:
    """One corpus function: wrapper, example arguments, what to differentiate, the check."""

    name: str
    package: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    wrt: tuple[int, ...] = (0,)
    #: The package's own analytic gradient: ``ref(*args)`` gives one array per ``wrt``.
    ref: Callable[..., tuple[Any, ...]] | None = None
    #: Known wrong result today: names the bug (the test is a strict xfail).
    xfail: str | None = None
    atol: float = 1e-6
    rtol: float = 1e-5
    eps: float = 1e-6
    #: Module globals or closure variables of ``fn`` the user rebinds between two calls
    #: of one compiled gradient (a notebook or a training loop does): the second call
    #: must see the new values.
    rebind: dict[str, Any] | None = None
    #: Also check forward mode (``st.jvp`` along a random tangent, against a central
    #: difference) and ``st.hessian`` of the first ``wrt`` argument in both modes
    #: (against central differences of the checked gradient).
    modes: bool = False


@dataclass
class Registry:
    """The entries of one corpus module; ``@reg.entry(*args)`` adds a wrapper."""

    package: str
    entries: list[Entry] = field(default_factory=list)

    def entry(self, *args: Any, wrt: tuple[int, ...] = (0,), ref: Any = None,
              xfail: str | None = None, atol: float = 1e-6, rtol: float = 1e-5,
              eps: float = 1e-6, rebind: dict[str, Any] | None = None,
              modes: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the decorated wrapper with example ``args``; returns it unchanged."""

        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add(fn.__name__, fn, *args, wrt=wrt, ref=ref, xfail=xfail, atol=atol,
                     rtol=rtol, eps=eps, rebind=rebind, modes=modes)
            return fn

        return add

    def add(self, name: str, fn: Callable[..., Any], *args: Any, **options: Any) -> None:
        """Register ``fn`` (a wrapper or a bound method) under ``name``."""
        if any(e.name == name for e in self.entries):
            raise ValueError(f"duplicate corpus entry {name}")
        self.entries.append(Entry(name, self.package, fn, tuple(args), **options))


@dataclass
class Outcome:
    """What st_autodiff did with one entry: ``status`` is pass, refused or wrong."""

    status: str
    message: str = ""
    cause: str = ""
    location: str = ""


_CACHE: dict[tuple[str, str], Outcome] = {}


def outcome(entry: Entry) -> Outcome:
    """The (cached) outcome of ``entry``."""
    key = (entry.package, entry.name)
    if key not in _CACHE:
        _CACHE[key] = _run(entry)
    return _CACHE[key]


def _fresh(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return copy.deepcopy(args)


_LINE_OF_FILE = re.compile(r"line (\d+) of (\S+?)[:,]?\s")
NO_RULE = re.compile(r"call to (.+?) has no derivative rule")


def _no_rule_kind(name: str) -> str:
    """What kind of callee a missing-rule refusal names (for grouping)."""
    last = name.rsplit(".", 1)[-1]
    if name.startswith("ufunc"):
        return "a ufunc (scipy.special, ufunc methods)"
    if name.startswith("numpy.random."):
        return "a NumPy random generator"
    if name.startswith("numpy."):
        return "a NumPy function"
    if "." not in name or name.startswith(("_warnings.", "logging.")):
        return "a Python builtin, logging or warnings"
    if last[:1].isupper():
        return "a class (building an object)"
    return "a method of an object"


def cause_of(message: str) -> str:
    """A short cause for grouping refusals: the error line, with names and details elided."""
    line = message.splitlines()[0]
    line = line.split(": error: ", 1)[-1]
    callee = NO_RULE.search(line)
    if callee:
        return f"call to {_no_rule_kind(callee.group(1))} that has no derivative rule"
    line = re.sub(r"ord=\S+ ", "ord=… ", line)
    line = re.sub(r"^error: ", "", line)
    line = _LINE_OF_FILE.sub("line … of … ", line + " ").strip()
    line = re.sub(r"'[^']*'", "'…'", line)
    line = re.sub(r"\([^()]*\)", "", line).strip()
    line = re.sub(r"^[\w.]+\.(\w+) got", r"… got", line)
    return line


def _located(exc: BaseException) -> str:
    """``file:line`` of the error's location, or of a "line N of FILE" in its message."""
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "file", "") and getattr(loc, "line", 0):
        return f"{loc.file}:{loc.line}"
    named = _LINE_OF_FILE.search(str(exc).splitlines()[0] + " ")
    return f"{named.group(2)}:{named.group(1)}" if named else ""


def _failure(exc: Exception) -> Outcome:
    """A located refusal, or a wrong outcome for an unlocated error or a crash."""
    if isinstance(exc, st.StAutodiffError):
        where = _located(exc)
        if not where:
            return Outcome("wrong", f"unlocated {type(exc).__name__}: {exc}")
        return Outcome("refused", str(exc), f"{type(exc).__name__}: {cause_of(str(exc))}",
                       where)
    tb = traceback.format_exception(exc)  # anything else from inside st_autodiff
    return Outcome("wrong", f"unlocated crash {type(exc).__name__}: {exc}\n" + "".join(tb[-6:]))


def _run(entry: Entry) -> Outcome:
    try:
        vg = st.value_and_grad(entry.fn, wrt=entry.wrt)
        value, grads = vg(*_fresh(entry.args))
    except Exception as exc:
        return _failure(exc)
    first = _compare(entry, value, grads)
    if first.status == "pass" and entry.modes:
        first = _check_modes(entry)
    if first.status != "pass" or not entry.rebind:
        return first
    names = _free_names(entry.fn)
    saved = {name: names[name].get() for name in entry.rebind}
    for name, value in entry.rebind.items():
        names[name].set(value)
    try:
        value, grads = vg(*_fresh(entry.args))
        second = _compare(entry, value, grads)
    finally:
        for name, value in saved.items():
            names[name].set(value)
    if second.status != "pass":
        second.message = f"after rebinding {sorted(entry.rebind)}: {second.message}"
    return second


@dataclass
class _Slot:
    """A free name of a function: a closure cell or a module global."""

    get: Callable[[], Any]
    set: Callable[[Any], None]


def _free_names(fn: Callable[..., Any]) -> dict[str, _Slot]:
    """The closure cells and module globals ``fn`` reads, by name (cells win)."""
    slots = {name: _Slot(lambda n=name: fn.__globals__[n],
                         lambda v, n=name: fn.__globals__.__setitem__(n, v))
             for name in fn.__code__.co_names if name in fn.__globals__}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        slots[name] = _Slot(lambda c=cell: c.cell_contents,
                            lambda v, c=cell: setattr(c, "cell_contents", v))
    return slots


def _forward_differences(entry: Entry, nums: list[int]) -> list[Any]:
    """Second-order one-sided differences ``(-3 f(x) + 4 f(x + h) - f(x + 2 h)) / 2h``:
    the derivative from inside the domain where the library refuses ``x - h``."""
    args = [np.asarray(a, dtype=np.float64) if i in nums else a
            for i, a in enumerate(entry.args)]
    h = entry.eps
    f0 = float(np.sum(entry.fn(*_fresh(args))))
    out: list[Any] = [None] * len(args)
    for i in nums:
        grad = np.zeros(np.shape(args[i]))
        for j in range(grad.size):
            vals = []
            for k in (1, 2):
                moved = list(args)
                moved[i] = args[i].copy()
                moved[i].flat[j] += k * h
                vals.append(float(np.sum(entry.fn(*_fresh(moved)))))
            grad.flat[j] = (-3 * f0 + 4 * vals[0] - vals[1]) / (2 * h)
        out[i] = grad
    return out


def _compare(entry: Entry, value: Any, grads: tuple[Any, ...]) -> Outcome:
    expected = entry.fn(*_fresh(entry.args))
    if not np.allclose(value, expected, rtol=VALUE_RTOL, atol=VALUE_ATOL, equal_nan=False):
        return Outcome("wrong", f"value {value!r}, expected {expected!r}")
    nums = list(entry.wrt)
    try:
        fd = numerical_vjp(lambda *a: entry.fn(*_fresh(a)), entry.args, 1.0, entry.eps,
                           argnums=nums)
    except ValueError:  # a point on the edge of the domain (sklearn refuses x < 0 at x = 0)
        fd = _forward_differences(entry, nums)
    refs = entry.ref(*_fresh(entry.args)) if entry.ref is not None else None
    for k, i in enumerate(nums):
        got = np.asarray(grads[k], dtype=np.float64)
        if got.shape != np.shape(entry.args[i]):
            return Outcome("wrong", f"gradient of argument {i} has shape {got.shape}, "
                           f"expected {np.shape(entry.args[i])}")
        checks = [("central differences", fd[i])]
        if refs is not None:
            checks.append(("the package's analytic gradient", np.asarray(refs[k])))
        for what, want in checks:
            if not np.all(np.isfinite(want)):
                raise AssertionError(f"{entry.name}: {what} not finite at the example "
                                     "arguments; choose other arguments")
            err = np.abs(got - want)
            if np.isnan(err).any() or (err > entry.atol + entry.rtol * np.abs(want)).any():
                return Outcome("wrong", f"gradient of argument {i}: got {got!r}, "
                               f"{what} give {want!r}")
    return Outcome("pass")


def _jvp_outcome(entry: Entry) -> Outcome | None:
    """``st.jvp`` along a random tangent against a central difference (None when right)."""
    rng = np.random.default_rng(0)
    tangents: list[Any] = [None] * len(entry.args)
    for i in entry.wrt:
        tangents[i] = rng.standard_normal(np.shape(entry.args[i]))

    def along(t: float) -> Any:
        args = list(_fresh(entry.args))
        for i in entry.wrt:
            args[i] = np.asarray(args[i], dtype=np.float64) + t * tangents[i]
        return entry.fn(*args)

    want = (along(1e-6) - along(-1e-6)) / 2e-6
    try:
        _, got = st.jvp(entry.fn, _fresh(entry.args), tuple(tangents))
    except Exception as exc:
        out = _failure(exc)
        out.message = f"st.jvp: {out.message}"
        return out
    if not np.allclose(got, want, atol=1e-6, rtol=1e-5):
        return Outcome("wrong", f"st.jvp gives {got!r}, a central difference {want!r}")
    return None


def _check_modes(entry: Entry) -> Outcome:
    """Forward mode and ``st.hessian`` in both modes; the worst outcome wins."""
    i = entry.wrt[0]
    x = np.asarray(entry.args[i], dtype=np.float64)
    grad = st.grad(entry.fn, wrt=i)

    def grad_at(xi: np.ndarray) -> np.ndarray:
        args = list(_fresh(entry.args))
        args[i] = xi
        return np.asarray(grad(*args), dtype=np.float64).ravel()

    cols = []
    for j in range(x.size):
        step = np.zeros(x.size)
        step[j] = 1e-5
        step = step.reshape(x.shape)
        cols.append((grad_at(x + step) - grad_at(x - step)) / 2e-5)
    want = np.stack(cols, axis=1)
    outcomes = [o for o in [_jvp_outcome(entry)] if o is not None]
    for mode in ("forward", "reverse"):
        try:
            got = st.hessian(entry.fn, wrt=i, mode=mode)(*_fresh(entry.args))
        except Exception as exc:
            out = _failure(exc)
            out.message = f"st.hessian(mode={mode!r}): {out.message}"
            outcomes.append(out)
            continue
        got = np.asarray(got, dtype=np.float64).reshape(x.size, x.size)
        if not np.allclose(got, want, atol=1e-4, rtol=1e-4):
            outcomes.append(Outcome("wrong", f"st.hessian(mode={mode!r}) gives {got!r}, "
                                    f"central differences of the gradient give {want!r}"))
    order = {"wrong": 0, "refused": 1}
    return min(outcomes, key=lambda o: order[o.status], default=Outcome("pass"))


def describe(entry: Entry) -> str:
    """Where the entry's wrapper is defined, for messages: ``file:line``."""
    code = getattr(entry.fn, "__code__", None) or getattr(
        getattr(entry.fn, "__func__", None), "__code__", None)
    if code is None:
        return entry.name
    return f"{os.path.relpath(code.co_filename)}:{code.co_firstlineno}"


def params(entries: list[Entry]) -> list[Any]:
    """One pytest param per entry; known wrong results are strict xfails naming the bug."""
    import pytest

    return [pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=e.xfail)]
                         if e.xfail else []) for e in entries]


def assert_ok(entry: Entry) -> None:
    """The entry passes or is refused with a location; anything else fails the test."""
    got = outcome(entry)
    assert got.status in ("pass", "refused"), f"{describe(entry)} {entry.name}: {got.message}"
