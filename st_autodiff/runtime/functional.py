"""The torch namespace over the shared rule table: elementwise math, ``where``, ``clamp``.

Each function computes its result with NumPy (or CuPy through NumPy's dispatch) and, when
grad mode is on and an input requires grad, records a node running the table's rule for
its op.  The node is named as PyTorch names it for that call (``x * 2`` and ``x * y`` are
both ``MulBackward0``, ``1 - x`` is ``RsubBackward1``, ``2 / x`` is ``reciprocal`` then
``mul``), saves what PyTorch saves (``_saved_self``, ``_saved_other`` ...), and has one
edge per tensor argument PyTorch differentiates (``None`` for a Python number).

Results follow PyTorch's dtypes (``dtypes.result_type``): integer inputs to floating
functions give the default float dtype, and a Python scalar never widens a tensor.  The
only rules written here are trivial (``_rule_zero`` for piecewise-constant functions) or
a table rule with a scaled input (``add``/``sub`` with ``alpha``).  Reductions and the
softmax family are in ``reductions.py`` and matrix products in ``linalg.py``; this module
re-exports them, so ``functional`` is the whole math namespace.  Shape functions live in
``shape_ops.py``, in-place ones in ``inplace.py``.
"""

from __future__ import annotations

import builtins
import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.kernels import relu as _k_relu
from ..ir.kernels import resolve
from ..ir.kernels import sigmoid as _k_sigmoid
from ..ir.ops import OP_INFO, Op
from . import device as D
from . import dtypes
from . import select_bits as _bits
from .device import is_device, same_device
from .fast_nodes import binary_class, unary_class
from .function import TensorBase, fit, node_class
from .grad_mode import STATE
from .tensor import Tensor, plain
from .tensor_ops import record
from .zero_links import linked

EMPTY: dict[str, Any] = {}  # the params of nodes without params (never mutated)
SELF: tuple[Any, ...] = (("self", 0, None),)
RESULT: tuple[Any, ...] = (("result", "result", None),)
NONE: tuple[Any, ...] = ()


def _sizes(k: int = 0) -> Callable[[tuple[Any, ...], dict[str, Any]], tuple[Any, ...]]:
    return lambda args, params: tuple(args[k].shape)


def _param(name: str) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    return lambda args, params: params[name]


def _arg(k: int) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    return lambda args, params: args[k]


def _need_tensor(x: Any, fname: str, what: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, TensorBase):
        raise TypeError(f"{fname}(): argument '{what}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")
    return x  # type: ignore[return-value]


def _float_data(t: Tensor) -> Any:
    """The data, cast to the default float dtype when it is not floating point."""
    d = t._data
    return d if d.dtype.kind == "f" else d.astype(dtypes.get_default_dtype().np)


def _scalar(v: Any) -> Any:
    """A NumPy scalar as the Python number PyTorch would see (no NumPy type promotion)."""
    return v.item() if isinstance(v, np.generic) else v


def _type_word(d: dtypes.dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}[d.name]


def _rule_zero(ops: Any, g: Any, out: Any, x: Any, *rest: Any, **params: Any) -> tuple[Any, ...]:
    """Piecewise-constant functions (sign, floor, round ...): the gradient is zero."""
    return (ops.zeros_like(g),) + (None,) * len(rest)


# --- elementwise unary ---------------------------------------------------------------------

def _sigmoid_fast(d: Any) -> Any:
    """``1 / (1 + exp(-x))`` as PyTorch's CPU kernel writes it (closer to its bits than the
    shared kernel, and 3x cheaper); the shared kernel for scalars, 0-d arrays (where
    ``np.exp`` returns a scalar, which cannot be written into) and other arrays."""
    if type(d) is np.ndarray and d.ndim and d.dtype.kind == "f" and d.dtype.itemsize >= 4:
        if d.size and np.minimum.reduce(d, axis=None) > -80.0:  # exp(-x) cannot overflow
            e = np.exp(-d)
            e += 1
            return np.reciprocal(e, out=e)
        with np.errstate(over="ignore"):
            return 1 / (1 + np.exp(-d))
    return _k_sigmoid(d)


def _relu_fast(d: Any) -> Any:
    """``max(x, 0)``: NumPy's ufunc directly for NumPy arrays."""
    return np.maximum(d, 0) if type(d) is np.ndarray else _k_relu(d)


_BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
             "to invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOL_SUB1 = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOL_SUB2 = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.")


def _bool_sub_error(msg: str) -> None:
    """Raise PyTorch's error for ``-`` with a bool tensor, except inside a backward pass:
    the table's rules subtract saved tensors as they are (a bool target of ``mse_loss``
    under ``create_graph``), where PyTorch's backward formulas promote first.  (Only
    reached with a bool operand, so the stack walk costs nothing on other paths.)"""
    from .engine import _loop

    code = _loop.__code__
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            return
        f = f.f_back  # type: ignore[assignment]
    raise RuntimeError(msg)


def _unary(name: str, op: Op, node: str, plan: tuple[Any, ...],
           kernel: Callable[[Any], Any] | None = None,
           keeps_out: bool = True, rule: Callable[..., tuple[Any, ...]] | None = None,
           int_ok: bool = False) -> Callable[..., Tensor]:
    cls = unary_class(node_class(node, rule or RULES[op], (0,), plan, keeps_out))  # "speed"
    fn_kernel = kernel or resolve(np, OP_INFO[op].numpy)  # type: ignore[arg-type]

    def fn(input: Tensor) -> Tensor:
        try:
            d = input._data
        except AttributeError:
            _need_tensor(input, name)
        if d.dtype.kind != "f" and not int_ok:
            d = d.astype(dtypes.get_default_dtype().np)
        try:
            r = fn_kernel(d)
        except TypeError:  # (zero cost when nothing is raised)
            if name == "neg" and d.dtype.kind == "b":
                raise RuntimeError(_BOOL_NEG) from None
            raise
        if input._requires_grad and STATE.enabled:
            return record(cls, r, (input,), EMPTY)
        return plain(r)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input)`` elementwise; records ``{node}`` when input requires grad."
    return fn


exp = _unary("exp", Op.EXP, "ExpBackward0", RESULT)
exp2 = _unary("exp2", Op.EXP2, "Exp2Backward0", RESULT)
expm1 = _unary("expm1", Op.EXPM1, "Expm1Backward0", RESULT)
log = _unary("log", Op.LOG, "LogBackward0", SELF, keeps_out=False)
log2 = _unary("log2", Op.LOG2, "Log2Backward0", SELF, keeps_out=False)
log10 = _unary("log10", Op.LOG10, "Log10Backward0", SELF, keeps_out=False)
log1p = _unary("log1p", Op.LOG1P, "Log1PBackward0", SELF, keeps_out=False)
sqrt = _unary("sqrt", Op.SQRT, "SqrtBackward0", RESULT)
sin = _unary("sin", Op.SIN, "SinBackward0", SELF, keeps_out=False)
cos = _unary("cos", Op.COS, "CosBackward0", SELF, keeps_out=False)
tan = _unary("tan", Op.TAN, "TanBackward0", RESULT)
asin = _unary("asin", Op.ARCSIN, "AsinBackward0", SELF, keeps_out=False)
acos = _unary("acos", Op.ARCCOS, "AcosBackward0", SELF, keeps_out=False)
atan = _unary("atan", Op.ARCTAN, "AtanBackward0", SELF, keeps_out=False)
sinh = _unary("sinh", Op.SINH, "SinhBackward0", SELF, keeps_out=False)
cosh = _unary("cosh", Op.COSH, "CoshBackward0", SELF, keeps_out=False)
tanh = _unary("tanh", Op.TANH, "TanhBackward0", RESULT)
asinh = _unary("asinh", Op.ARCSINH, "AsinhBackward0", SELF, keeps_out=False)
acosh = _unary("acosh", Op.ARCCOSH, "AcoshBackward0", SELF, keeps_out=False)
atanh = _unary("atanh", Op.ARCTANH, "AtanhBackward0", SELF, keeps_out=False)
abs = _unary("abs", Op.ABS, "AbsBackward0", SELF, keeps_out=False, int_ok=True,  # noqa: A001
             rule=linked(RULES[Op.ABS], "MulBackward0"))  # (PyTorch: grad * sgn(self))
neg = _unary("neg", Op.NEG, "NegBackward0", NONE, keeps_out=False, int_ok=True)
reciprocal = _unary("reciprocal", Op.RECIPROCAL, "ReciprocalBackward0", RESULT)
sigmoid = _unary("sigmoid", Op.SIGMOID, "SigmoidBackward0", RESULT, kernel=_sigmoid_fast)
def _rule_relu(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    """PyTorch's ``threshold_backward``: ``where(out > 0, g, 0)``, so an infinite gradient
    where the unit is off gives 0 (the table's ``g * (out > 0)`` gives NaN there); on the
    bits for NumPy float arrays (``select_bits.keep``: no per-element branch)."""
    if not ops.tensors:
        mask = out > 0
        r = g * mask
        # (the product is NaN only where ``g`` is not finite; one dot product tells, cheaper
        # than selecting every time; the selection gives the same values elsewhere)
        if type(r) is np.ndarray and r.ndim and not math.isfinite(np.vdot(r, r)) \
                and _bits.fits(g, out):
            r = _bits.keep(mask, g)  # (+0 where the unit is off, as PyTorch writes)
        return (r,)
    return (ops.where(out > 0, g, ops.zeros_like(g)),)


relu = _unary("relu", Op.RELU, "ReluBackward0", RESULT, kernel=_relu_fast, int_ok=True,
              rule=linked(_rule_relu, "ThresholdBackwardBackward0", saved_is_result=True))
_ZERO_KW: dict[str, Any] = {"keeps_out": False, "rule": _rule_zero, "int_ok": True}
def _sign_kernel(d: Any) -> Any:
    """``np.sign``, with PyTorch's 0 (not NaN) for a NaN: its kernel is ``(0 < x) - (x < 0)``."""
    r = np.sign(d)
    if d.dtype.kind == "f":
        if isinstance(r, np.ndarray) or is_device(r):  # (a device array: its library's call)
            r = D.xp_of(r).nan_to_num(r, copy=False, nan=0.0, posinf=1.0, neginf=-1.0)
        else:
            r = r if r == r else r.dtype.type(0)
    return r


sign = _unary("sign", Op.SIGN, "SignBackward0", NONE, kernel=_sign_kernel, **_ZERO_KW)
floor = _unary("floor", Op.FLOOR, "FloorBackward0", NONE, **_ZERO_KW)
ceil = _unary("ceil", Op.CEIL, "CeilBackward0", NONE, **_ZERO_KW)
trunc = _unary("trunc", Op.TRUNC, "TruncBackward0", NONE, **_ZERO_KW)
round = _unary("round", Op.RINT, "RoundBackward0", NONE, kernel=np.round,  # noqa: A001
               **_ZERO_KW)
negative, absolute, arcsin, arccos, arctan, fix = neg, abs, asin, acos, atan, trunc

_rsqrt_cls = node_class("RsqrtBackward0", RULES[Op.POW], (0,), RESULT)


def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(input)``; its node runs the ``pow`` rule with exponent -0.5."""
    d = _float_data(_need_tensor(input, "rsqrt"))
    r = 1 / np.sqrt(d)
    if input._requires_grad and STATE.enabled:
        return record(_rsqrt_cls, r, (input, -0.5), EMPTY)
    return plain(r)


def square(input: Tensor) -> Tensor:
    """``input ** 2`` (PyTorch records it as ``PowBackward0``)."""
    return pow(input, 2)


# --- elementwise binary --------------------------------------------------------------------

def _promote(a: TensorBase, b: TensorBase) -> tuple[Any, Any]:
    """Both operands' data in PyTorch's result dtype of the pair."""
    target = dtypes.result_type(a, b).np
    ad, bd = a._data, b._data
    return (ad if ad.dtype == target else ad.astype(target),
            bd if bd.dtype == target else bd.astype(target))


def _with_scalar(d: Any, s: Any, true_div: bool = False) -> Any:
    """``d`` cast so that combining it with Python scalar ``s`` gives PyTorch's dtype."""
    kind = d.dtype.kind
    if kind == "f":
        return d
    if isinstance(s, float) or true_div:
        return d.astype(dtypes.get_default_dtype().np)
    if kind == "b" and type(s) is int:  # (a bool tensor and an int: int64)
        return d.astype(np.int64)
    return d


def _broadcast_error(a: Any, b: Any) -> RuntimeError:
    sa, sb = tuple(np.shape(a)), tuple(np.shape(b))
    n = builtins.max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                                f"b ({pb[i]}) at non-singleton dimension {i}")
    return RuntimeError(f"shapes {sa} and {sb} cannot be broadcast together")


def _broadcast_class(base: type[Any], kind: str) -> type[Any]:
    """``base`` (the ``add``/``sub``/``mul`` node) with a backward for NumPy operands of
    different shapes (per-op cost: a parameter broadcast against data, ``a + b * x``): the
    table's rule (``(g, g)``, ``(g, -g)``, ``(g * y, g * x)``) for the gradients that are
    needed, each fitted to its input as the generic node fits it.  ``fast_nodes``'s
    ``binary_class``, made over this class, takes same-shaped operands before it."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        saved = self._saved
        g = grads[0]
        if ops.tensors or saved is None or type(g) is not np.ndarray:
            return slow(self, grads, ops)
        for _tensor, counter, version in saved:  # ``versions_ok``, inlined
            if counter[0] != version:
                return slow(self, grads, ops)
        x, y = self._args
        (fx, _), (fy, _) = self.next_functions
        if not isinstance(x, TensorBase):
            return slow(self, grads, ops)
        xd = x._data
        yd = y._data if isinstance(y, TensorBase) else y  # (a number needs no gradient)
        if kind == "mul":
            gx = g * yd if fx is not None else None
            gy = g * xd if fy is not None else None
        else:
            gx = g if fx is not None else None
            gy = (g if kind == "add" else -g) if fy is not None else None
        if gx is not None and (gx.shape != xd.shape or gx.dtype is not xd.dtype
                               and gx.dtype != xd.dtype):
            gx = fit(ops, gx, xd)
        if gy is not None and (gy.shape != yd.shape or gy.dtype is not yd.dtype
                               and gy.dtype != yd.dtype):
            gy = fit(ops, gy, yd)
        return [gx, gy]

    return type(base.__name__, (base,), {"__slots__": (), "backward": backward,
                                          "__module__": base.__module__,
                                          "__qualname__": base.__qualname__})


def _binary(name: str, op: Op, node: str, plan: tuple[Any, ...], keeps_out: bool = False,
            true_div: bool = False, fast: str | None = None) -> Callable[..., Tensor]:
    from .eager_rules import EAGER_RULES

    cls = node_class(node, EAGER_RULES.get(op, RULES[op]), (0, 1), plan, keeps_out)
    if fast is not None:  # part "speed": the same node with a cheaper NumPy backward
        cls = binary_class(_broadcast_class(cls, fast), fast)
    kernel = resolve(np, OP_INFO[op].numpy)  # type: ignore[arg-type]
    is_sub = op is Op.SUB

    def fn(input: Any, other: Any) -> Tensor:
        if not isinstance(input, TensorBase):
            return _reflected(fn, input, other, name)
        ad = input._data
        if isinstance(other, TensorBase):
            bd = other._data
            if ad.dtype is not bd.dtype or (true_div and ad.dtype.kind != "f"):
                if is_sub and (ad.dtype.kind == "b" or bd.dtype.kind == "b"):
                    _bool_sub_error(_BOOL_SUB1)
                ad, bd = _promote(input, other)
                if true_div and ad.dtype.kind != "f":
                    ad = ad.astype(dtypes.get_default_dtype().np)
                    bd = bd.astype(ad.dtype)
            try:
                r = kernel(ad, bd)
            except ValueError:
                raise _broadcast_error(ad, bd) from None
            except TypeError:  # a host and a device operand (checked only then: no cost)
                if is_sub and ad.dtype.kind == "b":
                    _bool_sub_error(_BOOL_SUB2)
                if is_device(ad) == is_device(bd):
                    raise
                r = kernel(*same_device(ad, bd))
            if STATE.enabled and (input._requires_grad or other._requires_grad):
                return record(cls, r, (input, other), EMPTY)
            return plain(r)
        kind = type(other)
        if kind is not float and kind is not int:  # part "speed": Python numbers go straight
            other = _scalar(other)
            if not isinstance(other, (int, float)):
                if isinstance(other, complex):
                    dtypes.refuse_complex("c", f"{name}(): a complex number")
                return NotImplemented  # type: ignore[no-any-return]  # operator protocol
        if ad.dtype.kind != "f":
            if is_sub and ad.dtype.kind == "b":
                _bool_sub_error(_BOOL_SUB1)
            ad = _with_scalar(ad, other, true_div)
        try:
            r = kernel(ad, other)
        except OverflowError:  # an int out of the integer dtype's range: PyTorch wraps it
            r = kernel(ad, np.asarray(other).astype(ad.dtype))
        if input._requires_grad and STATE.enabled:
            return record(cls, r, (input, other), EMPTY)
        return plain(r)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input, other)`` with broadcasting; records ``{node}``."
    return fn


def _reflected(fn: Callable[..., Tensor], input: Any, other: Any, name: str) -> Tensor:
    if isinstance(other, Tensor):
        from .factory import scalar_like

        return fn(scalar_like(input, other), other)
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                    f"{type(input).__name__}")


_MUL_PLAN: tuple[Any, ...] = (("self", 0, (1,)), ("other", 1, (0,)))
_add = _binary("add", Op.ADD, "AddBackward0", (("alpha", lambda a, p: 1, None),), fast="add")
_sub = _binary("sub", Op.SUB, "SubBackward0", (("alpha", lambda a, p: 1, None),), fast="sub")
mul = _binary("mul", Op.MUL, "MulBackward0", _MUL_PLAN, fast="mul")
_div = _binary("div", Op.DIV, "DivBackward0", (("self", 0, (1,)), ("other", 1, None)),
               keeps_out=True, true_div=True)
maximum = _binary("maximum", Op.MAXIMUM, "MaximumBackward0", _MUL_PLAN)
minimum = _binary("minimum", Op.MINIMUM, "MinimumBackward0", _MUL_PLAN)
fmax = _binary("fmax", Op.FMAX, "FmaxBackward0", _MUL_PLAN)
fmin = _binary("fmin", Op.FMIN, "FminBackward0", _MUL_PLAN)
atan2 = _binary("atan2", Op.ARCTAN2, "Atan2Backward0", _MUL_PLAN, true_div=True)  # (ints: float)
hypot = _binary("hypot", Op.HYPOT, "HypotBackward0", _MUL_PLAN, keeps_out=True)
logaddexp = _binary("logaddexp", Op.LOGADDEXP, "LogaddexpBackward0", _MUL_PLAN, keeps_out=True)
remainder = _binary("remainder", Op.MOD, "RemainderBackward0", _MUL_PLAN)
multiply, arctan2 = mul, atan2


def _scaled(rule: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
    def scaled_rule(ops: Any, g: Any, out: Any, x: Any, y: Any, alpha: Any = 1) -> tuple[Any, ...]:
        """The table's rule with the second input scaled by ``alpha`` first."""
        gx, gy = rule(ops, g, out, x, y)
        return gx, gy * alpha

    return scaled_rule


_ALPHA = (("alpha", _param("alpha"), None),)
_add_alpha = node_class("AddBackward0", _scaled(RULES[Op.ADD]), (0, 1), _ALPHA, False)
_sub_alpha = node_class("SubBackward0", _scaled(RULES[Op.SUB]), (0, 1), _ALPHA, False)


def _with_alpha(cls: type, base: Callable[..., Tensor], input: Any, other: Any,
                alpha: Any) -> Tensor:
    """``base(input, alpha * other)`` recorded as one node, as PyTorch records it."""
    prev = STATE.enabled
    STATE.enabled = False
    try:
        scaled = mul(other, alpha) if isinstance(other, TensorBase) else _scalar(other) * alpha
        r = base(input, scaled)
    finally:
        STATE.enabled = prev
    if needs_grad_any(input, other):
        return record(cls, r._data, (input, _scalar(other)), {"alpha": alpha})
    return r


def needs_grad_any(*values: Any) -> bool:
    # builtins.any: this module re-exports PyTorch's tensor ``any`` under that name
    return STATE.enabled and builtins.any(isinstance(v, TensorBase) and v._requires_grad
                                          for v in values)


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other`` (``AddBackward0``)."""
    if alpha == 1:
        return _add(input, other)
    return _with_alpha(_add_alpha, _add, input, other, alpha)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` (``SubBackward0``)."""
    if alpha == 1:
        return _sub(input, other)
    return _with_alpha(_sub_alpha, _sub, input, other, alpha)


subtract = sub
_rsub_cls = node_class("RsubBackward1", RULES[Op.SUB], (1,), (("alpha", lambda a, p: 1, None),),
                       False)


def _rule_rsub(ops: Any, g: Any, out: Any, x: Any, y: Any, alpha: Any = 1) -> tuple[Any, ...]:
    """``y - alpha * x``: ``-alpha g`` and ``g``."""
    return (-g if alpha == 1 else g * -alpha), g


_rsub_tensor_cls = node_class("RsubBackward0", _rule_rsub, (0, 1),
                              (("alpha", _param("alpha"), None),), False)


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``RsubBackward0``; with a Python scalar ``other``:
    ``RsubBackward1``)."""
    if isinstance(other, TensorBase):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            r = sub(other, input, alpha=alpha)
        finally:
            STATE.enabled = prev
        if prev and (input._requires_grad or other._requires_grad):
            return record(_rsub_tensor_cls, r._data, (input, other), {"alpha": alpha})
        return r
    if alpha != 1:
        input = mul(input, alpha)
    other = _scalar(other)
    if input._data.dtype.kind == "b":
        _bool_sub_error(_BOOL_SUB1)
    d = _with_scalar(input._data, other)
    r = other - d
    if input._requires_grad and STATE.enabled:
        return record(_rsub_cls, r, (other, input), EMPTY)
    return plain(r)


def _rule_div_rounded(ops: Any, g: Any, out: Any, x: Any, y: Any, **params: Any) -> tuple[Any, ...]:
    """``div`` with a rounding mode: PyTorch's ``DivBackward2`` gives both operands
    ``grad * 0`` (zeros, whatever the divisor: no ``0 * inf``)."""
    return ops.zeros_like(g), ops.zeros_like(g)


_div_rounded_cls = node_class("DivBackward2", _rule_div_rounded, (0, 1),
                              (("other", 1, None), ("rounding_mode", _param("rounding_mode"), None),
                               ("self", 0, None)), False)


def _rounded_quotient(a: Any, b: Any, mode: str) -> Any:
    """``a / b`` rounded as PyTorch's CPU kernels: floor division as Python's (NumPy's
    ``floor_divide``), truncation of the true quotient; integers stay integers."""
    xp = D.xp_of(a)
    if a.dtype.kind in "iub":
        if a.dtype.kind == "b":
            a, b = a.astype(np.int64), b.astype(np.int64)
        if xp.any(b == 0):
            raise RuntimeError("ZeroDivisionError")
        if mode == "floor":
            return xp.floor_divide(a, b)
        q = xp.floor_divide(xp.abs(a), xp.abs(b))
        return xp.where((a < 0) != (b < 0), -q, q)
    if mode == "floor":
        return xp.floor_divide(a, b)
    return xp.trunc(xp.true_divide(a, b))


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division; ``rounding_mode='floor'``/``'trunc'`` round (``DivBackward2``: zero
    gradient); integer operands give an integer quotient, as in PyTorch."""
    if rounding_mode is None:
        return _div(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if not isinstance(input, TensorBase):
        from .factory import scalar_like

        input = scalar_like(input, other)
    if isinstance(other, TensorBase):
        ad, bd = _promote(input, other)
        needs = input._requires_grad or other._requires_grad
    else:
        other = _scalar(other)
        ad = _with_scalar(input._data, other)
        bd = D.asarray(np.asarray(other, dtype=ad.dtype)) if is_device(ad) \
            else np.asarray(other, dtype=ad.dtype)
        needs = input._requires_grad
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = _rounded_quotient(ad, bd, rounding_mode)
    except ValueError:
        raise _broadcast_error(ad, bd) from None
    if getattr(r, "ndim", 1) == 0 and type(r) is np.ndarray:
        r = r[()]
    if needs and STATE.enabled:
        return record(_div_rounded_cls, r, (input, other), {"rounding_mode": rounding_mode})
    return plain(r)


divide = true_divide = div


def rdiv(input: Tensor, other: Any) -> Tensor:
    """``other / input``: PyTorch computes ``reciprocal(input) * other``."""
    if isinstance(other, TensorBase):
        return div(other, input)
    if input._data.dtype.kind != "f":
        input = input.to(dtypes.get_default_dtype())
    return mul(reciprocal(input), other)


def floor_divide(input: Any, other: Any) -> Tensor:
    """Floor division (no gradient): ``div(rounding_mode='floor')``'s values and PyTorch's
    result dtype (NumPy's promotion gave float64 for an int tensor and a float)."""
    prev = STATE.enabled
    STATE.enabled = False
    try:
        return div(input, other, rounding_mode="floor")
    finally:
        STATE.enabled = prev


def _rule_pow_scalar(ops: Any, g: Any, out: Any, x: Any, y: Any) -> tuple[Any, ...]:
    """speedcore: ``RULES[Op.POW]``'s base gradient alone (the exponent is a number, so the
    exponent's gradient, a logarithm, would be thrown away).  ``x ** 0`` is constant: its
    gradient is 0 (the formula would give ``0 * inf = nan`` at ``x == 0``), as PyTorch's."""
    if y == 0:
        return ops.zeros_like(g * x), None
    return g * y * x ** (y - 1), None


def _pow_scalar_class(base: type[Any]) -> type[Any]:
    """``base`` (``PowBackward0``: a Tensor to a Python number) with a backward that runs
    its rule directly for a NumPy gradient of the base's shape and dtype (per-op cost:
    the generic node's argument list and keyword call); anything else takes the rule."""
    slow = base.backward

    def backward(self: Any, grads: list[Any], ops: Any) -> Any:
        saved = self._saved
        g = grads[0]
        if ops.tensors or not saved or type(g) is not np.ndarray \
                or self.next_functions[0][0] is None:
            return slow(self, grads, ops)
        for _tensor, counter, version in saved:  # ``versions_ok``, inlined
            if counter[0] != version:
                return slow(self, grads, ops)
        x, y = self._args
        xd = x._data
        if type(xd) is not np.ndarray or g.shape != xd.shape or g.dtype != xd.dtype:
            return slow(self, grads, ops)
        gx = _rule_pow_scalar(ops, g, None, xd, y)[0]
        if gx.shape != xd.shape or gx.dtype is not xd.dtype and gx.dtype != xd.dtype:
            gx = fit(ops, gx, xd)  # (the generic node's fit, as it would apply it)
        return [gx]

    return type(base.__name__, (base,), {"__slots__": (), "backward": backward,
                                          "__module__": base.__module__,
                                          "__qualname__": base.__qualname__})


_pow_cls0 = _pow_scalar_class(node_class("PowBackward0", _rule_pow_scalar, (0,),
                                         (("self", 0, None), ("exponent", _arg(1), None)),
                                         True))
_pow_cls1 = node_class("PowBackward1", RULES[Op.POW], (0, 1),
                       (("self", 0, None), ("exponent", 1, None), ("result", "result", (1,))))
_pow_cls2 = node_class("PowBackward2", RULES[Op.POW], (1,),
                       (("self", _arg(0), None), ("exponent", 1, None), RESULT[0]))


# tensor part: exponent -> kernel with PyTorch's bits (checked against torch 2.13)
_POW_FAST: dict[float, Callable[[Any], Any]] = {
    2: lambda d: d * d, 3: lambda d: d * d * d, -2: lambda d: 1 / (d * d),
    -0.5: lambda d: 1 / np.sqrt(d)}


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001
    """``input ** exponent`` for tensors and Python numbers on either side."""
    if not isinstance(input, TensorBase):
        return _rpow(exponent, input)
    ad = input._data
    if isinstance(exponent, TensorBase):
        bd = exponent._data
        if ad.dtype is not bd.dtype:
            ad, bd = _promote(input, exponent)
        r = ad ** bd
        if STATE.enabled and (input._requires_grad or exponent._requires_grad):
            return record(_pow_cls1, r, (input, exponent), EMPTY)
        return plain(r)
    exponent = _scalar(exponent)
    ad = _with_scalar(ad, exponent)
    # tensor part: PyTorch's kernel special-cases these exponents (same bits as below);
    # NumPy's general power is slower and rounds x ** 3 differently
    if ad.dtype.kind == "f":
        fast = _POW_FAST.get(exponent)
    else:
        fast = None
        if ad.dtype.kind == "b" and type(exponent) is not bool:  # (PyTorch: a bool base to
            ad = ad.astype(np.int64)  # an integer power is int64; to a bool one, bool)
    r = fast(ad) if fast is not None else ad ** exponent
    if ad.dtype.kind == "b":  # (NumPy's bool ** bool is int8)
        r = r.astype(np.bool_)
    if input._requires_grad and STATE.enabled:
        return record(_pow_cls0, r, (input, exponent), EMPTY)
    return plain(r)


def _rpow(exponent: Tensor, base: Any) -> Tensor:
    base = _scalar(base)
    d = _with_scalar(exponent._data, base)
    r = base ** d
    if exponent._requires_grad and STATE.enabled:
        return record(_pow_cls2, r, (base, exponent), EMPTY)
    return plain(np.asarray(r)[()] if not hasattr(r, "dtype") else r)


def copy_like(g: Tensor) -> Tensor:
    """A copy of ``g`` recorded as ``CopyBackwards`` (how a first ``.grad`` is stored)."""
    return record(_copy_cls, g._array().copy(), (None, g), EMPTY)


def _rule_assign(ops: Any, g: Any, out: Any, dst: Any, src: Any) -> tuple[Any, ...]:
    """Overwriting ``dst`` with ``src``: the old value gets zeros (as PyTorch's
    ``CopyBackwards``: its input still receives a gradient, 0), ``src`` gets ``g``."""
    return (ops.zeros_like(g), g)


_copy_cls = node_class("CopyBackwards", _rule_assign, (0, 1), NONE, False)


# The rest of the namespace (imported last: those modules build on the helpers above).
from .comparisons import (  # noqa: E402
    all,
    allclose,
    any,
    eq,
    equal,
    ge,
    greater,
    greater_equal,
    gt,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
    not_equal,
)
from .conditional import clamp, clamp_max, clamp_min, clip, where  # noqa: E402
from .linalg import (  # noqa: E402
    addcdiv,
    addcmul,
    addmm,
    bmm,
    dist,
    dot,
    ger,
    inner,
    lerp,
    matmul,
    mm,
    mv,
    outer,
    trace,
)
from .reductions import (  # noqa: E402
    ValuesIndices,
    amax,
    amin,
    argmax,
    argmin,
    cumsum,
    dims_of,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    norm,
    prod,
    softmax,
    std,
    sum,
    var,
)

__all__ = [
    "abs", "absolute", "acos", "acosh", "add", "addcdiv", "addcmul", "addmm", "all", "allclose",
    "any",
    "amax", "amin", "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "asin",
    "asinh", "atan", "atan2", "atanh", "bmm", "ceil", "clamp", "clamp_max", "clamp_min",
    "clip", "copy_like", "cos", "cosh", "cumsum", "dims_of", "dist", "div", "divide", "dot",
    "eq", "equal", "exp", "exp2", "expm1", "fix", "floor", "floor_divide", "fmax", "fmin",
    "ge", "ger", "greater", "greater_equal", "gt", "hypot", "inner", "isclose", "isfinite",
    "isinf", "isnan", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2",
    "log_softmax", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logsumexp", "lt", "matmul", "max", "maximum", "mean", "min", "minimum", "mm", "mul",
    "multiply", "mv", "ne", "neg", "negative", "norm", "not_equal", "outer", "pow", "prod",
    "rdiv", "reciprocal", "relu", "remainder", "round", "rsqrt", "rsub", "sigmoid", "sign",
    "sin", "sinh", "softmax", "sqrt", "square", "std", "sub", "subtract", "sum", "tan", "tanh",
    "trace", "true_divide", "trunc", "ValuesIndices", "var", "where",
]
