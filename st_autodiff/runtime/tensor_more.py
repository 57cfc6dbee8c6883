"""Issue 12, tensor part: ``Tensor.type``, default device and tensor type, and the
namespace entries and Tensor methods of ``indexing_more``, ``index_ops`` and ``einsum``.

``TOP_LEVEL`` is merged into the ``torch`` namespace and ``install_methods()`` attaches
the methods (out-of-place and in-place forms), as the other families do.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes, factory
from . import index_ops as X
from . import indexing_more as G
from .einsum import einsum
from .inplace import inplace
from .tensor import Tensor

__all__ = ["TOP_LEVEL", "install_methods"]

_TENSOR_TYPE_WARNING = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives.")


def _legacy_dtype(t: Any) -> dtypes.dtype | None:
    """The dtype a legacy tensor type names (class or ``'torch.FloatTensor'``), else None."""
    d: dtypes.dtype | None
    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
        if not t.startswith("torch.") or name == t:
            return None
        for d in dtypes.ALL_DTYPES:
            if d._tensor_type == name:
                return d
        return None
    d = getattr(t, "_dtype", None)
    return d if isinstance(d, dtypes.dtype) else None


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """With no argument the type name (``'torch.FloatTensor'``); else a converted tensor
    (``dtype`` a dtype, a legacy type such as ``torch.LongTensor`` or its name)."""
    if dtype is None:
        prefix = "torch.cuda." if self.is_cuda else "torch."
        return prefix + self.dtype._tensor_type
    target = dtype if isinstance(dtype, dtypes.dtype) else _legacy_dtype(dtype)
    if target is None:
        if isinstance(dtype, str):
            raise ValueError(f"invalid type: '{dtype}'")
        target = dtypes.to_dtype(dtype)
    return self.to(target)


def set_default_device(device: Any) -> None:
    """Where factories place new tensors (``None`` or ``'cpu'``: the host)."""
    if device is None:
        factory._DEFAULT_DEVICE[0] = None
        return
    dev = dtypes.device(device)
    factory._DEFAULT_DEVICE[0] = None if dev.type == "cpu" else dev


def get_default_device() -> dtypes.device:
    """The device factories use (``cpu`` unless changed)."""
    dev = factory._DEFAULT_DEVICE[0]
    return dtypes.CPU if dev is None else dev


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in PyTorch 2.1: sets the default float dtype from a legacy tensor type."""
    warnings.warn(_TENSOR_TYPE_WARNING, UserWarning, stacklevel=2)
    d = _legacy_dtype(t)
    if d is None:
        if isinstance(t, str):
            raise TypeError(f"invalid type: '{t}'")
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    dtypes.set_default_dtype(d)


TOP_LEVEL: dict[str, Any] = {
    "einsum": einsum, "gather": G.gather, "scatter": G.scatter, "scatter_add": G.scatter_add,
    "scatter_reduce": G.scatter_reduce, "take_along_dim": G.take_along_dim,
    "index_select": X.index_select, "index_add": X.index_add, "index_copy": X.index_copy,
    "index_fill": X.index_fill, "masked_fill": X.masked_fill,
    "masked_select": X.masked_select, "take": X.take, "put": X.put,
    "set_default_device": set_default_device, "get_default_device": get_default_device,
    "set_default_tensor_type": set_default_tensor_type,
}

_METHODS = ("gather scatter scatter_add scatter_reduce take_along_dim index_select index_add "
            "index_copy index_fill masked_fill masked_select take put").split()
_INPLACE = ("scatter scatter_add scatter_reduce index_add index_copy index_fill "
            "masked_fill").split()


def _inplace(fn: Any, name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(self, fn, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


def _masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In-place ``masked_fill``: the mask may broadcast to this tensor, not beyond it."""
    shape = tuple(self.shape)
    full = tuple(np.broadcast_shapes(shape, tuple(mask.shape)))
    if full != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(full)}")
    return inplace(self, X.masked_fill, mask, value)


def _put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place ``put``: write (or add) ``source`` at flat positions ``index``."""
    return inplace(self, X.put, index, source, accumulate=accumulate)


def install_methods() -> None:
    """Attach the methods above to ``Tensor``."""
    for name in _METHODS:
        setattr(Tensor, name, TOP_LEVEL[name])
    for name in _INPLACE:
        setattr(Tensor, name + "_", _inplace(TOP_LEVEL[name], name + "_"))
    # (set by name: the generated stub class declares these methods for type checkers)
    for name, fn in {"put_": _put_, "masked_fill_": _masked_fill_, "type": type_}.items():
        setattr(Tensor, name, fn)
