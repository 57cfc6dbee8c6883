"""Shared pieces of the type rules (``ir/infer``): shapes of abstract and concrete values,
tiny stand-ins, cached probes and the result ``Abstract``.

A rule computes the result *shape* from the input shapes by the op family's own rule
(broadcasting, axes, matmul, ...), and takes the result's *dtype* and "NumPy scalar or
0-d array" from a **probe**: the op's real kernel run on stand-ins of the same dtypes and
ranks whose dimensions are all 1 (or 0 where the real one is 0).  A probe costs the same
whatever the data's size, reproduces NumPy's promotion rules exactly (NEP 50 weak Python
scalars included) and raises NumPy's own errors for bad params (an axis out of range, an
unknown ``ord``); probes are cached by the stand-ins' types and the params.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, overload

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple  # NumPy >= 2

from .abstract import Abstract, is_abstract
from .kernels import run
from .ops import Op
from .types import Type

#: (the axis helpers are NumPy's own, re-exported for the rule modules)
__all__ = ["NoTypeRule", "normalize_axis_index", "normalize_axis_tuple"]

PY_KINDS = ("float", "int", "bool")


class NoTypeRule(Exception):
    """No type rule covers this op with these inputs (a region, an input of unknown
    dtype or of a kind the op does not take); the caller decides what to do."""


def is_abs(v: Any) -> bool:
    """Whether ``v`` is an ``Abstract`` (not a container of them)."""
    return isinstance(v, Abstract)


any_abstract = is_abstract  # whether a value, or nested tuples/lists, holds an Abstract


def shape_of(v: Any) -> tuple[int, ...] | None:
    """NumPy's shape of a runtime value (``np.shape``), ``None`` when unknown."""
    if isinstance(v, Abstract):
        if v.type.kind not in PY_KINDS + ("array",):
            raise NoTypeRule(f"a {v.type.kind} value where an array is expected")
        return v.shape
    if isinstance(v, np.ndarray | np.generic):
        return tuple(v.shape)
    if v is None or isinstance(v, bool | int | float | complex):
        return ()
    if isinstance(v, (list, tuple)):
        if not any_abstract(v):
            return tuple(np.shape(v))
        shapes: list[Any] = [shape_of(x) for x in v]  # None where unknown
        if any(s is None for s in shapes):
            return None
        if len(set(shapes)) > 1:
            raise ValueError("setting an array element with a sequence. The requested "
                             "array has an inhomogeneous shape")
        return (len(v),) + (shapes[0] if shapes else ())
    raise NoTypeRule(f"no type rule for a {type(v).__name__} input")


def ndim_of(v: Any) -> int | None:
    """The rank of a runtime value, ``None`` when unknown."""
    s = shape_of(v)
    return None if s is None else len(s)


def dtype_of(v: Any) -> np.dtype[Any]:
    """The NumPy dtype a value has as an array (``np.asarray(v).dtype``)."""
    if isinstance(v, Abstract):
        if v.dtype is None:
            raise NoTypeRule(f"an input of unknown dtype ({v.type})")
        return v.dtype
    dt: np.dtype[Any] = np.asarray(stand_in(v)).dtype
    return dt


def tiny(shape: tuple[int, ...]) -> tuple[int, ...]:
    """All dimensions 1, except 0 where the real one is 0: same rank and emptiness."""
    return tuple(min(int(d), 1) for d in shape)


def stand_in(v: Any, shape: tuple[int, ...] | None = None, fill: float = 1) -> Any:
    """A tiny concrete value of ``v``'s kind and dtype for a probe: Python numbers and
    NumPy scalars of the same type, arrays of ``shape`` (default: ``tiny`` of the real
    shape, 0-d when it is unknown) filled with ``fill``; other values as they are."""
    if isinstance(v, Abstract):
        t = v.type
        if t.kind == "float":
            return float(fill)
        if t.kind == "int":
            return int(fill)
        if t.kind == "bool":
            return bool(fill)
        if t.kind != "array":
            raise NoTypeRule(f"a {t.kind} value where an array is expected")
        if t.dtype is None:
            raise NoTypeRule(f"an input of unknown dtype ({t})")
        dt = np.dtype(t.dtype)
        if v.generic:
            return dt.type(fill)
        if shape is None:
            shape = () if t.shape is None else tiny(t.shape)
        return np.full(shape, fill, dt)
    if isinstance(v, np.ndarray):
        return np.full(tiny(v.shape) if shape is None else shape, fill, v.dtype)
    if isinstance(v, (list, tuple)) and any_abstract(v):
        return type(v)(stand_in(x, None, fill) for x in v)
    return v


class _Unkeyable(Exception):
    pass


def _key(v: Any) -> Any:
    """A hashable key telling apart every stand-in and param a probe may see."""
    if v is None or isinstance(v, (bool, int, float, str, complex)) or v is Ellipsis:
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_key(x) for x in v)
    if isinstance(v, slice):
        return ("slice", _key(v.start), _key(v.stop), _key(v.step))
    if isinstance(v, np.generic):
        return ("g", v.dtype.str, v.tobytes())
    if isinstance(v, np.ndarray) and v.size <= 64:
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, np.dtype):
        return ("dt", v.str)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, _key(x)) for k, x in sorted(v.items()))
    raise _Unkeyable


_CACHE: dict[Any, Any] = {}
_CACHE_LIMIT = 4096


def probe(op: Op, args: tuple[Any, ...] | list[Any], params: dict[str, Any], fn: Any = None) -> Any:
    """Run ``op``'s kernel (or ``fn(*args)``) on tiny stand-ins, quietly; cached by the
    stand-ins and params.  NumPy's errors propagate (a bad axis or ``ord``)."""
    try:
        key: Any = (op, _key(tuple(args)), _key(params), getattr(fn, "__qualname__", None))
    except _Unkeyable:
        key = None
    if key is not None and key in _CACHE:
        kind, value = _CACHE[key]
        if kind == "err":
            raise value[0](*value[1])
        return value
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn(*args) if fn is not None else run(op, np, tuple(args), params)
    except Exception as exc:
        if key is not None and len(_CACHE) < _CACHE_LIMIT:
            _CACHE[key] = ("err", (type(exc), exc.args))
        raise
    if key is not None and len(_CACHE) < _CACHE_LIMIT:
        _CACHE[key] = ("ok", value)
    return value


def probe_any(op: Op, inputs: tuple[Any, ...] | list[Any], params: dict[str, Any], fn: Any = None,
              fill: dict[int, int] | None = None) -> Any:
    """``probe`` on stand-ins of ``inputs``; inputs of unknown shape get a rank that the
    op accepts (the other inputs' ranks first, then 1, 2, 0, 3, 4): the dtype and the
    errors of params do not depend on it.  ``fill`` gives some inputs another value."""
    fill = fill or {}
    unknown = [i for i, v in enumerate(inputs) if isinstance(v, Abstract) and
               v.type.kind == "array" and not v.generic and v.type.shape is None]
    if not unknown:
        return probe(op, [stand_in(v, None, fill.get(i, 1)) for i, v in enumerate(inputs)],
                     params, fn)
    shapes = [shape_of(v) if isinstance(v, (Abstract, np.ndarray)) else None for v in inputs]
    ranks = [len(s) for s in shapes if s]
    error: Exception | None = None
    for r in dict.fromkeys(ranks + [1, 2, 0, 3, 4]):
        # every dimension 1 (no 0s: they would clash with the guessed ones)
        args = [stand_in(v, (1,) * r if i in unknown else None if shapes[i] is None else
                         (1,) * len(shapes[i]), fill.get(i, 1))  # type: ignore[arg-type]
                for i, v in enumerate(inputs)]
        try:
            return probe(op, args, params, fn)
        except Exception as exc:  # noqa: BLE001  (another rank may suit the op)
            error = error or exc
    raise error  # type: ignore[misc]


def make(result: Any, shape: tuple[int, ...] | None) -> Any:
    """The ``Abstract`` of a probe's ``result`` with the real ``shape`` (the rule's):
    a Python number keeps its kind, a NumPy scalar stays one when the shape is ``()``."""
    if isinstance(result, bool):
        return Abstract(Type("bool"))
    if isinstance(result, int):
        return Abstract(Type("int"))
    if type(result) is float:
        return Abstract(Type("float", "float64", ()))
    if isinstance(result, (tuple, list)):
        raise NoTypeRule("a probe returned a container")  # callers handle multi ops
    dt = getattr(result, "dtype", None)
    if dt is None:
        raise NoTypeRule(f"a probe returned a {type(result).__name__}")
    if shape is not None and len(getattr(result, "shape", ())) != len(shape):
        # the probe and the shape rule disagree on the rank: a rule's bug; the caller
        # may still evaluate the op on values, so never answer with a wrong type
        raise NoTypeRule(f"internal: rank {len(result.shape)} from the probe, "
                         f"{len(shape)} from the rule")
    generic = isinstance(result, np.generic) and shape == ()
    return Abstract(Type("array", dt.name, None if shape is None else tuple(shape)),
                    generic=generic)


def array(dtype: Any, shape: tuple[int, ...] | None, generic: bool = False) -> Abstract:
    """An abstract array (or NumPy scalar) of ``dtype`` and ``shape``."""
    shape = None if shape is None else tuple(int(d) for d in shape)
    return Abstract(Type("array", str(np.dtype(dtype)), shape), generic=generic and
                    shape == ())


def with_shape(a: Any, shape: tuple[int, ...] | None) -> Any:
    """``a`` (an abstract array) with another shape (arrays only, never scalars)."""
    if not isinstance(a, Abstract) or a.type.kind != "array":
        return a
    return Abstract(Type("array", a.type.dtype, shape), generic=a.generic and shape == ())


@overload
def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]: ...
@overload
def broadcast(*shapes: tuple[int, ...] | None) -> tuple[int, ...] | None: ...
def broadcast(*shapes: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """``np.broadcast_shapes`` (without its cost) with NumPy's operand error; ``None``
    if any shape is unknown."""
    if any(s is None for s in shapes):
        return None
    nd = max((len(s) for s in shapes), default=0)  # type: ignore[arg-type]
    out = [1] * nd
    for s in shapes:
        for k, d in enumerate(s, nd - len(s)):  # type: ignore[arg-type]
            if d == 1 or out[k] == d:
                continue
            if out[k] != 1:
                text = " ".join(str(tuple(x)).replace(" ", "") for x in shapes)  # type: ignore
                raise ValueError(f"operands could not be broadcast together with shapes {text} ")
            out[k] = d
    return tuple(out)


def fits(v: tuple[Any, ...] | None, target: Sequence[int | None] | None,
         grows: bool = True) -> None:
    """ValueError when a value of shape ``v`` cannot be written into ``target`` (its
    unknown dimensions, ``None``, accept anything).  Assignment drops leading 1s of
    ``v`` (``grows``); an in-place add does not."""
    if v is None or target is None:
        return
    vs = tuple(v)
    while grows and len(vs) > len(target) and vs[0] == 1:
        vs = vs[1:]
    if len(vs) > len(target) or any(b is not None and a not in (1, b) for a, b in zip(
            vs[::-1], target[::-1])):
        if None in target:
            raise ValueError(f"shape mismatch: value array of shape {spell(v)} could not "
                             "be broadcast to the indexing result")
        raise ValueError(f"could not broadcast input array from shape "
                         f"{spell(v)} into shape {spell(tuple(target))}")


def spell(s: tuple[Any, ...]) -> str:
    """A shape as NumPy's messages spell it: ``(3,)``, ``(2,3)``."""
    return f"({s[0]},)" if len(s) == 1 else str(tuple(s)).replace(" ", "")


def size(shape: Iterable[int]) -> int:
    """The number of elements of ``shape``."""
    return math.prod(shape)


def static_int(v: Any) -> bool:
    """Whether ``v`` is a concrete integer (a Python int or an integer NumPy scalar)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def static_shape(v: Any) -> tuple[int, ...] | None:
    """A shape input as a tuple of ints, ``None`` when any part of it is abstract."""
    if any_abstract(v):
        return None
    if static_int(v):
        return (int(v),)
    if isinstance(v, np.ndarray):
        return tuple(int(d) for d in v.reshape(-1))
    return tuple(int(d) for d in v)
