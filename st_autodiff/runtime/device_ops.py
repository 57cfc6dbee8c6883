"""The rules' ``ops`` on device Tensors, for backward passes run with ``create_graph=True``.

``TENSOR_OPS`` records every op of a rule through ``apply_op``, which computes where the
operands live.  A rule also makes values from shapes alone (an ``eye`` to place a diagonal,
``arange`` index grids through ``ops.const``, zeros for a missing gradient): with no
device operand those came out on the host, and the next op of the rule then mixed a host
array into device arithmetic (or saved a host index that a later backward fed to a device
kernel).  ``DeviceTensorOps`` is ``TENSOR_OPS`` with such values made on one device; the
engine picks, for each node, the namespace of that node's gradient (``tensor_ops_for``), so
a graph that crosses devices gets each rule's constants on the rule's own device.  Host
nodes keep ``TENSOR_OPS`` itself, untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.ops import Op
from .device import is_device, xp_of
from .function import TensorBase
from .tensor import plain
from .tensor_ops import TENSOR_OPS, TensorOps, apply_op

__all__ = ["DeviceTensorOps", "tensor_ops_for"]


class DeviceTensorOps(TensorOps):
    """``TENSOR_OPS`` whose constants (host arrays, ops with no Tensor operand) are made on
    the device of ``xp``."""

    def __init__(self, xp: Any) -> None:
        super().__init__()
        self.xp = xp

    def __getattr__(self, name: str) -> Any:
        try:
            op = Op(name)
        except ValueError:
            raise AttributeError(name) from None
        xp = self.xp

        def call(*inputs: Any, **params: Any) -> Any:
            out = apply_op(op, *inputs, **params)
            if (isinstance(out, TensorBase) and not is_device(out._data)
                    and not any(isinstance(v, TensorBase) for v in inputs)):
                return plain(xp.asarray(out._data))  # made from shapes alone: on the device
            return out

        setattr(self, name, call)
        return call

    def const(self, value: Any) -> Any:  # type: ignore[override]  # (called on instances only)
        """A rule's host constant (an index grid ...), moved to the device."""
        return self.xp.asarray(value) if isinstance(value, np.ndarray) else value

    def zeros_of(self, meta: Any) -> Any:
        return plain(self.xp.zeros(meta.shape, meta.dtype))


_DEVICE_OPS: dict[int, DeviceTensorOps] = {}


def tensor_ops_for(value: Any) -> TensorOps:
    """``TENSOR_OPS`` for a host Tensor (or host data), its device twin for device ones."""
    data = value._data if isinstance(value, TensorBase) else value
    if not is_device(data):
        return TENSOR_OPS
    xp = xp_of(data)
    ops = _DEVICE_OPS.get(id(xp))
    if ops is None:
        ops = _DEVICE_OPS[id(xp)] = DeviceTensorOps(xp)
    return ops
