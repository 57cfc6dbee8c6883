"""``where`` and ``clamp``: choosing between values, with the table's where/clip rules."""

from __future__ import annotations

from typing import Any, overload

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op
from . import dtypes
from .function import TensorBase, node_class
from .functional import EMPTY, _arg, _scalar, _type_word
from .grad_mode import STATE
from .tensor import Tensor, plain
from .tensor_ops import record

__all__ = ["clamp", "clamp_max", "clamp_min", "clip", "where"]

_where_cls = node_class("WhereBackward0", RULES[Op.WHERE], (1, 2), (("condition", _arg(0), None),),
                        False)


@overload
def where(condition: Tensor, input: None = None, other: None = None) -> tuple[Tensor, ...]: ...


@overload
def where(condition: Tensor, input: Any, other: Any) -> Tensor: ...


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """Elements of ``input`` where ``condition`` holds, else of ``other``."""
    if input is None and other is None:
        from .shape_ops import nonzero

        return nonzero(condition, as_tuple=True)
    c = condition._data
    if c.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_type_word(condition.dtype)}")
    target = dtypes.result_type(*(v for v in (input, other))).np
    xs = [v._data.astype(target, copy=False) if isinstance(v, TensorBase)
          else np.asarray(_scalar(v), dtype=target)[()] for v in (input, other)]
    r = np.where(c, xs[0], xs[1])
    if STATE.enabled and any(isinstance(v, TensorBase) and v._requires_grad
                             for v in (input, other)):
        return record(_where_cls, r, (c, input, other), EMPTY)
    return plain(r)


_clamp_scalar = node_class("ClampBackward1", RULES[Op.CLIP], (0,),
                           (("self", 0, None), ("min", _arg(1), None), ("max", _arg(2), None)),
                           False)
_clamp_tensor = node_class("ClampBackward0", RULES[Op.CLIP], (0, 1, 2),
                           (("self", 0, None), ("min", 1, None), ("max", 2, None)), False)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit elements to ``[min, max]`` (either bound may be left out)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = isinstance(min, TensorBase) or isinstance(max, TensorBase)
    d = input._data
    lo = min._data if isinstance(min, TensorBase) else _scalar(min)
    hi = max._data if isinstance(max, TensorBase) else _scalar(max)
    if d.dtype.kind != "f" and (isinstance(lo, float) or isinstance(hi, float)):
        d = d.astype(dtypes.get_default_dtype().np)
    r = np.clip(d, lo, hi)
    if hasattr(r, "astype") and r.dtype != d.dtype:
        if not tensors:
            r = r.astype(d.dtype)
        else:  # PyTorch's promotion of the tensors (an integer bound keeps a float input)
            target = dtypes.result_type(*[t for t in (input, min, max)
                                          if isinstance(t, TensorBase)]).np
            if r.dtype != target:
                r = r.astype(target)
    cls = _clamp_tensor if tensors else _clamp_scalar
    if STATE.enabled and any(isinstance(v, TensorBase) and v._requires_grad
                             for v in (input, min, max)):
        return record(cls, r, (input, _scalar(min), _scalar(max)), EMPTY)
    return plain(r)


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    return clamp(input, max=max)
