"""Type rules of runtime lists (see ``ir/infer``).

A runtime list is either a Python list of abstract items (its length known while
compiling) or ``Abstract(Type("list"), item=...)`` (length unknown; ``item`` the type
every item has, ``None`` when unknown or mixed).  Ops on known lists give known lists,
item by item as the kernels do; anything that depends on a length the types do not give
(a slice with runtime bounds, appends some iterations skip) gives an abstract list.
Stacking a list gives an unknown shape: how many items a list holds may vary by call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .abstract import Abstract, abstract_of, join
from .infer_core import (
    NoTypeRule,
    any_abstract,
    make,
    probe,
    shape_of,
    stand_in,
    static_int,
    with_shape,
)
from .ops import Op
from .types import Type

#: a list known to hold more items than this is typed as an abstract list instead
MAX_ITEMS = 4096

_FLOAT = Abstract(Type("float", "float64", ()))


def alist(item: Any) -> Abstract:
    """An abstract runtime list whose items are all of type ``item``."""
    return Abstract(Type("list"), item=item if isinstance(item, Abstract) else None)


def is_alist(v: Any) -> bool:
    """Whether ``v`` is an abstract runtime list."""
    return isinstance(v, Abstract) and v.type.kind == "list"


def item_type(v: Any) -> Any:
    """The common item type of a known or abstract list."""
    if is_alist(v):
        return v.item
    if isinstance(v, (list, tuple)):
        return join(v)
    raise NoTypeRule(f"a list op on a {type(v).__name__}")


def rules(infer: Callable[[Op, tuple[Any, ...], dict[str, Any]], Any]) -> dict[Op, Any]:
    """The list rules; ``infer`` types the item arithmetic (``add``, ``take``)."""

    def add(a: Any, b: Any) -> Any:
        return infer(Op.ADD, (a, b), {})

    def list_(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        return abstract_of(list(inputs))

    def get(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items, i = inputs
        if isinstance(items, (list, tuple)) and static_int(i):
            return items[i]
        t = item_type(items)
        if t is None:
            raise NoTypeRule("an item of a list of items of different or unknown types")
        return t

    def length(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items = inputs[0]
        return len(items) if isinstance(items, (list, tuple)) else Abstract(Type("int"))

    def concat(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        a, b = inputs
        if isinstance(a, list) and isinstance(b, list):
            return a + b
        return alist(join([item_type(a), item_type(b)]))

    def reverse(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items = inputs[0]
        return list(reversed(items)) if isinstance(items, list) else items

    def slice_(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items, start, stop = inputs
        if isinstance(items, list) and not any_abstract((start, stop)):
            return items[start:stop]
        return alist(item_type(items))

    def stack(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items = inputs[0]
        if is_alist(items):
            if items.item is None:
                raise NoTypeRule("stacking a list of items of unknown type")
            items = [items.item]
        if any(v is None for v in items):
            raise NoTypeRule("stacking a list with missing items")
        shapes = {shape_of(v) for v in items}
        if op is Op.LIST_STACK and len(shapes) > 1 and None not in shapes:
            raise ValueError("all input arrays must have the same shape")
        fn = np.stack if op is Op.LIST_STACK else np.concatenate
        res = probe(op, [stand_in(v) for v in items], params,
                    fn=lambda *xs: fn(xs, axis=params.get("axis", 0)))
        return make(res, None)

    def sum_(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items = inputs[0]
        if isinstance(items, list):
            if not items:
                return Abstract(Type("array", "float64", ()), generic=True)
            acc: Any = 0
            for v in items:
                acc = add(acc, v)
            return acc
        if items.item is None:
            raise NoTypeRule("the sum of a list of items of unknown type")
        total = add(0, items.item)
        if isinstance(total, Abstract) and total.type.shape == ():
            # an empty list sums to np.float64(0.0): a 0-d scalar too (of float64, where
            # items of a narrower dtype give their dtype: the type says the non-empty case,
            # whose gradient is the one that is not zero)
            return Abstract(total.type, generic=True)
        return with_shape(total, None)

    def zeros(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        return _zeros(inputs[0])

    def list_add(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        return _add(*inputs)

    def _add(a: Any, b: Any) -> Any:
        """``kernels.list_add`` on types: item by item, or ``b`` added to every item."""
        if a is None or b is None:
            return b if a is None else a
        if not (isinstance(a, list) or is_alist(a)):
            return add(a, b)  # two items
        if isinstance(b, list) or is_alist(b):
            if isinstance(a, list) and isinstance(b, list):
                return [x if y is None else y if x is None else _add(x, y)
                        for x, y in zip(a, b, strict=True)]
            x, y = item_type(a), item_type(b)
            return alist(None if x is None or y is None else _add(x, y))
        if isinstance(a, list):
            return [_add(x, b) for x in a]
        x = item_type(a)
        return alist(None if x is None else _add(x, b))

    def unstack(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        x, axis = inputs[0], params.get("axis", 0)
        shape = shape_of(x)
        if shape is not None and shape[axis] == 0:
            return []
        item = infer(Op.TAKE, (x, 0), {"axis": axis})
        if shape is None or shape[axis] > MAX_ITEMS:
            return alist(item)
        return [item] * shape[axis]

    def index_add(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        items, i, g = inputs
        if isinstance(items, list) and static_int(i):
            out = list(items)
            out[i] = add(out[i], g)
            return out
        t = item_type(items)
        if t is None or add(t, g) != t:
            raise NoTypeRule("adding into a list item chosen at run time")
        return items

    def gather(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        n = len(inputs) // 2
        ys, flags = inputs[:n], inputs[n:]
        if all(f is None for f in flags) and all(y is None or isinstance(y, list)
                                                 for y in ys):
            some: list[Any] = next((y for y in ys if y is not None), [])
            return [None if y is None else y[t] for t in range(len(some)) for y in ys]
        return alist(join([item_type(y) for y in ys if y is not None]))

    def ungather(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        g, flags, site = inputs[0], inputs[1:], params.get("site", 0)
        n = len(flags)
        if all(f is None for f in flags) and isinstance(g, list):
            return [g[t * n + site] for t in range(len(g) // n if n else 0)]
        return alist(join([item_type(g), _FLOAT]))

    def split_like(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
        x, items, axis = inputs[0], inputs[1], params.get("axis", 0)
        shape = shape_of(x)
        piece = make(probe(Op.SPLIT, [stand_in(x, (1,) * (axis + 1) if shape is None
                                                else None)],
                           {"indices_or_sections": 1, "axis": axis})[0], None)
        if not isinstance(items, list) or shape is None:
            return alist(piece)
        out = []
        for v in items:
            s = shape_of(v)
            if s is None:
                out.append(piece)
            else:
                out.append(with_shape(piece, shape[:axis] + (s[axis],) + shape[axis + 1:]
                                      if axis >= 0 else None))
        return out

    return {Op.LIST: list_, Op.LIST_GET: get, Op.LIST_LEN: length, Op.LIST_CONCAT: concat,
            Op.LIST_REVERSE: reverse, Op.LIST_SLICE: slice_, Op.LIST_STACK: stack,
            Op.LIST_CATENATE: stack, Op.LIST_SUM: sum_, Op.LIST_ZEROS: zeros,
            Op.LIST_ADD: list_add, Op.LIST_UNSTACK: unstack, Op.LIST_INDEX_ADD: index_add,
            Op.LIST_GATHER: gather, Op.LIST_UNGATHER: ungather,
            Op.LIST_SPLIT_LIKE: split_like}


def _zeros(items: Any) -> Any:
    """``kernels.list_zeros``'s types: zeros like each item, 0.0 for missing ones."""
    if items is None:
        return None
    if is_alist(items):
        return alist(None if items.item is None else _zeros_item(items.item))
    return [_zeros_item(v) for v in items]


def _zeros_item(v: Any) -> Any:
    if v is None:
        return _FLOAT
    if isinstance(v, list) or is_alist(v):
        return _zeros(v)
    if isinstance(v, Abstract) and v.type.kind == "array" or not isinstance(
            v, Abstract) and hasattr(v, "shape"):
        return make(probe(Op.ZEROS_LIKE, [stand_in(v)], {"dtype": None}), shape_of(v))
    return _FLOAT
