"""``parameters_to_vector`` and ``vector_to_parameters``: parameters as one flat vector."""

from __future__ import annotations

from collections.abc import Iterable

from ... import shape_ops
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj: object) -> str:
    if isinstance(obj, Tensor):
        name: str = obj.type()
        return name
    kind = type(obj)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", "") else f"{module}.{kind.__qualname__}"


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated (differentiable, like ``torch.cat``)."""
    return shape_ops.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter's data the next slice of ``vec`` (shared, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
