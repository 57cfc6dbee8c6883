"""Type rules: what an op returns, computed from what its inputs are, never from data.

``infer(op, inputs, params)`` gets what the op's kernel (``kernels.run``) would get, except
that runtime values are ``Abstract`` (their type only), and returns what
``abstract_of(run(op, np, inputs, params))`` would be for every concrete input of those
types: NumPy's exact dtype, the shape (``None`` when the input types do not decide it:
an unknown input shape, or a data-dependent one such as a boolean mask's), whether the
result is a NumPy scalar, and Python kinds (``float * float`` stays a Python float).
Multi-output ops give tuples, structural ops (tuples, items, runtime lists) give Python
containers of ``Abstract`` items as the kernel would.

Rules come in families (see ``infer_core`` for the probe technique): elementwise with
broadcasting (one rule for every ``OpInfo.elementwise`` op), reductions and scans, shape
ops and indexing (``infer_shapes``), linear algebra (``infer_linalg``), creation, casts,
structure and lists, and user calls (typed by their ``out_type``, never run).  A shape an
op would refuse raises NumPy's error (``ValueError``/``TypeError``/``IndexError``) when
the shapes involved are known.  Regions (``if``/``for``/``while``) are typed from their
bodies by the caller: ``NoTypeRule``.  The cost of a rule does not depend on array sizes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import (  # infer_fft: fft family
    infer_fft,
    infer_index,
    infer_linalg,
    infer_linalg_more,
    infer_lists,
    infer_shapes,
)
from .abstract import Abstract, NotKnown, abstract_of, opaque_value
from .infer_core import (
    NoTypeRule,
    any_abstract,
    array,
    broadcast,
    fits,
    is_abs,
    make,
    normalize_axis_index,
    normalize_axis_tuple,
    probe,
    shape_of,
    size,
    stand_in,
    static_shape,
    tiny,
)
from .kernels import run
from .ops import OP_INFO, Op
from .types import Type

__all__ = ["NoTypeRule", "infer", "has_rule"]

Rule = Any


def infer(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """The abstract result of ``op`` on ``inputs`` (some ``Abstract``) with ``params``
    (the node's full params).  Raises ``NoTypeRule`` where no rule applies, and NumPy's
    own error where the op would refuse the input shapes.

    >>> from st_autodiff.ir.types import Type
    >>> x = Abstract(Type("array", "float32", (10**9, 3)))
    >>> infer(Op.MUL, (x, Abstract(Type("float", "float64", ()))), {})
    <abstract f32[1000000000,3]>
    >>> infer(Op.SUM, (x,), {"axis": None, "keepdims": False})
    <abstract f32[] scalar>
    """
    rule = RULES.get(op)
    if rule is None:
        raise NoTypeRule(f"no type rule for {op.value}")
    inputs = tuple(inputs)
    key = _memo_key(op, inputs, params)
    if key is not None:
        hit = _MEMO.get(key, _MISS)
        if hit is not _MISS:
            return _fresh(hit)
    out = rule(op, inputs, params)
    if key is not None:
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        _MEMO[key] = out
    return _fresh(out)


_MEMO: dict[Any, Any] = {}
_MEMO_LIMIT = 16384
_MISS = object()


def _memo_key(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """A key for ``infer``'s memo: the input types, static values with their Python
    types (``1``, ``1.0`` and ``True`` differ), the params; ``None`` if unhashable (a
    constant array, a list param)."""
    try:
        key = (op, _part(inputs), tuple((k, _part(v)) for k, v in params.items()))
        hash(key)
    except TypeError:
        return None
    return key


def _part(v: Any) -> Any:
    if isinstance(v, Abstract):
        return v
    if isinstance(v, (tuple, list)):
        return (type(v), tuple(_part(x) for x in v))
    if isinstance(v, np.ndarray):
        raise TypeError("unhashable")
    return (type(v), v)


def _fresh(out: Any) -> Any:
    """A memoised result with its lists copied (callers may change their own lists)."""
    if isinstance(out, list):
        return [_fresh(v) for v in out]
    if isinstance(out, tuple) and any(isinstance(v, list) for v in out):
        return tuple(_fresh(v) for v in out)
    return out


def has_rule(op: Op) -> bool:
    """Whether ``op`` has a type rule (regions and ``arg`` do not)."""
    return op in RULES


# --- elementwise ----------------------------------------------------------------------


def _elementwise(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Broadcast shapes; dtype, scalar-ness and Python kinds from a probe."""
    if not any_abstract(inputs) and not any(
            isinstance(v, (np.ndarray, list, tuple)) for v in inputs):
        with np.errstate(all="ignore"):  # Python or NumPy scalars only: exact and cheap
            return abstract_of(run(op, np, inputs, params))
    if op is Op.POW and all(_python_int(v) for v in inputs) and is_abs(inputs[1]):
        # int ** int is an int, or a float for a negative exponent: the value decides
        raise NoTypeRule("a Python int to the power of a runtime int")
    if op is Op.POW and _VALUE_DEPENDENT_POW and _numpy_array(inputs[0]) and not any_abstract(
            (inputs[1],)) and np.size(inputs[1]) == 1:
        # a known exponent of one element: NumPy < 2.3 decides by its value, so probe with it
        shape = broadcast(*[shape_of(v) for v in inputs if v is not None])
        return make(probe(op, [stand_in(inputs[0]), inputs[1]], params), shape)
    if op is Op.POW and _VALUE_DEPENDENT_POW and _numpy_array(inputs[0]) and not (
            isinstance(inputs[1], (int, float)) or is_abs(inputs[1]) and
            inputs[1].type.kind in ("float", "int", "bool")):
        return _value_dependent_pow(inputs, params)
    shape = broadcast(*[shape_of(v) for v in inputs if v is not None])
    return make(probe(op, [stand_in(v) for v in inputs], params), shape)


def _types_first(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """numpy-more family: ``np.ldexp`` checks its input types before it broadcasts, so a
    float exponent is its TypeError even where the shapes do not broadcast either."""
    if any_abstract(inputs) or any(isinstance(v, (np.ndarray, list, tuple)) for v in inputs):
        probe(op, [stand_in(v) for v in inputs], params)
    return _elementwise(op, inputs, params)


def _value_dependent_pow(inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``array ** e`` for a runtime NumPy exponent under NumPy < 2.3, which computes an
    exponent of one element with value 2, 0.5, -1, 0 or 1 by a fast path keeping the base's
    dtype: the type when every such value and a plain one (3) give the same, else NotKnown."""
    shape = broadcast(*[shape_of(v) for v in inputs if v is not None])
    outs = []
    for value in (3, 2, 0.5, -1, 0, 1):
        try:
            outs.append(probe(Op.POW, [stand_in(inputs[0]), stand_in(inputs[1], None, value)],
                              params))
        except Exception:  # noqa: BLE001, S112  (NumPy refuses this value: int ** -1)
            continue
    kinds = {(type(o), getattr(o, "dtype", None)) for o in outs}
    if len(kinds) != 1:
        raise NotKnown("array ** a NumPy number: its dtype depends on the exponent's value")
    return make(outs[0], shape)


def _numpy_array(v: Any) -> bool:
    """An ndarray (0-d included), concrete or abstract: not a scalar, not a Python number."""
    if is_abs(v):
        return v.type.kind == "array" and not v.generic
    return isinstance(v, np.ndarray)


#: whether this NumPy picks the dtype of ``array ** numpy_number`` by the number's value
_VALUE_DEPENDENT_POW = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 3)


def _python_int(v: Any) -> bool:
    if isinstance(v, Abstract):
        return v.type.kind in ("int", "bool")
    return isinstance(v, int)


# --- reductions and scans -------------------------------------------------------------

_REDUCTIONS = (Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY, Op.ALL,
               Op.LOGSUMEXP)


def _probe_rank(shape: tuple[int, ...] | None, axis: Any) -> tuple[int, ...]:
    """The stand-in shape for a reduction probe: ``tiny`` of the real shape, or, when
    it is unknown, just enough dimensions for ``axis``."""
    if shape is not None:
        return tiny(shape)
    axes = () if axis is None else axis if isinstance(axis, tuple) else (axis,)
    front = max([a + 1 for a in axes if a >= 0], default=0)
    back = max([-a for a in axes if a < 0], default=0)
    return (1,) * max(1, front + back)  # (axes counted from each end stay distinct)


def _reduced(shape: tuple[int, ...] | None, axis: Any, keepdims: bool) -> tuple[int, ...] | None:
    """The shape left by reducing ``axis`` (None: all) of ``shape``."""
    if shape is None:
        return () if axis is None and not keepdims else None
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    axes = normalize_axis_tuple(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduction(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    shape = shape_of(x)
    axis = params.get("axis")
    res = probe(op, [stand_in(x, _probe_rank(shape, axis))], params)
    if shape == ():  # a 0-d input: the probe is exact (NumPy lets axis 0 reduce it)
        return make(res, np.shape(res))
    if op is Op.LOGSUMEXP and shape is None:
        return make(res, None)  # a NumPy scalar for 0-d inputs, else a 0-d array
    if op in (Op.CUMSUM, Op.CUMPROD):
        if shape is not None and axis is not None:
            normalize_axis_index(axis, len(shape))
        out = None if shape is None else (size(shape),) if axis is None else shape
    elif op in (Op.ARGMAX, Op.ARGMIN):
        out = _reduced(shape, axis, False)
    else:
        out = _reduced(shape, axis, bool(params.get("keepdims")))
    return make(res, out)


def _softmax(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    shape = shape_of(x)
    if shape is not None:
        normalize_axis_index(params["axis"], max(len(shape), 1))
    return make(probe(op, [stand_in(x, _probe_rank(shape, params["axis"]))], params), shape)


# --- casts and copies -----------------------------------------------------------------


def _same_shape(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``astype``, ``asarray``, ``*_like``: the input's shape, the probe's dtype."""
    x = inputs[0]
    if op is Op.ASARRAY and isinstance(x, (list, tuple)) and not any_abstract(x):
        return abstract_of(np.asarray(x))  # a literal: small, and its values matter
    shape = shape_of(x)
    if op is Op.FULL_LIKE:
        fits(shape_of(inputs[1]), shape)
    args = [stand_in(v, () if i else None) for i, v in enumerate(inputs)]  # (a 0-d fill)
    if isinstance(x, Abstract) and x.type.kind == "array" and shape is None:
        args[0] = stand_in(x, (1,))  # a 1-d stand-in: an array result, never a scalar
    return make(probe(op, args, params), shape)


def _stop_gradient(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return abstract_of(inputs[0])


def _py_float(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``float(x)`` of a float value: a Python float (a concrete one where ``x`` is)."""
    x = inputs[0]
    if isinstance(x, Abstract):
        return Abstract(Type("float", "float64", ()))
    return float(x)


def _py_int(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``int(x)``: a Python int (a concrete one where ``x`` is)."""
    x = inputs[0]
    if isinstance(x, Abstract):
        return Abstract(Type("int"))
    return int(x)


def _py_bool(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``bool(x)``: a Python bool (a concrete one where ``x`` is)."""
    x = inputs[0]
    if isinstance(x, Abstract):
        return Abstract(Type("bool"))
    return bool(x)


# --- creation -------------------------------------------------------------------------


def _zeros(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """zeros/ones/full: the shape input's value when static, else unknown."""
    shape = static_shape(inputs[0])
    if shape is not None and any(d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    args = [()] + [stand_in(v) for v in inputs[1:]]
    if op is Op.FULL:
        fits(shape_of(inputs[1]), shape)
        args[1] = stand_in(inputs[1], ())
    return array(probe(op, args, params).dtype, shape)  # (probed 0-d: the dtype only)


def _eye(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    n, m = inputs[0], params.get("M")
    known = not is_abs(n) and not is_abs(m)
    shape = (int(n), int(n if m is None else m)) if known else None
    small = dict(params, M=None if m is None else 1)
    return array(probe(op, [1], small).dtype, shape)


def _arange_length(start: Any, stop: Any, step: Any) -> int:
    """How many values ``np.arange(start, stop, step)`` makes (NumPy's own formula)."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise ZeroDivisionError("division by zero")
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return len(range(int(start), int(stop), int(step)))
    n = int(np.ceil((stop - start) / step))
    return max(n, 0)


def _arange(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    start, stop, step = (tuple(inputs) + (None, None))[:3]
    if any_abstract((start, stop, step)):
        shape = None
    else:
        shape = (_arange_length(start, stop, step),)
    # the same types with small values: only the dtype is read from the probe
    fills = (0, 1, 1) if stop is not None else (1, None, 1)
    args = [_small(v, f) for v, f in zip((start, stop, step), fills)]
    return array(probe(op, args, params).dtype, shape)


def _small(v: Any, fill: Any) -> Any:
    """A number of ``v``'s type (Python or NumPy) with the value ``fill``."""
    if v is None or isinstance(v, Abstract):
        return stand_in(v, fill=fill)
    return type(v)(fill)


def _linspace(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    num = params.get("num", 50)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    ends = broadcast(shape_of(inputs[0]), shape_of(inputs[1]))
    shape = None if ends is None else (num,) + ends
    return make(probe(op, [stand_in(v) for v in inputs[:2]], dict(params, num=2)), shape)


# --- structure ------------------------------------------------------------------------


def _tuple(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return abstract_of(tuple(inputs))


def _item(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    x = inputs[0]
    if isinstance(x, (tuple, list)):
        return abstract_of(x[params["index"]])
    raise NoTypeRule("item of a value that is not a tuple")


def _shape(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    return Abstract(Type("tuple")) if shape is None else tuple(shape)


def _const(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    return abstract_of(params["value"])


def _call(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """A user's function: typed by its declared ``out_type``, never called."""
    return _from_spec(params.get("out_type"))


def _from_spec(spec: Any) -> Any:
    if isinstance(spec, (tuple, list)):
        return type(spec)(_from_spec(s) for s in spec)
    if spec is None:
        raise NoTypeRule("the output type of this call is unknown")
    if spec is float:
        return Abstract(Type("float", "float64", ()))
    if spec is int:
        return Abstract(Type("int"))
    if isinstance(spec, Type):
        if spec.kind == "none":
            return None
        if spec.kind == "float":
            return Abstract(Type("float", "float64", ()))
        if spec.kind in ("int", "bool"):
            return Abstract(Type(spec.kind))
        if spec.kind == "array":
            return Abstract(spec)
        raise NoTypeRule(f"a call returning {spec}")
    if isinstance(spec, Abstract):
        return spec
    if hasattr(spec, "shape") and hasattr(spec, "dtype") and not isinstance(
            spec, (np.ndarray, np.generic)):  # an st.ShapeDtype
        if spec.dtype is None:
            raise NoTypeRule("the output dtype of this call is unknown")
        shape = None if spec.shape is None else tuple(spec.shape)
        return Abstract(Type("array", str(np.dtype(spec.dtype)), shape))
    return abstract_of(spec)  # a concrete example


def _call_vjp(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """A user's rule: one gradient per argument, typed like it (None where it is not
    floating point), as ``kernels`` gives while compiling."""
    out: list[Abstract | None] = []
    for a in inputs[2:]:
        if isinstance(a, Abstract) and a.type.kind == "float" or type(a) is float:
            out.append(Abstract(Type("float", "float64", ())))
            continue
        dt = a.dtype if isinstance(a, Abstract) else getattr(a, "dtype", None)
        if dt is None or dt.kind not in "fc":
            out.append(None)
        else:
            res = probe(Op.ZEROS_LIKE, [stand_in(a)], {"dtype": None})
            out.append(make(res, shape_of(a)))
    return tuple(out)


def _table() -> dict[Op, Rule]:
    t: dict[Op, Rule] = {op: _elementwise for op, info in OP_INFO.items() if info.elementwise}
    t.update({op: _reduction for op in _REDUCTIONS + (Op.CUMSUM, Op.CUMPROD, Op.ARGMAX,
                                                       Op.ARGMIN)})
    t.update({Op.SOFTMAX: _softmax, Op.LOG_SOFTMAX: _softmax})
    t.update({op: _same_shape for op in (Op.ASTYPE, Op.ASARRAY, Op.ZEROS_LIKE, Op.ONES_LIKE,
                                         Op.FULL_LIKE)})
    t[Op.NO_DERIVATIVE] = _stop_gradient  # stats: identity
    t[Op.PY_FLOAT] = _py_float
    t[Op.PY_INT] = _py_int
    t[Op.PY_BOOL] = _py_bool
    t.update({Op.STOP_GRADIENT: _stop_gradient, Op.ZEROS: _zeros, Op.ONES: _zeros,
              Op.FULL: _zeros, Op.EYE: _eye, Op.ARANGE: _arange, Op.LINSPACE: _linspace,
              Op.TUPLE: _tuple, Op.ITEM: _item, Op.SHAPE: _shape, Op.CONST: _const,
              Op.CALL: _call, Op.CALL_VJP: _call_vjp,
              Op.OPAQUE_CALL: lambda op, inputs, params: opaque_value(params.get("out_type"))})
    t[Op.LDEXP] = _types_first  # numpy-more family
    t.update(infer_shapes.RULES)
    t.update(infer_linalg.RULES)
    t.update(infer_linalg_more.RULES)
    t.update(infer_fft.RULES)  # fft family
    t.update(infer_index.RULES)
    t.update(infer_lists.rules(infer))
    return t


#: one rule per op; regions (``if``/``for``/``while``) and ``arg`` have none
RULES: dict[Op, Rule] = _table()
