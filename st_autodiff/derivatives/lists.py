"""Rules for lists built at run time (``hs.append(h)`` in a loop, then ``np.stack``).

The adjoint of a list is a list of the items' adjoints, as long as the list: reading
``xs[k]`` adds into item ``k`` of it, ``np.stack`` unstacks, ``sum`` hands every item the
same adjoint.  Imported by ``derivatives`` (VJP rules) and filling its JVP table too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ir.ops import Op
from . import JVP_RULES, Grads, JvpRule, rule


@rule(Op.LIST)
def _list(ops: Any, g: Any, out: Any, *items: Any) -> Grads:
    return tuple(ops.list_get(g, ops.const(k)) for k in range(len(items)))


@rule(Op.LIST_GET)
def _list_get(ops: Any, g: Any, out: Any, items: Any, index: Any) -> Grads:
    return ops.list_index_add(ops.list_zeros(items), index, g), None


@rule(Op.LIST_CONCAT)
def _list_concat(ops: Any, g: Any, out: Any, a: Any, b: Any) -> Grads:
    n = ops.list_len(a)
    return ops.list_slice(g, ops.const(0), n), ops.list_slice(g, n, ops.list_len(g))


@rule(Op.LIST_STACK)
def _list_stack(ops: Any, g: Any, out: Any, items: Any, axis: int = 0) -> Grads:
    return (ops.list_unstack(g, axis=axis),)


@rule(Op.LIST_UNSTACK)
def _list_unstack(ops: Any, g: Any, out: Any, x: Any, axis: int = 0) -> Grads:
    return (ops.list_stack(g, axis=axis),)


@rule(Op.LIST_SUM)
def _list_sum(ops: Any, g: Any, out: Any, items: Any) -> Grads:
    return (ops.list_add(ops.list_zeros(items), g),)


@rule(Op.LIST_ADD)
def _list_add(ops: Any, g: Any, out: Any, a: Any, b: Any) -> Grads:
    # b that is not a list was added to every item: its adjoint sums the items' adjoints
    return g, (g if ops.is_list(b) else ops.list_sum(g))


@rule(Op.LIST_INDEX_ADD)
def _list_index_add(ops: Any, g: Any, out: Any, items: Any, index: Any, v: Any) -> Grads:
    return g, None, ops.list_get(g, index)


@rule(Op.LIST_SLICE)
def _list_slice(ops: Any, g: Any, out: Any, items: Any, start: Any, stop: Any) -> Grads:
    before = ops.list_zeros(ops.list_slice(items, ops.const(0), start))
    after = ops.list_zeros(ops.list_slice(items, stop, ops.list_len(items)))
    return ops.list_concat(ops.list_concat(before, g), after), None, None


@rule(Op.LIST_REVERSE)
def _list_reverse(ops: Any, g: Any, out: Any, items: Any) -> Grads:
    return (ops.list_reverse(g),)


@rule(Op.LIST_GATHER)
def _list_gather(ops: Any, g: Any, out: Any, *parts: Any) -> Grads:
    flags = parts[len(parts) // 2:]
    return tuple(ops.list_ungather(g, *flags, site=s) for s in range(len(flags))) + \
        (None,) * len(flags)


@rule(Op.LIST_UNGATHER)
def _list_ungather(ops: Any, g: Any, out: Any, lst: Any, *flags: Any, site: int = 0) -> Grads:
    # the other sites' items get no adjoint from here (None): list_add skips them
    parts = [g if s == site else ops.const(None) for s in range(len(flags))]
    return (ops.list_gather(*parts, *flags),) + (None,) * len(flags)


@rule(Op.LIST_CATENATE)
def _list_catenate(ops: Any, g: Any, out: Any, items: Any, axis: int = 0) -> Grads:
    return (ops.list_split_like(g, items, axis=axis),)


@rule(Op.LIST_SPLIT_LIKE)
def _list_split_like(ops: Any, g: Any, out: Any, x: Any, items: Any, axis: int = 0) -> Grads:
    return ops.list_catenate(g, axis=axis), None


def _jvp(op: Op) -> Callable[[JvpRule], JvpRule]:
    def register(fn: JvpRule) -> JvpRule:
        JVP_RULES[op] = fn
        return fn

    return register


def _zero_or(ops: Any, t: Any, like: Any) -> Any:
    return ops.list_zeros(like) if t is None else t


@_jvp(Op.LIST)
def _list_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *items: Any) -> Any:
    return ops.list(*[ops.zeros_like(x) if t is None else t for t, x in zip(tangents, items)])


@_jvp(Op.LIST_GET)
def _list_get_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any, index: Any) -> Any:
    return None if tangents[0] is None else ops.list_get(tangents[0], index)


@_jvp(Op.LIST_CONCAT)
def _list_concat_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, a: Any, b: Any) -> Any:
    return ops.list_concat(_zero_or(ops, tangents[0], a), _zero_or(ops, tangents[1], b))


@_jvp(Op.LIST_STACK)
def _list_stack_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any,
                    axis: int = 0) -> Any:
    return None if tangents[0] is None else ops.list_stack(tangents[0], axis=axis)


@_jvp(Op.LIST_UNSTACK)
def _list_unstack_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, axis: int = 0) -> Any:
    return None if tangents[0] is None else ops.list_unstack(tangents[0], axis=axis)


@_jvp(Op.LIST_SUM)
def _list_sum_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any) -> Any:
    return None if tangents[0] is None else ops.list_sum(tangents[0])


@_jvp(Op.LIST_ADD)
def _list_add_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, a: Any, b: Any) -> Any:
    ta, tb = tangents
    if tb is None:
        return ta
    return ops.list_add(_zero_or(ops, ta, a), tb)  # tb may be one array for every item


@_jvp(Op.LIST_SLICE)
def _list_slice_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any, start: Any,
                    stop: Any) -> Any:
    return None if tangents[0] is None else ops.list_slice(tangents[0], start, stop)


@_jvp(Op.LIST_INDEX_ADD)
def _list_index_add_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any, index: Any,
                        v: Any) -> Any:
    ti, _, tv = tangents
    if tv is None:
        return ti
    return ops.list_index_add(_zero_or(ops, ti, items), index, tv)


@_jvp(Op.LIST_REVERSE)
def _list_reverse_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any) -> Any:
    return None if tangents[0] is None else ops.list_reverse(tangents[0])


@_jvp(Op.LIST_GATHER)
def _list_gather_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, *parts: Any) -> Any:
    n = len(parts) // 2
    if all(t is None for t in tangents[:n]):
        return None
    ys = [_zero_or(ops, t, y) for t, y in zip(tangents[:n], parts[:n])]
    return ops.list_gather(*ys, *parts[n:])


@_jvp(Op.LIST_UNGATHER)
def _list_ungather_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, g: Any, *flags: Any,
                       site: int = 0) -> Any:
    return None if tangents[0] is None else ops.list_ungather(tangents[0], *flags, site=site)


@_jvp(Op.LIST_CATENATE)
def _list_catenate_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, items: Any,
                       axis: int = 0) -> Any:
    return None if tangents[0] is None else ops.list_catenate(tangents[0], axis=axis)


@_jvp(Op.LIST_SPLIT_LIKE)
def _list_split_like_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any, items: Any,
                         axis: int = 0) -> Any:
    return None if tangents[0] is None else ops.list_split_like(tangents[0], items, axis=axis)
