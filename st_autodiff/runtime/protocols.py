"""Python protocols of ``Tensor``: ``len``, iteration, ``bool``/``int``/``float``, ``format``,
``copy.deepcopy`` and pickling, with PyTorch's behaviour and messages.

Installed on ``Tensor`` by ``methods.install()`` (kept apart from ``tensor.py``, which holds
the autograd state).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy as np

from .tensor import Tensor, _init, plain

__all__ = ["install_protocols", "rebuild"]


def __len__(self: Tensor) -> int:
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    n: int = self._data.shape[0]
    return n

def __iter__(self: Tensor) -> Iterator[Tensor]:
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))

def __bool__(self: Tensor) -> bool:
    if self._data.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())

_NOT_ONE = "only one element tensors can be converted to Python scalars"


def __float__(self: Tensor) -> float:
    if self._data.size != 1:
        raise ValueError(_NOT_ONE)
    return float(self.item())

def __int__(self: Tensor) -> int:
    if self._data.size != 1:
        raise ValueError(_NOT_ONE)
    return int(self.item())

def __index__(self: Tensor) -> int:
    if self._data.dtype.kind not in "iub" or self._data.size != 1:
        raise TypeError("only integer tensors of a single element can be converted to an "
                        "index")
    return int(self.item())


def __format__(self: Tensor, spec: str) -> str:
    if self._data.ndim == 0 and type(self) is Tensor:
        return format(self.item(), spec)
    return object.__format__(self, spec)  # (str(self) for "", else PyTorch's TypeError)

def __deepcopy__(self: Tensor, memo: dict[Any, Any]) -> Tensor:
    if self._grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the "
            "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
            "module, this may be because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
    t: Tensor = object.__new__(type(self))
    _init(t, self._data.copy(), self._requires_grad, None)
    if self._grad is not None:
        t._grad = copy.deepcopy(self._grad, memo)
    if hasattr(self, "__dict__"):
        t.__dict__.update(copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = t
    return t

def __reduce_ex__(self: Tensor, protocol: int) -> tuple[Any, ...]:
    return (rebuild, (self._host(), self._requires_grad, str(self.device)))


def rebuild(array: np.ndarray[Any, Any], requires_grad: bool, device: str = "cpu") -> Tensor:
    t = plain(array) if device == "cpu" else plain(array).to(device)  # bke: back on its device
    t._requires_grad = requires_grad
    return t


def install_protocols() -> None:
    """Attach the protocol methods above to ``Tensor``."""
    for name in ("__len__", "__iter__", "__bool__", "__float__", "__int__", "__index__",
                 "__format__", "__deepcopy__", "__reduce_ex__"):
        setattr(Tensor, name, globals()[name])
