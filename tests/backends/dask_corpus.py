"""The compiler's corpus on Dask arrays: how much of it stays lazy (a survey, not a test).

``python -m tests.backends.dask_corpus`` calls the gradient of every corpus function
(``tests/corpus``) with each floating-point array argument of two or more rows split into
two row chunks, under Dask's local synchronous scheduler, and sorts the functions into:

* ``lazy-ok``: a Dask result, nothing computed during the call, equal to the NumPy
  gradient of the same function to 1e-10;
* ``lazy-refused``: a ``LazyConditionError`` (a branch on lazy data);
* ``computed-while-called``: equal to NumPy's, but some graph ran during the call (with
  how many computes);
* ``error``: any other exception (mostly what Dask itself does not do);
* ``WRONG``: a gradient different from NumPy's (there should be none).

It takes a few minutes on two cores; docs/backends.md quotes its counts.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.callbacks import Callback

import st_autodiff as st
from st_autodiff import LazyConditionError
from tests.corpus import CORPUS


class _Computes(Callback):
    """Counts the graphs Dask computes while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def _start(self, dsk: Any) -> None:
        self.n += 1


def _lazy(a: Any) -> Any:
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim >= 1 and a.shape[0] >= 2:
        return da.from_array(a, chunks=((a.shape[0] + 1) // 2,) + a.shape[1:])
    return a


def _grads(out: Any, has_aux: bool) -> tuple:
    if has_aux:
        out = out[0]
    return out if isinstance(out, tuple) else (out,)


def survey() -> dict[str, list[str]]:
    """Corpus function names by outcome (see the module docstring)."""
    res: dict[str, list[str]] = collections.defaultdict(list)
    for e in CORPUS:
        if e.xfail:
            continue
        args = e.args()
        want = _grads(st.grad(e.fn, wrt=e.wrt, has_aux=e.has_aux)(*args), e.has_aux)
        lazy = tuple(_lazy(a) for a in args)
        if all(b is a for b, a in zip(lazy, args)):
            continue  # no array argument to split
        computes = _Computes()
        try:
            with computes, dask.config.set(scheduler="sync"):
                got = st.grad(e.fn, wrt=e.wrt, has_aux=e.has_aux)(*lazy)
        except LazyConditionError:
            res["lazy-refused"].append(e.name)
            continue
        except Exception as exc:  # a survey: every other failure is listed, with its kind
            first = str(exc).splitlines()[0] if str(exc) else ""
            res["error"].append(f"{e.name}: {type(exc).__name__}: {first[:150]}")
            continue
        with dask.config.set(scheduler="sync"):
            (done,) = dask.compute(got)
        ok = all(np.allclose(np.asarray(g), np.asarray(w), rtol=1e-10, atol=1e-12)
                 for g, w in zip(_grads(done, e.has_aux), want))
        if not ok:
            res["WRONG"].append(e.name)
        elif computes.n:
            res["computed-while-called"].append(f"{e.name} ({computes.n})")
        else:
            res["lazy-ok"].append(e.name)
    return res


def main() -> None:
    warnings.simplefilter("ignore", FutureWarning)  # (Dask's "not implemented by Dask")
    for outcome, names in survey().items():
        print(outcome, len(names))
        if outcome != "lazy-ok":
            for name in names:
                print("   ", name)


if __name__ == "__main__":
    main()
