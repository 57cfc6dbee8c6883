"""The elementwise activations of ``nn.functional`` beyond ``relu``/``sigmoid``/``tanh``.

Each activation PyTorch records as one node of its own (``GeluBackward0``,
``EluBackward0``, ``SoftplusBackward0`` ...) is made here by ``_pointwise`` from two
functions written with the rules' ``ops`` protocol: the forward (run on arrays) and the
derivative rule.  Because the rule uses only ``ops`` calls and operators, a
``create_graph`` backward records it and second derivatives work.  The node saves what
PyTorch saves (``_saved_self``, ``_saved_alpha`` ...).  The in-place forms PyTorch records
from the result (``EluBackward1``, ``LeakyReluBackward1``, ``CeluBackward1``,
``ThresholdBackward1``) get a rule written in terms of the output.  ``softsign``,
``tanhshrink`` and ``softmin`` are compositions, as in PyTorch.

>>> import st_autodiff as torch
>>> import st_autodiff.nn.functional as F
>>> F.leaky_relu(torch.tensor([-1.0, 2.0], requires_grad=True), 0.5)
tensor([-0.5000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import functional as RF
from .. import select_bits as bits
from .. import shape_ops as S
from ..function import TensorBase, node_class
from ..inplace import inplace as _inplace
from ..tensor import Tensor, plain
from ..tensor_ops import array_ops_for, needs_grad, record
from ..zero_links import linked

__all__ = [
    "celu", "elu", "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu",
    "logsigmoid", "mish", "prelu", "relu6", "selu", "silu", "softmin", "softplus",
    "softshrink", "softsign", "tanhshrink", "threshold",
]

_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_TYPE = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool"}


def _p(name: str) -> Callable[[tuple[Any, ...], dict[Any, Any]], Any]:
    return lambda args, params: params[name]


def _pointwise(node: str, kernel: str, forward: Callable[..., Any],
               rule: Callable[..., tuple[Any, ...]],
               params: tuple[str, ...] = (), result_node: str | None = None,
               result_rule: Callable[..., tuple[Any, ...]] | None = None) -> Callable[..., Tensor]:
    """An activation recorded as ``node``; ``result_node`` (with ``result_rule``, which reads
    the output) is the node of the in-place form."""
    saved = tuple((p, _p(p), None) for p in params)
    cls = node_class(node, rule, (0,), (("self", 0, None),) + saved, False)
    # (every caller passing ``result_node`` passes its ``result_rule`` too)
    cls_result = (node_class(result_node, result_rule, (0,),  # type: ignore[arg-type]
                             (("result", "result", None),) + saved, True)
                  if result_node else None)

    def compute(input: Tensor, from_result: bool = False, **kw: Any) -> Tensor:
        if not isinstance(input, TensorBase):
            raise TypeError(f"{kernel}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        x = input._data
        if x.dtype.kind != "f":
            word = _TYPE.get(x.dtype.name, x.dtype.name)
            raise NotImplementedError(f'"{kernel}" not implemented for \'{word}\'')
        data = forward(array_ops_for(x), x, **kw).astype(x.dtype, copy=False)
        if not needs_grad((input,)):
            return plain(data)
        use = cls_result if from_result and cls_result is not None else cls
        return record(use, data, (input,), kw)

    def apply(input: Tensor, inplace: bool = False, **kw: Any) -> Tensor:
        if inplace:
            return _inplace(input, lambda t: compute(t, True, **kw))
        return compute(input, **kw)

    return apply


# --- gelu ---------------------------------------------------------------------------------------

_K = math.sqrt(2.0 / math.pi)
_C = 0.044715


def _gelu(ops: Any, x: Any, approximate: str = "none") -> Any:
    if approximate == "tanh":
        return 0.5 * x * (1.0 + ops.tanh(_K * (x + _C * x * x * x)))
    return 0.5 * x * (1.0 + ops.erf(x * (1.0 / math.sqrt(2.0))))


def _rule_gelu(ops: Any, g: Any, out: Any, x: Any, approximate: str = "none") -> tuple[Any, ...]:
    """``d gelu``: ``Phi(x) + x phi(x)``, or the derivative of the tanh form."""
    if approximate == "tanh":
        t = ops.tanh(_K * (x + _C * x * x * x))
        d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _K * (1.0 + 3.0 * _C * x * x)
    else:
        cdf = 0.5 * (1.0 + ops.erf(x * (1.0 / math.sqrt(2.0))))
        d = cdf + x * ops.exp(-0.5 * x * x) * (1.0 / math.sqrt(2.0 * math.pi))
    return (g * d,)


_gelu_fn = _pointwise("GeluBackward0", "GeluKernelImpl", _gelu, _rule_gelu, ("approximate",))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (``Phi`` the normal CDF); ``approximate='tanh'`` uses the tanh form."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu_fn(input, approximate=approximate)


# --- silu, mish ---------------------------------------------------------------------------------

def _silu(ops: Any, x: Any) -> Any:
    return x * ops.sigmoid(x)


def _rule_silu(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    s = ops.sigmoid(x)
    return (g * (s * (1.0 + x * (1.0 - s))),)


_silu_fn = _pointwise("SiluBackward0", "silu_cpu", _silu, _rule_silu)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (``SiluBackward0``)."""
    return _silu_fn(input, inplace)


def _softplus1(ops: Any, x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow."""
    return ops.log1p(ops.exp(-ops.abs(x))) + ops.maximum(x, 0.0)


def _mish(ops: Any, x: Any) -> Any:
    return x * ops.tanh(_softplus1(ops, x))


def _rule_mish(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    t = ops.tanh(_softplus1(ops, x))
    return (g * (t + x * ops.sigmoid(x) * (1.0 - t * t)),)


_mish_fn = _pointwise("MishBackward0", "mish_cpu", _mish, _rule_mish)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (``MishBackward0``)."""
    return _mish_fn(input, inplace)


# --- elu, selu, celu ----------------------------------------------------------------------------

def _elu(ops: Any, x: Any, alpha: float = 1.0, scale: float = 1.0,
         input_scale: float = 1.0) -> Any:
    neg = ops.expm1(ops.minimum(x, 0.0) * input_scale) * (alpha * scale)
    pos = x * scale
    if not ops.tensors and bits.fits(x, pos, neg):  # part "speed": no per-element branch
        return bits.select(x > 0, pos, neg)
    return ops.where(x > 0, pos, neg)


def _rule_elu(ops: Any, g: Any, out: Any, x: Any, alpha: float = 1.0, scale: float = 1.0,
              input_scale: float = 1.0) -> tuple[Any, ...]:
    # ``where(x < 0, x, 0)`` rather than ``minimum(x, 0)``: its derivative at 0 is 0, which
    # gives PyTorch's second derivative there (its double backward masks with ``x < 0``)
    fast = not ops.tensors and bits.fits(x, g)  # part "speed": the same values on the bits
    below = bits.keep(x < 0, x) if fast else ops.where(x < 0, x, 0.0)
    slope = ops.exp(below * input_scale) * (input_scale * alpha * scale)
    pos, neg = g * scale, g * slope
    if fast and bits.fits(x, pos, neg):
        return (bits.select(x > 0, pos, neg),)
    return (ops.where(x > 0, pos, neg),)


def _rule_elu_result(ops: Any, g: Any, out: Any, x: Any, alpha: float = 1.0,
                     scale: float = 1.0, input_scale: float = 1.0) -> tuple[Any, ...]:
    """The same derivative read from the output: ``input_scale (out + alpha scale)``."""
    below = ops.where(out < 0, out, 0.0)  # derivative 0 at 0, as in ``_rule_elu``
    return (ops.where(out > 0, g * scale, g * ((below + alpha * scale) * input_scale)),)


_ELU = ("alpha", "input_scale", "scale")
_elu_fn = _pointwise("EluBackward0", "elu_cpu", _elu, _rule_elu, _ELU, "EluBackward1",
                     _rule_elu_result)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha (exp(x) - 1)`` elsewhere (``EluBackward0``)."""
    return _elu_fn(input, inplace, alpha=alpha, scale=1, input_scale=1)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants (``EluBackward0``)."""
    return _elu_fn(input, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1)


def _celu(ops: Any, x: Any, alpha: float = 1.0) -> Any:
    return _elu(ops, x, alpha, 1.0, 1.0 / alpha)


def _rule_celu(ops: Any, g: Any, out: Any, x: Any, alpha: float = 1.0) -> tuple[Any, ...]:
    return _rule_elu(ops, g, out, x, alpha, 1.0, 1.0 / alpha)


def _rule_celu_result(ops: Any, g: Any, out: Any, x: Any, alpha: float = 1.0) -> tuple[Any, ...]:
    return _rule_elu_result(ops, g, out, x, alpha, 1.0, 1.0 / alpha)


_celu_fn = _pointwise("CeluBackward0", "elu_cpu", _celu, _rule_celu, ("alpha",),
                      "CeluBackward1", _rule_celu_result)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` (``CeluBackward0``)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _celu_fn(input, inplace, alpha=alpha)


# --- piecewise linear: leaky_relu, hardtanh, relu6, threshold, shrinks --------------------------

def _leaky(ops: Any, x: Any, negative_slope: float = 0.01) -> Any:
    scaled = x * negative_slope
    if not ops.tensors and bits.fits(x, scaled):  # part "speed": no per-element branch
        return bits.select(x > 0, x, scaled)
    return ops.where(x > 0, x, scaled)


def _rule_leaky(ops: Any, g: Any, out: Any, x: Any,
                negative_slope: float = 0.01) -> tuple[Any, ...]:
    scaled = g * negative_slope
    if not ops.tensors and bits.fits(x, g, scaled):  # part "speed": the same values
        return (bits.select(x > 0, g, scaled),)
    return (ops.where(x > 0, g, scaled),)


def _rule_leaky_result(ops: Any, g: Any, out: Any, x: Any,
                       negative_slope: float = 0.01) -> tuple[Any, ...]:
    """From the output, the sign of the input is known only for a non-negative slope."""
    if negative_slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a "
                           "negative slope which is not supported. This is caused by calling "
                           "in-place forward function with a negative slope, please call "
                           "out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting "
                           "in-place leakRelu backward calculation with negative slope")
    return (ops.where(out > 0, g, g * negative_slope),)


_leaky_fn = _pointwise("LeakyReluBackward0", "leaky_relu_cpu", _leaky,
                       linked(_rule_leaky, "LeakyReluBackwardBackward0"),
                       ("negative_slope",), "LeakyReluBackward1", _rule_leaky_result)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``negative_slope * x`` elsewhere (``LeakyReluBackward0``)."""
    return _leaky_fn(input, inplace, negative_slope=negative_slope)


def _hardtanh(ops: Any, x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    return ops.minimum(ops.maximum(x, min_val), max_val)


def _rule_hardtanh(ops: Any, g: Any, out: Any, x: Any, min_val: float = -1.0,
                   max_val: float = 1.0) -> tuple[Any, ...]:
    """The gradient passes strictly inside ``(min_val, max_val)`` only."""
    return (ops.where((x > min_val) & (x < max_val), g, 0.0),)


_hardtanh_fn = _pointwise("HardtanhBackward0", "hardtanh_cpu", _hardtanh,
                          linked(_rule_hardtanh, "HardtanhBackwardBackward0"),
                          ("max_val", "min_val"))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]`` (``HardtanhBackward0``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh_fn(input, inplace, min_val=min_val, max_val=max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``hardtanh(x, 0, 6)``, recorded as ``HardtanhBackward0`` as in PyTorch."""
    return _hardtanh_fn(input, inplace, min_val=0.0, max_val=6.0)


def _threshold(ops: Any, x: Any, threshold: float = 0.0, value: float = 0.0) -> Any:
    return ops.where(x > threshold, x, value)


def _rule_threshold(ops: Any, g: Any, out: Any, x: Any, threshold: float = 0.0,
                    value: float = 0.0) -> tuple[Any, ...]:
    return (ops.where(x > threshold, g, 0.0),)


def _rule_threshold_result(ops: Any, g: Any, out: Any, x: Any, threshold: float = 0.0,
                           value: float = 0.0) -> tuple[Any, ...]:
    return (ops.where(out > threshold, g, 0.0),)


_threshold_fn = _pointwise("ThresholdBackward0", "threshold_cpu", _threshold,
                           linked(_rule_threshold, "ThresholdBackwardBackward0"),
                           ("threshold",), "ThresholdBackward1", _rule_threshold_result)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere (``ThresholdBackward0``)."""
    return _threshold_fn(input, inplace, threshold=threshold, value=value)


def _softshrink(ops: Any, x: Any, lambd: float = 0.5) -> Any:
    return ops.where(x > lambd, x - lambd, ops.where(x < -lambd, x + lambd, 0.0))


def _hardshrink(ops: Any, x: Any, lambd: float = 0.5) -> Any:
    return ops.where((x >= -lambd) & (x <= lambd), 0.0, x)


def _rule_shrink(ops: Any, g: Any, out: Any, x: Any, lambd: float = 0.5) -> tuple[Any, ...]:
    return (ops.where((x >= -lambd) & (x <= lambd), 0.0, g),)


_softshrink_fn = _pointwise("SoftshrinkBackward0", "softshrink_cpu", _softshrink,
                            linked(_rule_shrink, "SoftshrinkBackwardBackward0"),
                            ("lambd",))
_hardshrink_fn = _pointwise("HardshrinkBackward0", "hardshrink_cpu", _hardshrink,
                            linked(_rule_shrink, "HardshrinkBackwardBackward0"),
                            ("lambd",))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    if lambd < 0:
        word, top = ("Double", "1.79769e+308") if input.dtype.name == "float64" else \
            ("Float", "3.40282e+38")
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {word}, but "
                           f"found {lambd:g}")
    return _softshrink_fn(input, lambd=lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, 0 elsewhere (``HardshrinkBackward0``)."""
    return _hardshrink_fn(input, lambd=lambd)


# --- hardsigmoid, hardswish, logsigmoid, softplus -----------------------------------------------

def _hardsigmoid(ops: Any, x: Any) -> Any:
    return ops.minimum(ops.maximum(x + 3.0, 0.0), 6.0) / 6.0


def _rule_hardsigmoid(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    # PyTorch multiplies by 1/6 rounded to float32, in every dtype
    return (ops.where((x > -3.0) & (x < 3.0), g * _SIXTH_F32, 0.0),)


def _hardswish(ops: Any, x: Any) -> Any:
    return x * _hardsigmoid(ops, x)


def _rule_hardswish(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    """PyTorch's branches: 0 up to -3 (inclusive), ``x / 3 + 1/2`` below 3, 1 from 3 on."""
    inner = ops.where(x < 3.0, g * (x / 3.0 + 0.5), g)
    return (ops.where(x <= -3.0, 0.0, inner),)


_hardsigmoid_fn = _pointwise("HardsigmoidBackward0", "hardsigmoid_cpu", _hardsigmoid,
                             _rule_hardsigmoid)
_hardswish_fn = _pointwise("HardswishBackward0", "hardswish_cpu", _hardswish, _rule_hardswish)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6`` (``HardsigmoidBackward0``)."""
    return _hardsigmoid_fn(input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6`` (``HardswishBackward0``)."""
    return _hardswish_fn(input, inplace)


def _logsigmoid(ops: Any, x: Any) -> Any:
    return ops.minimum(x, 0.0) - ops.log1p(ops.exp(-ops.abs(x)))


def _rule_logsigmoid(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    return (g * ops.sigmoid(-x),)


_logsigmoid_fn = _pointwise("LogSigmoidBackward0", "log_sigmoid_forward", _logsigmoid,
                            _rule_logsigmoid)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed without overflow (``LogSigmoidBackward0``)."""
    return _logsigmoid_fn(input)


def _softplus(ops: Any, x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    bx = x * beta
    return ops.where(bx > threshold, x, _softplus1(ops, bx) / beta)


def _rule_softplus(ops: Any, g: Any, out: Any, x: Any, beta: float = 1.0,
                   threshold: float = 20.0) -> tuple[Any, ...]:
    bx = x * beta
    # the sigmoid's argument stops at the threshold: the same values, and a second
    # derivative of 0 at ``beta x == threshold``, as PyTorch's double backward gives
    below = ops.where(bx < threshold, bx, threshold)
    return (ops.where(bx > threshold, g, g * ops.sigmoid(below)),)


_softplus_fn = _pointwise("SoftplusBackward0", "softplus_cpu", _softplus, _rule_softplus,
                          ("beta", "threshold"))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    return _softplus_fn(input, beta=beta, threshold=threshold)


# --- compositions and prelu ---------------------------------------------------------------------

def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``, composed as in PyTorch (``DivBackward0`` over ``AddBackward0``)."""
    return RF.div(input, RF.add(RF.abs(input), 1))


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` (``SubBackward0``)."""
    return RF.sub(input, RF.tanh(input))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """``softmax(-x)`` along ``dim``."""
    from .functional import _softmax_dim

    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel + 1)
    return RF.softmax(RF.neg(input), dim, dtype=dtype)


def _rule_prelu(ops: Any, g: Any, out: Any, x: Any, w: Any) -> tuple[Any, ...]:
    """``x`` where positive, ``w x`` elsewhere; the weight's gradient is summed to its shape
    by the engine."""
    # the weight's mask is ``x < 0`` (the same values as ``x <= 0``): its derivative in ``x``
    # is then 0 at 0, PyTorch's second derivative there
    # and at 0 the input's gradient ``w g`` does not depend on ``w`` (``stop_gradient``)
    w_at = ops.where(x < 0, w, ops.stop_gradient(w))
    return (ops.where(x > 0, g, g * w_at), ops.where(x < 0, g * x, 0.0))


_PRELU = node_class("PreluKernelBackward0", _rule_prelu, (0, 1),
                    (("self", 0, None), ("weight", 1, None)), False)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere, one weight per channel (dim 1) or one
    for all (``PreluKernelBackward0``; the weight is viewed to broadcast first)."""
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    nd = input.ndim
    channels = input.shape[1] if nd >= 2 else 1
    n = weight.numel()
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {n} and channel size = {channels}.")
    if nd >= 2:  # viewed to broadcast along dim 1 (a vector input uses the weight as is)
        shape = [1] * nd
        shape[1] = n
        weight = S.view(weight, *shape)
    elif nd == 0 and weight.ndim:  # a 0-d input keeps its shape
        weight = S.view(weight, ())
    x: Any = input._data
    w: Any = weight._data
    data = np.where(x > 0, x, w * x).astype(x.dtype, copy=False)
    if needs_grad((input, weight)):
        return record(_PRELU, data, (input, weight), {})
    return plain(data)
