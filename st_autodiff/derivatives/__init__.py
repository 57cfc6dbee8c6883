"""THE rule table: one vector-Jacobian product rule per differentiable op.

A rule is ``rule(ops, g, out, *inputs, **params) -> tuple`` with one entry per input:
the gradient contribution for that input, or ``None`` for "no gradient" (an index, a
shape, a condition).  ``g`` is the adjoint of ``out``; for ops that return a tuple
(``multi``), ``g`` and ``out`` are tuples and missing adjoints arrive as zeros.

A rule may use only:

* ``ops.<name>(...)`` for any op of ``ir/ops.py`` (inputs positional, params by keyword);
* the Python operators ``+ - * / ** @`` and unary ``-`` on values and Python numbers,
  and ``< <= > >=`` (never ``==``; use ``ops.eq``);
* ``ops.shape(x)`` (a value usable as an op input, read at run time),
  ``ops.known_shape(x)`` and ``ops.rank(x)`` (the shape and the number of dimensions as
  Python ints, or ``None`` where the compiler does not know them: no example arguments,
  a shape that depends on the data), ``ops.dtype(x)`` (a dtype name or ``None``) and
  ``ops.const(v)``, and ``ops.number(x)`` (``x`` as a Python int or float where it is one
  known while compiling, else ``None``);
* ``ops.branch(cond, then, orelse)`` (an ``if`` in the generated code; ``by_rank`` uses
  it with ``ops.at_most_1d(x)`` for rules whose form depends on an unknown rank).

A rule must work when shapes are unknown: it reads them at run time (``ops.shape``,
negative axes, ``unbroadcast``) and keeps the shorter code of known shapes for when
they are known.  ``ops.static_shape(x)`` and ``ops.ndim(x)`` give Python ints or raise a
located error; a rule calls them only where no run-time form exists (``np.tensordot``
and ``np.inner`` of operands of unknown rank).

In the compiler ``ops`` emits IR nodes, so a rule *writes* the adjoint code; in the eager
runtime ``ops`` runs the arrays.  Because rules only use ops that have rules themselves,
generated adjoints can be differentiated again.  Rules never unbroadcast, accumulate or
test activity: the adjoint pass and the engine do that once for every op.

Forward mode: ``JVP_RULES`` holds, beside each VJP rule, a Jacobian-vector product rule
``jvp(ops, tangents, out, *inputs, **params) -> tangent of out``, written with the same
``ops`` protocol and the same restrictions (so forward-over-reverse and higher orders
work).  ``tangents`` has one entry per input; ``None`` is a symbolic zero (an index, a
constant, an inactive value): rules keep it symbolic (no zero arrays, except where a
joined output must hold them) and return ``None`` when every tangent they depend on is
``None``.  A multi-output op returns a tuple, whose
entries may be ``None`` too.  The tangent has the output's full shape: an input's smaller
tangent is broadcast *up* (never summed).  The rules live in ``derivatives/jvp.py``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as _np

from ..ir.kernels import run
from ..ir.ops import OP_INFO, Op
from ..ir.versioned import VersionedDict

#: What a VJP rule returns: one gradient contribution (or ``None``) per input.
Grads = tuple[Any, ...]

VjpRule = Callable[..., Grads]

RULES: dict[Op, VjpRule] = {}

JvpRule = Callable[..., Any]

_T = TypeVar("_T")

#: Op -> JVP rule, filled by ``derivatives.jvp`` (imported at the bottom of this module).
JVP_RULES: dict[Op, JvpRule] = {}

#: Ops with no gradient by design: their outputs are integers, booleans or piecewise
#: constant, so their derivative is zero (or undefined) everywhere it exists.
NONDIFFERENTIABLE: frozenset[Op] = frozenset({
    Op.SHAPE, Op.SIGN, Op.FLOOR, Op.CEIL, Op.ROUND, Op.RINT, Op.TRUNC, Op.FLOORDIV,
    Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.LOGICAL_AND, Op.LOGICAL_OR,
    Op.LOGICAL_NOT, Op.LOGICAL_XOR, Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.ANY, Op.ALL,
    Op.ARGMAX, Op.ARGMIN, Op.ARGSORT, Op.NONZERO, Op.ZEROS, Op.ONES, Op.EYE,
    Op.ZEROS_LIKE, Op.ONES_LIKE,
    Op.STOP_GRADIENT,  # st.stop_gradient: a zero gradient is what the user asked for
    Op.LIST_LEN, Op.LIST_ZEROS, Op.PY_INT, Op.PY_BOOL,
    Op.GAMMASGN,  # special family (issue 11): scipy.special.gammasgn, piecewise constant
})

#: Ops the adjoint pass and the engine handle themselves (arguments, constants, parts
#: of tuples, and regions: an ``if``/``for``/``while`` is differentiated by
#: differentiating its sub-graphs, see ``transforms/regions``).
STRUCTURAL: frozenset[Op] = frozenset({Op.ARG, Op.CONST, Op.ITEM, Op.TUPLE, Op.IF, Op.FOR,
                                       Op.WHILE})


class RuleError(Exception):
    """A rule cannot differentiate this use of its op (says what to write instead)."""


def rule(*ops_: Op) -> Callable[[VjpRule], VjpRule]:
    """Register ``fn`` as the VJP rule of each op in ``ops_``."""

    def register(fn: VjpRule) -> VjpRule:
        for op in ops_:
            assert op not in RULES, f"two rules for {op}"
            RULES[op] = fn
        return fn

    return register


def _unary(op: Op, fn: Callable[..., Any]) -> None:
    """Register an elementwise rule written as ``fn(ops, g, out, x) -> gx``."""
    RULES[op] = lambda ops, g, out, x: (fn(ops, g, out, x),)


# --- structure and casts --------------------------------------------------------------

_unary(Op.COPY, lambda ops, g, out, x: g)
_unary(Op.ASARRAY, lambda ops, g, out, x: g)
_unary(Op.POSITIVE, lambda ops, g, out, x: g)
_unary(Op.NEG, lambda ops, g, out, x: -g)


@rule(Op.PY_FLOAT)
def _py_float(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    # the cotangent in x's precision: a Python float is weak, so its uses may have made
    # the cotangent float32 (float(s) * x32) where the graph's types (a Python-float seed
    # broadcast as float64) cannot tell: cast whenever x's dtype is known
    dt = ops.dtype(x)
    return (g if dt is None else ops.astype(ops.asarray(g), dtype=dt, copy=False),)


@rule(Op.ASTYPE)
def _astype(ops: Any, g: Any, out: Any, x: Any, dtype: Any = None, copy: bool = True) -> Grads:
    dt = ops.dtype(x)
    return (g if dt is None or dt == ops.dtype(g) else ops.astype(g, dtype=dt),)


@rule(Op.GETITEM)
def _getitem(ops: Any, g: Any, out: Any, x: Any, *dyn: Any, index: Any = None) -> Grads:
    return (ops.scatter_add(ops.shape(x), g, *dyn, index=index),) + (None,) * len(dyn)


@rule(Op.INDEX_ADD)
def _index_add(ops: Any, g: Any, out: Any, x: Any, v: Any, *dyn: Any, index: Any = None) -> Grads:
    if ops.known_shape(x) == ():  # a 0-d base: its cotangent may be a Python number
        g = ops.asarray(g)
    gv = ops.getitem(g, *dyn, index=index)
    if ops.known_shape(v) != ops.known_shape(gv):  # v broadcast into the region
        gv = _sum_to(ops, gv, v)
    return (g, gv) + (None,) * len(dyn)


@rule(Op.SCATTER_ADD)
def _scatter_add(ops: Any, g: Any, out: Any, shape: Any, v: Any, *dyn: Any,
                 index: Any = None) -> Grads:
    return (None, ops.getitem(g, *dyn, index=index)) + (None,) * len(dyn)


@rule(Op.SETITEM)
def _setitem(ops: Any, g: Any, out: Any, x: Any, v: Any, *dyn: Any, index: Any = None) -> Grads:
    # out = x with v written at index: x keeps the gradient everywhere v did not land; v
    # gets the region's gradient, only where its write survived (NumPy keeps the last of
    # repeated integer indices), summed down to v's shape (v broadcasts into the region).
    if ops.known_shape(x) == ():  # a 0-d base: its cotangent may be a Python number
        g = ops.asarray(g)
    gv = ops.getitem(g, *dyn, index=index)
    if _may_repeat(ops, dyn, index):
        gv = ops.where(_last_writes(ops, g, gv, dyn, index), gv, 0)
    return (ops.setitem(g, 0.0, *dyn, index=index), _sum_to(ops, gv, v)) + (None,) * len(dyn)


def _may_repeat(ops: Any, dyn: Any, index: Any) -> bool:
    """Whether ``index`` may name one position twice: an integer array (its values are
    not known when the rule runs) or a static list with repeats, or several lists (their
    combinations).  Slices, ints and boolean masks never do."""
    lists = [e[1] for e in index if isinstance(e, tuple) and e[0] == "list"]
    for e in index:
        if isinstance(e, tuple) and e[0] == "in":
            d = dyn[e[1]]
            if ops.dtype(d) != "bool" and ops.known_shape(d) != ():
                return True  # an integer array (or a value of unknown kind)
    if not lists:
        return False
    if len(lists) > 1:
        return True
    values = lists[0]
    # -1 and n - 1 are one position: distinct values of one sign are distinct positions
    return len(set(values)) != len(values) or (min(values) < 0 <= max(values))


def _last_writes(ops: Any, g: Any, region: Any, dyn: Any, index: Any) -> Any:
    """A boolean mask shaped like ``region`` (``g[index]``): True where that element's
    write is the one the assignment kept.  Each element of the region writes its own
    number into an integer array of ``g``'s shape at ``index`` (the same last-write rule as
    the assignment itself), then reads back which numbers survived."""
    ids = ops.reshape(ops.cumsum(ops.ones_like(region, dtype="int64")), ops.shape(region))
    slots = ops.setitem(ops.zeros_like(g, dtype="int64"), ids, *dyn, index=index)
    return ops.eq(ops.getitem(slots, *dyn, index=index), ids)


def _sum_to(ops: Any, g: Any, like: Any) -> Any:
    """``g``, the gradient of a region ``like`` was broadcast into by an assignment, summed
    down to ``like``'s shape.  An assignment (unlike arithmetic) also drops leading
    size-1 axes of ``like``, so ``like`` may have more axes than ``g``; this is why the
    rule sums itself rather than leaving it to the adjoint pass."""
    want = ops.known_shape(like)
    if want is None:
        return ops.unbroadcast(g, ops.shape(like))
    want, have = tuple(want), ops.known_shape(g)
    if not want:
        return g if have == () else ops.sum(g)
    core = want[next((i for i, d in enumerate(want) if d != 1), len(want)):]
    if have is None:
        g = ops.unbroadcast(g, core)
        if core == want:
            return g
    elif tuple(have) != want:
        have = tuple(have)
        lead = len(have) - len(core)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(core)
                                          if d == 1 and have[lead + i] != 1)
        if axes:
            g = ops.sum(g, axis=axes, keepdims=True)
        if len(have) == len(want):
            return g
    else:
        return g
    return ops.reshape(g, want)


# --- creation from runtime values: full, linspace, arange ----------------------------
# Their shapes are static, but the values they fill in may be differentiated arguments
# (``np.linspace(a, b, 5)``), so they have rules like any other op.

# (their outputs are never shaped like the inputs, and may have unknown shapes, so the
# rules sum down themselves)
RULES[Op.FULL] = lambda ops, g, out, shape, fill_value, dtype=None: (
    None, _sum_to(ops, g, fill_value))
RULES[Op.FULL_LIKE] = lambda ops, g, out, x, fill_value, dtype=None: (
    None, _sum_to(ops, g, fill_value))


def linspace_weights(ops: Any, out: Any, num: Any) -> Any:
    """``w`` with ``linspace(a, b, num) == a * (1 - w) + b * w``, shaped to broadcast
    against ``out`` (whose first axis is the sample axis; array endpoints add axes)."""
    nd = ops.rank(out)
    if nd is None:  # endpoints of unknown rank: the weights counted at run time, out's shape
        return arange_steps(ops, out) * (1.0 / (num - 1)) if num > 1 else ops.zeros_like(out)
    w = _np.linspace(0.0, 1.0, num)
    return ops.const(w.reshape((num,) + (1,) * (nd - 1)))


@rule(Op.LINSPACE)
def _linspace(ops: Any, g: Any, out: Any, start: Any, stop: Any, num: int = 50) -> Grads:
    w = linspace_weights(ops, out, num)
    return _sum_to(ops, g * (1.0 - w), start), _sum_to(ops, g * w, stop)


def arange_steps(ops: Any, out: Any) -> Any:
    """``0, 1, ..., n - 1`` for ``out = arange(start, stop, step)``: ``out[i]`` is
    ``start + i * step``.  Counted at run time: with float bounds the length ``n`` is
    known only then (it is piecewise constant in the inputs)."""
    return ops.cumsum(ops.ones_like(out), axis=0) - 1.0


RULES[Op.ARANGE] = lambda ops, g, out, start, stop, step, dtype=None: (
    ops.sum(g), None, ops.sum(g * arange_steps(ops, out)))


@rule(Op.UNBROADCAST)
def _unbroadcast(ops: Any, g: Any, out: Any, x: Any, shape: Any) -> Grads:
    return ops.broadcast_to(g, ops.shape(x)), None


# --- user-registered rules (st.register_vjp, st.custom_vjp) ----------------------------

#: ``callable -> rule(g, out, *args) -> one gradient (or None) per argument``, in NumPy:
#: the functions the compiler calls as they are and differentiates with the user's rule.
CUSTOM_VJPS: dict[Callable[..., Any], Callable[..., Any]] = VersionedDict()


@rule(Op.CALL)
def _call(ops: Any, g: Any, out: Any, *args: Any, fn: Any = None, out_type: Any = None) -> Grads:
    if isinstance(g, tuple) and not isinstance(out_type, (tuple, list)):
        raise RuleError(_UNTYPED_TUPLE.format(getattr(fn, "__name__", "the function")))
    if isinstance(out_type, (tuple, list)):  # a tuple output: the rule gets tuples
        g, out = ops.tuple(*g), ops.tuple(*out)
    grads = ops.call_vjp(g, out, *args, fn=vjp_call(fn))
    return tuple(grads[i] for i in range(len(args)))


@rule(Op.CALL_VJP)
def _call_vjp(ops: Any, g: Any, out: Any, *args: Any, fn: Any = None) -> Grads:
    raise RuleError("the gradient of a function with a registered VJP cannot be "
                    "differentiated again (its rule is opaque NumPy code); write the function "
                    "with NumPy operations st_autodiff knows to get higher derivatives")


_UNTYPED_TUPLE = ("{} returns a tuple, and how many items it has is not known without "
                  "example arguments; call the function with arguments first (or give "
                  "out_type= where it is registered)")


class VjpCall:
    """A user's VJP rule as generated code calls it: one gradient per argument, shaped
    and typed like it, whatever the rule returned.  ``None`` (JAX's zero cotangent) is
    zeros for a floating-point argument; the other arguments get ``None``.  The compiler
    types the gradients this way without running the rule."""

    def __init__(self, fn: Any, rule_fn: Callable[..., Any]) -> None:
        self.fn, self.rule = fn, rule_fn
        self.__name__ = getattr(rule_fn, "__name__", None) or "rule"
        self.__qualname__ = getattr(rule_fn, "__qualname__", None) or self.__name__
        self.__module__ = getattr(rule_fn, "__module__", None) or __name__

    def __call__(self, g: Any, out: Any, *args: Any) -> Grads:
        grads = self.rule(g, out, *args)
        name = getattr(self.fn, "__name__", None) or type(self.fn).__name__
        if not isinstance(grads, (tuple, list)):
            if len(args) != 1:
                raise TypeError(f"the VJP rule of {name} must return a tuple with one "
                                f"gradient per argument ({len(args)}), not "
                                f"{type(grads).__name__}")
            grads = (grads,)
        if len(grads) != len(args):
            raise TypeError(f"the VJP rule of {name} returned {len(grads)} gradients for "
                            f"{len(args)} arguments; return one per argument (None for none)")
        return tuple(_gradient_like(gi, a, name, k) for k, (gi, a) in
                     enumerate(zip(grads, args)))

    def st_readable_for(self, examples: Any) -> Any:
        """The rule as Python the compiler reads (higher derivatives), or ``None``."""
        readable = getattr(self.rule, "st_readable_for", None)
        if callable(readable):
            return readable(examples)
        import types  # noqa: PLC0415

        return self.rule if isinstance(self.rule, types.FunctionType) else None


_VJP_CALLS: dict[Any, VjpCall] = {}


def vjp_call(fn: Any) -> VjpCall:
    """The ``VjpCall`` of ``fn``'s registered rule (one per rule, so generated code reads
    one name for it)."""
    rule_fn = CUSTOM_VJPS[fn]
    made = _VJP_CALLS.get(fn)
    if made is None or made.rule is not rule_fn:
        made = _VJP_CALLS[fn] = VjpCall(fn, rule_fn)
    return made


def _gradient_like(gi: Any, a: Any, name: str, k: int) -> Any:
    """One gradient from a user's rule, as the argument ``a`` needs it."""
    from ..ir.kernels import array_namespace, unbroadcast  # noqa: PLC0415

    if type(a) is float:
        return 0.0 if gi is None else float(_np.sum(gi))
    dt = getattr(a, "dtype", None)
    if dt is None or dt.kind not in ("f", "c"):
        return None  # an index, a flag, a static value: no gradient
    xp = array_namespace(a)
    if gi is None:
        return xp.zeros_like(a)
    gi = xp.asarray(gi)
    if gi.shape != a.shape:
        try:
            gi = unbroadcast(gi, a.shape) if gi.ndim >= a.ndim else xp.broadcast_to(
                gi, a.shape)
        except ValueError:
            gi = None
        if gi is None or gi.shape != a.shape:
            raise TypeError(f"the VJP rule of {name} returned a gradient of shape "
                            f"{_np.shape(gi)} for argument {k} of shape {a.shape}")
    return gi.astype(dt, copy=False)


# --- elementwise unary ----------------------------------------------------------------

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_unary(Op.ABS, lambda ops, g, out, x: g * ops.sign(x))
_unary(Op.EXP, lambda ops, g, out, x: g * out)
_unary(Op.EXP2, lambda ops, g, out, x: g * out * _LN2)
_unary(Op.EXPM1, lambda ops, g, out, x: g * (out + 1))
_unary(Op.LOG, lambda ops, g, out, x: g / x)
_unary(Op.LOG2, lambda ops, g, out, x: g / (x * _LN2))
_unary(Op.LOG10, lambda ops, g, out, x: g / (x * _LN10))
_unary(Op.LOG1P, lambda ops, g, out, x: g / (x + 1))
_unary(Op.SQRT, lambda ops, g, out, x: g / (out * 2))
_unary(Op.CBRT, lambda ops, g, out, x: g / (ops.square(out) * 3))
_unary(Op.SQUARE, lambda ops, g, out, x: g * (x * 2))
_unary(Op.RECIPROCAL, lambda ops, g, out, x: -g * ops.square(out))
_unary(Op.SIN, lambda ops, g, out, x: g * ops.cos(x))
_unary(Op.COS, lambda ops, g, out, x: -g * ops.sin(x))
_unary(Op.TAN, lambda ops, g, out, x: g * (ops.square(out) + 1))
_unary(Op.ARCSIN, lambda ops, g, out, x: g / ops.sqrt(1 - ops.square(x)))
_unary(Op.ARCCOS, lambda ops, g, out, x: -g / ops.sqrt(1 - ops.square(x)))
_unary(Op.ARCTAN, lambda ops, g, out, x: g / (ops.square(x) + 1))
_unary(Op.SINH, lambda ops, g, out, x: g * ops.cosh(x))
_unary(Op.COSH, lambda ops, g, out, x: g * ops.sinh(x))
_unary(Op.TANH, lambda ops, g, out, x: g * (1 - out * out))
_unary(Op.ARCSINH, lambda ops, g, out, x: g / ops.sqrt(ops.square(x) + 1))
_unary(Op.ARCCOSH, lambda ops, g, out, x: g / ops.sqrt(ops.square(x) - 1))
_unary(Op.ARCTANH, lambda ops, g, out, x: g / (1 - ops.square(x)))
_unary(Op.DEG2RAD, lambda ops, g, out, x: g * (math.pi / 180))
_unary(Op.RAD2DEG, lambda ops, g, out, x: g * (180 / math.pi))


# --- elementwise binary ---------------------------------------------------------------

RULES[Op.ADD] = lambda ops, g, out, x, y: (g, g)
RULES[Op.SUB] = lambda ops, g, out, x, y: (g, -g)
RULES[Op.MUL] = lambda ops, g, out, x, y: (g * y, g * x)
RULES[Op.DIV] = lambda ops, g, out, x, y: (g / y, -g * out / y)
RULES[Op.MOD] = lambda ops, g, out, x, y: (g, -g * ops.floordiv(x, y))
RULES[Op.HYPOT] = lambda ops, g, out, x, y: (g * x / safe_divisor(ops, out),
                                              g * y / safe_divisor(ops, out))


def safe_divisor(ops: Any, v: Any) -> Any:
    """``v`` with zeros replaced by ones: the divisor of a rule whose numerator is zero
    wherever ``v`` is (norm-like ops at the origin, std of equal values), so the quotient
    is the 0 subgradient there (PyTorch's convention; JAX gives NaN) instead of 0/0."""
    return ops.where(ops.eq(v, 0), 1, v)
# d/dx log(e^x + e^y) = 1 / (1 + e^(y - x)): written without ``out`` so that a gradient
# that does not return the value never computes the (costly) forward logaddexp.
RULES[Op.LOGADDEXP] = lambda ops, g, out, x, y: (
    g / (ops.exp(y - x) + 1), g / (ops.exp(x - y) + 1))
RULES[Op.LOGADDEXP2] = lambda ops, g, out, x, y: (
    g / (ops.exp2(y - x) + 1), g / (ops.exp2(x - y) + 1))


def pow_base_term(ops: Any, g: Any, x: Any, y: Any) -> Any:
    """``g * d(x ** y)/dx = g * y * x ** (y - 1)``, zero where ``y == 0``: ``x ** 0`` is
    the constant 1, but the formula gives ``0 * 0 ** -1 = 0 * inf = nan`` at ``x == 0``
    (PyTorch and JAX mask it; so does the second derivative of ``x ** 1``).  A constant
    exponent decides it while compiling: ``None`` (no term) for 0, the plain formula
    with the exponent's ``y - 1`` folded otherwise."""
    c = ops.number(y)
    if c is not None:
        return None if c == 0 else g * y * x ** (c - 1)
    return ops.where(ops.eq(y, 0), 0, g * y * x ** (y - 1))


@rule(Op.POW)
def _pow(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    # d/dy uses log(x): only where x > 0 (elsewhere the derivative does not exist for
    # non-integer y; 0 is what PyTorch and JAX give for x == 0).
    safe = ops.where(x > 0, x, 1)
    return pow_base_term(ops, g, x, y), g * out * ops.log(safe)


@rule(Op.ARCTAN2)
def _arctan2(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    # out = arctan2(x, y): x is the ordinate, y the abscissa.
    denom = ops.square(x) + ops.square(y)
    return g * y / denom, -g * x / denom


def _select_rule(first_wins: Any, second_wins: Any) -> Any:
    """max/min-style rules: the winner gets ``g``; ties split it evenly."""

    def vjp(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
        half = ops.where(ops.eq(x, y), g * 0.5, 0)
        return ops.where(first_wins(ops, x, y), g, half), ops.where(
            second_wins(ops, x, y), g, half)

    return vjp


#: max/min-style ops: (where x wins, where y wins); shared with their JVP rules.
_WINS = {
    Op.MAXIMUM: (lambda ops, x, y: x > y, lambda ops, x, y: x < y),
    Op.MINIMUM: (lambda ops, x, y: x < y, lambda ops, x, y: x > y),
    Op.FMAX: (lambda ops, x, y: ops.logical_or(x > y, ops.isnan(y)),
              lambda ops, x, y: ops.logical_or(x < y, ops.isnan(x))),
    Op.FMIN: (lambda ops, x, y: ops.logical_or(x < y, ops.isnan(y)),
              lambda ops, x, y: ops.logical_or(x > y, ops.isnan(x))),
}
for _op, (_first, _second) in _WINS.items():
    RULES[_op] = _select_rule(_first, _second)
RULES[Op.WHERE] = lambda ops, g, out, c, x, y: (None, ops.where(c, g, 0), ops.where(c, 0, g))


@rule(Op.CLIP)
def _clip(ops: Any, g: Any, out: Any, x: Any, lo: Any, hi: Any) -> Grads:
    # np.clip accepts None for a missing bound: that side neither clips nor gets a gradient
    if lo is None:
        return ops.where(x <= hi, g, 0), None, ops.where(x > hi, g, 0)
    if hi is None:
        return ops.where(x >= lo, g, 0), ops.where(x < lo, g, 0), None
    # np.clip is minimum(maximum(x, lo), hi): where lo > hi the result is hi whatever x is
    inside = ops.logical_and(x >= lo, x <= hi)
    lo_wins = ops.logical_and(x < lo, lo <= hi)
    hi_wins = ops.logical_or(x > hi, lo > hi)
    return ops.where(inside, g, 0), ops.where(lo_wins, g, 0), ops.where(hi_wins, g, 0)


# --- reductions -----------------------------------------------------------------------

def _axes(ops: Any, x: Any, axis: Any) -> tuple[int, ...]:
    """Reduction axes as a sorted tuple of non-negative ints."""
    nd = ops.ndim(x)
    if axis is None:
        return tuple(range(nd))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % nd for a in axes))


def _unreduce(ops: Any, g: Any, x: Any, axis: Any, keepdims: Any) -> Any:
    """Broadcast the adjoint of a reduction back to the shape of its input."""
    if not keepdims and axis is not None:
        g = ops.expand_dims(g, axis=axis)
    return ops.broadcast_to(g, ops.shape(x))


def mask_like(ops: Any, mask: Any, x: Any) -> Any:
    """A boolean ``mask`` as numbers of ``x``'s dtype; left boolean where the dtype is not
    known (arithmetic with a float gradient gives the float dtype itself)."""
    dt = ops.dtype(x)
    return mask if dt is None else ops.astype(mask, dtype=dt)


def _count(ops: Any, x: Any, axis: Any) -> Any:
    """How many elements each output of a reduction over ``axis`` sums: a number when
    ``x``'s shape is known, else counted at run time (``x[i:i + k]`` in a loop)."""
    shape = ops.known_shape(x)
    if shape is None:  # one number: every output of the reduction sums as many
        counts = ops.sum(ops.ones_like(x), axis=axis)
        return counts if axis is None else ops.max(counts)
    return math.prod(shape[a] for a in _axes(ops, x, axis))


@rule(Op.SUM)
def _sum(ops: Any, g: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False) -> Grads:
    return (_unreduce(ops, g, x, axis, keepdims),)


@rule(Op.MEAN)
def _mean(ops: Any, g: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False) -> Grads:
    return (_unreduce(ops, g / _count(ops, x, axis), x, axis, keepdims),)


@rule(Op.MAX, Op.MIN)
def _extremum(ops: Any, g: Any, out: Any, x: Any, axis: Any = None,
              keepdims: bool = False) -> Grads:
    hit = mask_like(ops, ops.eq(x, _unreduce(ops, out, x, axis, keepdims)), x)
    share = _unreduce(ops, g, x, axis, keepdims) / ops.sum(hit, axis=axis, keepdims=True)
    return (hit * share,)


def per_freedom(ops: Any, k: float, x: Any, axis: Any, ddof: Any) -> Any:
    """``k / (n - ddof)``, the scale of var's and std's derivatives; ``inf`` where no
    degree of freedom is left (PyTorch's ``2.0 / 0``: the gradient of one element's
    unbiased variance is NaN, where Python's division by zero would raise)."""
    dof = _count(ops, x, axis) - ddof
    if isinstance(dof, (int, float)) and dof == 0:
        return math.inf
    return k / dof


@rule(Op.VAR)
def _var(ops: Any, g: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False,
         ddof: int = 0) -> Grads:
    centred = x - ops.mean(x, axis=axis, keepdims=True)
    scale = per_freedom(ops, 2.0, x, axis, ddof)
    return (_unreduce(ops, g, x, axis, keepdims) * centred * scale,)


@rule(Op.STD)
def _std(ops: Any, g: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False,
         ddof: int = 0) -> Grads:
    centred = x - ops.mean(x, axis=axis, keepdims=True)
    scale = per_freedom(ops, 1.0, x, axis, ddof)
    # equal values (a length-1 axis): std is 0 and centred is 0; the gradient is 0
    return (_unreduce(ops, g / safe_divisor(ops, out), x, axis, keepdims) * centred * scale,)


@rule(Op.PROD)
def _prod(ops: Any, g: Any, out: Any, x: Any, axis: Any = None, keepdims: bool = False) -> Grads:
    # Product of all other elements, computed with exclusive scans so zeros are exact.
    if axis is None and ops.known_shape(x) is None:  # np.prod(np.stack(xs)): one vector
        others = _others(ops, ops.reshape(x, (-1,)))
        return (ops.reshape(g * others, ops.shape(x)),)
    if ops.known_shape(x) is None:  # axes of an array of unknown shape: axis by axis
        axes: list[Any] | tuple[int, ...] = list(axis) if isinstance(axis, tuple) else [axis]
        return (_unreduce(ops, g, x, axis, keepdims) * _others_along(ops, x, axes),)
    axes = _axes(ops, x, axis)
    shape = ops.static_shape(x)
    rest = tuple(a for a in range(len(shape)) if a not in axes)
    moved = ops.transpose(x, axes=rest + axes)
    flat = ops.reshape(moved, tuple(shape[a] for a in rest) + (-1,))
    others = _others(ops, flat)
    gk = g if keepdims or axis is None else ops.expand_dims(g, axis=axis)
    gk = ops.reshape(gk, tuple(shape[a] for a in rest) + (1,))
    back = ops.reshape(gk * others, tuple(shape[a] for a in rest + axes))
    inverse = tuple(int(i) for i in _np.argsort(rest + axes))
    return (ops.transpose(back, axes=inverse),)


def _others_along(ops: Any, x: Any, axes: Any) -> Any:
    """For each element of ``x``, the product of the others in its slice over ``axes``
    (shaped like ``x``): the last axis's exclusive products times, broadcast, those of
    the product over that axis along the remaining axes; exact with zeros, and needs no
    shape (negative axes work on any rank)."""
    a = axes[-1]
    if a == -1:
        along = _others(ops, x)
    else:
        along = ops.moveaxis(_others(ops, ops.moveaxis(x, source=a, destination=-1)),
                             source=-1, destination=a)
    if len(axes) == 1:
        return along
    return along * _others_along(ops, ops.prod(x, axis=a, keepdims=True), axes[:-1])


def _others(ops: Any, flat: Any) -> Any:
    """For each element of ``flat``'s last axis, the product of the others on it."""
    lead = (Ellipsis, ("slice", None, -1, None))
    ones = ops.ones_like(ops.getitem(flat, index=(Ellipsis, ("slice", None, 1, None))))
    left = ops.cumprod(ops.concatenate(ones, ops.getitem(flat, index=lead), axis=-1), axis=-1)
    rflat = ops.flip(flat, axis=-1)
    right = ops.cumprod(ops.concatenate(ones, ops.getitem(rflat, index=lead), axis=-1),
                        axis=-1)
    return left * ops.flip(right, axis=-1)


def _reverse_cumsum(ops: Any, g: Any, axis: Any) -> Any:
    return ops.flip(ops.cumsum(ops.flip(g, axis=axis), axis=axis), axis=axis)


@rule(Op.CUMSUM)
def _cumsum(ops: Any, g: Any, out: Any, x: Any, axis: Any = None) -> Grads:
    if axis is None:
        return (ops.reshape(_reverse_cumsum(ops, g, 0), ops.shape(x)),)
    return (_reverse_cumsum(ops, g, axis),)


#: how many zeros of a slice cumprod's VJP peels off exactly (``_cumprod_vjp``): exact
#: to third order at any input (a fourth derivative at a slice holding four or more exact
#: zeros is not), for 1.75 times the cost of the first-order formula alone
#: (``np.cumprod`` of 10**6 items)
CUMPROD_DEPTH = 2


@rule(Op.CUMPROD)
def _cumprod(ops: Any, g: Any, out: Any, x: Any, axis: Any = None) -> Grads:
    shape = ops.shape(x)
    if axis is None:
        x, out = ops.ravel(x), ops.ravel(out)
    ax = 0 if axis is None else axis
    known = ops.known_shape(x)
    depth = CUMPROD_DEPTH if known is None else min(CUMPROD_DEPTH, max(known[ax] - 1, 0))
    grad = _cumprod_vjp(ops, g, out, x, ax, depth)
    return (grad if axis is not None else ops.reshape(grad, shape),)


def _first_zero(ops: Any, x: Any, ax: Any) -> tuple[Any, Any, Any]:
    """``x`` with each slice's first zero replaced by 1 (``y``), that position (``first``)
    and ``x`` from that position on (the first zero's value broadcast, 1 before it):
    ``cumprod(x) == cumprod(y) * w`` as polynomials, so derivatives through ``w`` see
    ``x_f`` as the factor it is."""
    zero = ops.eq(x, 0)
    count = ops.cumsum(ops.astype(zero, dtype="int64"), axis=ax)
    first = ops.logical_and(zero, ops.eq(count, 1))
    x_first = ops.sum(ops.where(first, x, ops.zeros_like(x)), axis=ax, keepdims=True)
    w = ops.where(ops.ge(count, 1), x_first, ops.ones_like(x))
    return ops.where(first, ops.ones_like(x), x), first, w


def _cumprod_vjp(ops: Any, g: Any, out: Any, x: Any, ax: Any, depth: int) -> Any:
    """``g``'s gradient through ``out = cumprod(x)``: ``sum_{j >= k} g_j prod_{i <= j, i != k}
    x_i`` at ``k``.  The division form ``reverse_cumsum(g out) / x`` is exact (at every
    order) wherever ``x != 0``; a slice's zeros are peeled off one at a time through
    ``cumprod(x) = cumprod(y) * w`` (``_first_zero``), ``depth`` times, so the result's own
    derivatives stay exact (a Hessian or a third derivative at inputs holding several zeros
    in one slice), and the last level masks the zeros after its first: exact to first
    order there, so exact at every order for slices with up to ``depth + 1`` zeros and to
    order ``depth + 1`` for any."""
    if depth > 0:  # (every position but a slice's first zero: y's gradient, g w out_y = g out)
        y, first, w = _first_zero(ops, x, ax)
        out_y = ops.cumprod(y, axis=ax)
        at_first = _reverse_cumsum(ops, g * out_y, ax)
        return ops.where(first, at_first, _cumprod_vjp(ops, g * w, out_y, y, ax, depth - 1))
    zero = ops.eq(x, 0)
    safe = ops.where(zero, ops.ones_like(x), x)
    division = _reverse_cumsum(ops, g * out, ax) / safe
    first = ops.eq(ops.cumsum(ops.astype(zero, dtype="int64"), axis=ax), 1)
    at_first = _reverse_cumsum(ops, ops.where(first, g * ops.cumprod(safe, axis=ax),
                                              ops.zeros_like(g * out)), ax)
    return ops.where(zero, ops.where(first, at_first, ops.zeros_like(at_first)), division)


# --- linear algebra -------------------------------------------------------------------

def _mT(ops: Any, a: Any) -> Any:
    return ops.swapaxes(a, axis1=-1, axis2=-2)


def by_rank(ops: Any, x: Any, fn: Callable[..., Grads]) -> Grads:
    """``fn(low)`` with ``low`` whether ``x`` has at most one dimension: decided now when
    the compiler knows ``x``'s rank, else at run time (an ``if`` on ``x.ndim <= 1`` in the
    generated code, each branch written for its case).  ``fn`` returns a tuple."""
    r = ops.rank(x)
    if r is not None:
        return fn(r <= 1)
    return cast(Grads, ops.branch(ops.at_most_1d(x), lambda: fn(True), lambda: fn(False)))


@rule(Op.MATMUL)
def _matmul(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    nx, ny = ops.rank(x), ops.rank(y)
    if nx is not None and ny is not None:
        return _matmul_vjp(ops, g, x, y, nx, ny)
    # a rank the compiler does not know: 1-d operands are the only special case, and
    # the batched forms (rank 3 below) hold for every rank of 2 or more
    return tuple(_by_ranks(ops, x, y, lambda vx, vy, k=k: _matmul_vjp(
        ops, g, x, y, 1 if vx else nx or 3, 1 if vy else ny or 3, k)) for k in (0, 1))


def _by_ranks(ops: Any, x: Any, y: Any, fn: Any) -> Any:
    """``fn(x is 1-d, y is 1-d)`` (see ``by_rank``), its only value.  Rules call it once
    per gradient, so that an unused gradient's ``if`` is dead code as a whole."""
    return by_rank(ops, x, lambda vx: by_rank(ops, y, lambda vy: fn(vx, vy)))[0]


def _matmul_vjp(ops: Any, g: Any, x: Any, y: Any, nx: Any, ny: Any, only: Any = None) -> Grads:
    """Both gradients of ``x @ y`` for these ranks, or (``only`` = 0 or 1) just one."""
    gx, gy = _matmul_parts(ops, g, x, y, nx, ny)
    if only is not None:
        return ((gx, gy)[only](),)
    if ny == 1 and nx != 1:  # (the order the nodes have always been written in)
        b = gy()
        return gx(), b
    return gx(), gy()


def _matmul_parts(ops: Any, g: Any, x: Any, y: Any, nx: Any, ny: Any) -> Grads:
    if nx == 1 and ny == 1:
        return lambda: g * y, lambda: g * x
    if nx == 1:  # (k,) @ (..., k, m): g is (..., m)
        return (lambda: y @ g if ny == 2 else ops.squeeze(y @ ops.expand_dims(g, axis=-1),
                                                           axis=-1),
                lambda: ops.expand_dims(x, axis=-1) * ops.expand_dims(g, axis=-2))
    if ny == 1:  # (..., n, k) @ (k,): g is (..., n)
        return (lambda: ops.expand_dims(g, axis=-1) * y,
                lambda: g @ x if nx == 2 else ops.squeeze(ops.expand_dims(g, axis=-2) @ x,
                                                          axis=-2))
    return lambda: g @ _mT(ops, y), lambda: _mT(ops, x) @ g


#: ``np.dot`` of operands of unknown rank, 2-d or 1-d each: (gx, gy) as einsum
#: subscripts ``(g, other)`` by (x is 1-d, y is 1-d).  Einsum checks every rank, so an
#: operand of another rank (``np.dot`` of a 3-d array) fails at run time rather than
#: meeting a formula written for a different case.
_DOT_SPECS = {(False, False): ("ij,kj->ik", "ik,ij->kj"), (True, False): ("j,kj->k", "k,j->kj"),
              (False, True): ("i,k->ik", "ik,i->k")}


@rule(Op.DOT)
def _dot(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    nx, ny = ops.rank(x), ops.rank(y)
    if nx is None or ny is None:
        def vjp(vx: Any, vy: Any, k: Any) -> tuple[Any]:
            if vx and vy:
                return (g * y if k == 0 else g * x),
            spec = _DOT_SPECS[(vx, vy)][k]
            return (ops.einsum(g, y, subscripts=spec) if k == 0 else
                    ops.einsum(x, g, subscripts=spec)),

        return tuple(_by_ranks(ops, x, y, lambda vx, vy, k=k: vjp(vx, vy, k)) for k in (0, 1))
    if nx == 0 or ny == 0:
        return RULES[Op.MUL](ops, g, out, x, y)
    if nx > 2 or ny > 2:
        raise RuleError("np.dot of arrays with more than 2 dimensions is not supported; "
                        "write np.matmul (or @) or np.tensordot instead")
    return _matmul_vjp(ops, g, x, y, nx, ny)


@rule(Op.VDOT)
def _vdot(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    return ops.reshape(g * ops.ravel(y), ops.shape(x)), ops.reshape(g * ops.ravel(x),
                                                                    ops.shape(y))


@rule(Op.OUTER)
def _outer(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    return (ops.reshape(g @ ops.ravel(y), ops.shape(x)),
            ops.reshape(ops.ravel(x) @ g, ops.shape(y)))


def _tensordot_axes(ops: Any, x: Any, y: Any, axes: Any) -> tuple[list[int], list[int]]:
    nx, ny = ops.ndim(x), ops.ndim(y)
    if isinstance(axes, int):
        return list(range(nx - axes, nx)), list(range(axes))
    ax, ay = axes
    ax = [ax] if isinstance(ax, int) else list(ax)
    ay = [ay] if isinstance(ay, int) else list(ay)
    return [a % nx for a in ax], [a % ny for a in ay]


def _tensordot_vjp(ops: Any, g: Any, x: Any, y: Any, ax: Any, ay: Any) -> Grads:
    nx, ny = ops.ndim(x), ops.ndim(y)
    free_x = [i for i in range(nx) if i not in ax]
    free_y = [i for i in range(ny) if i not in ay]
    nfx = len(free_x)
    tx = ops.tensordot(g, y, axes=(tuple(range(nfx, nfx + len(free_y))), tuple(free_y)))
    order_x = free_x + [ax[k] for k in _np.argsort(ay)]
    gx = ops.transpose(tx, axes=tuple(int(i) for i in _np.argsort(order_x)))
    ty = ops.tensordot(x, g, axes=(tuple(free_x), tuple(range(nfx))))
    order_y = [ay[k] for k in _np.argsort(ax)] + free_y
    gy = ops.transpose(ty, axes=tuple(int(i) for i in _np.argsort(order_y)))
    return gx, gy


@rule(Op.TENSORDOT)
def _tensordot(ops: Any, g: Any, out: Any, x: Any, y: Any, axes: Any = 2) -> Grads:
    ax, ay = _tensordot_axes(ops, x, y, axes)
    return _tensordot_vjp(ops, g, x, y, ax, ay)


@rule(Op.INNER)
def _inner(ops: Any, g: Any, out: Any, x: Any, y: Any) -> Grads:
    if ops.ndim(x) == 0 or ops.ndim(y) == 0:
        return RULES[Op.MUL](ops, g, out, x, y)
    return _tensordot_vjp(ops, g, x, y, [ops.ndim(x) - 1], [ops.ndim(y) - 1])


@rule(Op.EINSUM)
def _einsum(ops: Any, g: Any, out: Any, *operands: Any, subscripts: Any = None) -> Grads:
    ellipsis = "..." in subscripts  # only then are the ranks needed
    if ellipsis and any(ops.rank(o) is None for o in operands):
        ins, outs = _parse_einsum_batch(subscripts, len(operands))
    else:
        ins, outs = _parse_einsum(subscripts, [ops.ndim(o) if ellipsis else 0
                                                for o in operands])
    grads = []
    for i, sub in enumerate(ins):
        if len(set(sub)) != len(sub):
            raise RuleError(f"einsum operand {i} repeats an index ({sub!r}); "
                            "take np.diagonal first and sum over it instead")
        others = [s for j, s in enumerate(ins) if j != i]
        have = set(outs) | set("".join(others))
        kept = "".join(c for c in sub if c in have)
        # an operand without the batch others have: einsum sums a batch only into an
        # output that keeps it, so it is kept and summed down to the operand's shape
        batched = "#" in have and "#" not in sub
        spec = (",".join([outs] + others) + "->" + "#" * batched + kept).replace("#", "...")
        gi = ops.einsum(g, *[o for j, o in enumerate(operands) if j != i], subscripts=spec)
        if batched:
            if kept != sub:
                ops.ndim(operands[i])  # (a located error: where the letters go back)
            gi = ops.unbroadcast(gi, ops.shape(operands[i]))
        if kept != sub:  # letters summed only inside this operand: broadcast back
            batch = sub.find("#")  # axes after a batch of unknown length: from the end
            if batch > 0 and "#" not in kept:  # summed batch after other axes: where
                ops.ndim(operands[i])  # to put them back takes its length (an error)
            missing = tuple(k if batch < 0 or k < batch else k - len(sub)
                            for k, c in enumerate(sub) if c not in kept and c != "#")
            if missing:
                gi = ops.expand_dims(gi, axis=missing)
            gi = ops.broadcast_to(gi, ops.shape(operands[i]))
        elif None in (ops.known_shape(gi), ops.known_shape(operands[i])):
            gi = gi + ops.zeros_like(operands[i])  # broadcast up where this operand is longer
        else:  # a size-1 axis of this operand met a longer one: broadcast the gradient up
            gs, xs = ops.static_shape(gi), ops.static_shape(operands[i])
            up = tuple(_np.broadcast_shapes(gs, xs))
            if up != tuple(gs):
                gi = ops.broadcast_to(gi, up)
        grads.append(gi)
    return tuple(grads)


def _parse_einsum_batch(subscripts: str, n: int) -> tuple[list[str], str]:
    """Input subscripts and the output subscript, ``...`` kept as one symbol ``#`` (the
    batch, of a length known at run time only: einsum broadcasts it itself)."""
    spec = subscripts.replace(" ", "").replace("...", "#")
    lhs, arrow, rhs = spec.partition("->")
    ins = lhs.split(",")
    if len(ins) != n:
        raise RuleError(f"einsum subscripts {subscripts!r} name {len(ins)} operands, got {n}")
    if not arrow:
        letters = lhs.replace(",", "").replace("#", "")
        rhs = ("#" if "#" in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return ins, rhs


def _parse_einsum(subscripts: str, ndims: list[int]) -> tuple[list[str], str]:
    """Input subscripts and the (explicit or implied) output subscript.

    An ellipsis is spelled out with unused letters, right-aligned like broadcasting (each
    operand's ``...`` names its own trailing part of the batch), so the rule only ever
    sees letters: ``...ij,jk`` on a 3-d and a 2-d operand reads ``Aij,jk->Aik``.
    """
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(ndims):
        raise RuleError(f"einsum subscripts {subscripts!r} name {len(ins)} operands, "
                        f"got {len(ndims)}")
    if not arrow:
        letters = lhs.replace(",", "").replace(".", "")
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    if "..." in spec:
        free = [c for c in string.ascii_letters if c not in spec]
        widths = [n - len(s) + 3 if "..." in s else 0 for s, n in zip(ins, ndims, strict=True)]
        names = "".join(free[:max(widths)])
        ins = [s.replace("...", names[len(names) - w:])
               for s, w in zip(ins, widths, strict=True)]
        rhs = rhs.replace("...", names)
    return ins, rhs


def _diagonal_vjp(ops: Any, g: Any, x: Any, offset: Any, axis1: Any, axis2: Any) -> Any:
    """Place ``g`` (diagonal values on its last axis) back on the diagonal of ``x``."""
    if ops.known_shape(x) is None:  # the diagonal's positions counted at run time
        i = ops.arange(0, ops.getitem(ops.shape(g), index=(-1,)), 1)
        moved = ops.moveaxis(x, source=(axis1, axis2), destination=(-2, -1))
        rows, cols = (i + max(-offset, 0) if offset < 0 else i), (i + offset if offset > 0 else i)
        placed = ops.scatter_add(ops.shape(moved), g, rows, cols,
                                 index=(Ellipsis, ("in", 0), ("in", 1)))
        return ops.moveaxis(placed, source=(-2, -1), destination=(axis1, axis2))
    shape = ops.static_shape(x)
    nd = len(shape)
    a1, a2 = axis1 % nd, axis2 % nd
    n, m = shape[a1], shape[a2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    length = max(min(n - r0, m - c0), 0)
    pad = ((0, 0),) * (nd - 2) + ((r0, n - r0 - length),)
    rows = ops.expand_dims(ops.pad(g, pad_width=pad), axis=-1)  # (..., n, 1)
    eye = ops.eye(n, M=m, k=offset, dtype=ops.dtype(x))
    moved = rows * eye  # (..., n, m): g on the diagonal
    return ops.moveaxis(moved, source=(-2, -1), destination=(a1, a2))


@rule(Op.DIAGONAL)
def _diagonal(ops: Any, g: Any, out: Any, x: Any, offset: int = 0, axis1: int = 0,
              axis2: int = 1) -> Grads:
    return (_diagonal_vjp(ops, g, x, offset, axis1, axis2),)


@rule(Op.TRACE)
def _trace(ops: Any, g: Any, out: Any, x: Any, offset: int = 0, axis1: int = 0,
           axis2: int = 1) -> Grads:
    diag = ops.diagonal(x, offset=offset, axis1=axis1, axis2=axis2)
    gd = ops.broadcast_to(ops.expand_dims(g, axis=-1), ops.shape(diag))
    return (_diagonal_vjp(ops, gd, x, offset, axis1, axis2),)


@rule(Op.DIAG)
def _diag(ops: Any, g: Any, out: Any, x: Any, k: int = 0) -> Grads:
    return by_rank(ops, x, lambda low: (ops.diagonal(g, offset=k) if low else
                                        _diagonal_vjp(ops, g, x, k, 0, 1),))


@rule(Op.NORM)
def _norm(ops: Any, g: Any, out: Any, x: Any, ord: Any = None, axis: Any = None,
          keepdims: bool = False) -> Grads:
    nd = ops.rank(x)
    if nd is None and axis is None and ord is not None:  # a vector or a matrix norm
        if ord in (2, -2):  # the matrix case has no gradient rule: the rank decides
            nd = ops.ndim(x)
        elif ord not in _MATRIX_ORDS:  # NumPy takes this order for vectors only
            nd = 1
        else:
            return by_rank(ops, x, lambda low: _norm_vjp(ops, g, out, x, ord, axis, keepdims,
                                                          1 if low else 2))
    return _norm_vjp(ops, g, out, x, ord, axis, keepdims, nd)


#: The matrix norm orders with a gradient rule.
_MATRIX_ORDS = (None, "fro", 1, -1, _np.inf, -_np.inf)


def _norm_vjp(ops: Any, g: Any, out: Any, x: Any, ord: Any, axis: Any, keepdims: Any,
              nd: Any) -> Grads:
    """The gradient of ``norm(x, ord, axis)``; ``nd`` is ``x``'s rank, or ``None`` where
    unknown (then every axis is counted from the end or is all of them)."""
    matrix = (isinstance(axis, tuple) and len(axis) == 2) or (axis is None and nd == 2
                                                              and ord is not None)
    if matrix and ord in ("nuc", 2, -2) and (axis is None or tuple(
            a % nd if nd else a for a in axis) in ((-2, -1), (nd - 2, nd - 1) if nd else ())):
        from .linalg import spectral_norm_vjp  # noqa: PLC0415

        return (spectral_norm_vjp(ops, g, x, ord, keepdims),)
    if matrix and ord not in _MATRIX_ORDS:
        raise RuleError(f"the gradient of the matrix norm ord={ord!r} is not supported; "
                        "supported matrix orders: None, 'fro', 1, -1, inf, -inf, and 2, -2, "
                        "'nuc' over the last two axes")
    every = None if nd is None else tuple(range(nd))  # None: all axes, however many
    axes = axis if axis is not None else (every if matrix or ord is None else None)
    gx = _unreduce(ops, g, x, axes, keepdims)
    ok = out if keepdims else _unreduce(ops, out, x, axes, False)
    if ord in (None, 2, "fro") and not (matrix and ord == 2):
        return (gx * x / safe_divisor(ops, ok),)
    if ord == 1 and not matrix:
        return (gx * ops.sign(x),)
    if ord == 0 and not matrix:  # counts the nonzero elements: piecewise constant
        return (ops.zeros_like(x),)
    a = ops.abs(x)
    if not matrix and ord not in (_np.inf, -_np.inf):  # p-norm: sign(x) |x|^(p-1) / n^(p-1)
        return (gx * ops.sign(x) * (a / safe_divisor(ops, ok)) ** (ord - 1),)
    if not matrix:  # ord = +-inf on vectors: the extreme elements share the gradient
        hit = mask_like(ops, ops.eq(a, ok), x)
        return (gx * ops.sign(x) * hit / ops.sum(hit, axis=axes, keepdims=True),)
    r, c = (axis if nd is None else (axis[0] % nd, axis[1] % nd)) if axis is not None else (0, 1)
    line, other = (c, r) if ord in (_np.inf, -_np.inf) else (r, c)  # summed, compared axis
    sums = ops.sum(a, axis=line, keepdims=True)
    # hit is constant along `line`: count the tied lines along `other` only
    hit = mask_like(ops, ops.eq(sums, ok), x)
    share = hit / ops.sum(hit, axis=other, keepdims=True)
    return (gx * ops.sign(x) * share,)


@rule(Op.INV)
def _inv(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    t = _mT(ops, out)
    return (-(t @ g @ t),)


@rule(Op.SOLVE)
def _solve(ops: Any, g: Any, out: Any, a: Any, b: Any) -> Grads:
    if ops.rank(b) is None:  # b's rank is known at run time only: one if per gradient
        return tuple(by_rank(ops, b, lambda vec, k=k: _solve_vjp(ops, g, out, a, vec, k))[0]
                     for k in (0, 1))
    return _solve_vjp(ops, g, out, a, ops.rank(b) == 1)


def _solve_vjp(ops: Any, g: Any, out: Any, a: Any, vec: Any, only: Any = None) -> Grads:
    """Both gradients of ``solve(a, b)`` (``vec``: ``b`` is 1-d), or just ``only``'s."""
    if vec:  # one right-hand side, solved against every matrix of a's batch
        gb = ops.squeeze(ops.solve(_mT(ops, a), ops.expand_dims(g, axis=-1)), axis=-1)
        if only == 1:
            return (gb,)
        ga = -(ops.expand_dims(gb, axis=-1) * ops.expand_dims(out, axis=-2))
        return (ga,) if only == 0 else (ga, gb)
    gb = ops.solve(_mT(ops, a), g)
    if only == 1:
        return (gb,)
    ga = -(gb @ _mT(ops, out))
    return (ga,) if only == 0 else (ga, gb)


@rule(Op.DET)
def _det(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    scale = ops.expand_dims(g * out, axis=(-1, -2))
    return (scale * _mT(ops, ops.inv(x)),)


@rule(Op.SLOGDET)
def _slogdet(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    return (ops.expand_dims(g[1], axis=(-1, -2)) * _mT(ops, ops.inv(x)),)


def diagonal_part(ops: Any, p: Any, x: Any) -> Any:
    """``p`` (square in its last two axes, like ``x``) with everything off the diagonal
    zeroed: times the identity where ``x``'s size is known, else ``triu(tril(p))``."""
    shape = ops.known_shape(x)
    if shape is None:
        return ops.triu(ops.tril(p))
    return p * ops.eye(shape[-1], dtype=ops.dtype(x))


@rule(Op.CHOLESKY)
def _cholesky(ops: Any, g: Any, out: Any, x: Any) -> Grads:
    # Murray (2016): with L = out, P = Phi(L^T gL), gA = sym(L^-T P L^-1).
    p = ops.tril(_mT(ops, out) @ g)
    p = p - diagonal_part(ops, 0.5 * p, x)
    linv = ops.inv(out)
    s = _mT(ops, linv) @ p @ linv
    return (0.5 * (s + _mT(ops, s)),)


# --- shapes and data movement ---------------------------------------------------------

RULES[Op.RESHAPE] = lambda ops, g, out, x, shape: (ops.reshape(g, ops.shape(x)), None)
RULES[Op.RAVEL] = lambda ops, g, out, x: (ops.reshape(g, ops.shape(x)),)
RULES[Op.SQUEEZE] = lambda ops, g, out, x, axis=None: (ops.reshape(g, ops.shape(x)),)
RULES[Op.BROADCAST_TO] = lambda ops, g, out, x, shape: (
    ops.unbroadcast(g, ops.shape(x)), None)
RULES[Op.EXPAND_DIMS] = lambda ops, g, out, x, axis=0: (ops.squeeze(g, axis=axis),)
RULES[Op.SWAPAXES] = lambda ops, g, out, x, axis1=0, axis2=1: (
    ops.swapaxes(g, axis1=axis1, axis2=axis2),)
RULES[Op.MOVEAXIS] = lambda ops, g, out, x, source=0, destination=0: (
    ops.moveaxis(g, source=destination, destination=source),)
RULES[Op.FLIP] = lambda ops, g, out, x, axis=None: (ops.flip(g, axis=axis),)
RULES[Op.TRIU] = lambda ops, g, out, x, k=0: (ops.triu(g, k=k),)
RULES[Op.TRIL] = lambda ops, g, out, x, k=0: (ops.tril(g, k=k),)


@rule(Op.TRANSPOSE)
def _transpose(ops: Any, g: Any, out: Any, x: Any, axes: Any = None) -> Grads:
    if axes is None:
        return (ops.transpose(g),)
    nd = len(axes)  # a permutation of every axis
    return (ops.transpose(g, axes=tuple(int(i) for i in _np.argsort([a % nd for a in axes]))),)


@rule(Op.ROLL)
def _roll(ops: Any, g: Any, out: Any, x: Any, shift: Any = 0, axis: Any = None) -> Grads:
    back = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
    return (ops.roll(g, shift=back, axis=axis),)


def _split_back(ops: Any, g: Any, arrays: Any, axis: Any, sizes: Any) -> Grads:
    """Cut ``g`` along ``axis`` into pieces of ``sizes`` and shape each like its input."""
    cuts = tuple(int(c) for c in _np.cumsum(sizes)[:-1])
    pieces = ops.split(g, indices_or_sections=cuts, axis=axis)
    return tuple(ops.reshape(pieces[i], ops.shape(a)) for i, a in enumerate(arrays))


@rule(Op.CONCATENATE)
def _concatenate(ops: Any, g: Any, out: Any, *arrays: Any, axis: Any = 0) -> Grads:
    if axis is None:  # the arrays were flattened first
        if any(ops.known_shape(a) is None for a in arrays):
            return _split_like(ops, g, arrays, [ops.ravel(a) for a in arrays], 0)
        sizes = [math.prod(ops.static_shape(a)) for a in arrays]
        return _split_back(ops, g, arrays, 0, sizes)
    if any(ops.known_shape(a) is None for a in arrays):  # lengths known at run time only
        parts = ops.list_split_like(g, ops.list(*arrays), axis=axis)
        return tuple(ops.list_get(parts, ops.const(k)) for k in range(len(arrays)))
    return _split_back(ops, g, arrays, axis, [ops.static_shape(a)[axis] for a in arrays])


def _split_like(ops: Any, g: Any, arrays: Any, pieces: Any, axis: Any) -> Grads:
    """Cut ``g`` along ``axis`` into parts as long as ``pieces`` there (lengths read at
    run time), each shaped like its input in ``arrays``."""
    parts = ops.list_split_like(g, ops.list(*pieces), axis=axis)
    return tuple(ops.reshape(ops.list_get(parts, ops.const(k)), ops.shape(a))
                 for k, a in enumerate(arrays))


@rule(Op.STACK)
def _stack(ops: Any, g: Any, out: Any, *arrays: Any, axis: int = 0) -> Grads:
    return _split_back(ops, g, arrays, axis, [1] * len(arrays))


@rule(Op.HSTACK)
def _hstack(ops: Any, g: Any, out: Any, *arrays: Any) -> Grads:
    if any(ops.known_shape(a) is None for a in arrays):  # sizes known at run time only
        # 0-d and 1-d arrays are joined along axis 0 (flat), larger ones along axis 1
        return tuple(by_rank(ops, arrays[0], lambda low: _split_like(
            ops, g, arrays, [ops.ravel(a) for a in arrays] if low else arrays, 0 if low else 1)))
    if ops.ndim(arrays[0]) <= 1:  # 0-d and 1-d arrays are joined along axis 0
        return _split_back(ops, g, arrays, 0, [ops.static_shape(a)[0] if ops.ndim(a) else 1
                                               for a in arrays])
    return _split_back(ops, g, arrays, 1, [ops.static_shape(a)[1] for a in arrays])


@rule(Op.VSTACK)
def _vstack(ops: Any, g: Any, out: Any, *arrays: Any) -> Grads:
    if any(ops.known_shape(a) is None for a in arrays):  # sizes known at run time only
        rows = [by_rank(ops, a, lambda low, a=a: (ops.reshape(a, (1, -1)) if low else a,))[0]
                for a in arrays]
        return _split_like(ops, g, arrays, rows, 0)
    # 0-d and 1-d arrays become one row; arrays of 2 or more dimensions keep axis 0
    return _split_back(ops, g, arrays, 0, [ops.static_shape(a)[0] if ops.ndim(a) >= 2 else 1
                                           for a in arrays])


@rule(Op.SPLIT)
def _split(ops: Any, g: Any, out: Any, x: Any, indices_or_sections: Any = 2,
           axis: int = 0) -> Grads:
    return (ops.concatenate(*g, axis=axis),)


@rule(Op.TILE)
def _tile(ops: Any, g: Any, out: Any, x: Any, reps: Any = 1) -> Grads:
    if ops.known_shape(x) is None:  # each copy's gradient summed into its source element,
        # numbered by tiling the element numbers the same way
        flat = ops.shape(ops.ravel(x))
        ids = ops.tile(ops.reshape(ops.arange(0, ops.getitem(flat, index=(0,)), 1),
                                   ops.shape(x)), reps=reps)
        summed = ops.scatter_add(flat, ops.ravel(g), ops.ravel(ids), index=(("in", 0),))
        return (ops.reshape(summed, ops.shape(x)),)
    shape = ops.static_shape(x)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    d = max(len(shape), len(reps))
    xs = (1,) * (d - len(shape)) + tuple(shape)
    rs = (1,) * (d - len(reps)) + reps
    split = tuple(v for pair in zip(rs, xs, strict=True) for v in pair)
    summed = ops.sum(ops.reshape(g, split), axis=tuple(range(0, 2 * d, 2)))
    return (ops.reshape(summed, ops.shape(x)),)


@rule(Op.REPEAT)
def _repeat(ops: Any, g: Any, out: Any, x: Any, repeats: Any = 1, axis: Any = None) -> Grads:
    if not isinstance(repeats, int):
        raise RuleError("the gradient of np.repeat needs an integer repeat count; "
                        "repeat each element the same number of times")
    shape = ops.known_shape(x)
    if shape is None:  # each element's copies, summed: reshaped, or strided slices
        if axis is None:
            flat = ops.reshape(g, (-1, repeats))
            return (ops.reshape(ops.sum(flat, axis=1), ops.shape(x)),)
        gm = ops.moveaxis(g, source=axis, destination=-1)
        copies = [ops.getitem(gm, index=(Ellipsis, ("slice", k, None, repeats)))
                  for k in range(repeats)]
        return (ops.moveaxis(sum(copies[1:], copies[0]), source=-1, destination=axis),)
    if axis is None:
        flat = ops.reshape(g, (math.prod(shape), repeats))
        return (ops.reshape(ops.sum(flat, axis=1), ops.shape(x)),)
    a = axis % len(shape)
    split = tuple(shape[:a]) + (shape[a], repeats) + tuple(shape[a + 1:])
    return (ops.sum(ops.reshape(g, split), axis=a + 1),)


@rule(Op.PAD)
def _pad(ops: Any, g: Any, out: Any, x: Any, pad_width: Any = 0, constant_values: Any = 0) -> Grads:
    shape = ops.known_shape(x)
    given = _np.asarray(pad_width, dtype=int)
    if shape is None:  # slices counted from both ends: x[b:-a] on each axis
        nd = ops.rank(x)
        if nd is None and given.ndim == 2 and given.shape[0] > 1:
            nd = given.shape[0]  # one pair per axis
        if nd is None:  # one width pair for every axis, however many: x's elements are
            # where a padded mask of ones is True, in the same (C) order
            inside = ops.pad(ops.ones_like(x, dtype="bool"), pad_width=pad_width)
            return (ops.reshape(ops.getitem(g, inside, index=(("in", 0),)), ops.shape(x)),)
        widths = _np.broadcast_to(given, (nd, 2))
        return (ops.getitem(g, index=tuple(("slice", int(b), -int(a) if a else None, None)
                                           for b, a in widths)),)
    # numpy.pad reads pad_width as (before, after) pairs broadcast to one per axis
    widths = _np.broadcast_to(given, (len(shape), 2))
    index = tuple(("slice", int(b), int(b) + n, None)
                  for (b, _a), n in zip(widths, shape, strict=True))
    return (ops.getitem(g, index=index),)


@rule(Op.SORT)
def _sort(ops: Any, g: Any, out: Any, x: Any, axis: Any = -1) -> Grads:
    if axis is None:
        flat = ops.ravel(x)
        return (ops.reshape(_sort(ops, g, out, flat, axis=-1)[0], ops.shape(x)),)
    order = ops.argsort(x, axis=axis)
    return (ops.take_along_axis(g, ops.argsort(order, axis=axis), axis=axis),)


@rule(Op.TAKE)
def _take(ops: Any, g: Any, out: Any, x: Any, indices: Any, axis: Any = None) -> Grads:
    if axis is None:
        flat = ops.scatter_add(_flat_shape(ops, x), g, indices, index=(("in", 0),))
        return ops.reshape(flat, ops.shape(x)), None
    every = ("slice", None, None, None)
    nd = ops.rank(x)
    if nd is None and axis < 0:  # counted from the end: x[..., indices, :, :]
        index = (Ellipsis, ("in", 0)) + (every,) * (-axis - 1)
    else:
        index = (every,) * (axis if nd is None else axis % nd) + (("in", 0),)
    return ops.scatter_add(ops.shape(x), g, indices, index=index), None


def _flat_shape(ops: Any, x: Any) -> Any:
    """The shape of ``x`` flattened: ``(x.size,)``, read at run time if need be."""
    shape = ops.known_shape(x)
    return ops.shape(ops.ravel(x)) if shape is None else (math.prod(shape),)


@rule(Op.TAKE_ALONG_AXIS)
def _take_along_axis(ops: Any, g: Any, out: Any, x: Any, indices: Any, axis: Any = -1) -> Grads:
    if axis is None:  # 1-d indices into the flattened array
        flat = ops.scatter_add(_flat_shape(ops, x), g, indices, index=(("in", 0),))
        return ops.reshape(flat, ops.shape(x)), None
    if ops.known_shape(x) is None:
        return _take_along_unknown(ops, g, x, indices, axis), None
    # like NumPy, index every other axis by an arange over x's extent and let it broadcast
    # against the indices (either may have size 1 there)
    shape = ops.static_shape(x)
    nd = len(shape)
    a = axis % nd
    grids = []
    for d in range(nd):
        if d != a:
            view = [1] * nd
            view[d] = shape[d]
            grids.append(ops.const(_np.arange(shape[d]).reshape(view)))
    parts, k = [], 0
    for d in range(nd):
        if d == a:
            parts.append(("in", nd - 1))
        else:
            parts.append(("in", k))
            k += 1
    return ops.scatter_add(ops.shape(x), g, *grids, indices, index=tuple(parts)), None


def _take_along_unknown(ops: Any, g: Any, x: Any, indices: Any, axis: Any) -> Any:
    """The gradient of ``take_along_axis`` for an ``x`` of unknown shape: with ``axis``
    moved last, each picked value's gradient goes where its index equals the position
    (a comparison against ``0..n-1`` counted at run time, summed over the picks), then
    summed down to ``x``'s shape (the other axes broadcast like arithmetic).  Costs
    picks x length memory: only where no shape is known."""
    ones = ops.ones_like(ops.moveaxis(x, source=axis, destination=-1), dtype="int64")
    positions = ops.cumsum(ones, axis=-1) - 1
    from_end = positions - ops.sum(ones, axis=-1, keepdims=True)  # -n .. -1
    i = ops.expand_dims(ops.moveaxis(indices, source=axis, destination=-1), axis=-1)
    picked = ops.logical_or(ops.eq(i, ops.expand_dims(positions, axis=-2)),
                            ops.eq(i, ops.expand_dims(from_end, axis=-2)))
    gm = ops.moveaxis(g, source=axis, destination=-1)
    gxm = ops.sum(ops.expand_dims(gm, axis=-1) * picked, axis=-2)
    return ops.unbroadcast(ops.moveaxis(gxm, source=-1, destination=axis), ops.shape(x))


# --- activations ------------------------------------------------------------------------

_unary(Op.SIGMOID, lambda ops, g, out, x: g * out * (1 - out))
_unary(Op.RELU, lambda ops, g, out, x: g * (out > 0))  # a bool mask keeps g's dtype


@rule(Op.SOFTMAX)
def _softmax(ops: Any, g: Any, out: Any, x: Any, axis: Any = -1) -> Grads:
    return (out * (g - ops.sum(g * out, axis=axis, keepdims=True)),)


@rule(Op.LOG_SOFTMAX)
def _log_softmax(ops: Any, g: Any, out: Any, x: Any, axis: Any = -1) -> Grads:
    return (g - ops.exp(out) * ops.sum(g, axis=axis, keepdims=True),)


def logsumexp_from_parts(ops: Any, g: Any, e: Any, s: Any) -> Any:
    """The VJP of ``log(s) + m`` with ``e = exp(a - m)``, ``s = sum(e)`` (the stable
    log-sum-exp written out): ``g * softmax(a) = g * e / s``, reusing the forward's ``e``
    and ``s`` (``g / s`` first: both are reduced, so it is the cheap division).  The
    adjoint pass uses it when it recognises the idiom."""
    return e * (g / s)


@rule(Op.LOGSUMEXP)
def _logsumexp(ops: Any, g: Any, out: Any, x: Any, axis: Any = None,
               keepdims: bool = False) -> Grads:
    return (_unreduce(ops, g, x, axis, keepdims) * ops.exp(x - _unreduce(ops, out, x, axis,
                                                                         keepdims)),)


# --- the eager ops namespace -----------------------------------------------------------

class ArrayOps:
    """The ``ops`` protocol on concrete arrays: rules run eagerly on NumPy or CuPy."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def __getattr__(self, name: str) -> Callable[..., Any]:
        op = Op(name)
        xp = self.xp

        def call(*inputs: Any, **params: Any) -> Any:
            full = OP_INFO[op].param_defaults
            full.update(params)
            return run(op, xp, inputs, full)

        return call

    @staticmethod
    def shape(x: Any) -> tuple[int, ...]:
        return tuple(getattr(x, "shape", ()))

    static_shape = shape
    known_shape = shape

    @staticmethod
    def ndim(x: Any) -> int:
        return len(getattr(x, "shape", ()))

    rank = ndim

    @staticmethod
    def at_most_1d(x: Any) -> bool:
        return len(getattr(x, "shape", ())) <= 1

    @staticmethod
    def branch(cond: Any, then: Callable[[], _T], orelse: Callable[[], _T]) -> _T:
        return then() if cond else orelse()

    @staticmethod
    def dtype(x: Any) -> str | None:
        dt = getattr(x, "dtype", None)
        return None if dt is None else str(dt)

    @staticmethod
    def const(value: Any) -> Any:
        return value

    @staticmethod
    def number(x: Any) -> int | float | None:
        """``x`` when it is a Python int or float (not a bool), else ``None``."""
        return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _lookup(table: dict[Op, _T], op: Op, kind: str, missing: str, where: str) -> _T:
    """``table[op]``, or a ``RuleError`` saying whether ``op`` has none by design."""
    try:
        return table[op]
    except KeyError:
        if op in NONDIFFERENTIABLE:
            raise RuleError(f"{op.value} has no {kind} by design") from None
        raise RuleError(f"no {missing} rule for {op.value}; register one in "
                        f"st_autodiff/{where}") from None


def vjp_of(op: Op) -> VjpRule:
    """The rule for ``op``; a clear error for ops without one."""
    return _lookup(RULES, op, "gradient", "derivative", "derivatives/")


def jvp_of(op: Op) -> JvpRule:
    """The forward-mode rule for ``op``; a clear error for ops without one."""
    return _lookup(JVP_RULES, op, "derivative", "forward-mode", "derivatives/jvp.py")


from . import fft as _fft  # noqa: E402, F401  (fft family: transforms of real pairs)
from . import jvp as _jvp  # noqa: E402, F401  (fills JVP_RULES)
from . import linalg as _linalg_more  # noqa: E402, F401  (eigh, svd)
from . import linalg_more as _linalg_family  # noqa: E402, F401  (linalg family: qr, eig, lu, matrix_exp)
from . import lists as _lists  # noqa: E402, F401  (list rules)
from . import numpy_more as _numpy_more  # noqa: E402, F401  (numpy-more family: fmod, ldexp)
from . import special as _special  # noqa: E402, F401  (scipy.special)
from . import special_more as _special_more  # noqa: E402, F401  (special family, issue 11)
from . import stats as _stats  # noqa: E402, F401  (stats: no_derivative)
