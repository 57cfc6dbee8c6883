"""``nn.Parameter``: a leaf ``Tensor`` that a ``Module`` registers as trainable.

A parameter shares the storage of the tensor it wraps (``Parameter(t)`` never copies) and
requires grad unless told otherwise.  Arithmetic on a parameter gives plain ``Tensor``
results, as in PyTorch; only the parameter object itself carries the subclass, which is
what lets ``Module.__setattr__`` recognise it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, plain

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor registered as a module parameter.

    >>> import st_autodiff as torch
    >>> p = torch.nn.Parameter(torch.ones(2))
    >>> p.is_leaf, p.requires_grad
    (True, True)
    >>> print(p)
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = plain(np.empty((0,), dtype=np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        made: Parameter = Tensor._make_subclass(cls, data, requires_grad)
        return made

    def __repr__(self, *, tensor_contents: Any = None) -> str:  # type: ignore[override]
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (_rebuild_parameter, (self._host(), self._requires_grad, str(self.device)))


def _rebuild_parameter(array: np.ndarray[Any, Any], requires_grad: bool,
                       device: str = "cpu") -> Parameter:
    """Unpickling: the values, back on the device they were saved from."""
    data = plain(array)
    return Parameter(data if device == "cpu" else data.to(device), requires_grad)
