"""One-step recurrent cells: ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

Each cell is one time step of the matching layer in ``rnn.py`` (same gate arithmetic, same
recorded nodes: the hidden projection added to the input projection, gates split as
``UnsafeSplitBackward0``), for 2-d ``(batch, features)`` or unbatched 1-d input; a missing
state starts at zeros.  Parameters are drawn from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``
in PyTorch's order.

>>> import st_autodiff as torch
>>> torch.nn.GRUCell(3, 4)(torch.zeros(2, 3)).shape
torch.Size([2, 4])
"""

from __future__ import annotations

import math
from typing import Any

from .. import functional as RF
from .. import shape_ops as S
from ..factory import empty, zeros
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .rnn_step_build import GruSteps
from .rnn_steps import gru_step, lstm_step

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


class RNNCellBase(Module):
    """Parameters and checks shared by the cells: one step of the matching layer."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor,
                 states: tuple[Any, ...]) -> tuple[Tensor, tuple[Any, ...], bool]:
        """Batch ``input`` and the states (zeros when absent) and check their sizes."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = S.unsqueeze(input, 0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        filled = []
        for k, hx in enumerate(states):
            if hx is None:
                hx = zeros((input.shape[0], self.hidden_size), dtype=input.dtype,
                           device=input.device)
            elif not batched:
                hx = S.unsqueeze(hx, 0)
            if input.shape[0] != hx.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} "
                                   f"batch size {hx.shape[0]}")
            if hx.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hx.shape[1]}, "
                                   f"expected {self.hidden_size}")
            filled.append(hx)
        return input, tuple(filled), batched


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = tanh(x W_ih.T + b_ih + h W_hh.T + b_hh)`` (or ``relu``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._prepare(input, (hx,))
        pre = RF.add(F.linear(h, self.weight_hh, self.bias_hh),
                     F.linear(x, self.weight_ih, self.bias_ih))
        if self.nonlinearity == "tanh":
            out = RF.tanh(pre)
        elif self.nonlinearity == "relu":
            out = RF.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else S.squeeze(out, 0)


class LSTMCell(RNNCellBase):
    """One LSTM step; takes and returns the pair ``(h, c)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor,
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        x, (h, c), batched = self._prepare(input, (None, None) if hx is None else tuple(hx))
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        h_new, c_new = lstm_step(gi, h, c, self.weight_hh, self.bias_hh, None)
        if not batched:
            return S.squeeze(h_new, 0), S.squeeze(c_new, 0)
        return h_new, c_new


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._prepare(input, (hx,))
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        built = GruSteps.make(h, self.weight_hh, self.bias_hh, (gi,))
        if built is not None:  # the same nodes, built directly (rnn_step_build)
            out = built.step(gi, h)
        else:
            out = gru_step(gi, h, self.weight_hh, self.bias_hh)
        return out if batched else S.squeeze(out, 0)
