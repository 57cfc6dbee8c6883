"""Gradient clipping, spelled like ``torch.nn.utils``: ``clip_grad_norm_``,
``clip_grad_value_``, ``get_total_norm``, ``clip_grads_with_norm_``.

The total norm is PyTorch's: the ``norm_type``-norm of the per-gradient norms (the same as
the norm of all gradients concatenated), a 0-d tensor of the gradients' dtype.  Each
gradient is then multiplied in place by ``min(max_norm * (1 / (total + 1e-6)), 1)``, the
factor computed in that dtype as PyTorch does (``max_norm / t`` is ``reciprocal(t) *
max_norm`` for a tensor ``t``).  Norms are summed in float64 and rounded once, so a float32
total norm can differ from PyTorch's (which sums in float32) in its last bit.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from ...device import xp_of
from ...grad_mode import no_grad
from ...tensor import Tensor, plain

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _as_list(tensors: Any) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _norm(values: Any, p: float) -> Any:
    """The ``p``-norm of a flat array, summed in float64 and rounded to its dtype (a 0-d
    array on the values' device)."""
    xp = xp_of(values)
    a = xp.abs(xp.asarray(values, dtype=np.float64))
    if p == float("inf"):
        out = a.max() if a.size else xp.asarray(0.0)  # (|values| >= 0: max from 0)
    elif p == float("-inf"):
        out = a.min() if a.size else xp.asarray(np.inf)
    elif p == 0:
        out = xp.asarray(xp.count_nonzero(a), dtype=np.float64)
    elif p == 1:
        out = a.sum()
    elif p == 2:
        out = xp.sqrt(xp.dot(a, a))
    else:
        out = (a**p).sum() ** (1.0 / p)
    return xp.asarray(out).astype(values.dtype)


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of ``tensors`` taken together, as a 0-d tensor."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return plain(np.array(0.0, dtype=np.float32))
    norms = [_norm(t._array().reshape(-1), norm_type) for t in tensors]
    xp = xp_of(*norms)
    dtype = np.result_type(*(n.dtype for n in norms))
    total = plain(_norm(xp.stack([n.astype(dtype) for n in norms]), norm_type))
    if error_if_nonfinite and not bool(xp.isfinite(total._data)):  # PyTorch reads it too
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    xp = xp_of(total_norm._data)
    total: npt.NDArray[Any] = xp.asarray(total_norm._data)
    kind = total.dtype.type
    coef = (kind(1) / (total + kind(1e-6))) * kind(float(max_norm))
    coef = xp.minimum(coef, kind(1.0))
    with no_grad(), np.errstate(invalid="ignore", over="ignore"):
        for g in grads:
            data = g._array()
            data[...] = data * coef.astype(data.dtype)
            g._bump()


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradients' total norm to ``max_norm`` in place; return the total norm
    (before clipping)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p._grad for p in parameters if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Any, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        g = p._grad
        if g is None:
            continue
        data = g._array()
        kind = data.dtype.type
        data[...] = np.minimum(np.maximum(data, kind(-clip_value)), kind(clip_value))
        g._bump()
