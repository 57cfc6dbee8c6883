"""The corpus registry: one ``Entry`` per function, registered with ``@case``.

An entry is a function written with the NumPy subset the compiler accepts, a builder of
in-domain float64 inputs (seeded per entry, so runs are reproducible), the arguments to
differentiate (``wrt``, as ``st.grad`` takes it) and a short category tag.  ``float32``
marks entries that are also checked with float32 inputs (their gradients must stay
float32), ``xfail`` the reason an entry fails because of a known compiler bug.
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

CATEGORIES = ("elementwise", "reduction", "linalg", "shape", "indexing", "select", "syntax",
              "calls", "methods", "aux", "model")

Builder = Callable[[np.random.Generator], tuple]


@dataclass(frozen=True)
class Entry:
    """One corpus function and how to check it (see the module docstring)."""

    fn: Callable[..., Any]
    make_args: Builder
    wrt: int | str | tuple[int | str, ...]
    category: str
    has_aux: bool = False
    float32: bool = False
    xfail: str | None = None

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def positions(self) -> tuple[int, ...]:
        """``wrt`` as a tuple of argument positions."""
        names = list(inspect.signature(self.fn).parameters)
        items = self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)
        return tuple(names.index(w) if isinstance(w, str) else w for w in items)

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

    def loss(self, *args: Any) -> Any:
        """The scalar the gradient is of (the first output when ``has_aux``)."""
        value = self.fn(*args)
        return value[0] if self.has_aux else value


CORPUS: list[Entry] = []


def case(category: str, args: Builder, wrt: int | str | tuple[int | str, ...] = 0, *,
         has_aux: bool = False, float32: bool = False, xfail: str | None = None
         ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function in ``CORPUS``; the function is returned unchanged."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if any(e.name == fn.__name__ for e in CORPUS):
            raise ValueError(f"corpus function {fn.__name__} is registered twice")
        CORPUS.append(Entry(fn, args, wrt, category, has_aux, float32, xfail))
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
