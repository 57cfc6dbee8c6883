"""Calls of the index ops and ``einsum`` (issue 12, tensor part), written once for any
library ``T`` (``st_autodiff`` or ``torch``): each case maps two float64 (3, 4) tensors
``x`` and ``s`` to a result.  ``NODE_NAMES`` holds ``type(result.grad_fn).__name__`` for
each case as printed by torch 2.13.0 (CPU), recorded with ``tests/runtime/
test_tensor_more.py::test_cases_match_torch``'s comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

I2 = np.array([[0, 1], [2, 0], [1, 1]])
IU = np.array([[0, 1], [2, 0], [1, 3]])  # no repeats: scatter's result is then defined
I0 = np.array([[0, 1, 2, 0], [2, 2, 1, 0]])
MASK = np.array([[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]])


def cases(T: Any) -> dict[str, Callable[[Any, Any], Any]]:  # noqa: N803
    """The cases for library ``T``."""

    def t(a: Any) -> Any:
        return T.tensor(np.asarray(a))

    c: dict[str, Callable[[Any, Any], Any]] = {
        "gather1": lambda x, s: T.gather(x, 1, t(I2)),
        "gather0": lambda x, s: x.gather(0, t(I0)),
        "scatter_src": lambda x, s: x.scatter(1, t(IU), s[:, :2]),
        "scatter_val": lambda x, s: x.scatter(1, t(I2), 2.5) * s,
        "scatter_add": lambda x, s: T.scatter_add(x, 0, t(I0), s[:2]),
        "index_select": lambda x, s: x.index_select(1, t([0, 3, 3])),
        "masked_select": lambda x, s: x.masked_select(t(MASK)),
        "masked_select_b": lambda x, s: x.masked_select(t([True, False, True, True])),
        "masked_fill": lambda x, s: x.masked_fill(t(MASK), 7.0),
        "masked_fill_t": lambda x, s: x.masked_fill(t(MASK), s[0, 0]),
        "index_add": lambda x, s: x.index_add(0, t([0, 0, 2]), s, alpha=2),
        "index_copy": lambda x, s: x.index_copy(1, t([3, 0, 1, 2]), s),
        "index_fill": lambda x, s: x.index_fill(1, t([1, 3]), -1.5),
        "index_fill_t": lambda x, s: x.index_fill(1, t([1, 3, 1]), s[1, 2]),
        "take": lambda x, s: x.take(t([[0, 5], [11, 5]])),
        "take_along": lambda x, s: T.take_along_dim(x, t(I2), 1),
        "take_along_none": lambda x, s: T.take_along_dim(x, t([1, 7])),
        "put": lambda x, s: x.put(t([0, 5, 7]), s[0, :3]),
        "put_acc": lambda x, s: x.put(t([0, 5, 0]), s[0, :3], accumulate=True),
        "einsum_mm": lambda x, s: T.einsum("ij,kj->ik", x, s),
        "einsum_sum": lambda x, s: T.einsum("ij->", x),
        "einsum_col": lambda x, s: T.einsum("ij->j", x * s),
        "einsum_T": lambda x, s: T.einsum("ij->ji", x),
        "einsum_outer": lambda x, s: T.einsum("i,j->ij", x[0], s[1]),
        "einsum_dot": lambda x, s: T.einsum("i,i->", x[0], s[1]),
        "einsum_had": lambda x, s: T.einsum("ij,ij->ij", x, s),
        "einsum_sub": lambda x, s: T.einsum(x, [0, 1], s, [2, 1], [0, 2]),
        "einsum_bmm": lambda x, s: T.einsum("bij,bjk->bki", x.reshape(2, 2, 3),
                                            s.reshape(2, 3, 2)),
        "einsum_ell": lambda x, s: T.einsum("...j,j->...", x, s[0]),
        "einsum_impl": lambda x, s: T.einsum("ij,jk", x, s.t()),
        "einsum_diag": lambda x, s: T.einsum("ii->i", x[:, :3]),
        "einsum_trace": lambda x, s: T.einsum("ii", x[:, :3]),
        "einsum_3": lambda x, s: T.einsum("ij,jk,kl->il", x, s.t(), x),
    }
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            c[f"sr_{red}_{inc}"] = _scatter_reduce(T, red, inc)
    return c


def _scatter_reduce(T: Any, red: str, inc: bool) -> Callable[[Any, Any], Any]:  # noqa: N803
    return lambda x, s: x.scatter_reduce(1, T.tensor(I2), s[:, :2], red, include_self=inc)


# type(result.grad_fn).__name__ for each case, printed by torch 2.13.0
NODE_NAMES = {
    "gather1": "GatherBackward0", "gather0": "GatherBackward0",
    "scatter_src": "ScatterBackward0", "scatter_val": "MulBackward0",
    "scatter_add": "ScatterAddBackward0", "index_select": "IndexSelectBackward0",
    "masked_select": "MaskedSelectBackward0", "masked_select_b": "MaskedSelectBackward0",
    "masked_fill": "MaskedFillBackward0", "masked_fill_t": "MaskedFillBackward1",
    "index_add": "IndexAddBackward0", "index_copy": "IndexCopyBackward0",
    "index_fill": "IndexFillBackward0", "index_fill_t": "IndexFillBackward1",
    "take": "TakeBackward0", "take_along": "GatherBackward0",
    "take_along_none": "GatherBackward0", "put": "PutBackward0", "put_acc": "PutBackward0",
    "einsum_mm": "ViewBackward0", "einsum_sum": "SumBackward1", "einsum_col": "SumBackward1",
    "einsum_T": "PermuteBackward0", "einsum_outer": "MulBackward0",
    "einsum_dot": "ViewBackward0", "einsum_had": "MulBackward0", "einsum_sub": "ViewBackward0",
    "einsum_bmm": "ViewBackward0", "einsum_ell": "ViewBackward0",
    "einsum_impl": "ViewBackward0", "einsum_diag": "PermuteBackward0",
    "einsum_trace": "SumBackward1", "einsum_3": "ViewBackward0",
    **{f"sr_{r}_{i}": "ScatterReduceBackward0" for r in ("sum", "prod", "mean", "amax", "amin")
       for i in (True, False)},
}
