"""``nn.functional`` helpers on vectors and shapes: ``pad``, ``one_hot``,
``normalize``, ``cosine_similarity`` and ``pairwise_distance``.

``pad`` in constant mode is one node, ``ConstantPadNdBackward0`` (saving ``pad``; the
other modes are in ``padding_modes``); negative amounts crop,
as in PyTorch.  Its rule crops the gradient back (and zero-pads it where the forward
cropped) with the rules' ``ops``, so it is differentiable again.  The others are composed
of recorded ops in PyTorch's order: ``cosine_similarity`` divides each input by a clone of
its norm that was clamped to ``eps`` without recording, ``normalize`` divides by the
norm clamped to ``eps``, ``pairwise_distance`` is the norm of ``x1 - x2 + eps``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import functional as RF
from .. import shape_ops as S
from ..device import is_device, xp_of
from ..function import TensorBase, node_class
from ..grad_mode import no_grad
from ..reductions import norm
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record

__all__ = ["cosine_similarity", "normalize", "one_hot", "pad", "pairwise_distance"]


# --- pad --------------------------------------------------------------------------------------

def _pairs(pad: tuple[Any, ...], ndim: int) -> list[tuple[int, int]]:
    """PyTorch's flat ``pad`` (last dimension first) as ``(before, after)`` per dimension."""
    pairs = [(0, 0)] * ndim
    for k in range(len(pad) // 2):
        pairs[ndim - 1 - k] = (int(pad[2 * k]), int(pad[2 * k + 1]))
    return pairs


def _grow_then_crop(ops: Any, x: Any, grow: list[Any], crop: list[Any], value: Any = 0) -> Any:
    """``x`` padded by ``grow`` (non-negative pairs), then cut by ``crop`` (non-negative)."""
    if any(a or b for a, b in grow):
        x = ops.pad(x, pad_width=tuple(grow), constant_values=value)
    if any(a or b for a, b in crop):
        shape = ops.static_shape(x)
        x = x[tuple(slice(a, n - b) for (a, b), n in zip(crop, shape))]
    return x


def _rule_pad(ops: Any, g: Any, out: Any, x: Any, pairs: Any = (), **_: Any) -> tuple[Any, ...]:
    """Undo the padding on ``g``: crop what was added, zero-fill what was cut."""
    grow = [(max(-a, 0), max(-b, 0)) for a, b in pairs]
    crop = [(max(a, 0), max(b, 0)) for a, b in pairs]
    return (_grow_then_crop(ops, g, grow, crop),)


_PAD = node_class("ConstantPadNdBackward0", _rule_pad, (0,),
                  (("pad", lambda a, p: p["pad"], None),), False)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """``input`` padded with ``value`` (0 by default): ``pad`` lists ``(before, after)``
    amounts from the last dimension backwards; negative amounts crop."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(pad)
    if mode != "constant":
        from .padding_modes import pad_by_mode

        return pad_by_mode(input, pad, mode, value)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.ndim}")
    pairs = _pairs(pad, input.ndim)
    for (a, b), n in zip(pairs, input.shape):
        if n + a + b < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    x = input._data
    fill = 0 if value is None else value
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    crop = [(max(-a, 0), max(-b, 0)) for a, b in pairs]
    data = _grow_then_crop(_NP, x, grow, crop, np.asarray(fill).astype(x.dtype)[()])
    data = xp_of(data).ascontiguousarray(data)
    if needs_grad((input,)):
        return record(_PAD, data, (input,), {"pairs": tuple(pairs), "pad": pad})
    return plain(data)


class _NumpyOps:
    """The two ``ops`` calls ``_grow_then_crop`` needs, for the forward on arrays."""

    @staticmethod
    def pad(x: Any, pad_width: tuple[Any, ...], constant_values: Any) -> Any:
        if is_device(x) and isinstance(constant_values, np.ndarray):
            constant_values = constant_values[()]  # a host scalar for a device array
        return np.pad(x, pad_width, constant_values=constant_values)

    @staticmethod
    def static_shape(x: Any) -> tuple[Any, ...]:
        return tuple(x.shape)


_NP = _NumpyOps()


# --- one_hot ----------------------------------------------------------------------------------

def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """A ``(*tensor.shape, num_classes)`` int64 tensor with a 1 at each class index."""
    if not isinstance(tensor, TensorBase) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    xp = xp_of(idx)
    if num_classes == -1:
        if idx.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(idx.max()) + 1
    if idx.size:  # (on a device: one synchronisation for the range check, as PyTorch)
        if int(idx.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(idx.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    # a comparison with the class numbers: the same ones, and it runs on any device
    classes = xp.arange(num_classes, dtype=np.int64)
    return plain((idx[..., None] == classes).astype(np.int64))


# --- normalize, cosine_similarity, pairwise_distance ------------------------------------------

def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported")
    denom = renamed(RF.clamp_min(norm(input, p, dim, keepdim=True), eps), "ClampMinBackward0")
    return RF.div(input, S.expand_as(denom, input))


def _clamped_norm_clone(x: Tensor, dim: int, eps: float) -> Tensor:
    """The 2-norm of ``x`` along ``dim`` (kept), cloned and clamped to ``eps`` unrecorded."""
    n = S.clone(norm(x, 2, dim, keepdim=True))
    with no_grad():
        n.clamp_min_(eps)
    return n


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 x2) / (max(||x1||, eps) max(||x2||, eps))`` along ``dim``, the inputs
    broadcast together first."""
    from .functional import _broadcast

    a, b = x1, x2
    if tuple(x1.shape) != tuple(x2.shape):  # PyTorch expands both to the common shape
        a, b = _broadcast(x1, x2)
        a, b = _expanded(a, tuple(b.shape)), _expanded(b, tuple(a.shape))
    a_unit = RF.div(a, _clamped_norm_clone(a, dim, eps))
    b_unit = RF.div(b, _clamped_norm_clone(b, dim, eps))
    return RF.sum(RF.mul(a_unit, b_unit), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension."""
    shifted = _add_scalar(RF.sub(x1, x2), eps)
    return renamed(norm(shifted, p, -1, keepdim=keepdim), "NormBackward1")


def _rule_add_scalar(ops: Any, g: Any, out: Any, x: Any, s: Any) -> tuple[Any, ...]:
    return (g, None)


_ADD1 = node_class("AddBackward1", _rule_add_scalar, (0,), (), False)


def _add_scalar(t: Tensor, s: float) -> Tensor:
    """``t + s`` for a Python number ``s``, recorded as PyTorch's ``AddBackward1``."""
    x: Any = t._data
    data = (x + s).astype(x.dtype, copy=False)
    return record(_ADD1, data, (t, s), {}) if needs_grad((t,)) else plain(data)


def _expanded(t: Tensor, shape: tuple[Any, ...]) -> Tensor:
    """``t`` recorded as an expand to ``shape`` even when it has that shape already."""
    return t if t.grad_fn is not None and type(t.grad_fn).__name__ == "ExpandBackward0" \
        else S.expand(t, shape)


def renamed(out: Tensor, name: str) -> Tensor:
    """``out`` with its node shown as ``name``: PyTorch records the same derivative under
    another name here (a norm as ``NormBackward1``, a clamp as ``ClampMinBackward0`` ...).
    The node keeps its rule, edges and saved values; only its class (the name) changes."""
    node = out.grad_fn
    if node is None or type(node).__name__ == name:
        return out
    cls: Any = type(node)
    node.__class__ = node_class(name, cls._rule, cls._edges, cls._plan, cls._keeps_out,
                                cls.__mro__[1])
    return out
