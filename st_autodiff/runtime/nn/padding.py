"""Padding for convolutions: zeros (``ConstantPadNdBackward0``), reflection, replication
and circular padding (``nn.Conv2d(..., padding_mode=...)``), as PyTorch pads.

``pad`` arguments are PyTorch's: (left, right) pairs starting from the last dimension.
A constant pad's backward is the constant pad with the amounts negated (a crop), recorded
as the same node, so every order is differentiable.  Reflection and replication gather
through a padded index grid (a ``linear_pairs.LinearPair``: ``ReflectionPad2DBackward0``
...); circular padding joins slices (``CatBackward0``; PyTorch writes the slices into a new
tensor instead, which it shows as ``CopySlices``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import shape_ops as S
from ..device import xp_of
from ..function import node_class
from ..indexing import narrow
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record
from . import pool_kernels as K
from .linear_pairs import apply_map, linear_pair

__all__ = ["constant_pad", "pad_by_mode"]


def _pairs(pad: tuple[Any, ...]) -> list[tuple[int, int]]:
    """(lo, hi) per padded dimension, first dimension first."""
    return [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)][::-1]


def _pad_array(a: Any, pad: tuple[Any, ...]) -> Any:
    """``a`` with zeros added (positive amounts) or entries cut (negative amounts)."""
    pairs = _pairs(pad)
    lead = a.ndim - len(pairs)
    grow = [(0, 0)] * lead + [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if any(lo or hi for lo, hi in grow):
        a = np.pad(a, grow)
    cut = tuple(slice(-min(lo, 0), a.shape[lead + k] + min(hi, 0))
                for k, (lo, hi) in enumerate(pairs))
    return a[(slice(None),) * lead + cut]


def _rule_constant_pad(ops: Any, g: Any, out: Any, x: Any,
                       pad: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    back = tuple(-v for v in pad)
    return (constant_pad(g, back) if ops.tensors else _pad_array(g, back),)


_CONSTANT_PAD = node_class("ConstantPadNdBackward0", _rule_constant_pad, (0,),
                           (("pad", lambda args, params: params["pad"], None),), False)


def constant_pad(input: Tensor, pad: tuple[Any, ...]) -> Tensor:
    """``input`` padded with zeros (or cut, for negative amounts) by ``pad``."""
    data = xp_of(input._data).ascontiguousarray(_pad_array(input._data, pad))
    if needs_grad((input,)):
        return record(_CONSTANT_PAD, data, (input,), {"pad": tuple(pad)})
    return plain(data)


def _pad_gather(x: Any, p: dict[str, Any]) -> Any:
    nd = p["nd"]
    return x.reshape(x.shape[:-nd] + (-1,))[..., K.placed_like(p["index"], x)]


def _pad_scatter(g: Any, p: dict[str, Any]) -> Any:
    shape, index = p["in_shape"], p["index"]
    nd = p["nd"]
    size = math.prod(shape[-nd:])
    planes = math.prod(shape[:-nd])
    xp = xp_of(g)
    index = K.placed_like(index, g)
    flat = (xp.arange(planes)[:, None] * size + index.ravel()[None, :]).ravel()
    total = xp.bincount(flat, weights=g.ravel(), minlength=planes * size)
    return total.astype(g.dtype, copy=False).reshape(shape)


_PAD_PAIRS: dict[tuple[str, int], Any] = {}


def _pad_pair(mode: str, nd: int) -> Any:
    """The gather/scatter pair that pads by ``mode`` (named ``ReflectionPad2D`` ...)."""
    key = (mode, nd)
    if key not in _PAD_PAIRS:
        word = {"reflect": "Reflection", "replicate": "Replication"}[mode]
        _PAD_PAIRS[key] = linear_pair(_pad_gather, _pad_scatter, f"{word}Pad{nd}D", ("padding",))
    return _PAD_PAIRS[key]


def pad_by_mode(input: Tensor, pad: tuple[Any, ...], mode: str) -> Tensor:
    """``input`` padded on its last ``len(pad) // 2`` dimensions by ``mode`` (``reflect``,
    ``replicate`` or ``circular``)."""
    nd = len(pad) // 2
    pairs = _pairs(pad)
    lead = input.dim() - nd
    if mode == "circular":
        x = input
        for k, (lo, hi) in enumerate(pairs):
            dim = lead + k
            n = x.shape[dim]
            parts = ([narrow(x, dim, n - lo, lo)] if lo else []) + [x] + (
                [narrow(x, dim, 0, hi)] if hi else [])
            x = S.cat(parts, dim) if len(parts) > 1 else x
        return x
    shape = tuple(input.shape)
    for k, (n, (lo, hi)) in enumerate(zip(shape[lead:], pairs)):
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError("Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension "
                               f"{lead + k} of input {list(shape)}")
    grid = np.arange(math.prod(shape[lead:])).reshape(shape[lead:])
    index = np.pad(grid, pairs, mode="reflect" if mode == "reflect" else "edge")
    pair = _pad_pair(mode, nd)
    p = {"index": index, "nd": nd, "in_shape": shape, "saved": {"padding": list(pad)},
         "pair": pair}
    return apply_map(pair.fwd_cls, pair.fwd, input, p)
