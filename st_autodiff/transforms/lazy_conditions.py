"""Branches on lazy data: refused while compiling, with the place and the alternative.

A Dask array is a graph of work not yet done.  Generated code that branches on a value
computed from one (``if x.sum() > 0:``, ``while err > tol:``, a ``break`` or an
``assert`` on data) would have to run that graph to answer Python's ``bool()``: Dask
would silently compute it in the middle of what the user expects to stay a lazy
gradient, once per branch, on the whole data.  Instead, the specialisation for lazy
arguments is refused when it is compiled, at the ``if``/``while``/``assert`` in the
user's source, with the two ways out: select
with ``np.where`` (both sides computed, lazily) or compute the condition first and pass
it in as a plain value.

The check is a taint walk over the lowered graph: an argument is *lazy* when it holds a
Dask collection (anything with ``__dask_graph__``); every node computed from a lazy value
is lazy; region bodies (``ir/regions.py``) take their inputs explicitly, so the walk
recurses into them with their arguments' taint, iterating loop-carried values to a fixed
point.  Branches on values that do not depend on lazy data (a NumPy parameter, a shape)
are left alone: Python decides them without running any Dask graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import LazyConditionError
from ..ir.graph import Graph, Loc, Node
from ..ir.ops import Op
from ..ir.regions import for_layout
from .effects_kinds import check_assert

_HINT = ("the condition needs a computed value, and the arguments are lazy (Dask): "
         "select with np.where(cond, a, b) so that both sides stay lazy, or compute the "
         "condition first (dask.compute) and pass it in as a plain value")

_ASSERT_HINT = ("checking it needs a computed value, and the arguments are lazy (Dask): "
                "check the data before the call (dask.compute), or leave the check out of "
                "the differentiated function")


def is_lazy(value: Any) -> bool:
    """Whether ``value`` is, or holds, a lazy collection (Dask's ``__dask_graph__``)."""
    if isinstance(value, (tuple, list)):
        return any(is_lazy(v) for v in value)
    if isinstance(value, dict):
        return any(is_lazy(v) for v in value.values())
    return hasattr(type(value), "__dask_graph__")


def check_lazy_shapes(parsed: Any, example_args: Sequence[Any] | None) -> None:
    """Raise ``LazyConditionError`` at the parameter bound to a lazy array whose shape is
    not known (``nan`` in it: a filter's result): code is compiled for shapes."""
    if not example_args:
        return
    for (name, param, _), a in zip(parsed.slots, example_args):
        shape = getattr(a, "shape", None) if is_lazy(a) else None
        if shape is not None and any(d != d for d in shape):  # nan: unknown
            raise LazyConditionError(
                f"{name} is a Dask array of unknown shape {shape} (its chunk sizes are not "
                "known), and the gradient is compiled for shapes", parsed.loc(param),
                f"call {name}.compute_chunk_sizes() first (it runs the graph to count the "
                "rows), or keep the shape: mask with np.where(cond, x, 0.0) instead of "
                "filtering with x[cond]")


def check_lazy_conditions(graph: Graph, slot_names: Sequence[str],
                          example_args: Sequence[Any] | None) -> None:
    """Raise ``LazyConditionError`` at the first branch of ``graph`` whose condition is
    computed from a lazy argument (``example_args[i]`` is bound to ``slot_names[i]``)."""
    if not example_args or not any(is_lazy(a) for a in example_args):
        return
    lazy_names = {name for name, a in zip(slot_names, example_args) if is_lazy(a)}
    taint = [a.param("name") in lazy_names or a.name in lazy_names for a in graph.args]
    _walk(graph, taint)


def _walk(graph: Graph, arg_taint: Sequence[bool], strict: bool = True) -> list[bool]:
    """Taint every node of ``graph`` from its arguments' taint; raise at a lazy branch
    (``strict``).  Returns the outputs' taint."""
    lazy: dict[Node, bool] = dict(zip(graph.args, arg_taint))
    for n in graph.nodes:
        if n in lazy:
            continue
        ins = [lazy.get(i, False) for i in n.inputs]
        if n.op is Op.IF:
            if ins[0] and strict:
                _refuse("if", n.loc)
            then = _walk(n.param("then"), ins[1:], strict)
            other = _walk(n.param("orelse"), ins[1:], strict)
            lazy[n] = any(then) or any(other) or any(ins)
        elif n.op is Op.FOR:
            if any(ins[:3]) and strict:
                _refuse("for", n.loc)
            n_xs, n_carry, _ = for_layout(n.kwargs, len(n.inputs))
            xs, carry, free = ins[3:3 + n_xs], ins[3 + n_xs:3 + n_xs + n_carry], \
                ins[3 + n_xs + n_carry:]
            out = _loop(n, [False, *xs], carry, free, n_carry, strict)
            lazy[n] = any(out) or any(ins)
        elif n.op is Op.WHILE:
            n_carry = n.param("n_carry")
            out = _loop(n, [], ins[:n_carry], ins[n_carry:], n_carry, strict)
            lazy[n] = any(out) or any(ins)
        else:
            if strict and n.op is Op.OPAQUE_CALL and n.param("fn") is check_assert and ins[0]:
                _refuse("assert", n.loc)
            lazy[n] = any(ins)
    return [lazy.get(o, False) for o in graph.outputs]


def _loop(n: Node, lead: list[bool], carry: list[bool], free: list[bool], n_carry: int,
          strict: bool) -> list[bool]:
    """The body outputs' taint of loop ``n`` once its carried values reach a fixed point.
    A ``while`` whose go-on flag is lazy (its test, or a ``break`` under a lazy ``if``) is
    refused at the ``while``: its test is lowered as an ``if`` with no place of its own."""
    body: Graph = n.param("body")
    while True:
        out = _walk(body, [*lead, *carry, *free], strict=False)
        new = [c or o for c, o in zip(carry, out[:n_carry])]
        if new == carry:
            break
        carry = new
    if strict:
        if n.op is Op.WHILE and out[-1]:
            _refuse("while", n.loc)
        _walk(body, [*lead, *carry, *free])  # the body's own branches, located
    return out


def _refuse(what: str, loc: Loc | None) -> None:
    text = {"if": "a Python `if` on a value computed from lazy (Dask) arrays",
            "while": "a `while` loop whose test (or a `break` in it) is computed from lazy "
                     "(Dask) arrays",
            "for": "a `for` over a range whose bound is computed from lazy (Dask) arrays",
            "assert": "an `assert` on a value computed from lazy (Dask) arrays"}
    hint = _ASSERT_HINT if what == "assert" else _HINT
    raise LazyConditionError(text[what] + " cannot stay lazy", loc, hint)
