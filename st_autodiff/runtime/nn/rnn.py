"""Recurrent layers: ``RNN``, ``LSTM`` and ``GRU`` (their one-step cells: ``rnn_cells.py``).

Most layers are composed from the runtime's recorded ops, one cell step per time step
(``rnn_steps.py``), so backpropagation through time is the engine's ordinary backward over
that unrolled graph (and a ``create_graph`` backward gives second derivatives).  The
arithmetic follows PyTorch's CPU implementation step for step: the input projection of a
whole sequence is one ``linear`` split into time steps, each step adds the hidden
projection to it, the steps of a direction are stacked (``StackBackward0``), two
directions are concatenated on the feature dimension (``CatBackward0``) and the final
states are stacked.

Parameters are created in PyTorch's order (per layer, per direction: ``weight_ih``,
``weight_hh``, ``bias_ih``, ``bias_hh``, then ``weight_hr`` for a projecting LSTM) and
all drawn from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))`` in that order, so a
seeded model starts from PyTorch's numbers.

The recorded graph is PyTorch's node for node (``UnbindBackward0`` of the initial states,
``UnsafeSplitBackward0`` of the gates ...).  For float32 input PyTorch runs each layer and
direction of an LSTM without projection as a single oneDNN kernel
(``MkldnnRnnLayerBackward0``, the initial states taken with ``SelectBackward0``); so does
this module (``rnn_fused.py``: a NumPy loop forward, backpropagation through time written
out backward), which is also what makes that layer fast.

>>> import st_autodiff as torch
>>> lstm = torch.nn.LSTM(3, 4, num_layers=2)
>>> out, (h, c) = lstm(torch.zeros(5, 2, 3))
>>> out.shape, h.shape
(torch.Size([5, 2, 4]), torch.Size([2, 2, 4]))
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from .. import functional as RF
from .. import shape_ops as S
from ..factory import empty, zeros
from ..function import renamed
from ..indexing import select
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .rnn_fused import lstm_layer
from .rnn_step_build import GruSteps, TanhSteps
from .rnn_steps import gru_step, lstm_step, tanh_step, unbind0

__all__ = ["GRU", "LSTM", "RNN", "RNNBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# --- one time step ---------------------------------------------------------------------------

_tanh_step = tanh_step


def _relu_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    return RF.relu(RF.add(F.linear(h, w_hh, b_hh), gi))


# --- the layers --------------------------------------------------------------------------

class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters, the checks and the unrolled
    forward over layers and directions."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_settings(mode, hidden_size, num_layers, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                fan = input_size if layer == 0 else real_hidden * directions
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, fan)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{kind}_l{layer}{suffix}" for kind, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Kept for source compatibility: CPU weights need no compaction."""

    @property
    def _flat_weights(self) -> list[Any]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- forward -----------------------------------------------------------------------

    def _hidden_shape(self, batch: int, size: int) -> tuple[int, int, int]:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_input(self, input: Tensor) -> None:
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _check_hidden(self, hx: Tensor, expected: tuple[Any, ...], what: str = "hidden") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _run(self, x: Tensor, h0: Tensor, c0: Tensor | None) -> tuple[Any, ...]:
        """The stacked layers over time-major ``x``: output, final ``h`` (and ``c``)."""
        directions = 2 if self.bidirectional else 1
        h_last: list[Tensor] = []
        c_last: list[Tensor] = []
        fused = self.mode == "LSTM" and self.proj_size == 0 and x.dtype.name == "float32"
        shown = {"batch_first": self.batch_first, "bidirectional": self.bidirectional,
                 "num_layers": self.num_layers, "train": self.training}
        if fused:  # PyTorch's oneDNN layer selects each initial state (SelectBackward0)
            x = x.contiguous()  # and copies a transposed batch (CloneBackward0)
            h_first: Any = [select(h0, 0, k) for k in range(h0.shape[0])]
            # (fused is an LSTM, whose ``c0`` is a Tensor; mypy cannot tie it to ``mode``)
            c_first: Any = [select(c0, 0, k) for k in range(h0.shape[0])]  # type: ignore[arg-type]
        else:
            h_first = S.unbind(h0, 0)
            c_first = S.unbind(c0, 0) if c0 is not None else None
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                params = [getattr(self, name) for name in self._all_weights[k]]
                if fused:
                    b_ih, b_hh = (params[2], params[3]) if self.bias else (None, None)
                    out, h, c = lstm_layer(x, params[0], params[1], b_ih, b_hh, h_first[k],
                                           c_first[k], d == 1, shown)
                else:
                    out, h, c = self._direction(x, params, h_first[k],
                                                None if c_first is None else c_first[k], d == 1)
                outs.append(out)
                h_last.append(h)
                if c is not None:
                    c_last.append(c)
            x = outs[0] if directions == 1 else S.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = S.stack(h_last, 0)
        return x, h_n, (S.stack(c_last, 0) if c0 is not None else None)

    def _direction(self, x: Tensor, params: list[Any], h: Tensor, c: Tensor | None,
                   reverse: bool) -> tuple[Any, ...]:
        """One direction of one layer: the input projection of all steps at once, then the
        recurrence, in time order or reversed."""
        w_ih, w_hh = params[0], params[1]
        b_ih, b_hh = (params[2], params[3]) if self.bias else (None, None)
        w_hr = params[-1] if self.proj_size > 0 else None
        steps = unbind0(F.linear(x, w_ih, b_ih))
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        outs: list[Any] = [None] * len(steps)
        mode = self.mode
        built: Any = None  # the GRU's and tanh RNN's steps built directly (rnn_step_build)
        if mode == "GRU":
            built = GruSteps.make(h, w_hh, b_hh, steps)
        elif mode == "RNN_TANH":
            built = TanhSteps.make(h, w_hh, b_hh, steps)
        if built is not None:
            step = built.step
            for t in order:
                h = outs[t] = step(steps[t], h)
            return S.stack(outs, 0), h, c
        for t in order:
            if mode == "LSTM":
                # (an LSTM always has its cell state ``c``: mypy cannot tie it to ``mode``)
                h, c = lstm_step(steps[t], h, c, w_hh, b_hh, w_hr)  # type: ignore[arg-type]
            elif mode == "GRU":
                h = gru_step(steps[t], h, w_hh, b_hh)
            elif mode == "RNN_TANH":
                h = _tanh_step(steps[t], h, w_hh, b_hh)
            else:
                h = _relu_step(steps[t], h, w_hh, b_hh)
            outs[t] = h
        return S.stack(outs, 0), h, c

    def _forward(self, input: Tensor, hx: Any) -> tuple[Any, ...]:
        """Shape handling shared by the three layers; returns output, h_n, c_n."""
        from .rnn_packed import run_packed
        from .utils.rnn import PackedSequence

        if isinstance(input, PackedSequence):
            return run_packed(self, input, hx)
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            tail = "instead" if lstm or name == "GRU" else "tensor instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D {tail}")
        weight = getattr(self, self._flat_weights_names[0])
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        want = 3 if batched else 2
        if not batched:
            input = S.unsqueeze(input, batch_dim)
        if hx is not None:
            parts: tuple[Any, ...] = (hx[0], hx[1]) if lstm else (hx,)
            dims = [p.dim() for p in parts]
            if any(d != want for d in dims):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if lstm:
                    raise RuntimeError(
                        f"For {kind} input, hx and cx should also be {want}-D but got "
                        f"({dims[0]}-D, {dims[1]}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{dims[0]}-D tensor")
            if not batched:
                parts = tuple(S.unsqueeze(p, 1) for p in parts)
        batch = input.shape[0 if self.batch_first else 1]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        self._check_input(input)
        if hx is None:
            kw: dict[str, Any] = {"dtype": input.dtype, "device": input.device}
            parts = (zeros(self._hidden_shape(batch, real_hidden), **kw),)
            if lstm:
                parts += (zeros(self._hidden_shape(batch, self.hidden_size), **kw),)
        else:
            if lstm:
                self._check_hidden(parts[0], self._hidden_shape(batch, real_hidden), "hidden[0]")
                self._check_hidden(parts[1], self._hidden_shape(batch, self.hidden_size),
                                   "hidden[1]")
            else:
                self._check_hidden(parts[0], self._hidden_shape(batch, real_hidden))
        if lstm and self.proj_size and input.dtype.name == "float32":
            _warn_projection_once()
        x = S.transpose(input, 0, 1) if self.batch_first else input
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        out, h_n, c_n = self._run(x, parts[0], parts[1] if lstm else None)
        if self.batch_first:
            out = S.transpose(out, 0, 1)
            if not lstm:
                out = renamed(out, "TransposeBackward1")
        if not batched:
            out = S.squeeze(out, batch_dim)
            h_n = S.squeeze(h_n, 1)
            c_n = S.squeeze(c_n, 1) if c_n is not None else None
        return out, h_n, c_n


_WARNED: set[str] = set()


def _warn_projection_once() -> None:
    """PyTorch's once-per-process notice that a projecting float32 LSTM is not fused."""
    if "projection" not in _WARNED:
        _WARNED.add("projection")
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                      "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                      "ATen/native/RNN.cpp:1512.)", UserWarning, stacklevel=3)


def _check_settings(mode: str, hidden_size: int, num_layers: int, dropout: float,
                    proj_size: int) -> None:
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                      stacklevel=4)
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if proj_size and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih.T + b_ih + h_(t-1) W_hh.T + b_hh)`` (or ``relu``).

    Returns ``(output, h_n)``: ``output`` holds the last layer's ``h_t`` for every step
    (both directions side by side), ``h_n`` the final state of every layer and direction.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._forward(input, hx)
        return out, h_n


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates over a cell state.

    Returns ``(output, (h_n, c_n))``; ``hx`` is an optional ``(h_0, c_0)`` pair.  With
    ``proj_size > 0`` the hidden state is projected by ``weight_hr`` to ``proj_size``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Any, ...]:
        out, h_n, c_n = self._forward(input, hx)
        return out, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates over the hidden state.

    Returns ``(output, h_n)`` with the shapes of ``RNN``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._forward(input, hx)
        return out, h_n
