"""Values known only by their type: what the compiler computes with instead of data.

While compiling, every runtime value (an argument, and everything computed from one) is an
``Abstract``: its ``Type`` (kind, dtype, shape when known) and whether NumPy would hand back
a scalar (``np.float64``) rather than a 0-d array.  Ops on abstract values are *typed* by the
rules of ``ir/infer`` instead of being run, so the first call of a gradient costs what the
program costs to compile, not what the data costs to compute, and nothing with an effect
(a user's function, a random draw, a print) runs while compiling.

Static values (Python ints, strings, tuples of them, shapes) stay concrete and are still
evaluated exactly; Python containers of abstract values (a tuple returned by a multi-output
op, a list built at run time) are Python containers holding ``Abstract`` items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .kernels import OPAQUE, array_namespace, compiling, run
from .ops import OP_INFO, Op
from .regions import REGIONS, region_output_type
from .types import Type, type_of


@dataclass(frozen=True)
class Abstract:
    """A runtime value known only by its type.

    ``generic`` is True for NumPy scalars (``np.float64(1.0)``, what a full reduction or a
    ufunc of scalars returns) and False for arrays, 0-d ones included; a Python number has
    kind ``float``/``int``/``bool``.  ``item`` is the type every item of a runtime list has
    (``None``: unknown or mixed)."""

    type: Type
    generic: bool = False
    item: Abstract | None = None

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape when known (``()`` for Python numbers)."""
        if self.type.kind in ("float", "int", "bool"):
            return ()
        return self.type.shape

    @property
    def dtype(self) -> np.dtype[Any] | None:
        """The NumPy dtype when known (Python numbers: float64, int64, bool)."""
        t = self.type
        if t.dtype is not None:
            return np.dtype(t.dtype)
        return {"float": np.dtype("float64"), "int": np.dtype("int64"),
                "bool": np.dtype("bool")}.get(t.kind)

    @property
    def ndim(self) -> int | None:
        """The rank when known."""
        return self.type.ndim

    def __repr__(self) -> str:
        extra = " scalar" if self.generic else ""
        return f"<abstract {self.type}{extra}>"


def abstract_of(value: Any) -> Any:
    """The abstract version of a concrete runtime value: arrays, NumPy scalars and Python
    floats become ``Abstract``; tuples and lists are mapped item by item; statics (ints,
    bools, strings, None) and other objects stay as they are."""
    if isinstance(value, Abstract) or value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, tuple):
        return tuple(abstract_of(v) for v in value)
    if isinstance(value, list):
        items = [abstract_of(v) for v in value]
        return items
    if type(value) is float:
        return Abstract(Type("float", "float64", ()))
    if isinstance(value, np.generic):
        return Abstract(type_of(value), generic=True)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return Abstract(type_of(value))
    return value


def is_abstract(value: Any) -> bool:
    """Whether ``value`` is, or holds, an abstract value."""
    if isinstance(value, Abstract):
        return True
    if isinstance(value, (tuple, list)):
        return any(is_abstract(v) for v in value)
    return False


def is_numpy_scalar(value: Any) -> bool:
    """Whether a concrete or abstract value is a NumPy scalar (not a 0-d array)."""
    if isinstance(value, Abstract):
        return value.generic
    return isinstance(value, np.generic)


def dummy(value: Any) -> Any:
    """A concrete stand-in of an abstract value, for the few ops without a type rule: ones
    of its shape and dtype (zero-strided, so it costs O(1) memory whatever its size), a
    NumPy scalar, or a Python number.  ``None`` when the shape is unknown."""
    if isinstance(value, tuple):
        return tuple(dummy(v) for v in value)
    if isinstance(value, list):
        return [dummy(v) for v in value]
    if not isinstance(value, Abstract):
        return value
    t = value.type
    if t.kind == "float":
        return 1.0
    if t.kind == "int":
        return 1
    if t.kind == "bool":
        return True
    if t.kind != "array" or t.shape is None or t.dtype is None:
        return None
    dt = np.dtype(t.dtype)
    if value.generic:
        return dt.type(1)
    if len(t.shape) >= 2 and t.shape[-1] == t.shape[-2] <= 64:
        # a stack of identity matrices: inv, solve, cholesky and det succeed on it
        return np.broadcast_to((np.eye(t.shape[-1]) + 1.0).astype(dt), t.shape)
    return np.broadcast_to(np.ones((), dt), t.shape)


class NotKnown(Exception):
    """The value of a node cannot be told from its inputs' types (a rule-less op on an
    unknown shape, a region output whose branches disagree): the node stays untyped."""


#: ops that only move values around (typed by their rules, never by a probe)
_STRUCTURAL = frozenset({Op.TUPLE, Op.ITEM, Op.LIST, Op.LIST_CONCAT, Op.LIST_REVERSE})


def evaluate(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """What the compiler knows of ``op`` applied to ``inputs``: the concrete result when
    every input is concrete (constants fold), else an abstract one from the op's type
    rule, never from running the computation on data.  A passed-through call
    (``opaque_call``), or a region holding one, is never run: its type comes from the
    rule lowering gave it (``out_type``)."""
    if op is Op.OPAQUE_CALL:
        return opaque_value(params.get("out_type"))
    if op in REGIONS and runs_calls(params):
        return region_value(op, params, len(inputs))
    if not any(is_abstract(v) for v in inputs):
        # folding constants while compiling: quietly, as the generated code never runs
        # this again (a safe-input branch of a select, np.log(0) of a branch not taken
        # would otherwise warn from inside the compiler)
        with np.errstate(all="ignore"):
            return run(op, array_namespace(*inputs), inputs, params)
    if op in REGIONS:
        return region_value(op, params, len(inputs))
    if op is Op.ITEM and isinstance(inputs[0], (tuple, list)):
        result = inputs[0][params["index"]]
        if result is UNKNOWN:  # an output of a region its bodies do not type
            raise NotKnown(op.value)
        return result
    from .infer import NoTypeRule, infer  # noqa: PLC0415  (infer imports this module)

    try:
        return infer(op, inputs, params)
    except NoTypeRule as exc:
        if op in _STRUCTURAL or op.value.startswith("list_"):
            raise NotKnown(op.value) from exc  # stand-ins cannot say what a list holds
    return _probe(op, inputs, params)


def opaque_value(t: Type | None) -> Any:
    """What the compiler knows of a passed-through call's result: ``None`` for a call
    that returns nothing (``print``), else an abstract value of its type; an unknown
    type leaves the node untyped."""
    if t is None:
        raise NotKnown("opaque_call")
    if t.kind == "none":
        return None
    return Abstract(t, generic=t.kind == "array" and t.shape == () and t.dtype is not None)


def runs_calls(params: dict[str, Any]) -> bool:
    """Whether a region's bodies (graphs among its params) call a user's function or
    pass a call through: such a region is never run while compiling."""
    return any(hasattr(v, "nodes") and hasattr(v, "outputs") and any(
        n.op in OPAQUE or runs_calls(n.kwargs) for n in v.nodes) for v in params.values())


def _probe(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """An op without a type rule: run on O(1)-memory stand-ins of its inputs' types and
    keep only the result's type (its data says nothing)."""
    concrete = dummy(inputs)
    if any(c is None and v is not None for c, v in zip(concrete, inputs)) or _has_none(
            concrete):
        raise NotKnown(op.value)
    try:
        with np.errstate(all="ignore"), compiling():
            result = run(op, np, concrete, params)
    except Exception as exc:  # stand-in data proves nothing: the type stays unknown
        raise NotKnown(op.value) from exc
    if OP_INFO[op].data_shape:  # how many the stand-in's data selects says nothing
        return _shapeless(abstract_result(result))
    return abstract_result(result)


def _shapeless(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_shapeless(v) for v in value)
    if isinstance(value, Abstract) and value.type.kind == "array":
        return Abstract(value.type.without_shape(), value.generic)
    return value


def _has_none(values: Any) -> bool:
    if isinstance(values, (tuple, list)):
        return any(v is None or _has_none(v) for v in values)
    return False


def abstract_result(value: Any) -> Any:
    """``abstract_of`` for a value computed from stand-ins: Python numbers in it are runtime
    values too (``int(x)`` of a stand-in is 1 only for the stand-in)."""
    if isinstance(value, bool):
        return Abstract(Type("bool"))
    if isinstance(value, int):
        return Abstract(Type("int"))
    if isinstance(value, tuple):
        return tuple(abstract_result(v) for v in value)
    if isinstance(value, list):
        return [abstract_result(v) for v in value]
    return abstract_of(value)


#: an output of a region whose type the bodies do not settle (read through ``item``)
UNKNOWN: Any = Abstract(Type("object"))


def region_value(op: Op, params: dict[str, Any], n_inputs: int) -> tuple[Any, ...]:
    """The abstract outputs of an ``if``/``for``/``while`` node, from its bodies' types:
    neither the branch nor the trip count depends on an example."""
    if op is Op.IF:
        return tuple(_from_type(region_output_type(op, params, k))
                     for k in range(len(params["then"].outputs)))
    n_carry, n_ys = params["n_carry"], params["n_ys"]
    carry = [_from_type(region_output_type(op, params, k)) for k in range(n_carry)]
    ys = [Abstract(Type("list"), item=_item(params["body"].outputs[n_carry + k].type))
          for k in range(n_ys)]
    return (*carry, *ys, Abstract(Type("int")))


def _item(t: Type | None) -> Abstract | None:
    item = _from_type(t)
    return item if isinstance(item, Abstract) and item is not UNKNOWN else None


def _from_type(t: Type | None) -> Any:
    if t is None:
        return UNKNOWN
    if t.kind == "none":
        return None
    return Abstract(t, generic=t.kind == "array" and t.shape == ())


def is_list_value(v: Any) -> bool:
    """Whether a concrete or abstract value is a runtime list."""
    return isinstance(v, list) or isinstance(v, Abstract) and v.type.kind == "list"


def join(values: Any, widen: bool = False) -> Abstract | None:
    """One abstract value that stands for each of ``values`` (items of one runtime list):
    their common type (``widen``: the shape forgotten where only shapes differ, which the
    type rules must not do: a rank they would then guess could be wrong); ``None`` if
    they differ."""
    items = [v if isinstance(v, Abstract) else abstract_of(v) for v in values]
    if not items or not all(isinstance(v, Abstract) for v in items):
        return None  # (a None placeholder among them: what it would hold is unknown)
    first = items[0]
    if all(v == first for v in items):
        return first
    if all(v.type == first.type and v.item == first.item for v in items):
        # NumPy scalars among 0-d arrays of one dtype (``[x0d] + [np.sin(s)]``): they
        # stack, add and promote alike, so the list's items are typed as the arrays
        return Abstract(first.type)
    if widen and all(v.type.kind == first.type.kind and v.type.dtype == first.type.dtype
                     for v in items):
        return Abstract(first.type.without_shape())
    return None


def abstract_list(v: Any) -> Abstract:
    """A runtime list (a Python list of abstract items, or an abstract list) as an
    abstract list: its length is not known, only what its items are."""
    if isinstance(v, Abstract):
        return v
    return Abstract(Type("list"), item=join(list(v), widen=True))
