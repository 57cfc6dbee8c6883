"""``F.pad`` with ``mode='reflect'``, ``'replicate'`` or ``'circular'``.

``reflect`` and ``replicate`` are one node each, named as PyTorch names them
(``ReflectionPad2DBackward0``, ``ReplicationPad1DBackward0`` ...; the digit is the number
of padded dimensions) and saving ``padding``.  Each padded dimension is described by an
index map: output position ``j`` reads input position ``source[j]`` (NumPy's ``pad`` of
``arange(n)`` in mode ``reflect`` or ``edge``, then cropped where a pad is negative).
The forward gathers along it; the rule sums the gradient back with a constant 0/1
matrix per dimension, so a ``create_graph`` backward is recorded and differentiable.

``circular`` is composed as PyTorch composes it: a new tensor, the (cropped) input
copied into its middle, then each padded border copied from the opposite side of the
result, so the graph is PyTorch's chain of ``CopySlices``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ..device import is_device, to_device, xp_of
from ..factory import empty
from ..function import node_class
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record

__all__ = ["pad_by_mode"]

_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0"}
_NP_MODE: dict[str, Literal["reflect", "edge"]] = {"reflect": "reflect", "replicate": "edge"}


def _source(n: int, before: int, after: int, mode: str) -> np.ndarray[Any, Any]:
    """For each output position along one dimension, the input position it copies."""
    width = (max(before, 0), max(after, 0))
    idx = np.pad(np.arange(n), width, mode=_NP_MODE[mode])
    return idx[max(-before, 0):len(idx) - max(-after, 0)]


def _rule_pad_mode(ops: Any, g: Any, out: Any, x: Any, maps: tuple[Any, ...] = (),
                   **_: Any) -> tuple[Any, ...]:
    """Each padded dimension's gradient summed back onto the input positions it read."""
    for axis, source, n in maps:
        gather = np.zeros((len(source), n))
        gather[np.arange(len(source)), source] = 1.0
        if ops.tensors:
            m: Any = plain(gather.astype(g.dtype.np)).to(g.device)
        else:
            m = ops.xp.asarray(gather.astype(g.dtype))
        g = ops.swapaxes(ops.swapaxes(g, axis1=axis, axis2=-1) @ m, axis1=axis, axis2=-1)
    return (g,)


def pad_by_mode(input: Tensor, pad: tuple[Any, ...], mode: str, value: Any) -> Tensor:
    """``F.pad`` for the modes other than ``'constant'`` (checked as PyTorch checks them)."""
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k, nd = len(pad) // 2, input.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * nd:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {nd}")
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input "
                                  f"tensor.\n{_SUPPORTED}")
    shape = tuple(input.shape)
    pairs = [(nd - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(k)]
    if mode == "circular":
        return _circular(input, pairs)
    for axis, a, b in pairs:
        n = shape[axis]
        if mode == "reflect" and (a >= n or b >= n):
            raise RuntimeError(f"Argument #{2 * k + 2}: Padding size should be less than the "
                               "corresponding input dimension, but got: padding "
                               f"({a}, {b}) at dimension {axis} of input {list(shape)}")
        if n + a + b <= 0:
            raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {n + a + b}")
    maps = tuple((axis, _source(shape[axis], a, b, mode), shape[axis]) for axis, a, b in pairs)
    data = input._data
    for axis, source, _n in maps:
        data = xp_of(data).take(data, to_device(source) if is_device(data) else source,
                                axis=axis)
    if not needs_grad((input,)):
        return plain(data)
    cls = node_class(_NAMES[mode].format(k), _rule_pad_mode, (0,),
                     (("padding", lambda a, p: tuple(p["padding"]), None), ("self", 0, None)),
                     False)
    return record(cls, data, (input,), {"maps": maps, "padding": tuple(pad)})


def _span(nd: int, axis: int, lo: int, hi: int) -> tuple[Any, ...]:
    return (slice(None),) * axis + (slice(lo, hi),) + (slice(None),) * (nd - axis - 1)


def _circular(input: Tensor, pairs: list[Any]) -> Tensor:
    """Circular padding composed of copies into a new tensor (PyTorch's ``CopySlices``)."""
    shape, nd = tuple(input.shape), input.ndim
    for axis, a, b in pairs:
        if a > shape[axis] or b > shape[axis]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
    out_shape = list(shape)
    for axis, a, b in pairs:
        out_shape[axis] = shape[axis] + a + b
    out = empty(tuple(out_shape), dtype=input.dtype, device=input.device)
    inner_out: tuple[Any, ...] = (slice(None),) * nd
    inner: Any = input
    for axis, a, b in pairs:  # one slice per padded dimension, as PyTorch records them
        inner_out = inner_out[:axis] + (slice(max(a, 0), out_shape[axis] - max(b, 0)),) + \
            inner_out[axis + 1:]
        inner = inner[_span(nd, axis, max(-a, 0), shape[axis] - max(-b, 0))]
    out[inner_out] = inner
    for axis, a, b in pairs:
        size = out_shape[axis]
        if a > 0:
            out[_span(nd, axis, 0, a)] = out[_span(nd, axis, size - a - max(b, 0),
                                                   size - max(b, 0))]
        if b > 0:
            out[_span(nd, axis, size - b, size)] = out[_span(nd, axis, max(a, 0),
                                                             max(a, 0) + b)]
    return out
