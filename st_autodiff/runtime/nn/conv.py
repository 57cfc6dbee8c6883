"""Convolution for the eager runtime: ``F.conv1d``/``F.conv2d`` and ``nn.Conv1d``/``nn.Conv2d``.

One node class per direction, named as PyTorch names them: the forward records
``ConvolutionBackward0`` (inputs: input, weight, bias), and a backward run with
``create_graph=True`` records ``ConvolutionBackwardBackward0`` (inputs: the incoming
gradient, input, weight; outputs: the gradients that were asked for).  A convolution is
bilinear in (input, weight), so every derivative of any order is again one of three
products, all computed here with im2col and batched matrix products:

* ``conv(x, w)``: the forward;
* ``conv_dx(g, w)``: the input gradient (the adjoint of ``x -> conv(x, w)``);
* ``conv_dw(g, x)``: the weight gradient (the adjoint of ``w -> conv(x, w)``).

The double backward of ``(gx, gw, gb) = backward(g, x, w)`` with cotangents
``(ggx, ggw, ggb)`` is ``conv(ggx, w) + conv(x, ggw) + ggb`` for ``g``,
``conv_dx(g, ggw)`` for ``x`` and ``conv_dw(g, ggx)`` for ``w``; in Tensor mode these
are recorded through the same two nodes, so every order is differentiable.

An asymmetric ``padding='same'`` pads the odd remainder first (``ConstantPadNdBackward0``)
and other padding modes pad first too (``padding.py``), as PyTorch does.  One-dimensional
convolutions run the two-dimensional kernels on a height of 1.  The kernels
(``conv_kernels.py``) work on NumPy arrays: one column matrix and one matrix product per
group, with Python loops only over kernel offsets.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import shape_ops as S
from ..factory import empty
from ..function import MultiRuleNode, node_class
from ..grad_mode import STATE
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record, record_multi
from . import init
from .conv_kernels import conv_arrays, conv_backward_arrays
from .module import Module
from .padding import constant_pad, pad_by_mode
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "conv1d", "conv2d", "convolution"]


# --- 1-d inputs as 2-d ones with a height of 1 ------------------------------------------------

def _to4(a: Any, nd: int) -> Any:
    return a[:, :, None, :] if nd == 1 else a


def _from4(a: Any, nd: int) -> Any:
    return a[:, :, 0, :] if nd == 1 else a


# --- the two nodes ----------------------------------------------------------------------------

def _conv_any(ops: Any, x: Any, w: Any, p: dict[str, Any]) -> Any:
    if ops.tensors:
        return convolution(x, w, None, p)
    return _from4(conv_arrays(_to4(x, p["nd"]), _to4(w, p["nd"]), p), p["nd"])


def _backward_any(ops: Any, gy: Any, x: Any, w: Any, need: tuple[Any, ...],
                  p: dict[str, Any]) -> tuple[Any, ...]:
    """``(gx, gw, gb)`` (``None`` where not needed), recorded in Tensor mode."""
    if ops.tensors:
        return convolution_backward(gy, x, w, need, p)
    return _backward_arrays(gy, x, w, need, p)


def _backward_arrays(gy: Any, x: Any, w: Any, need: tuple[Any, ...],
                     p: dict[str, Any]) -> tuple[Any, ...]:
    nd = p["nd"]
    gx = gw = gb = None
    if need[0] or need[1]:
        gx, gw = conv_backward_arrays(_to4(gy, nd), _to4(x, nd), _to4(w, nd), need[0],
                                      need[1], p)
        gx = None if gx is None else _from4(gx, nd)
        gw = None if gw is None else _from4(gw, nd).astype(w.dtype, copy=False)
    if need[2]:
        gb = gy.sum(axis=(0, *range(2, gy.ndim)))
    return gx, gw, gb


def _rule_conv(ops: Any, g: Any, out: Any, x: Any, w: Any, b: Any, need: tuple[Any, ...] = (),
               **p: Any) -> tuple[Any, ...]:
    return _backward_any(ops, g, x, w, need, p)


def _rule_conv_backward(ops: Any, gg: tuple[Any, ...], out: Any, gy: Any, x: Any, w: Any,
                        need: tuple[Any, ...] = (), **p: Any) -> tuple[Any, ...]:
    """The derivative of ``(gx, gw, gb) = backward(gy, x, w)`` (see the module docstring)."""
    it = iter(gg)
    ggx, ggw, ggb = (next(it) if k else None for k in need)
    d_gy = None
    if ggx is not None:
        d_gy = _conv_any(ops, ggx, w, p)
    if ggw is not None:
        term = _conv_any(ops, x, ggw, p)
        d_gy = term if d_gy is None else d_gy + term
    if ggb is not None:
        shape = (1, -1) + (1,) * p["nd"]
        term = ggb.reshape(shape) if not ops.tensors else S.reshape(ggb, shape)
        d_gy = term + (0 * gy if d_gy is None else d_gy)
    d_x = _backward_any(ops, gy, x, ggw, (True, False, False), p)[0] if ggw is not None else None
    d_w = _backward_any(ops, gy, ggx, w, (False, True, False), p)[1] if ggx is not None else None
    return d_gy, d_x, d_w


def _param(name: str) -> Any:
    return lambda args, params: params["saved"][name]


_CONV_PLAN = (("bias_sym_sizes_opt", lambda a, p: tuple(a[2].shape) if a[2] is not None
               else (0,), None),
              ("dilation", _param("dilation"), None), ("groups", _param("groups"), None),
              ("input", 0, None), ("output_padding", _param("output_padding"), None),
              ("padding", _param("padding"), None), ("stride", _param("stride"), None),
              ("transposed", lambda a, p: False, None), ("weight", 1, None))
_CONV = node_class("ConvolutionBackward0", _rule_conv, (0, 1, 2), _CONV_PLAN, False)
_CONV_BACKWARD = node_class("ConvolutionBackwardBackward0", _rule_conv_backward, (0, 1, 2),
                            (("grad_output", 0, None), ("input", 1, None), ("weight", 2, None)),
                            False, MultiRuleNode)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, p: dict[str, Any]) -> Tensor:
    """``conv(input, weight) + bias`` for checked arguments and normalised settings ``p``."""
    nd = p["nd"]
    data = _from4(conv_arrays(_to4(input._data, nd), _to4(weight._data, nd), p), nd)
    if bias is not None:
        data += bias._data.reshape((-1,) + (1,) * nd)
    if needs_grad((input, weight, bias)):
        need = (input._requires_grad, weight._requires_grad,
                bias is not None and bias._requires_grad)
        return record(_CONV, data, (input, weight, bias), {"need": need, **p})
    return plain(data)


def convolution_backward(gy: Tensor, x: Tensor, w: Tensor, need: tuple[Any, ...],
                         p: dict[str, Any]) -> tuple[Any, ...]:
    """``(gx, gw, gb)`` as Tensors (``None`` where not needed), recorded as one node."""
    arrays = _backward_arrays(gy._data, x._data, w._data, need, p)
    datas = tuple(a for a in arrays if a is not None)
    if needs_grad((gy, x, w)) and STATE.enabled:
        outs = iter(record_multi(_CONV_BACKWARD, datas, (gy, x, w), {"need": need, **p}))
    else:
        outs = iter(plain(d) for d in datas)
    return tuple(next(outs) if a is not None else None for a in arrays)


# --- argument checks and the functional forms -------------------------------------------------

def _tuple(v: Any, n: int) -> tuple[Any, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(int(e) for e in v) if len(v) != 1 or n == 1 else (int(v[0]),) * n
    return (int(v),) * n


def _settings(weight: Any, nd: int, stride: Any, padding: Any, dilation: Any,
              groups: int) -> dict[str, Any]:
    """Normalised settings: 2-d stride/dilation/(lo, hi) pads, and PyTorch's saved forms."""
    st, dil = _tuple(stride, nd), _tuple(dilation, nd)
    ks = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pad_pairs = [(0, 0)] * nd
        elif padding == "same":
            if any(s != 1 for s in st):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pad_pairs = []
            for k, d in zip(ks, dil):
                total = d * (k - 1)
                pad_pairs.append((total // 2, total - total // 2))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pad_pairs = [(q, q) for q in _tuple(padding, nd)]
    saved_pad = tuple(lo if lo == hi else 0 for lo, hi in pad_pairs)
    if nd == 1:
        st2, dil2, pads = (1, st[0]), (1, dil[0]), ((0, 0), pad_pairs[0])
    else:
        st2, dil2, pads = st, dil, (pad_pairs[0], pad_pairs[1])
    saved = {"stride": st, "padding": saved_pad, "dilation": dil, "groups": groups,
             "output_padding": (0,) * nd}
    return {"nd": nd, "stride": st2, "dilation": dil2, "pads": pads, "groups": groups,
            "saved": saved}


def _check(input: Tensor, weight: Tensor, bias: Tensor | None, nd: int, p: dict[str, Any]) -> None:
    name = f"conv{nd}d"
    shape, wshape = input._data.shape, weight._data.shape
    if len(wshape) != nd + 2:
        raise RuntimeError("weight should have at least three dimensions" if len(wshape) < 3
                           else f"Expected {len(wshape)}-dimensional input for "
                           f"{len(wshape)}-dimensional weight {list(wshape)}, but got "
                           f"{len(shape)}-dimensional input of size {list(shape)} instead")
    if len(shape) != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(shape)}")
    groups = p["groups"]
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(wshape)}] instead")
    if shape[1] != wshape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(wshape)}, expected "
                           f"input{list(shape)} to have {wshape[1] * groups} channels, but got "
                           f"{shape[1]} channels instead")
    if bias is not None and bias._data.shape != (wshape[0],):
        raise RuntimeError(f"Given weight of size {list(wshape)}, expected bias to be 1-dimensional"
                           f" with {wshape[0]} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    pads = p["pads"][2 - nd:]
    padded = [n + lo + hi for n, (lo, hi) in zip(shape[2:], pads)]
    dil = p["dilation"][2 - nd:]
    eff = [d * (k - 1) + 1 for k, d in zip(wshape[2:], dil)]
    if any(a < k for a, k in zip(padded, eff)):
        sizes = " x ".join(map(str, padded))
        raise RuntimeError(f"Calculated padded input size per channel: ({sizes})"
                           f". Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be "
                           "greater than actual input size")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {_word(input)} but found {_word(weight)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_ctype(input)}) and bias type ({_ctype(bias)}) "
                           "should be the same")


def _ctype(t: Tensor) -> str:
    return {"float32": "float", "float64": "double"}.get(t.dtype.name, t.dtype.name)


def _word(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(t.dtype.name,
                                                                            t.dtype.name)


def _conv(nd: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
          padding: Any, dilation: Any, groups: int) -> Tensor:
    p = _settings(weight, nd, stride, padding, dilation, groups)
    unbatched = input.dim() == nd + 1
    x = S.unsqueeze(input, 0) if unbatched else input
    _check(x, weight, bias, nd, p)
    extra = [hi - lo for lo, hi in p["pads"][2 - nd:]]
    if any(extra):  # PyTorch pads the odd remainder first, then convolves symmetrically
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=3)
        x = constant_pad(x, tuple(v for e in reversed(extra) for v in (0, e)))
        p = _settings(weight, nd, stride, [lo for lo, _ in p["pads"][2 - nd:]], dilation,
                      groups)
    y = convolution(x, weight, bias, p)
    return S.squeeze(y, 0) if unbatched else y


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-d cross-correlation of ``(N, C, L)`` (or ``(C, L)``) with ``(O, C/groups, K)``."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-d cross-correlation of ``(N, C, H, W)`` (or ``(C, H, W)``) with ``(O, C/groups, KH,
    KW)`` (``ConvolutionBackward0``).

    >>> import st_autodiff as torch
    >>> torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 2, 2])
    """
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


# --- modules ----------------------------------------------------------------------------------

class _ConvNd(Module):
    """Shared body of ``Conv1d``/``Conv2d``: settings, parameters, initialisation, repr."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                             f"'circular'], but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, nd)
        self.dilation = _tuple(dilation, nd)
        self.transposed = False
        self.output_padding = (0,) * nd
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(empty((out_channels, in_channels // groups, *self.kernel_size),
                                      device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default start: Kaiming uniform with ``a = sqrt(5)``, then the bias
        uniform in ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _reversed_padding(self) -> tuple[Any, ...]:
        """(left, right) per spatial dimension, last dimension first, as ``F.pad`` reads."""
        out: list[int] = []
        for k, d, pad in zip(self.kernel_size[::-1], self.dilation[::-1],
                             (None,) * self._nd if isinstance(self.padding, str)
                             else self.padding[::-1]):
            if self.padding == "same":
                total = d * (k - 1)
                out += [total // 2, total - total // 2]
            else:
                out += [0, 0] if pad is None else [pad, pad]
        return tuple(out)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = pad_by_mode(input, self._reversed_padding(), self.padding_mode)
            return _conv(self._nd, padded, self.weight, self.bias, self.stride, 0,
                         self.dilation, self.groups)
        return _conv(self._nd, input, self.weight, self.bias, self.stride, self.padding,
                     self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        nd = self._nd
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution layer over ``(N, C_in, L)``; weight ``(C_out, C_in/groups, K)``."""

    _nd = 1


class Conv2d(_ConvNd):
    """2-d convolution layer over ``(N, C_in, H, W)``; weight ``(C_out, C_in/groups, KH, KW)``.

    >>> import st_autodiff as torch
    >>> torch.nn.Conv2d(1, 6, 5)
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
    """

    _nd = 2
