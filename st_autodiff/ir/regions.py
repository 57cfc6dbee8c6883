"""What the region ops mean: ``if``, ``for`` and ``while`` over sub-graphs.

A region node holds its bodies as ``Graph`` params and reads every outer value it uses
as an explicit input (no implicit capture), so each body is a complete function that
passes can transform on its own (the adjoint of a loop is built from the adjoint of its
body).  Conventions, shared by every pass:

``if``     inputs ``(cond, *ins)``; ``then``/``orelse`` take ``ins`` and return the same
           number of values; the node's value is the taken branch's outputs.
``for``    inputs ``(start, stop, step, *xs, *carry, *free)``; the body takes
           ``(i, *x_items, *carry, *free)`` and returns ``(*carry, *y_items[, go_on])``.
           It iterates ``range(start, stop, step)`` (backwards when ``reverse``); the
           lists ``xs`` hold one item per position of that range.  The node's value is
           ``(*carry, *ys, trips)``: final carried values, one list per ``y`` in the
           order the iterations ran (as ``ys.append(y)`` builds it) and the number of
           iterations run.  With ``has_break``
           the body's last output says whether to go on.
``while``  inputs ``(*carry, *free)``; the body as for ``for`` without ``i`` and
           ``xs``, always ending with its go-on flag (the loop's test is the body's first
           statement, ``if not test: break``); value ``(*carry, *ys, trips)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .ops import Op

if TYPE_CHECKING:
    from .graph import Graph

REGIONS = frozenset({Op.IF, Op.FOR, Op.WHILE})


def run_region(op: Op, xp: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Evaluate one region node on concrete inputs (the reference semantics)."""
    from .interpret import interpret  # noqa: PLC0415  (interpret runs kernels, which run us)

    if op is Op.IF:
        branch: Graph = params["then"] if bool(inputs[0]) else params["orelse"]
        return interpret(branch, *inputs[1:], xp=xp)
    if op is Op.FOR:
        return _run_for(interpret, xp, inputs, params)
    return _run_while(interpret, xp, inputs, params)


def for_layout(params: dict[str, Any], n_inputs: int) -> tuple[int, int, int]:
    """``(n_xs, n_carry, n_free)`` of a ``for`` node with ``n_inputs`` inputs."""
    n_xs, n_carry = params["n_xs"], params["n_carry"]
    return n_xs, n_carry, n_inputs - 3 - n_xs - n_carry


def _run_for(interpret: Any, xp: Any, inputs: tuple[Any, ...],
             params: dict[str, Any]) -> tuple[Any, ...]:
    start, stop, step = (int(v) for v in inputs[:3])
    n_xs, n_carry, _ = for_layout(params, len(inputs))
    xs = inputs[3:3 + n_xs]
    carry = list(inputs[3 + n_xs:3 + n_xs + n_carry])
    free = list(inputs[3 + n_xs + n_carry:])
    body: Graph = params["body"]
    n_ys, has_break = params["n_ys"], params["has_break"]
    positions: range | Iterator[int]
    positions = range(len(range(start, stop, step)))
    if params["reverse"]:
        positions = reversed(positions)
    ys: list[list[Any]] = [[] for _ in range(n_ys)]
    trips = 0
    for p in positions:
        i = start + p * step
        out = interpret(body, i, *[x[p] for x in xs], *carry, *free, xp=xp)
        carry = list(out[:n_carry])
        for k in range(n_ys):
            ys[k].append(out[n_carry + k])
        trips += 1
        if has_break and not bool(out[-1]):
            break
    return (*carry, *ys, trips)


def _run_while(interpret: Any, xp: Any, inputs: tuple[Any, ...],
               params: dict[str, Any]) -> tuple[Any, ...]:
    n_carry, n_ys = params["n_carry"], params["n_ys"]
    carry = list(inputs[:n_carry])
    free = list(inputs[n_carry:])
    ys: list[list[Any]] = [[] for _ in range(n_ys)]
    trips = 0
    while True:
        out = interpret(params["body"], *carry, *free, xp=xp)
        carry = list(out[:n_carry])
        for k in range(n_ys):
            ys[k].append(out[n_carry + k])
        trips += 1
        if params.get("has_break") and not bool(out[-1]):
            break
    return (*carry, *ys, trips)


def output_type(region: Any, k: int) -> Any:
    """The type of output ``k`` of a region node, from its bodies rather than from an
    example value: the example takes one branch (the other side's values are ``None``
    placeholders there) and runs the loop some number of times, neither of which decides
    the type on other calls.  ``None`` means unknown."""
    return region_output_type(region.op, region.kwargs, k)


def region_output_type(op: Op, p: dict[str, Any], k: int) -> Any:
    """``output_type`` of output ``k`` of an ``op`` region with params ``p``."""
    from .types import Type  # noqa: PLC0415

    if op is Op.IF:
        types = [p["then"].outputs[k].type, p["orelse"].outputs[k].type]
        if any(t is not None and t.kind == "list" for t in types) and all(
                t is None or t.kind in ("list", "none") for t in types):
            return Type("list")  # a list (a stack, its adjoint) or its None placeholder
        if any(t is None for t in types):
            return None
        real = [t for t in types if t.kind != "none"]
        if not real:
            return Type("none")
        if all(t == real[0] for t in real):
            return real[0]
        if all(t.kind == real[0].kind and t.dtype == real[0].dtype for t in real):
            return Type(real[0].kind, real[0].dtype, None)  # shapes differ by branch
        return None
    n_carry, n_ys = p["n_carry"], p["n_ys"]
    if k < n_carry:
        lead = 1 + p["n_xs"] if op is Op.FOR else 0
        return p["body"].args[lead + k].type
    if k < n_carry + n_ys:
        return Type("list")
    return Type("int")
