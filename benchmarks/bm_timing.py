"""Timing helpers: timeit-style loops, adaptive loop count, min of repeats.

Many short repeats rather than a few long ones: on a shared machine the load comes in
bursts, and the minimum of many short repeats finds the quiet moments.

Every implementation of one problem is timed in the same process, and the repeats are
*interleaved* (round 1 times every implementation once, then round 2 ...), so that a
burst of load on the machine hits all of them alike instead of one.  The statistic is the
minimum over repeats of (loop time / loops), as ``timeit`` recommends: the minimum is the
run with the least interference, and what remains is the cost of the code itself.

The clock is the process's CPU time (``time.process_time``, all threads) by default, not
wall time: on a small machine shared with other jobs, wall time also counts the moments
this process was not running at all, which made single ratios swing by 2x; CPU time
counts only the work done (with ``--threads 1``, where no library spins idle threads).
``--clock wall`` switches to ``time.perf_counter``, as timeit uses.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Thunk = Callable[[], Any]

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock: Callable[[], float] = CLOCKS["cpu"]


def set_clock(name: str) -> None:
    global clock
    clock = CLOCKS[name]


@dataclass
class Settings:
    """How hard to measure."""

    target_s: float = 0.05  # each repeat runs at least this long (adaptive loop count)
    repeats: int = 15
    max_loops: int = 1_000_000

    @classmethod
    def quick(cls) -> Settings:
        return cls(target_s=0.02, repeats=5)


@dataclass
class Timing:
    """Seconds per call: the minimum over repeats, plus every repeat for the record."""

    best: float
    loops: int
    per_repeat: list[float] = field(default_factory=list)


def _loop(fn: Thunk, n: int) -> float:
    """Seconds for ``n`` calls of ``fn`` with the garbage collector off (as timeit)."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        t0 = clock()
        for _ in range(n):
            fn()
        return clock() - t0
    finally:
        if gc_was_on:
            gc.enable()


def autorange(fn: Thunk, target_s: float, max_loops: int) -> int:
    """The smallest loop count in 1, 2, 5, 10, 20, 50 ... whose loop takes >= target_s."""
    n = 1
    while True:
        for k in (1, 2, 5):
            loops = n * k
            if loops >= max_loops or _loop(fn, loops) >= target_s:
                return min(loops, max_loops)
        n *= 10


def time_many(fns: Sequence[Thunk], settings: Settings) -> list[Timing]:
    """Time several thunks with interleaved repeats; each gets its own loop count."""
    loops = [autorange(f, settings.target_s, settings.max_loops) for f in fns]
    per: list[list[float]] = [[] for _ in fns]
    for _ in range(settings.repeats):
        for i, f in enumerate(fns):
            per[i].append(_loop(f, loops[i]) / loops[i])
    return [Timing(min(p), n, p) for p, n in zip(per, loops)]


def time_one(fn: Thunk, settings: Settings) -> Timing:
    return time_many([fn], settings)[0]


def fmt_seconds(s: float | None) -> str:
    """A short human-readable duration."""
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"
