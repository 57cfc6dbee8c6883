"""Prints a graph as text: typed binders, sorted params, deterministic names, locations.

Grammar (see docs/ir.md)::

    graph NAME(%ARG: TYPE, ...) -> TYPE, ...:
      %NAME: TYPE = OP[PARAM=VALUE, ...] %IN, ...      # FILE:LINE [RECORD]
      return %NAME, ...

Constants are printed inline where they are read (``mul %x, 2.0``); adjoint nodes name
the grad_fn-style record they belong to (``MulBackward0``).
"""

from __future__ import annotations

from typing import Any

from .graph import Graph, Node
from .names import Namespace
from .ops import Op
from .types import Type


def format_value(v: Any) -> str:
    """A constant or param value as printed: Python literals, arrays by shape, functions
    by qualified name (never an address)."""
    if callable(v) and not isinstance(v, type):
        mod = getattr(v, "__module__", None)
        name = getattr(v, "__qualname__", None) or type(v).__qualname__
        return f"{mod}.{name}" if mod else name
    if isinstance(v, Type):  # the output type of a call of a user's function
        return str(v)
    if isinstance(v, type):  # a class (type(x) folded): np.ndarray has shape descriptors
        return f"{v.__module__}.{v.__qualname__}"
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return f"array<{v.dtype}{list(v.shape)}>"
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, Type) for x in v):
        return "(" + ", ".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
    if v is Ellipsis:
        return "..."
    return repr(v)


def format_index(index: tuple[Any, ...], dyn: list[str]) -> str:
    """``[1:3, None, %i]`` style text of a getitem index structure."""

    def part(e: Any) -> str:
        if isinstance(e, tuple) and e:
            if e[0] == "in":
                return dyn[e[1]]
            if e[0] == "slice":
                a, b, c = (("" if x is None else part(x)) for x in e[1:])
                return f"{a}:{b}" + (f":{c}" if c else "")
            if e[0] == "list":
                return repr(list(e[1]))
        return "None" if e is None else format_value(e)

    return ", ".join(part(e) for e in index)


def print_graph(graph: Graph, indent: str = "") -> str:
    """The graph as deterministic text (golden-tested); region bodies are printed nested
    under their node, each as ``NAME(%ARG: TYPE, ...):`` with its own names."""
    ns = Namespace("t")
    names: dict[Node, str] = {}

    def ref(n: Node) -> str:
        if n.op is Op.CONST and n not in names:
            return format_value(n.param("value"))
        return "%" + names[n]

    for a in graph.args:
        names[a] = ns.fresh(a.name)
    header = ", ".join(f"%{names[a]}: {a.type or '?'}" for a in graph.args)
    outs = ", ".join(str(o.type or "?") for o in graph.outputs)
    lines = [f"{indent}graph {graph.name}({header}) -> {outs}:"]
    used_consts = {o for o in graph.outputs if o.op is Op.CONST}
    for n in graph.nodes:
        if n.op is Op.ARG or (n.op is Op.CONST and n not in used_consts):
            continue
        names[n] = ns.fresh(n.name)
        lines.append(indent + _line(n, names[n], ref))
        for key, sub in n.params:
            if isinstance(sub, Graph):
                lines.append(print_graph(sub, indent + "    ").rstrip("\n").replace(
                    f"graph {sub.name}(", f"{key} {sub.name}(", 1))
    lines.append(indent + "  return " + ", ".join(ref(o) for o in graph.outputs))
    return "\n".join(lines) + "\n"


def _line(n: Node, name: str, ref: Any) -> str:
    params = [(k, v) for k, v in n.params if not isinstance(v, Graph)
              and not (n.op is Op.GETITEM and k == "index")
              and not (n.op in (Op.SCATTER_ADD, Op.INDEX_ADD) and k == "index")]
    text = n.op.value
    if n.op is Op.CONST:
        text += " " + format_value(n.param("value"))
    if params and n.op is not Op.CONST:
        text += "[" + ", ".join(f"{k}={format_value(v)}" for k, v in params) + "]"
    args = [ref(i) for i in n.inputs]
    if n.op in (Op.GETITEM, Op.SCATTER_ADD, Op.INDEX_ADD):
        fixed = 1 if n.op is Op.GETITEM else 2
        args = args[:fixed] + ["[" + format_index(n.param("index"), args[fixed:]) + "]"]
    if args:
        text += " " + ", ".join(args)
    body = f"  %{name}: {n.type or '?'} = {text}"
    notes = [x for x in (n.loc.short() if n.loc else "", n.role or "") if x]
    if notes:
        body = body.ljust(50) + "  # " + " ".join(notes)
    return body
