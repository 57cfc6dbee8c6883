"""The corpus registry: one ``Entry`` per function, registered with ``@case``.

An entry is a function written with the NumPy subset the compiler accepts, a builder of
in-domain float64 inputs (seeded per entry, so runs are reproducible), the arguments to
differentiate (``wrt``, as ``st.grad`` takes it) and a short category tag.  ``float32``
(on unless an entry turns it off) also checks the entry with float32 inputs: their
gradients must be float32 and pass the gradient check at float32 tolerance.  ``xfail``
is the reason an entry fails because of a known compiler bug and ``xfail_checks`` names
the checks of ``tests/test_corpus.py`` it fails (all of them when empty).
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the checks of tests/test_corpus.py (and of tests/test_corpus_modes.py: ``jvp`` and
#: ``second_order``), as ``xfail_checks`` names them
CHECKS = ("domain", "fd", "value_and_grad", "optimizer", "interpreter", "verify",
          "deterministic", "float32", "jvp", "second_order", "hvp_forward",
          "hvp_reverse")

CATEGORIES = ("elementwise", "reduction", "linalg", "shape", "indexing", "select", "syntax",
              "calls", "methods", "aux", "model")

#: the categories of ``control.py`` (statement-level control flow, in-place writes, lists
#: and dicts); kept apart from ``CATEGORIES`` until the package imports ``control``, since
#: ``tests/test_corpus.py`` wants an entry in every one of ``CATEGORIES``
CONTROL_CATEGORIES = ("branch", "loop", "while", "inplace", "list", "dict")

Builder = Callable[[np.random.Generator], tuple]


@dataclass(frozen=True)
class Entry:
    """One corpus function and how to check it (see the module docstring)."""

    fn: Callable[..., Any]
    make_args: Builder
    wrt: int | str | tuple[int | str, ...]
    category: str
    has_aux: bool = False
    float32: bool = True
    xfail: str | None = None
    xfail_checks: tuple[str, ...] = ()

    def fails(self, check: str) -> bool:
        """Whether ``check`` is expected to fail (a known compiler bug)."""
        return self.xfail is not None and (not self.xfail_checks or check in self.xfail_checks)

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def positions(self) -> tuple[int, ...]:
        """``wrt`` as a tuple of argument positions."""
        names = list(inspect.signature(self.fn).parameters)
        items = self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)
        return tuple(names.index(w) if isinstance(w, str) else w % len(names) for w in items)

    def args(self, dtype: Any = np.float64) -> tuple:
        """Fresh inputs; floating-point arrays and floats are cast to ``dtype``."""
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        out = []
        for a in self.make_args(rng):
            if isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating):
                a = a.astype(dtype)
            elif isinstance(a, float) and dtype != np.float64:
                a = np.dtype(dtype).type(a)
            out.append(a)
        return tuple(out)

    def bind(self, args: tuple) -> tuple:
        """``args`` with the function's defaults filled in (what the graphs take)."""
        bound = inspect.signature(self.fn).bind(*args)
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def loss(self, *args: Any) -> Any:
        """The scalar the gradient is of (the first output when ``has_aux``)."""
        value = self.fn(*args)
        return value[0] if self.has_aux else value


CORPUS: list[Entry] = []


def case(category: str, args: Builder, wrt: int | str | tuple[int | str, ...] = 0, *,
         has_aux: bool = False, float32: bool = True, xfail: str | None = None,
         xfail_checks: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function in ``CORPUS``; the function is returned unchanged."""
    if category not in CATEGORIES + CONTROL_CATEGORIES:
        raise ValueError(f"unknown category {category!r}")
    if not set(xfail_checks) <= set(CHECKS):
        raise ValueError(f"unknown checks {set(xfail_checks) - set(CHECKS)}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if any(e.name == fn.__name__ for e in CORPUS):
            raise ValueError(f"corpus function {fn.__name__} is registered twice")
        CORPUS.append(Entry(fn, args, wrt, category, has_aux, float32, xfail, xfail_checks))
        return fn

    return register


# --- input builders -----------------------------------------------------------------------


def normal(r: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return scale * r.standard_normal(shape)


def uniform(r: np.random.Generator, lo: float, hi: float, *shape: int) -> np.ndarray:
    return r.uniform(lo, hi, shape)


def separated(r: np.random.Generator, *shape: int, gap: float = 0.15,
              lo: float = -2.0) -> np.ndarray:
    """Distinct values at least ``gap`` apart, shuffled (no ties for max/sort/abs kinks)."""
    n = int(np.prod(shape))
    values = lo + gap * np.arange(n) + r.uniform(0, gap / 4, n)
    return r.permutation(values).reshape(shape)


def spd(r: np.random.Generator, n: int) -> np.ndarray:
    """A well-conditioned symmetric positive definite matrix."""
    a = r.standard_normal((n, n))
    return a @ a.T / n + np.eye(n)


def well_conditioned(r: np.random.Generator, n: int) -> np.ndarray:
    return np.eye(n) * 2.0 + 0.3 * r.standard_normal((n, n))
