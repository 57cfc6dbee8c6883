"""The graph nodes that ``nn.functional`` records where PyTorch shows one fused node.

PyTorch records ``F.linear`` as ``AddmmBackward0`` and each of ``mse_loss``,
``nll_loss`` and ``binary_cross_entropy_with_logits`` as one node of its own.  These are
``RuleNode`` classes made with ``function.node_class``, so they save, version-check and
release their tensors like every other node.  Their rules are written only with the rules'
``ops`` protocol (operators, ``ops.<op>`` calls and constants), like the rules of
``derivatives``: the usual backward runs them on arrays, and a ``create_graph``
backward runs them on Tensors, recording every step, so second derivatives work.  Each
rule is the derivative of a composition of table ops (a matrix product and a sum; a
squared difference and a mean; a linear pick of log-probabilities; a softplus), written
out so that the node does not need the intermediate values.

Everything else in ``nn.functional`` is composed from the runtime's recorded ops, which
gives PyTorch's node structure for free (``l1_loss`` is ``SubBackward0``, ``AbsBackward0``,
``MeanBackward0``).  ``mul_scalar``/``div_scalar`` record ``MulBackward1``/``DivBackward1``,
the names PyTorch gives a product or quotient with a plain number inside its own
composite functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...derivatives import RULES
from ...ir.ops import Op
from ..device import is_device, sparse_grids, to_device, xp_of
from ..fast_nodes import addmm_class, mse_class
from ..function import RuleNode, node_class
from ..grad_mode import STATE
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record

__all__ = ["REDUCTIONS", "addmm", "bce_with_logits", "div_scalar", "masked_fill", "mse",
           "mul_scalar", "nll", "unsafe_view"]

#: PyTorch's reduction enum, as ``_saved_reduction`` shows it.
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_NONE, _MEAN, _SUM = 0, 1, 2


def _const(value: Any) -> Any:
    return lambda args, params: value


def _param(name: str) -> Any:
    return lambda args, params: params[name]


def _sizes(k: int) -> Any:
    return lambda args, params: tuple(args[k].shape)


def _numel(ops: Any, x: Any) -> int:
    return math.prod(ops.static_shape(x))


def _reduce(data: Any, reduction: int) -> Any:
    if reduction == _MEAN:
        return data.mean()
    if reduction == _SUM:
        return data.sum()
    return data


# --- addmm: bias + mat1 @ mat2 ---------------------------------------------------------------

def _rule_addmm(ops: Any, g: Any, out: Any, bias: Any, mat1: Any, mat2: Any,
                need1: bool = True, need2: bool = True) -> tuple[Any, ...]:
    """``d(bias + mat1 @ mat2)``: ``g`` for the bias (the engine sums it to the bias's
    shape), ``g @ mat2.T`` and ``mat1.T @ g``, each only when that operand needs it."""
    gb = g
    if (not ops.tensors and type(g) is np.ndarray and type(bias) is np.ndarray
            and bias.ndim == 1 and g.ndim == 2 and bias.shape[0] == g.shape[1]):
        gb = np.add.reduce(g, axis=0)  # the engine's sum over the rows, without its wrapper
    return (gb, g @ mat2.T if need1 else None, mat1.T @ g if need2 else None)


_ADDMM_PLAN = (("alpha", _const(1), None), ("beta", _const(1), None),
               ("mat1", 1, (2,)), ("mat1_sym_sizes", _sizes(1), None),
               ("mat2", 2, (1,)), ("mat2_sym_sizes", _sizes(2), None))
# part "speed": the same node with a cheaper NumPy backward (fast_nodes)
_ADDMM: type[RuleNode] = addmm_class(node_class("AddmmBackward0", _rule_addmm, (0, 1, 2),
                                                 _ADDMM_PLAN, False))


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """``bias + mat1 @ mat2`` for 2-d ``mat1``/``mat2``, recorded as ``AddmmBackward0``."""
    a: Any = mat1._data
    b: Any = mat2._data
    if a.dtype != b.dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                           f"{_word(a.dtype)} and {_word(b.dtype)}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    return addmm_checked(bias, mat1, mat2)


def addmm_checked(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """``addmm`` once its operands' dtypes and shapes were checked (``F.linear`` checks
    them itself: per-op cost)."""
    data = mat1._data @ mat2._data
    data += bias._data
    r1, r2 = mat1._requires_grad, mat2._requires_grad
    if (r1 or r2 or bias._requires_grad) and STATE.enabled:
        return record(_ADDMM, data, (bias, mat1, mat2), {"need1": r1, "need2": r2})
    return plain(data)


def _word(dt: np.dtype[Any]) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(dt.name, dt.name)


_UNSAFE_VIEW = node_class("UnsafeViewBackward0", RULES[Op.RESHAPE], (0,),
                          (("self_sym_sizes", _sizes(0), None),), False)


def unsafe_view(t: Tensor, shape: tuple[Any, ...]) -> Tensor:
    """``t`` reshaped into a new tensor (not a view), as ``UnsafeViewBackward0``."""
    data = t._data.reshape(shape)
    return record(_UNSAFE_VIEW, data, (t, shape), {}) if needs_grad((t,)) else plain(data)


# --- products and quotients with a plain number -----------------------------------------------

def _rule_mul_scalar(ops: Any, g: Any, out: Any, x: Any, s: Any) -> tuple[Any, ...]:
    return (g * s, None)


def _rule_div_scalar(ops: Any, g: Any, out: Any, x: Any, s: Any) -> tuple[Any, ...]:
    return (g / s, None)


_MUL1 = node_class("MulBackward1", _rule_mul_scalar, (0,), (("other", lambda a, p: a[1], None),),
                   False)
_DIV1 = node_class("DivBackward1", _rule_div_scalar, (0,), (("other", lambda a, p: a[1], None),),
                   False)


def mul_scalar(t: Tensor, s: float) -> Tensor:
    """``t * s`` for a Python number ``s`` (``MulBackward1``)."""
    x: Any = t._data
    data = x * s
    return record(_MUL1, data, (t, s), {}) if needs_grad((t,)) else plain(data)


def div_scalar(t: Tensor, s: float) -> Tensor:
    """``t / s`` for a Python number ``s`` (``DivBackward1``)."""
    x: Any = t._data
    data = x / s
    return record(_DIV1, data, (t, s), {}) if needs_grad((t,)) else plain(data)


def _rule_masked_fill(ops: Any, g: Any, out: Any, x: Any, mask: Any) -> tuple[Any, ...]:
    """Filled positions no longer depend on ``x``: the table's ``where`` rule, first branch."""
    return (ops.where(mask, 0, g), None)


_MASKED_FILL = node_class("MaskedFillBackward0", _rule_masked_fill, (0,),
                          (("mask", 1, None),), False)


def masked_fill(t: Tensor, mask: Tensor, value: float) -> Tensor:
    """``t`` with ``value`` where ``mask`` holds (``MaskedFillBackward0``)."""
    data = np.where(mask._data, t._data.dtype.type(value), t._data)
    return record(_MASKED_FILL, data, (t, mask), {}) if needs_grad((t,)) else plain(data)


# --- mse_loss ------------------------------------------------------------------------------

def _rule_mse(ops: Any, g: Any, out: Any, x: Any, t: Any,
              reduction: int = _MEAN) -> tuple[Any, ...]:
    """``d mean((x - t)**2) = 2 (x - t) / n`` (no ``/ n`` for sum, elementwise for none)."""
    scale = 2.0 / _numel(ops, x) if reduction == _MEAN else 2.0
    gx = (x - t) * scale * g
    return (gx, -gx)


_MSE = mse_class(node_class(  # speed2: a cheaper NumPy backward (fast_nodes)
    "MseLossBackward0", _rule_mse, (0, 1),
    (("reduction", _param("reduction"), None), ("self", 0, None), ("target", 1, None)), False))


def mse(input: Tensor, target: Tensor, reduction: int) -> Tensor:
    """The squared error of same-shaped ``input`` and ``target``, reduced."""
    x: Any = input._data
    d = x - target._data
    data = _reduce(d * d, reduction)
    if needs_grad((input, target)):
        return record(_MSE, data, (input, target), {"reduction": reduction})
    return plain(data)


# --- nll_loss ------------------------------------------------------------------------------

def _rule_nll(ops: Any, g: Any, out: Any, logp: Any, target: Any, weight: Any,
              pick: Any = None, axis: int = 1, reduction: int = _MEAN, **_: Any) -> tuple[Any, ...]:
    """The loss is linear in ``logp``: its gradient is ``g`` times the constant ``pick``."""
    if reduction == _NONE:
        g = ops.expand_dims(g, axis=axis)
    return (ops.mul(g, pick), None, None)


_NLL_PLAN = (("ignore_index", lambda a, p: p["ignore_index"] % 2**64, None),
             ("reduction", _param("reduction"), None), ("self", 0, None),
             ("target", 1, None),
             ("total_weight", lambda a, p: plain(p["total_weight"]), None),
             ("weight", 2, None))
_NLL = node_class("NllLossBackward0", _rule_nll, (0,), _NLL_PLAN, False)


_MIN_R, _MAX_R, _ADD_R = np.minimum.reduce, np.maximum.reduce, np.add.reduce


def nll(logp: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
        reduction: int) -> Tensor:
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``logp``.

    ``logp`` is ``(C,)`` with a 0-d target, or ``(N, C, *d)`` with a ``(N, *d)`` target;
    the shapes are checked by the caller.  Targets equal to ``ignore_index`` count zero.
    The picking is done on the host; a GPU input gets its loss and gradient back there.
    """
    if is_device(logp._data):
        return _nll_device(logp, target, weight, ignore_index, reduction)
    valid: Any
    total: Any
    lp: Any = logp._data
    dt = lp.dtype
    axis = 0 if lp.ndim == 1 else 1
    tgt: Any = np.asarray(target._host())
    n_classes = lp.shape[axis]
    # (``tgt.min()``, ``tgt.max()`` without NumPy's Python wrappers: per-op cost)
    lo, hi = (int(_MIN_R(tgt, axis=None)), int(_MAX_R(tgt, axis=None))) if tgt.size else (0, -1)
    all_valid = not lo <= ignore_index <= hi
    if all_valid and 0 <= lo and hi < n_classes:  # the usual case: nothing to mask
        safe, valid = tgt, None
    else:
        valid = tgt != ignore_index
        all_valid = bool(valid.all())
        safe = tgt if all_valid else np.where(valid, tgt, 0)
        bad = (safe < 0) | (safe >= n_classes)
        if bad.any():
            raise IndexError(f"Target {int(tgt[bad].flat[0])} is out of bounds.")
    index = _class_index(safe, lp.ndim)
    picked = lp[index]
    if weight is None:
        w = None if all_valid else valid.astype(dt)
    else:
        w = np.asarray(weight._host()).astype(dt)[safe]
        if not all_valid:
            w = w * valid
    losses = -picked if w is None else -(w * picked)
    if not all_valid:
        losses = np.where(valid, losses, dt.type(0))  # ignored entries are +0, never -0
    if reduction == _NONE:
        data, total, coef = losses, dt.type(0), (-1.0 if w is None else -w)
    else:
        total = dt.type(safe.size) if w is None else w.sum(dtype=dt)
        data = _ADD_R(losses, axis=None, dtype=dt)  # ``losses.sum(dtype=dt)``
        coef = -1.0 if w is None else -w
        if reduction == _MEAN:
            if total:
                data, coef = dt.type(data / total), coef / total
            else:  # every target ignored: 0 / 0, as in PyTorch
                data, coef = dt.type(np.nan), coef * dt.type(np.nan)
    if not needs_grad((logp,)):
        return plain(data)
    if not all_valid and not np.isscalar(coef):  # ignored targets get +0, never -0
        coef = np.where(valid, coef, dt.type(0))
    pick = np.zeros(lp.shape, dt)
    pick[index] = coef
    params = {"pick": pick, "axis": axis, "reduction": reduction,
              "ignore_index": ignore_index, "total_weight": np.asarray(total)}
    return record(_NLL, data, (logp, target, weight), params)


def _nll_device(logp: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
                reduction: int) -> Tensor:
    """``nll`` on a device: the same values, computed where the data lives.  The one host
    synchronisation is the bounds check (a bad class index is an error, as PyTorch's
    device assert, never a silently wrapped index); ``0 / 0`` for all-ignored targets
    needs no test (it is NaN by itself)."""
    lp = logp._data
    xp = xp_of(lp)
    dt = lp.dtype
    axis = 0 if lp.ndim == 1 else 1
    tgt = to_device(target._data)
    n_classes = lp.shape[axis]
    valid = tgt != ignore_index
    safe = xp.where(valid, tgt, 0)
    bad = (safe < 0) | (safe >= n_classes)
    if bool(bad.any()):
        raise IndexError(f"Target {int(safe[bad].ravel()[0])} is out of bounds.")
    index = _class_index(safe, lp.ndim)
    picked = lp[index]
    w = valid.astype(dt)
    if weight is not None:
        w = w * to_device(weight._data).astype(dt)[safe]
    losses = -(w * picked) + dt.type(0)  # ignored entries are +0, never -0
    if reduction == _NONE:
        data, total, coef = losses, dt.type(0), -w
    else:
        total = w.sum(dtype=dt)
        data = losses.sum(dtype=dt)
        coef = -w
        if reduction == _MEAN:
            data, coef = data / total, coef / total
    if not needs_grad((logp,)):
        return plain(data)
    pick = xp.zeros(lp.shape, dt)
    pick[index] = coef + dt.type(0)
    params = {"pick": pick, "axis": axis, "reduction": reduction,
              "ignore_index": ignore_index, "total_weight": total}
    return record(_NLL, data, (logp, target, weight), params)


def _class_index(classes: Any, ndim: int) -> tuple[Any, ...]:
    """The index that picks, at every position, the entry of class ``classes[...]``."""
    xp = xp_of(classes)
    if ndim == 1:
        return (classes,)
    if ndim == 2:
        return (xp.arange(classes.shape[0]), classes)
    grids: list[Any] = sparse_grids(classes.shape, classes) if xp is not np else list(
        np.indices(classes.shape, sparse=True))
    return (grids[0], classes, *grids[1:])


# --- binary_cross_entropy_with_logits ------------------------------------------------------

def _softplus_neg(ops: Any, x: Any) -> Any:
    """``log(1 + exp(-x))`` without overflow."""
    return ops.log1p(ops.exp(-ops.abs(x))) + ops.maximum(-x, 0)


def _rule_bce(ops: Any, g: Any, out: Any, x: Any, t: Any, w: Any, pw: Any,
              reduction: int = _MEAN) -> tuple[Any, ...]:
    """``d[(1 - t) x + lw softplus(-x)]`` with ``lw = 1 + (pw - 1) t`` (``lw = 1`` without
    ``pos_weight``): ``lw sigmoid(x) - pw t`` for ``x`` and ``(pw - 1) softplus(-x) - x``
    for ``t``, both scaled by ``weight``."""
    sig = ops.sigmoid(x)
    if pw is None:
        gx, gt = sig - t, -x
    else:
        gx = ((pw - 1) * t + 1) * sig - pw * t
        gt = (pw - 1) * _softplus_neg(ops, x) - x
    if w is not None:
        gx, gt = gx * w, gt * w
    if reduction == _MEAN:
        g = g / _numel(ops, gx)
    return (gx * g, gt * g, None, None)


_BCE = node_class("BinaryCrossEntropyWithLogitsBackward0", _rule_bce, (0, 1),
                  (("pos_weight", 3, None), ("reduction", _param("reduction"), None),
                   ("self", 0, None), ("target", 1, None), ("weight", 2, None)), False)


def bce_with_logits(input: Tensor, target: Tensor, weight: Tensor | None,
                    pos_weight: Tensor | None, reduction: int) -> Tensor:
    """Binary cross-entropy of logits ``input`` against probabilities ``target``."""
    x: Any = input._data
    t: Any = target._data
    softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    if pos_weight is not None:
        softplus = ((pos_weight._data - 1) * t + 1) * softplus
    loss = (1 - t) * x + softplus
    if weight is not None:
        loss = loss * weight._data
    data = _reduce(loss.astype(x.dtype, copy=False), reduction)
    if needs_grad((input, target)):
        return record(_BCE, data, (input, target, weight, pos_weight), {"reduction": reduction})
    return plain(data)
