"""Checks the invariants every pass must keep; tests run it after each pass."""

from __future__ import annotations

from .graph import Graph, Node
from .ops import OP_INFO, Op


class VerifyError(AssertionError):
    """A graph breaks an invariant (a bug in a pass, never in user code)."""


def verify(graph: Graph) -> None:
    """Dense ids, defined-before-use, known ops, arity, sorted params, known arguments.

    Inputs and outputs must be the graph's own nodes (by identity, not just by id).  Arg
    nodes need not come first: the adjoint's seed ``out_bar`` follows the primal nodes.
    """
    seen: set[int] = set()
    defined: set[Node] = set()
    for pos, n in enumerate(graph.nodes):
        if n.id in seen:
            raise VerifyError(f"node id {n.id} appears twice")
        if n.id != pos:
            raise VerifyError(f"node #{n.id} is at position {pos}: ids must be dense")
        seen.add(n.id)
        info = OP_INFO.get(n.op)
        if info is None:
            raise VerifyError(f"unknown op {n.op}")
        fixed = [i for i in info.inputs if not i.startswith("*")]
        if (len(n.inputs) < len(fixed)) or (not info.variadic and len(n.inputs) != len(fixed)):
            raise VerifyError(f"node #{n.id} {n.op.value}: {len(n.inputs)} inputs, "
                              f"expected {len(fixed)}")
        for i in n.inputs:
            if i not in defined:
                raise VerifyError(f"node #{n.id} reads #{i.id} before it is defined")
        keys = [k for k, _ in n.params]
        if keys != sorted(keys):
            raise VerifyError(f"node #{n.id} params are not sorted: {keys}")
        if n.op is Op.ARG and n not in graph.args:
            raise VerifyError(f"arg node #{n.id} is not a graph argument")
        defined.add(n)
    for o in graph.outputs:
        if o not in defined:
            raise VerifyError(f"output #{o.id} is not a node of the graph")
