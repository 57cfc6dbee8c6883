"""Transposed convolution: ``F.conv_transpose1d/2d`` and ``nn.ConvTranspose1d/2d``.

A transposed convolution is the input gradient of the convolution with the same weight
and settings (``conv_kernels.conv_dx_arrays``), so its node, ``ConvolutionBackward0`` over
(input, weight, bias) as PyTorch's, needs no new derivative: the input's gradient is that
convolution of the incoming gradient (``conv.convolution``), the weight's is that
convolution's weight gradient with the roles of input and output exchanged
(``conv.convolution_backward``), the bias's a sum.  In a ``create_graph`` backward those
are the convolution's own recorded nodes, so every order is differentiable.

Where the convolution cannot map the output back to the input's size (an
``output_padding`` not below the stride, allowed when below the dilation), the layer is
composed instead: the input with ``stride - 1`` zeros inserted between its entries (a view,
``F.pad`` of a new unit axis, a view back), padded by ``dilation * (kernel - 1) -
padding`` on each side (plus ``output_padding`` at the end), then an ordinary stride-1
convolution with the kernel flipped and its two channel axes swapped per group.

>>> import st_autodiff as torch
>>> torch.nn.ConvTranspose2d(2, 3, 3, stride=2)
ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2))
"""

from __future__ import annotations

import math
from typing import Any

from ..factory import empty
from ..function import node_class
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record
from . import init
from .conv import (
    _CONV_PLAN,
    _conv,
    _from4,
    _settings,
    _to4,
    _tuple,
    _word,
    convolution,
    convolution_backward,
)
from .conv_kernels import conv_arrays, conv_dw_arrays, conv_dx_arrays, out_len
from .module import Module
from .parameter import Parameter
from .vector_ops import pad

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "conv_transpose1d", "conv_transpose2d"]


def _letters(nd: int) -> list[str]:
    return ["height", "width"] if nd == 2 else ["width"]


def _check(x: Tensor, weight: Tensor, bias: Tensor | None, nd: int, st: tuple[int, ...],
           op: tuple[int, ...], dil: tuple[int, ...], groups: int) -> None:
    shape, wshape = list(x.shape), list(weight.shape)
    if len(shape) != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"conv_transpose{nd}d, but got input of size: {shape}")
    if len(wshape) != nd + 2:
        raise RuntimeError(f"weight should have at least {nd + 2} dimensions")
    if any(o >= s and o >= d for o, s, d in zip(op, st, dil)):
        words = _letters(nd)
        parts = ([f"output_padding_{w}: {o}" for w, o in zip(words, op)]
                 + [f"stride_{w}: {s}" for w, s in zip(words, st)]
                 + [f"dilation_{w}: {d}" for w, d in zip(words, dil)])
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           f"but got {' '.join(parts)}")
    if x.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {_word(x)} but found {_word(weight)}")
    if shape[1] != wshape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected input"
                           f"{shape} to have {wshape[0]} channels, but got {shape[1]} "
                           "channels instead")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{wshape}] instead")
    if bias is not None and list(bias.shape) != [wshape[1] * groups]:
        raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected bias to be "
                           f"1-dimensional with {wshape[1] * groups} elements, but got bias of "
                           f"size {list(bias.shape)} instead")


def _rule_conv_t(ops: Any, g: Any, out: Any, x: Any, w: Any, b: Any,
                 need: tuple[Any, ...] = (), **p: Any) -> tuple[Any, ...]:
    """``(gx, gw, gb)`` of ``conv_dx(x, w) + b`` (see the module docstring)."""
    nd = p["nd"]
    gx = gw = gb = None
    dims = (0, *range(2, nd + 2))
    if ops.tensors:
        if need[0]:
            gx = convolution(g, w, None, p)
        if need[1]:
            gw = convolution_backward(x, g, w, (False, True, False), p)[1]
        if need[2]:
            gb = g.sum(dims)
        return gx, gw, gb
    if need[0]:
        gx = _from4(conv_arrays(_to4(g, nd), _to4(w, nd), p), nd)
    if need[1]:
        w4 = _to4(w, nd)
        gw = _from4(conv_dw_arrays(_to4(x, nd), _to4(g, nd), w4.shape, p), nd)
        gw = gw.astype(w.dtype, copy=False)
    if need[2]:
        gb = g.sum(axis=dims)
    return gx, gw, gb


_PLAN = tuple(("transposed", lambda a, q: True, None) if name == "transposed"
              else (name, get, keep) for name, get, keep in _CONV_PLAN)
_CONV_T = node_class("ConvolutionBackward0", _rule_conv_t, (0, 1, 2), _PLAN, False)


def _direct(x: Tensor, weight: Tensor, bias: Tensor | None, nd: int, st: tuple[int, ...],
            pd: tuple[int, ...], op: tuple[int, ...], dil: tuple[int, ...],
            groups: int) -> Tensor | None:
    """The transposed convolution as one node, or ``None`` where the convolution does not
    map its output size back to the input's."""
    ks = tuple(weight.shape[2:])
    sizes = tuple(x.shape[2:])
    outs = tuple((n - 1) * s - 2 * q + d * (k - 1) + o + 1
                 for n, s, q, d, k, o in zip(sizes, st, pd, dil, ks, op))
    if any(o < 1 for o in outs) or any(
            out_len(o, (q, q), k, s, d) != n
            for o, q, k, s, d, n in zip(outs, pd, ks, st, dil, sizes)):
        return None
    p = _settings(weight, nd, st, pd, dil, groups)
    p["saved"]["output_padding"] = op
    shape4 = _to4(x._data, nd).shape[:1] + (weight.shape[1] * groups,) + (
        (1,) * (2 - nd)) + outs
    data = _from4(conv_dx_arrays(_to4(x._data, nd), _to4(weight._data, nd), shape4, p), nd)
    data = data.astype(x._data.dtype, copy=False)
    if bias is not None:
        data = data + bias._data.reshape((-1,) + (1,) * nd)
    if needs_grad((x, weight, bias)):
        need = (x._requires_grad, weight._requires_grad,
                bias is not None and bias._requires_grad)
        return record(_CONV_T, data, (x, weight, bias), {"need": need, **p})
    return plain(data)


def _conv_transpose(nd: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    st, pd = _tuple(stride, nd), _tuple(padding, nd)
    op, dil = _tuple(output_padding, nd), _tuple(dilation, nd)
    unbatched = input.dim() == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    _check(x, weight, bias, nd, st, op, dil, groups)
    direct = _direct(x, weight, bias, nd, st, pd, op, dil, groups)
    if direct is not None:
        return direct.squeeze(0) if unbatched else direct
    n, c, *sizes = x.shape
    if any(s != 1 for s in st):
        grown = x.reshape(n, c, *[v for size in sizes for v in (size, 1)])
        gaps = tuple(v for s in reversed(st) for v in (0, s - 1, 0, 0))[:-2]
        x = pad(grown, gaps).reshape(n, c, *[size * s for size, s in zip(sizes, st)])
    ks = list(weight.shape[2:])
    amounts: list[int] = []
    for k, s, p, o, d in zip(reversed(ks), reversed(st), reversed(pd), reversed(op),
                             reversed(dil)):
        lo = d * (k - 1) - p
        amounts += [lo, lo + o - (s - 1)]
    if any(amounts):
        x = pad(x, tuple(amounts))
    cin, cout_g = weight.shape[0], weight.shape[1]
    w = weight.reshape(groups, cin // groups, cout_g, *ks).transpose(1, 2)
    w = w.reshape(groups * cout_g, cin // groups, *ks).flip(list(range(2, nd + 2)))
    y = _conv(nd, x, w, bias, 1, 0, dil, groups)
    return y.squeeze(0) if unbatched else y


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """1-d transposed convolution of ``(N, C_in, L)`` with ``(C_in, C_out/groups, K)``."""
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-d transposed convolution of ``(N, C_in, H, W)`` with ``(C_in, C_out/groups, KH,
    KW)``."""
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


class _ConvTransposeNd(Module):
    """Shared body of ``ConvTranspose1d/2d``."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                 bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        nd = self._nd
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride, nd)
        self.padding = _tuple(padding, nd)
        self.dilation = _tuple(dilation, nd)
        self.transposed = True
        self.output_padding = _tuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(empty((in_channels, out_channels // groups, *self.kernel_size),
                                      **kw))
        if bias:
            self.bias = Parameter(empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Kaiming uniform with ``a = sqrt(5)`` (fan-in from ``weight.shape[1]``), then the
        bias uniform in ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``, as PyTorch."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        if output_size is None:
            return self.output_padding
        nd = self._nd
        size = list(output_size)
        if len(size) not in (nd, nd + 2):
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size "
                             f"must have {nd} or {nd + 2} elements (got {len(size)})")
        size = size[-nd:]
        lows, highs = [], []
        for d in range(nd):
            n = input.shape[input.dim() - nd + d]
            lows.append((n - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            highs.append(lows[-1] + self.stride[d] - 1)
        if any(not lo <= s <= hi for lo, s, hi in zip(lows, size, highs)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                             f"range from {lows} to {highs} (for an input of "
                             f"{input.shape[input.dim() - nd:]})")
        return tuple(s - lo for s, lo in zip(size, lows))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        op = self._output_padding(input, output_size)
        return _conv_transpose(self._nd, input, self.weight, self.bias, self.stride,
                               self.padding, op, self.groups, self.dilation)

    def extra_repr(self) -> str:
        nd = self._nd
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution layer; weight ``(C_in, C_out/groups, K)``."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution layer; weight ``(C_in, C_out/groups, KH, KW)``."""

    _nd = 2
