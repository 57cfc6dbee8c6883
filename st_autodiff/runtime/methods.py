"""The Tensor methods and operators that are ops: installed on ``Tensor`` by ``install()``.

Operators map to the functional layer (``x * 2`` is ``functional.mul(x, 2)``), methods to
the function of the same name, in-place methods (``add_``) to ``inplace.inplace`` and
augmented assignment (``+=``) to the in-place methods, as in PyTorch.  Conversions
(``to``, ``double``, ``cuda`` ...) record ``ToCopyBackward0``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.kernels import array_namespace
from ..ir.ops import Op
from . import dtypes
from . import functional as F
from . import shape_ops as S
from .device import cuda_namespace, to_device, to_host
from .function import TensorBase, node_class
from .grad_mode import STATE
from .inplace import check_inplace, inplace, inplace_method, setitem
from .protocols import install_protocols
from .tensor import Tensor, plain
from .tensor_ops import needs_grad, record

__all__ = ["install"]

_TO_COPY = node_class("ToCopyBackward0", RULES[Op.ASTYPE], (0,), (), False)


def _rule_device(ops: Any, g: Any, out: Any, x: Any, device: str = "cpu") -> tuple[Any, ...]:
    """Moving between devices: the gradient moves back to the input's device."""
    if ops.tensors:
        return (g.to(device),)
    if device == "cpu":
        return (to_host(g),)
    return (to_device(g),)


_TO_DEVICE = node_class("ToCopyBackward0", _rule_device, (0,), (), False)


def _cuda_backend() -> Any:
    """The array library of ``cuda`` tensors (CuPy, or the CPU stand-in)."""
    return cuda_namespace()


def _parse_to(args: tuple[Any, ...], kwargs: dict[Any, Any]) -> tuple[Any, Any]:
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, dtypes.device, int)):
            device = a
        elif a is not None:
            dtype = dtypes.to_dtype(a)
    return dtype, (None if device is None else dtypes.device(device))


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to another dtype and/or device (``ToCopyBackward0``); no-op when unchanged."""
    dtype, device = _parse_to(args, kwargs)
    out = self
    if device is not None and device.type != self.device.type:
        out = _move(out, device)
    if dtype is not None and dtypes.to_dtype(dtype).np != out._data.dtype:
        out = _cast(out, dtypes.to_dtype(dtype))
    if kwargs.get("copy") and out is self:
        out = S.clone(self)
    return out


def astype(self: Tensor, dtype: Any) -> Tensor:
    """NumPy's spelling of a cast (not in PyTorch): generated adjoints call it, and the
    bridge runs them over Tensors for ``create_graph``."""
    return to(self, dtypes.to_dtype(np.dtype(str(dtype))))


def _cast(t: Tensor, dtype: dtypes.dtype) -> Tensor:
    data = t._data.astype(dtype.np)
    if dtype.is_floating_point and needs_grad((t,)):
        return record(_TO_COPY, data, (t,), {"dtype": dtype.name})
    return plain(data)


def _move(t: Tensor, device: dtypes.device) -> Tensor:
    if device.type == "cuda":
        data = to_device(t._data)
    else:
        data = to_host(t._data)
    if needs_grad((t,)):
        return record(_TO_DEVICE, data, (t,), {"device": str(t.device)})
    return plain(data)


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """The type name (``'torch.FloatTensor'``), or a conversion to ``dtype``."""
    if dtype is None:
        prefix = "torch.cuda." if self.is_cuda else "torch."
        return prefix + self.dtype._tensor_type
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        match = [d for d in dtypes.ALL_DTYPES if d._tensor_type == name]
        dtype = match[0]
    return to(self, dtype)


def _converter(dtype: dtypes.dtype) -> Any:
    def convert(self: Tensor, memory_format: Any = None) -> Tensor:
        return to(self, dtype)

    convert.__doc__ = f"``self.to({dtype})``."
    return convert


def cuda(self: Tensor, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
    """A copy on the GPU (through CuPy)."""
    return to(self, dtypes.device("cuda", 0 if device is None else int(device)))


def cpu(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, "cpu")


# --- in-place ---------------------------------------------------------------------------

def _rule_zero(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    """Overwriting every element with a constant: no gradient reaches the old value."""
    return (ops.zeros_like(g),)


_ZERO = node_class("ZeroBackward0", _rule_zero, (0,), (), False)
_FILL = node_class("FillBackward2", _rule_zero, (0,), (), False)
_RANDOM = {n: node_class(n, _rule_zero, (0,), (), False)
           for n in ("UniformBackward0", "NormalBackward0", "BernoulliBackward0")}


def _constant(cls: type, make: Any) -> Any:
    def compute(t: Tensor) -> Tensor:
        data = make(t)
        if needs_grad((t,)):
            return record(cls, data, (t,), {})
        return plain(data)

    return compute


def zero_(self: Tensor) -> Tensor:
    """Set every element to 0."""
    d = self._data
    if not (STATE.enabled and self._requires_grad) and type(d) is np.ndarray \
            and d.flags.writeable:
        # speedcore: nothing to record (a gradient's ``zero_()``): write the zeros in place
        check_inplace(self)
        d[...] = 0
        self._bump()
        return self
    return inplace(self, _constant(_ZERO, lambda t: np.zeros_like(t._data)))


def _rule_fill_tensor(ops: Any, g: Any, out: Any, x: Any, value: Any) -> tuple[Any, ...]:
    """``fill_`` with a 0-d tensor: nothing reaches the old value, the value gets the sum."""
    return ops.zeros_like(g), ops.sum(g)


_FILL_TENSOR = node_class("FillBackward3", _rule_fill_tensor, (0, 1), (), False)


def fill_(self: Tensor, value: Any) -> Tensor:
    """Set every element to ``value`` (``FillBackward2``; ``FillBackward3`` for a tensor
    value, which receives the sum of the gradient, as in PyTorch)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")

        def compute(t: Tensor, v: Tensor) -> Tensor:
            data = np.full_like(t._data, v.item())
            if needs_grad((t, v)):
                return record(_FILL_TENSOR, data, (t, v), {})
            return plain(data)

        return inplace(self, compute, value)
    return inplace(self, _constant(_FILL, lambda t: np.full_like(t._data, value)))


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into this tensor (``CopyBackwards``)."""
    if not isinstance(src, TensorBase):
        src = plain(np.asarray(src))

    def compute(t: Tensor, s: Tensor) -> Tensor:
        src = s._data if s.device == t.device else _move(s.detach(), t.device)._data
        xp = array_namespace(t._data)
        shape = t._data.shape
        if src.shape != shape:
            try:
                wide = np.broadcast_shapes(shape, src.shape)
            except ValueError:
                raise F._broadcast_error(t._data, src) from None
            if wide != shape:
                raise RuntimeError(f"output with shape {list(shape)} doesn't match the "
                                   f"broadcast shape {list(wide)}")
        data = xp.broadcast_to(src, shape).astype(t._data.dtype)
        if needs_grad((t, s)):
            return record(F._copy_cls, data, (t, s), {})
        return plain(data)

    return inplace(self, compute, src)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with uniform random values in ``[a, b)``."""
    from .random import uniform_data

    return inplace(self, _constant(_RANDOM["UniformBackward0"],
                                   lambda t: uniform_data(t._data.shape, t.dtype, a, b,
                                                          generator)))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with normal random values."""
    from .random import normal_data

    return inplace(self, _constant(_RANDOM["NormalBackward0"],
                                   lambda t: normal_data(t._data.shape, t.dtype, mean, std,
                                                         generator)))


def bernoulli_(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 1 where a uniform draw falls below ``p``, else 0."""
    from .random import uniform_data

    return inplace(self, _constant(_RANDOM["BernoulliBackward0"],
                                   lambda t: (uniform_data(t._data.shape, dtypes.float32, 0.0,
                                                           1.0, generator) < p)
                                   .astype(t._data.dtype)))


def _iop(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return inplace(self, fn, other)

    return method


_INPLACE = {
    "add_": F.add, "sub_": F.sub, "mul_": F.mul, "div_": F.div, "pow_": F.pow,
    "neg_": F.neg, "exp_": F.exp, "log_": F.log, "sqrt_": F.sqrt, "sin_": F.sin,
    "cos_": F.cos, "tanh_": F.tanh, "sigmoid_": F.sigmoid, "relu_": F.relu, "abs_": F.abs,
    "clamp_": F.clamp, "clip_": F.clamp, "clamp_min_": F.clamp_min, "clamp_max_": F.clamp_max,
    "reciprocal_": F.reciprocal, "rsqrt_": F.rsqrt, "square_": F.square, "sign_": F.sign,
    "floor_": F.floor, "ceil_": F.ceil, "round_": F.round, "trunc_": F.trunc,
    "addcmul_": F.addcmul, "addcdiv_": F.addcdiv, "lerp_": F.lerp, "log1p_": F.log1p,
    "expm1_": F.expm1, "exp2_": F.exp2, "remainder_": F.remainder,
    "maximum_": F.maximum, "minimum_": F.minimum,
}

# --- the method table ----------------------------------------------------------------------

_SAME_NAME = (
    "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square sin cos tan asin acos atan sinh cosh "
    "tanh asinh acosh atanh abs neg negative reciprocal sigmoid relu sign floor ceil trunc round "
    "arcsin arccos arctan absolute fix "
    "add sub subtract mul multiply div divide true_divide pow floor_divide remainder maximum "
    "minimum fmax fmin atan2 arctan2 hypot logaddexp rsub "
    "eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or "
    "logical_xor logical_not isnan isinf isfinite equal allclose isclose clamp clip clamp_min "
    "clamp_max sum mean prod max min amax amin argmax argmin norm std var logsumexp softmax "
    "log_softmax cumsum matmul mm bmm mv dot inner outer ger addmm addcmul addcdiv lerp dist trace "
    "any all"
).split()
_SHAPE_NAMES = (
    "view view_as reshape reshape_as flatten squeeze unsqueeze permute transpose swapaxes "
    "swapdims t expand expand_as broadcast_to clone contiguous is_contiguous flip repeat "
    "unbind split chunk narrow select movedim nonzero tile"
).split()


def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    return F.where(condition, self, other)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return to(self, other.dtype)


def _new_factory(kind: str) -> Any:
    from . import factory

    def method(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, **kwargs: Any) -> Tensor:
        dtype = dtype or self.dtype
        device = device or self.device
        fn: Callable[..., Tensor] = getattr(factory, kind)
        if kind == "tensor":
            return fn(args[0], dtype=dtype, device=device, requires_grad=requires_grad)
        return fn(*args, dtype=dtype, device=device, requires_grad=requires_grad, **kwargs)

    method.__name__ = f"new_{kind}"
    return method


def _bitwise(ufunc: Any, name: str) -> Any:
    def op(self: Tensor, other: Any) -> Tensor:
        b = other._data if isinstance(other, TensorBase) else other
        if self._data.dtype.kind == "f":
            raise RuntimeError(f'"{name}_cpu" not implemented for \'Float\'')
        return plain(ufunc(self._data, b))

    return op



def _invert(self: Tensor) -> Tensor:
    """``~t``: bitwise NOT, logical NOT for bool; PyTorch's message for floating point."""
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return plain(np.invert(self._data))

def install() -> None:
    """Attach the op methods and operators to ``Tensor``."""
    install_protocols()
    T = Tensor  # noqa: N806
    for name in _SAME_NAME:
        setattr(T, name, getattr(F, name))
    for name in _SHAPE_NAMES:
        setattr(T, name, getattr(S, name))
    for name, fn in _INPLACE.items():
        setattr(T, name, inplace_method(fn, name))
    ops = {
        "__add__": F._add, "__radd__": F._add, "__sub__": F._sub, "__rsub__": F.rsub,
        "__mul__": F.mul, "__rmul__": F.mul, "__truediv__": F._div, "__rtruediv__": F.rdiv,
        "__floordiv__": F.floor_divide, "__mod__": F.remainder, "__pow__": F.pow,
        "__rpow__": lambda self, other: F.pow(other, self),
        "__rfloordiv__": lambda self, other: F.floor_divide(other, self),
        "__matmul__": F.matmul, "__rmatmul__": lambda self, other: F.matmul(other, self),
        "__neg__": F.neg, "__pos__": lambda self: self, "__abs__": F.abs,
        "__eq__": F.eq, "__ne__": F.ne, "__lt__": F.lt, "__le__": F.le, "__gt__": F.gt,
        "__ge__": F.ge, "__getitem__": S.getitem, "__setitem__": setitem,
        "__and__": _bitwise(np.bitwise_and, "bitwise_and"),
        "__or__": _bitwise(np.bitwise_or, "bitwise_or"),
        "__xor__": _bitwise(np.bitwise_xor, "bitwise_xor"),
        "__invert__": _invert,
        "__iadd__": _iop(F._add), "__isub__": _iop(F._sub), "__imul__": _iop(F.mul),
        "__itruediv__": _iop(F._div), "__ipow__": _iop(F.pow),
    }
    for name, fn in ops.items():
        setattr(T, name, fn)
    # (set by name: the generated stub class declares these methods for type checkers)
    for name, member in {"__hash__": object.__hash__, "T": property(S.T),
                         "mT": property(S.mT), "H": property(S.H), "mH": property(S.mH),
                         "adjoint": S.mH, "where": _where_method,
                         "to": to, "astype": astype, "type": type_, "type_as": _type_as,
                         "cuda": cuda, "cpu": cpu}.items():
        setattr(T, name, member)
    for name, dt in (("double", dtypes.float64), ("float", dtypes.float32),
                     ("half", dtypes.float16), ("int", dtypes.int32), ("long", dtypes.int64),
                     ("short", dtypes.int16), ("bool", dtypes.bool_), ("byte", dtypes.uint8),
                     ("char", dtypes.int8)):
        setattr(T, name, _converter(dt))
    for name, member in {"zero_": zero_, "fill_": fill_, "copy_": copy_, "uniform_": uniform_,
                         "normal_": normal_, "bernoulli_": bernoulli_}.items():
        setattr(T, name, member)
    for kind in ("tensor", "zeros", "ones", "full", "empty"):
        setattr(T, f"new_{kind}", _new_factory(kind))
    T.__array_priority__ = 1000
    _ = STATE
