"""A reference interpreter: evaluates a graph node by node (for differential tests).

Errors name the node and the user's source line they came from ("while executing …").
"""

from __future__ import annotations

from typing import Any

from .graph import Graph, Node
from .kernels import array_namespace, run
from .ops import Op


class InterpreterError(RuntimeError):
    """A node failed; the message names the node, its op and its source location."""


def interpret(graph: Graph, *args: Any, xp: Any = None) -> tuple[Any, ...]:
    """Run ``graph`` on ``args`` and return its outputs as a tuple."""
    if len(args) != len(graph.args):
        raise TypeError(f"{graph.name} takes {len(graph.args)} arguments, got {len(args)}")
    xp = xp if xp is not None else array_namespace(*args)
    env: dict[Node, Any] = dict(zip(graph.args, args))
    for node in graph.nodes:
        if node.op is Op.ARG:
            continue
        try:
            env[node] = run(node.op, xp, tuple(env[i] for i in node.inputs), node.kwargs)
        except Exception as exc:
            where = f" at {node.loc}" if node.loc else ""
            raise InterpreterError(
                f"while executing {node.op.value} node #{node.id}{where}: "
                f"{type(exc).__name__}: {exc}") from exc
    return tuple(env[o] for o in graph.outputs)
