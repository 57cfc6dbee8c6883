"""Cases for the names family (sorting, counting, triangles, diagonals, grids ...), run the
same way on st_autodiff and on PyTorch by ``run_case``.

Each case is ``(fn, inputs)``: ``inputs`` are NumPy arrays made here from a fixed seed
(no random draw of either library is involved); float inputs become float64 leaves that
require grad.  ``run_case(lib, name)`` returns a plain description of everything the case
shows: each output's type name, repr-free values, dtype and ``grad_fn`` name, and the
gradients of the inputs for ``sum(out_k * w_k)`` with fixed weights ``w_k``.
``names_values.json`` stores that description as PyTorch 2.13.0 gave it
(``python -m tests.runtime.names_cases`` with torch installed rewrites it).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

VALUES = Path(__file__).with_name("names_values.json")

_rng = np.random.default_rng(1234)
M34 = _rng.standard_normal((3, 4))
M44 = _rng.standard_normal((4, 4))
T234 = _rng.standard_normal((2, 3, 4))
V5 = _rng.standard_normal(5)
V3 = _rng.standard_normal(3)
C43 = _rng.standard_normal((4, 3))
D43 = _rng.standard_normal((4, 3))
NAN = np.array([[3.0, np.nan, 1.0, 2.0], [0.5, -1.0, 4.0, 2.5], [np.nan, np.nan, 1.0, 7.0]])
INTS = np.array([[1, 5, 5, 2, 2, 2], [4, 4, 1, 1, 9, 9]])
LABELS = np.array([1, 1, 3, 0, 3, 3, 7])
SEQ = np.array([1, 1, 2, 2, 3, 1, 1, 2])
BOUNDS = np.array([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]])

CASES: dict[str, tuple] = {
    # sorting and order statistics
    "sort": (lambda L, x: L.sort(x, 1), [M34]),
    "sort_desc": (lambda L, x: L.sort(x, dim=0, descending=True), [M34]),
    "sort_stable": (lambda L, x: L.sort(x, stable=True, descending=True), [M34]),
    "sort_ties": (lambda L, x: x.sort(descending=True), [np.array([2, 1, 2, 0, 1, 2])]),
    "sort_ties_long": (lambda L, x: L.sort(x), [np.array([2, 1, 2, 0, 1, 2, 3] * 6)]),
    "sort_ties_long_desc": (lambda L, x: L.sort(x.reshape(2, 21), 1, descending=True),
                            [np.array([2, 1, 2, 0, 1, 2, 3] * 6)]),
    "argsort_ties_long": (lambda L, x: L.argsort(x), [np.arange(60) % 7 + 0.5]),
    "sort_ties_nan_long": (lambda L, x: L.sort(x, descending=True),
                           [np.array([1.0, np.nan, 2.0, 1.0, np.nan] * 5)]),
    "sort_nan": (lambda L, x: L.sort(x, 1), [NAN]),
    "sort_bool": (lambda L, x: L.sort(x > 0, descending=True), [V5]),
    "sort_3d": (lambda L, x: L.sort(x, -2), [T234]),
    "argsort": (lambda L, x: x.argsort(dim=1).argsort(dim=1), [M34]),
    "argsort_desc": (lambda L, x: L.argsort(x, descending=True), [NAN]),
    "msort": (lambda L, x: L.msort(x), [M34]),
    "topk": (lambda L, x: L.topk(x, 2), [M34]),
    "topk_small": (lambda L, x: x.topk(3, dim=0, largest=False), [M34]),
    "topk_3d": (lambda L, x: L.topk(x, 2, 1), [T234]),
    "topk_ties": (lambda L, x: L.topk(x.reshape(2, 21), 4, 1),
                  [np.array([2, 1, 2, 0, 1, 2, 3] * 6)]),
    "topk_ties_small": (lambda L, x: L.topk(x, 5, largest=False),
                        [np.array([2.0, 1.0, np.nan, 0.0, 1.0, 2.0, 1.0, 0.0] * 3)]),
    "topk_unsorted": (lambda L, x: L.topk(x, 3, 1, sorted=False), [M34]),
    "topk_partial_sort": (lambda L, x: L.topk(x, 2), [np.arange(300) % 11 * 0.25]),
    "kthvalue": (lambda L, x: L.kthvalue(x, 2, 1), [M34]),
    "kthvalue_keep": (lambda L, x: x.kthvalue(3, 0, True), [M34]),
    "median_all": (lambda L, x: L.median(x), [M34]),
    "median_dim": (lambda L, x: L.median(x, 1), [M34]),
    "median_keep": (lambda L, x: x.median(0, keepdim=True), [T234]),
    "median_nan": (lambda L, x: L.median(x, 1), [NAN]),
    "median_nan_all": (lambda L, x: L.median(x), [NAN]),
    "nanmedian": (lambda L, x: L.nanmedian(x, 1), [NAN]),
    "nanmedian_all": (lambda L, x: L.nanmedian(x), [NAN]),
    "median_ties": (lambda L, x: L.median(x), [np.array([1.0, 2.0, 2.0, 3.0, 2.0])]),
    "mode_int": (lambda L, x: L.mode(x, 1), [INTS]),
    "mode_float": (lambda L, x: L.mode(x, 0),
                   [np.array([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0], [2.0, 2.0]])]),
    # triangles, flips, rolls
    "triu": (lambda L, x: L.triu(x), [M34]),
    "triu_k": (lambda L, x: L.triu(x, diagonal=1), [T234]),
    "tril_k": (lambda L, x: x.tril(-1), [M34]),
    "triu_bool": (lambda L, x: L.triu(L.ones(4, 4, dtype=L.bool), diagonal=1), [V5]),
    "triu_": (lambda L, x: (x * 1).triu_(1), [M44]),
    "tril_": (lambda L, x: (x * 1).tril_(), [M44]),
    "triu_indices": (lambda L, x: L.triu_indices(3, 4, 1), [V5]),
    "tril_indices": (lambda L, x: L.tril_indices(4, 3, -1), [V5]),
    "fliplr": (lambda L, x: L.fliplr(x), [M34]),
    "flipud": (lambda L, x: x.flipud(), [M34]),
    "roll": (lambda L, x: L.roll(x, 1, 0), [M34]),
    "roll_flat": (lambda L, x: L.roll(x, -3), [M34]),
    "roll_dims": (lambda L, x: x.roll((1, -2), (0, 1)), [M34]),
    "rot90": (lambda L, x: L.rot90(x), [M34]),
    "rot90_k": (lambda L, x: L.rot90(x, 3, [1, 2]), [T234]),
    "rot90_neg": (lambda L, x: x.rot90(-2, (0, 1)), [M34]),
    "repeat_interleave": (lambda L, x: L.repeat_interleave(x, 2), [M34]),
    "repeat_interleave_dim": (lambda L, x: x.repeat_interleave(3, dim=1), [M34]),
    "repeat_interleave_t": (lambda L, x: L.repeat_interleave(x, L.tensor([1, 0, 2]), dim=0),
                            [M34]),
    "repeat_interleave_counts": (lambda L, x: L.repeat_interleave(L.tensor([2, 0, 3])), [V5]),
    # diagonals
    "diag_vec": (lambda L, x: L.diag(x), [V5]),
    "diag_vec_k": (lambda L, x: L.diag(x, -2), [V5]),
    "diag_mat": (lambda L, x: x.diag(1), [M34]),
    "diag_embed": (lambda L, x: L.diag_embed(x), [M34]),
    "diag_embed_dims": (lambda L, x: L.diag_embed(x, 1, 0, 2), [M34]),
    "diagflat": (lambda L, x: L.diagflat(x, -1), [M34]),
    "fill_diagonal_": (lambda L, x: (x * 1).fill_diagonal_(0.5), [M34]),
    "fill_diagonal_wrap": (lambda L, x: L.zeros(7, 3).fill_diagonal_(5, wrap=True), [V5]),
    # products, grids, splits
    "cross": (lambda L, a, b: L.cross(a, b, dim=1), [C43, D43]),
    "linalg_cross": (lambda L, a, b: L.linalg.cross(a, b[:1]), [C43, D43]),
    "meshgrid_ij": (lambda L, a, b: L.meshgrid(a, b, indexing="ij"), [V5, V3]),
    "meshgrid_xy": (lambda L, a, b: L.meshgrid(a, b, indexing="xy"), [V5, V3]),
    "cartesian_prod": (lambda L, a, b: L.cartesian_prod(a, b), [V5, V3]),
    "tensor_split": (lambda L, x: L.tensor_split(x, 3, dim=1), [M34]),
    "tensor_split_idx": (lambda L, x: x.tensor_split([1, 3]), [V5]),
    # elementwise
    "frac": (lambda L, x: L.frac(x * 3), [M34]),
    "sgn": (lambda L, x: L.sgn(x), [M34]),
    "heaviside": (lambda L, x: L.heaviside(x.detach(), L.tensor([0.5], dtype=L.float64)), [V5]),
    # lerp, one-sided clamps, cumulative and paired reductions (tensor_extras)
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3), [M34, M34[:, ::-1].copy()]),
    "lerp_far": (lambda L, a, b: a.lerp(b, 0.8), [M34, M34[:, ::-1].copy()]),
    "lerp_tensor": (lambda L, a, b: L.lerp(a, b, b * 0.1 + 0.5), [M34, M34[:, ::-1].copy()]),
    "lerp_": (lambda L, a, b: (a * 1).lerp_(b, 0.25), [M34, M34[:, ::-1].copy()]),
    "clamp_min": (lambda L, x: L.clamp_min(x, 0.1), [M34]),
    "clamp_min_tensor": (lambda L, x, m: L.clamp_min(x, m), [M34, M34[:, ::-1].copy()]),
    "clamp_max": (lambda L, x: x.clamp_max(-0.2), [M34]),
    "clamp_max_tensor": (lambda L, x, m: L.clamp_max(x, m[0]), [M34, M34[:, ::-1].copy()]),
    "cumprod": (lambda L, x: L.cumprod(x, 1), [M34]),
    "cummax": (lambda L, x: L.cummax(x, 1), [M34]),
    "cummin": (lambda L, x: x.cummin(0), [M34]),
    "cummax_ties": (lambda L, x: L.cummax(x, 0), [np.array([1, 3, 3, 2, 5, 5, 0])]),
    "logcumsumexp": (lambda L, x: L.logcumsumexp(x * 3, 1), [M34]),
    "std_mean": (lambda L, x: L.std_mean(x, 1), [M34]),
    "var_mean": (lambda L, x: L.var_mean(x, dim=(0, 2), correction=0, keepdim=True), [T234]),
    "aminmax": (lambda L, x: L.aminmax(x, dim=1), [M34]),
    "aminmax_all": (lambda L, x: L.aminmax(x), [M34]),
    "nan_to_num": (lambda L, x: L.nan_to_num(x, nan=0.5, posinf=9.0), [NAN]),
    "copysign": (lambda L, a, b: L.copysign(a, b), [M34, M34[:, ::-1].copy()]),
    "signbit": (lambda L, x: L.signbit(x), [M34]),
    "float_power": (lambda L, x: L.float_power(x, 2), [M34]),
    "deg2rad": (lambda L, x: L.deg2rad(x * 90), [M34]),
    "rad2deg": (lambda L, x: x.rad2deg(), [M34]),
    "logaddexp2": (lambda L, a, b: L.logaddexp2(a, b), [M34, M34[:, ::-1].copy()]),
    "atleast_2d": (lambda L, x: L.atleast_2d(x), [V5]),
    "atleast_3d": (lambda L, a, b: L.atleast_3d(a, b), [V5, M34]),
    "broadcast_tensors": (lambda L, a, b: L.broadcast_tensors(a, b[:, None]), [V5, V3]),
    "unflatten": (lambda L, x: x.unflatten(1, (2, -1)), [M34]),
    "ravel": (lambda L, x: L.ravel(x), [M34]),
    "column_stack": (lambda L, a, b: L.column_stack([a[:3], b]), [V5, V3]),
    "dstack": (lambda L, x: L.dstack([x, x * 2]), [M34]),
    "block_diag": (lambda L, a, b: L.block_diag(a, b, a[:2]), [M34, V3]),
    "combinations": (lambda L, x: L.combinations(x, 2), [V5]),
    # products (contractions.py)
    "addmv": (lambda L, i, m, v: L.addmv(i, m, v, beta=0.5, alpha=2.0), [V3, M34, V5[:4]]),
    "baddbmm": (lambda L, i, a, b: L.baddbmm(i, a, b.transpose(1, 2), alpha=0.5),
                [M34[:, :3], T234, T234[::-1].copy()]),
    "addbmm": (lambda L, i, a, b: L.addbmm(i, a, b.transpose(1, 2), beta=2),
               [M34[:, :3], T234, T234[:, ::-1].copy()]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=([0, 2], [1, 0])),
                  [T234, M44[:, :2].copy()]),
    "tensordot_int": (lambda L, a, b: L.tensordot(a, b, 1), [T234, M44]),
    "kron": (lambda L, a, b: L.kron(a, b), [M34[:2, :3].copy(), V3]),
    "trapezoid": (lambda L, y: L.trapezoid(y, dx=0.5), [M34]),
    "trapezoid_x": (lambda L, y, x: L.trapezoid(y, x), [M34, np.cumsum(np.abs(V5[:4]))]),
    "trapz_dim": (lambda L, y: L.trapz(y, dim=0), [M34]),
    "cov": (lambda L, x: L.cov(x), [M34]),
    "cov_vector": (lambda L, x: x.cov(correction=0), [V5]),
    "cov_weights": (lambda L, x: L.cov(x, fweights=L.tensor([1, 2, 1, 3]),
                                       aweights=L.tensor([0.5, 1.0, 2.0, 1.0],
                                                         dtype=L.float64)), [M34]),
    "corrcoef": (lambda L, x: L.corrcoef(x.detach()), [M34]),
    # torch 2.13 cannot backward through corrcoef and vander (an in-place write): values only
    "vander": (lambda L, x: L.vander(x.detach(), 4), [V3]),
    "vander_increasing": (lambda L, x: L.vander(x.detach(), increasing=True), [V3]),
    "gcd_lcm": (lambda L, a: (L.gcd(a, L.tensor(6)), L.lcm(a + 1, L.tensor(4))), [LABELS]),
    # methods (tensor_more_methods.py)
    "eq_": (lambda L, x: (x * 1).eq_(x[0, 0].item()), [M34]),
    "lt_": (lambda L, x, y: (x * 1).lt_(y), [M34, M34[:, ::-1].copy()]),
    "cumsum_": (lambda L, x: (x * 1).cumsum_(1), [M34]),
    "fix_": (lambda L, x: (x * 3).fix_(), [M34]),
    "true_divide_": (lambda L, x: (x * 1).true_divide_(4), [M34]),
    "fmod_method": (lambda L, x: (x * 3).fmod(1.5), [M34]),
    "sum_to_size": (lambda L, x: x.sum_to_size(3, 1), [T234]),
    "sum_to_size_lead": (lambda L, x: x.sum_to_size((1, 4)), [T234]),
    # counting
    "bincount": (lambda L, x: L.bincount(x), [LABELS]),
    "bincount_w": (lambda L, x: x.bincount(L.tensor([0.5, 1.0, 2.0, 1.0, 1.0, 1.0, 3.0]), 9),
                   [LABELS]),
    "histc": (lambda L, x: L.histc(x.detach(), bins=4), [V5]),
    "histc_range": (lambda L, x: L.histc(x.detach().float(), 3, -1, 1), [M34]),
    "bucketize": (lambda L, x: L.bucketize(x.detach() * 4, L.tensor([-2.0, 0.0, 1.0])), [M34]),
    "searchsorted": (lambda L, x: L.searchsorted(x.detach(), L.tensor([[3.0, 6.0], [4.0, 0.0]],
                                                                       dtype=L.float64),
                                                 right=True), [BOUNDS]),
    "searchsorted_side": (lambda L, x: L.searchsorted(L.tensor([1, 3, 5]), L.tensor([3, 6]),
                                                      side="right", out_int32=True), [V5]),
    "unique": (lambda L, x: L.unique(x, return_inverse=True, return_counts=True), [SEQ]),
    "unique_dim": (lambda L, x: L.unique(x, dim=1, return_inverse=True), [INTS[:, :4]]),
    "unique_consecutive": (lambda L, x: L.unique_consecutive(x, return_counts=True,
                                                             return_inverse=True), [SEQ]),
    "isin": (lambda L, x: L.isin(x, L.tensor([1, 3])), [SEQ]),
    "isin_invert": (lambda L, x: L.isin(x, L.tensor([2]), invert=True), [SEQ]),
    "count_nonzero": (lambda L, x: L.count_nonzero(x, dim=0), [INTS - 2]),
    "count_nonzero_all": (lambda L, x: x.count_nonzero(), [INTS - 2]),
    "bitwise": (lambda L, x: (L.bitwise_and(x, 3), L.bitwise_or(x, L.tensor(8)),
                              x.bitwise_xor(5), L.bitwise_not(x)), [SEQ]),
}

#: one-line calls at the edges (empty, 0-d, int, NaN, inf); their reprs are compared
EDGES = [
    'torch.unique(a, sorted=False)',
    'torch.unique(a, sorted=False, return_inverse=True)[1][:10]',
    "torch.unique(torch.tensor([1., float('nan'), float('nan'), 0.]), return_counts=True)",
    'torch.bincount(torch.tensor([], dtype=torch.int64), minlength=3)',
    'torch.histc(torch.tensor([0., 1., 1., 2., 5.]), bins=5, min=1, max=2)',
    'torch.searchsorted(torch.tensor([3, 1, 2]), torch.tensor([2, 3]),'
    ' sorter=torch.tensor([1, 2, 0]))',
    'torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_counts=True)',
    'torch.topk(torch.tensor([]), 0)',
    'torch.sort(torch.tensor([]))',
    'torch.median(torch.tensor([]))',
    'torch.triu(torch.ones(2, 3, 3), -1)',
    'torch.diag(torch.tensor([[1, 2], [3, 4]]), -1)',
    'torch.repeat_interleave(torch.tensor(2.), 3)',
    'torch.roll(torch.tensor(2.), 1)',
    'torch.cartesian_prod(torch.tensor([1, 2]))',
    'torch.tensor_split(torch.arange(7), torch.tensor([2, 5]))',
    'torch.isin(torch.tensor([1, 2]), 2)',
    'torch.count_nonzero(torch.zeros(2, 3), dim=(0, 1))',
    'torch.kthvalue(torch.tensor(3.), 1)',
    'torch.sort(torch.tensor(3.))',
    'torch.mode(torch.tensor([2., 2., 1., 1.]))',
    "torch.meshgrid(torch.tensor(1.), torch.tensor([1., 2.]), indexing='xy')",
    'torch.tril_indices(3, 3, dtype=torch.int32)',
    'torch.aminmax(torch.tensor([1, 5, 3]))',
    "torch.nan_to_num(torch.tensor([float('inf'), -float('inf'), float('nan')]))",
    'torch.cumprod(torch.tensor([1, 2, 3]), 0)',
    "torch.cummax(torch.tensor([1., float('nan'), 0.]), 0)",
    'torch.std_mean(torch.tensor([1., 2., 4.]))',
    'torch.float_power(torch.tensor([2]), 3)',
    "torch.logcumsumexp(torch.tensor([0., 1., -float('inf')]), 0)",
    'torch.block_diag(torch.tensor(1), torch.tensor([2, 3]))',
    'torch.combinations(torch.tensor([1, 2, 3]), 3)',
    'torch.combinations(torch.tensor([1, 2, 3]), with_replacement=True)',
    'torch.atleast_1d(torch.tensor(1.))',
    'torch.broadcast_shapes((2, 1), (3,))',
    'torch.kron(torch.eye(2), torch.ones(2, 2))',
    'torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=1)',
    'torch.gcd(torch.tensor([4, 6]), torch.tensor([6, 9]))',
    'torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 4.]), torch.tensor(0.5))',
    'torch.clamp_min(torch.tensor([1, 5]), 3)',
    'torch.clamp_max(torch.tensor([1, 5]), 2.5)',
    'torch.copysign(torch.tensor([1, -2]), -1)',
    'torch.deg2rad(torch.tensor([180]))',
    'torch.rot90(torch.arange(6).reshape(2, 3), 1, [1, 0])',
    'torch.diag_embed(torch.tensor([1, 2]), -1)',
    'torch.frac(torch.tensor([-1.5, 2.25]))',
    'torch.sgn(torch.tensor([-2, 0, 3]))',
    'torch.heaviside(torch.tensor([-1, 0, 2]), torch.tensor(7))',
    'torch.bitwise_left_shift(torch.tensor([1, 2]), 2)',
    'torch.bitwise_not(torch.tensor([True, False]))',
]


DIFFERENTIABLE = [n for n, (_f, ins) in CASES.items() if ins[0].dtype.kind == "f"
                  and n not in ("triu_bool", "triu_indices", "tril_indices", "sort_bool",
                                "fill_diagonal_wrap", "repeat_interleave_counts", "heaviside",
                                "histc", "histc_range", "bucketize", "searchsorted",
                                "searchsorted_side")]


def leaves(L: Any, name: str) -> list:
    """The case's inputs as tensors of ``L``: float64 leaves requiring grad for floats."""
    out = []
    for a in CASES[name][1]:
        if a.dtype.kind == "f":
            out.append(L.tensor(a.tolist(), dtype=L.float64, requires_grad=True))
        else:
            out.append(L.tensor(a.tolist()))
    return out


def _outputs(result: Any) -> list:
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def _plain(values: Any) -> Any:
    """A JSON value for an array (NaN as the string 'nan')."""
    if isinstance(values, list):
        return [_plain(v) for v in values]
    if isinstance(values, float) and math.isnan(values):
        return "nan"
    return values


def _grad_values(g: Any) -> list:
    """A gradient's values (PyTorch's zero tensors hold no storage: zeros)."""
    if getattr(g, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(g.shape)).tolist()
    return g.tolist()


def run_case(L: Any, name: str) -> dict:
    """What case ``name`` shows under library ``L`` (see the module docstring)."""
    fn, _ = CASES[name]
    xs = leaves(L, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fn(L, *xs)
    outs = _outputs(result)
    desc: dict = {"type": type(result).__name__, "outputs": []}
    for o in outs:
        fn_name = type(o.grad_fn).__name__ if o.grad_fn is not None else None
        desc["outputs"].append({"dtype": str(o.dtype), "shape": list(o.shape),
                                "values": _plain(o.detach().tolist()), "grad_fn": fn_name})
    diff = [o for o in outs if o.grad_fn is not None]
    if diff:
        total = None
        for k, o in enumerate(diff):
            w = L.tensor(np.cos(np.arange(o.numel()) + k).reshape(tuple(o.shape)).tolist(),
                         dtype=o.dtype)
            term = (o * w).sum()
            total = term if total is None else total + term
        grads = L.autograd.grad(total, [x for x in xs if x.requires_grad], allow_unused=True)
        desc["grads"] = [None if g is None else _plain(_grad_values(g)) for g in grads]
    return desc


def edge_repr(L: Any, expr: str) -> str:
    """The repr of ``expr`` (``torch`` bound to ``L``), or the error it raises."""
    try:
        return repr(eval(expr, {"torch": L}))
    except Exception as exc:  # the error is what the edge shows
        return f"{type(exc).__name__}: {exc}"


def main() -> None:
    """Store what PyTorch shows for every case."""
    import torch

    stored = {"torch": torch.__version__, "cases": {n: run_case(torch, n) for n in CASES},
              "edges": {e: edge_repr(torch, e) for e in EDGES}}
    VALUES.write_text(json.dumps(stored, indent=0, sort_keys=True) + "\n")
    print(f"wrote {VALUES} ({len(CASES)} cases, torch {torch.__version__})")


if __name__ == "__main__":
    main()
