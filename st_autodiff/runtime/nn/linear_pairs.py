"""Linear maps with an exact adjoint, recorded as a pair of PyTorch-named nodes.

Pooling, padding by reflection or replication, and their gradients are linear maps
``A`` once their windows or indices are fixed.  A ``LinearPair`` holds ``A`` and ``A^T``
as functions on arrays (``fn(array, params) -> array``) and two node classes: the node
of ``A`` (``MaxPool2DWithIndicesBackward0`` ...) runs ``A^T`` in its backward, and the
node of ``A^T`` (``...BackwardBackward0``), recorded by a ``create_graph`` backward over
the incoming gradient and ``A``'s input as PyTorch records it, runs ``A`` again.  So
derivatives of every order are exact and recorded, with two array functions per op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..function import node_class
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record

__all__ = ["LinearPair", "apply_map", "linear_pair"]


@dataclass(eq=False)
class LinearPair:
    """A linear map on arrays (``fwd``), its adjoint (``adj``) and their node classes."""

    fwd: Any
    adj: Any
    fwd_cls: Any = field(default=None)
    adj_cls: Any = field(default=None)


def apply_map(cls: type, fn: Any, x: Tensor, p: dict[str, Any]) -> Tensor:
    """``fn(x)`` recorded as a ``cls`` node over ``x`` (``p`` holds the settings and the
    pair under ``"pair"``)."""
    data = fn(x._data, p)
    return record(cls, data, (x,), p) if needs_grad((x,)) else plain(data)


def _rule_fwd(ops: Any, g: Any, out: Any, x: Any, pair: Any = None, **p: Any) -> tuple[Any, ...]:
    """``A^T g``; in Tensor mode recorded over ``(g, x)`` as PyTorch records it."""
    p["pair"] = pair
    if not ops.tensors:
        return (pair.adj(g, p),)
    data = pair.adj(g._data, p)
    if needs_grad((g, x)):
        return (record(pair.adj_cls, data, (g, x), p),)
    return (plain(data),)


def _rule_adj(ops: Any, g: Any, out: Any, gy: Any, x: Any, pair: Any = None,
              **p: Any) -> tuple[Any, ...]:
    """``A g`` for the incoming gradient; the result does not depend on ``x``."""
    p["pair"] = pair
    return (apply_map(pair.fwd_cls, pair.fwd, g, p) if ops.tensors else pair.fwd(g, p), None)


def _key(name: str) -> Any:
    return lambda args, params: params["saved"][name]


def linear_pair(fwd: Any, adj: Any, name: str, saved: tuple[Any, ...]) -> LinearPair:
    """The pair ``fwd``/``adj`` with nodes ``{name}Backward0`` and ``{name}BackwardBackward0``;
    ``saved`` names the ``_saved_*`` values read from ``params["saved"]``."""
    pair = LinearPair(fwd, adj)
    plan = tuple((k, _key(k), None) for k in saved) + (("self", 0, None),)
    pair.fwd_cls = node_class(f"{name}Backward0", _rule_fwd, (0,), plan, False)
    pair.adj_cls = node_class(f"{name}BackwardBackward0", _rule_adj, (0, 1), (), False)
    return pair
