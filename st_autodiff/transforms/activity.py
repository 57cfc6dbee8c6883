"""Pass 3, activity analysis: which nodes carry derivatives.

Input: a graph and the positions of the arguments to differentiate.  Output: the set of
*active* nodes, those that both depend on a differentiated argument through
differentiable ops ("varied") and influence the differentiated output ("useful").  Only
active nodes get adjoints, so constants, shapes, indices and masks never do.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..derivatives import NONDIFFERENTIABLE
from ..errors import UnsupportedSyntaxError
from ..ir.graph import Graph, Node
from ..ir.ops import INTEGER_VALUED, Op


def active_nodes(graph: Graph, wrt: Iterable[int], output: int | Iterable[int] = 0
                 ) -> frozenset[Node]:
    """Nodes that are varied by ``wrt`` arguments and useful to ``graph.outputs[output]``
    (or to each output listed)."""
    varied = {graph.args[i] for i in wrt}
    for n in graph.nodes:
        if n.op in (Op.ARG, Op.CONST) or n.op in NONDIFFERENTIABLE or n.op in INTEGER_VALUED:
            continue
        if n.type is not None and n.type.kind in ("int", "bool"):
            continue
        if n.type is not None and n.type.kind == "array" and not n.type.is_float and \
                n.type.dtype != "object":  # (an object array may hold floats)
            continue
        if any(i in varied for i in n.inputs):
            varied.add(n)
    outs = [output] if isinstance(output, int) else list(output)
    useful = {graph.outputs[k] for k in outs}
    for n in reversed(graph.nodes):
        if n in useful:
            useful.update(n.inputs)
    active = varied & useful
    for n in graph.nodes:
        if n in active and n.type is not None and n.type.dtype == "object":
            # its items are Python objects of types known only at run time (np.sum of one
            # was typed int from stand-ins, and the gradient through it was zero)
            raise UnsupportedSyntaxError(
                "an array of dtype object carries differentiated values here; object "
                "arrays are not supported in differentiated code", n.loc,
                "keep the values in a float array (x.astype(float))")
    return frozenset(active)
