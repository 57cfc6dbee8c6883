"""Forward mode: the JVP rule of every op that has a VJP rule, in ``JVP_RULES``.

The table is declared in ``derivatives`` beside ``RULES`` (read its docstring for the
protocol) and filled here, where it has room: ``derivatives`` imports this module at
its bottom, so ``derivatives.JVP_RULES`` is always complete.  A rule is
``jvp(ops, tangents, out, *inputs, **params) -> tangent of out``; ``None`` tangents are
symbolic zeros.  Most rules fall into a few families, each registered by one helper:

* linear in the first input (reshape, sum, getitem, ...): the op applied to the tangent;
* joining (concatenate, stack): the op on the tangents, zeros for inputs with none;
* multilinear (mul, matmul, einsum, ...): one term per input with a tangent;
* elementwise unary: the Jacobian is diagonal, so the VJP rule applied to the tangent
  (but ``copy`` copies the tangent);
* elementwise binary: one term per input, broadcast up to the output's shape.

The rest are written out below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as _np

from ..ir.ops import OP_INFO, Op
from ..ir.versioned import VersionedDict
from . import (
    _WINS,
    JVP_RULES,
    RULES,
    JvpRule,
    RuleError,
    VjpRule,
    _mT,
    _unreduce,
    arange_steps,
    by_rank,
    diagonal_part,
    linspace_weights,
    mask_like,
    per_freedom,
    pow_base_term,
    safe_divisor,
)


def jvp_rule(*ops_: Op) -> Callable[[JvpRule], JvpRule]:
    """Register ``fn`` as the JVP rule of each op in ``ops_``."""

    def register(fn: JvpRule) -> JvpRule:
        for op in ops_:
            assert op not in JVP_RULES, f"two JVP rules for {op}"
            JVP_RULES[op] = fn
        return fn

    return register


def jvp1(*ops_: Op) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(ops, t, out, x, *rest, **params)`` for ops whose only differentiable
    input is the first; a zero (None) tangent gives None without running ``fn``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, *rest: Any,
                **params: Any) -> Any:
            t = tangents[0]
            return None if t is None else fn(ops, t, out, x, *rest, **params)

        jvp_rule(*ops_)(jvp)
        return fn

    return register


def _total(ops: Any, out: Any, *terms: Any) -> Any:
    """The sum of the terms that are not None, broadcast up to the shape of ``out`` (an
    input's tangent can be smaller than the output it broadcasts into); None if all are."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for t in present[1:]:
        total = total + t
    have, want = ops.known_shape(total), ops.known_shape(out)
    if have is None or want is None or tuple(have) != tuple(want):
        total = ops.broadcast_to(total, ops.shape(out))  # a no-op is optimised away
    return total


def _same_op(op: Op) -> None:
    """An op linear in its first input (the others are indices, shapes or masks): its JVP
    is the op itself applied to the tangent."""
    jvp1(op)(lambda ops, t, out, x, *rest, **params: getattr(ops, op.value)(t, *rest, **params))


def _joined(op: Op) -> None:
    """An op linear in all its inputs together (concatenate): the op on the tangents, with
    zeros for the inputs that have none, since they fill their part of the output."""

    def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *arrays: Any, **params: Any) -> Any:
        if all(t is None for t in tangents):
            return None
        ts = [ops.zeros_like(a) if t is None else t for t, a in zip(tangents, arrays)]
        return getattr(ops, op.value)(*ts, **params)

    jvp_rule(op)(jvp)


def _multilinear(op: Op) -> None:
    """An op linear in each input separately (a product): one term per input that has a
    tangent, the op with that input replaced by its tangent."""

    def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *inputs: Any, **params: Any) -> Any:
        fn = getattr(ops, op.value)
        return _total(ops, out, *(None if t is None else fn(*inputs[:i], t, *inputs[i + 1:],
                                                            **params)
                                  for i, t in enumerate(tangents)))

    jvp_rule(op)(jvp)


def _diagonal_jvp(vjp: VjpRule) -> JvpRule:
    """An elementwise unary op has a diagonal Jacobian, which is its own transpose: its
    VJP rule applied to the tangent is its JVP."""
    return lambda ops, tangents, out, x: (None if tangents[0] is None
                                          else vjp(ops, tangents[0], out, x)[0])


def _binary_jvp(op: Op, dx: Callable[..., Any], dy: Callable[..., Any]) -> None:
    """An elementwise binary op: ``dx(ops, tx, out, x, y)`` and ``dy(ops, ty, out, x, y)``
    are the terms of each input's tangent."""

    def jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, y: Any) -> Any:
        tx, ty = tangents
        return _total(ops, out, None if tx is None else dx(ops, tx, out, x, y),
                      None if ty is None else dy(ops, ty, out, x, y))

    jvp_rule(op)(jvp)


for _op, _info in OP_INFO.items():
    if _info.elementwise and len(_info.inputs) == 1 and _op in RULES and _op is not Op.COPY:
        jvp_rule(_op)(_diagonal_jvp(RULES[_op]))
# copy copies its tangent too, so that in-place writes to either never reach the other
for _op in (Op.COPY, Op.ASARRAY, Op.GETITEM, Op.UNBROADCAST, Op.SUM, Op.MEAN, Op.CUMSUM, Op.TRACE,
            Op.DIAG, Op.DIAGONAL, Op.RESHAPE, Op.RAVEL, Op.SQUEEZE, Op.BROADCAST_TO,
            Op.EXPAND_DIMS, Op.SWAPAXES, Op.MOVEAXIS, Op.FLIP, Op.TRIU, Op.TRIL, Op.TRANSPOSE,
            Op.ROLL, Op.TILE, Op.REPEAT, Op.TAKE, Op.TAKE_ALONG_AXIS):
    _same_op(_op)
for _op in (Op.CONCATENATE, Op.STACK, Op.HSTACK, Op.VSTACK):
    _joined(_op)
for _op in (Op.MUL, Op.MATMUL, Op.DOT, Op.VDOT, Op.INNER, Op.OUTER, Op.TENSORDOT, Op.EINSUM):
    _multilinear(_op)

_binary_jvp(Op.ADD, lambda ops, t, out, x, y: t, lambda ops, t, out, x, y: t)
_binary_jvp(Op.SUB, lambda ops, t, out, x, y: t, lambda ops, t, out, x, y: -t)
_binary_jvp(Op.DIV, lambda ops, t, out, x, y: t / y, lambda ops, t, out, x, y: -t * out / y)
_binary_jvp(Op.MOD, lambda ops, t, out, x, y: t,
            lambda ops, t, out, x, y: -t * ops.floordiv(x, y))
_binary_jvp(Op.HYPOT, lambda ops, t, out, x, y: t * x / safe_divisor(ops, out),
            lambda ops, t, out, x, y: t * y / safe_divisor(ops, out))
_binary_jvp(Op.LOGADDEXP, lambda ops, t, out, x, y: t / (ops.exp(y - x) + 1),
            lambda ops, t, out, x, y: t / (ops.exp(x - y) + 1))
_binary_jvp(Op.LOGADDEXP2, lambda ops, t, out, x, y: t / (ops.exp2(y - x) + 1),
            lambda ops, t, out, x, y: t / (ops.exp2(x - y) + 1))
_binary_jvp(Op.POW, lambda ops, t, out, x, y: pow_base_term(ops, t, x, y),
            lambda ops, t, out, x, y: t * out * ops.log(ops.where(x > 0, x, 1)))
_binary_jvp(Op.ARCTAN2, lambda ops, t, out, x, y: t * y / (ops.square(x) + ops.square(y)),
            lambda ops, t, out, x, y: -t * x / (ops.square(x) + ops.square(y)))


jvp_rule(Op.FULL, Op.FULL_LIKE)(
    lambda ops, tangents, out, like, fill_value, dtype=None: _total(ops, out, tangents[1]))


@jvp_rule(Op.LINSPACE)
def _linspace_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, start: Any, stop: Any,
                  num: int = 50) -> Any:
    ta, tb = tangents
    w = linspace_weights(ops, out, num)
    return _total(ops, out, None if ta is None else ta * (1.0 - w),
                  None if tb is None else tb * w)


@jvp_rule(Op.ARANGE)
def _arange_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, start: Any, stop: Any, step: Any,
                dtype: Any = None) -> Any:
    ta, _, tc = tangents
    return _total(ops, out, ta, None if tc is None else tc * arange_steps(ops, out))


def _select_jvp(wins: Callable[..., Any]) -> Callable[..., Any]:
    """max/min-style ops: the winner's tangent; ties take half of each (as the VJP)."""
    return lambda ops, t, out, x, y: ops.where(wins(ops, x, y), t,
                                               ops.where(ops.eq(x, y), t * 0.5, 0))


for _op, (_first, _second) in _WINS.items():
    _binary_jvp(_op, _select_jvp(_first), _select_jvp(_second))


@jvp_rule(Op.WHERE)
def _where_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, c: Any, x: Any, y: Any) -> Any:
    _, tx, ty = tangents
    if tx is None and ty is None:
        return None
    return _total(ops, out, ops.where(c, 0 if tx is None else tx, 0 if ty is None else ty))


@jvp_rule(Op.CLIP)
def _clip_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, lo: Any, hi: Any) -> Any:
    tx, tlo, thi = tangents
    if tx is None:
        inside = None
    elif lo is None:
        inside = x <= hi
    elif hi is None:
        inside = x >= lo
    else:
        inside = ops.logical_and(x >= lo, x <= hi)
    # np.clip is minimum(maximum(x, lo), hi): where lo > hi the result is hi whatever x is
    lo_wins = None if tlo is None else (
        x < lo if hi is None else ops.logical_and(x < lo, lo <= hi))
    hi_wins = None if thi is None else (
        x > hi if lo is None else ops.logical_or(x > hi, lo > hi))
    return _total(ops, out, None if tx is None else ops.where(inside, tx, 0),
                  None if tlo is None else ops.where(lo_wins, tlo, 0),
                  None if thi is None else ops.where(hi_wins, thi, 0))


@jvp1(Op.PY_FLOAT)
def _py_float_jvp(ops: Any, t: Any, out: Any, x: Any) -> Any:
    return ops.py_float(t)


@jvp1(Op.ASTYPE)
def _astype_jvp(ops: Any, t: Any, out: Any, x: Any, dtype: Any = None, copy: bool = True) -> Any:
    if dtype is not None and not _np.issubdtype(_np.dtype(dtype), _np.inexact):
        return None  # an integer or boolean result has no tangent
    return ops.astype(t, dtype=dtype)


@jvp_rule(Op.SCATTER_ADD)
def _scatter_add_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, shape: Any, v: Any, *dyn: Any,
                     index: Any = None) -> Any:
    t = tangents[1]
    return None if t is None else ops.scatter_add(shape, t, *dyn, index=index)


@jvp_rule(Op.INDEX_ADD)
def _index_add_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, v: Any, *dyn: Any,
                   index: Any = None) -> Any:
    tx, tv = tangents[:2]
    if tv is None:
        return tx
    if tx is None:
        return ops.scatter_add(ops.shape(out), tv, *dyn, index=index)
    return ops.index_add(tx, tv, *dyn, index=index)


@jvp_rule(Op.SETITEM)
def _setitem_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, v: Any, *dyn: Any,
                 index: Any = None) -> Any:
    # the same write on the tangents: x's tangent outside the region, v's (broadcast by
    # the assignment, last write kept as in the primal) inside it
    tx, tv = tangents[:2]
    if tx is None and tv is None:
        return None
    if tv is None:
        return ops.setitem(tx, 0.0, *dyn, index=index)  # a constant was written
    if tx is None:  # the region's tangent joins zeros: they must be made (as concatenate)
        tx = ops.zeros_like(out)
    return ops.setitem(tx, tv, *dyn, index=index)


@jvp1(Op.MAX, Op.MIN)
def _extremum_jvp(ops: Any, t: Any, out: Any, x: Any, axis: Any = None,
                  keepdims: bool = False) -> Any:
    hit = mask_like(ops, ops.eq(x, _unreduce(ops, out, x, axis, keepdims)), x)
    return (ops.sum(hit * t, axis=axis, keepdims=keepdims)
            / ops.sum(hit, axis=axis, keepdims=keepdims))


def _centred_dot(ops: Any, t: Any, x: Any, axis: Any, keepdims: Any, ddof: Any) -> Any:
    """``sum((x - mean(x)) * t) / (n - ddof)`` over ``axis``: half the tangent of var."""
    centred = x - ops.mean(x, axis=axis, keepdims=True)
    return ops.sum(centred * t, axis=axis, keepdims=keepdims) * per_freedom(
        ops, 1.0, x, axis, ddof)


jvp1(Op.VAR)(lambda ops, t, out, x, axis=None, keepdims=False, ddof=0:
             _centred_dot(ops, t, x, axis, keepdims, ddof) * 2.0)
jvp1(Op.STD)(lambda ops, t, out, x, axis=None, keepdims=False, ddof=0:
             _centred_dot(ops, t, x, axis, keepdims, ddof) / safe_divisor(ops, out))


def _via_partials(op: Op) -> None:
    """A reduction whose output elements each depend on their own slice of ``x``: the VJP
    of a cotangent of ones is ``d out / d x`` elementwise, and the JVP sums it against the
    tangent (prod keeps its exact-at-zero form; norm keeps its cases and its errors)."""

    def jvp(ops: Any, t: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False,
            **params: Any) -> Any:
        (d,) = RULES[op](ops, ops.ones_like(out), out, x, axis=axis, keepdims=keepdims,
                         **params)
        return ops.sum(d * t, axis=axis, keepdims=keepdims)

    jvp1(op)(jvp)


_via_partials(Op.PROD)
_via_partials(Op.NORM)


@jvp1(Op.CUMPROD)
def _cumprod_jvp(ops: Any, t: Any, out: Any, x: Any, axis: Any = None) -> Any:
    # Before a slice's first zero: out * cumsum(t / x).  From the first zero k on, until a
    # second zero, only x_k's term survives: t_k times the product of the other items,
    # cumprod(x with zeros as 1); after a second zero, 0 (the VJP rule's cases).
    if axis is None:
        x, t = ops.ravel(x), ops.ravel(t)
    ax = 0 if axis is None else axis
    zero = ops.eq(x, 0)
    safe = ops.where(zero, ops.ones_like(x), x)
    count = ops.cumsum(ops.astype(zero, dtype="int64"), axis=ax)
    t_first = ops.cumsum(ops.where(ops.logical_and(zero, ops.eq(count, 1)), t,
                                   ops.zeros_like(t)), axis=ax)
    before = out * ops.cumsum(ops.where(zero, ops.zeros_like(t), t / safe), axis=ax)
    after = ops.where(ops.eq(count, 1), ops.cumprod(safe, axis=ax) * t_first,
                      ops.zeros_like(before))
    return ops.where(ops.eq(count, 0), before, after)


jvp1(Op.LOGSUMEXP)(lambda ops, t, out, x, axis=None, keepdims=False: ops.sum(
    ops.exp(x - _unreduce(ops, out, x, axis, keepdims)) * t, axis=axis, keepdims=keepdims))
jvp1(Op.SOFTMAX)(lambda ops, t, out, x, axis=-1:
                 out * (t - ops.sum(t * out, axis=axis, keepdims=True)))
jvp1(Op.LOG_SOFTMAX)(lambda ops, t, out, x, axis=-1:
                     t - ops.sum(ops.exp(out) * t, axis=axis, keepdims=True))
jvp1(Op.INV)(lambda ops, t, out, x: -(out @ t @ out))
# d det = det * trace(inv(x) @ t), and trace(a @ b) = sum(a^T * b)
jvp1(Op.DET)(lambda ops, t, out, x: out * ops.sum(_mT(ops, ops.inv(x)) * t, axis=(-2, -1)))
jvp1(Op.SLOGDET)(lambda ops, t, out, x: (None, ops.sum(_mT(ops, ops.inv(x)) * t,
                                                        axis=(-2, -1))))
jvp1(Op.SORT)(lambda ops, t, out, x, axis=-1:
              ops.take_along_axis(t, ops.argsort(x, axis=axis), axis=axis))
jvp1(Op.PAD)(lambda ops, t, out, x, pad_width=0, constant_values=0:
             ops.pad(t, pad_width=pad_width))  # the padding is constant: zero tangent


@jvp1(Op.SPLIT)
def _split_jvp(ops: Any, t: Any, out: Any, x: Any, indices_or_sections: Any = 2,
               axis: int = 0) -> Any:
    pieces = ops.split(t, indices_or_sections=indices_or_sections, axis=axis)
    return tuple(pieces[i] for i in range(len(out)))


@jvp1(Op.CHOLESKY)
def _cholesky_jvp(ops: Any, t: Any, out: Any, x: Any) -> Any:
    # dL = L Phi(L^-1 sym(dA) L^-T), Phi: the lower triangle with the diagonal halved
    linv = ops.inv(out)
    m = linv @ (0.5 * (t + _mT(ops, t))) @ _mT(ops, linv)
    return out @ (ops.tril(m) - diagonal_part(ops, 0.5 * m, x))


@jvp_rule(Op.SOLVE)
def _solve_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, a: Any, b: Any) -> Any:
    # out = a^-1 b, so d out = a^-1 (db - da @ out)
    ta, tb = tangents
    if ta is None and tb is None:
        return None
    if ops.rank(b) is None:  # b's rank is known at run time only
        return by_rank(ops, b, lambda vec: (_solve_tangent(ops, ta, tb, out, a, vec),))[0]
    return _solve_tangent(ops, ta, tb, out, a, ops.rank(b) == 1)


def _solve_tangent(ops: Any, ta: Any, tb: Any, out: Any, a: Any, vec: Any) -> Any:
    """The tangent of ``solve(a, b)``; ``vec``: ``b`` is one right-hand side (1-d)."""
    o = ops.expand_dims(out, axis=-1) if vec else out
    tb = tb if tb is None or not vec else ops.expand_dims(tb, axis=-1)
    rhs = tb if ta is None else (-(ta @ o) if tb is None else tb - ta @ o)
    d = ops.solve(a, rhs)
    return ops.squeeze(d, axis=-1) if vec else d


#: ``callable -> tangent(*args, *tangents) -> tangent of the output``, in NumPy: the
#: forward-mode rules of functions the compiler calls as they are (``st.custom_jvp``
#: fills it; ``derivatives.CUSTOM_VJPS`` is the reverse-mode table).  Floating-point
#: arguments without a tangent get zeros, the others ``None``.
CUSTOM_JVPS: dict[Callable[..., Any], Callable[..., Any]] = VersionedDict()


@jvp_rule(Op.CALL)
def _call_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *args: Any, fn: Any = None,
              out_type: Any = None) -> Any:
    tangent = CUSTOM_JVPS.get(fn)
    if tangent is None:
        name = getattr(fn, "__name__", None) or type(fn).__name__
        raise RuleError(f"forward mode through a function that has only a registered VJP "
                        f"({name}) is not supported (as in JAX); differentiate it in "
                        "reverse mode (st.grad, st.vjp, st.hessian(f, mode='reverse')), or "
                        "give it a JVP with st.custom_jvp")
    ts = [t if t is not None else ops.zeros_like(a) if _floating(ops.dtype(a)) else None
          for t, a in zip(tangents, args)]
    if isinstance(out, tuple) and not isinstance(out_type, (tuple, list)):
        from . import _UNTYPED_TUPLE  # noqa: PLC0415

        raise RuleError(_UNTYPED_TUPLE.format(getattr(fn, "__name__", "the function")))
    t = ops.call(*args, *ts, fn=tangent, out_type=out_type)  # typed like the output
    if isinstance(out_type, (tuple, list)):  # a tuple output: a tuple of tangents
        return tuple(t[i] for i in range(len(out_type)))
    return t


def _floating(dtype: str | None) -> bool:
    """A value that carries a tangent (Python ints, strings and None have no dtype)."""
    return dtype is not None and dtype.startswith(("float", "complex"))


@jvp_rule(Op.CALL_VJP)
def _call_vjp_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *args: Any, fn: Any = None) -> Any:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    raise RuleError(f"forward mode through the registered VJP {name} (forward over reverse "
                    "of a function with a custom rule) is not supported: the rule is opaque "
                    "NumPy code; write the function with NumPy operations st_autodiff knows "
                    "to get its higher derivatives")
