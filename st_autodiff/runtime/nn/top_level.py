"""The layers part's names that PyTorch also has at the top level (``torch.selu``,
``torch.cosine_similarity``, ``torch.embedding`` ...) and as ``Tensor`` methods
(``x.hardshrink()``, ``x.prelu(w)``).

The top-level forms take PyTorch's ATen signatures where they differ from
``nn.functional``: ``torch.embedding(weight, indices, padding_idx=-1, ...)`` and
``torch.kl_div(input, target, reduction=0, *, log_target=False)`` with the reduction as
its enum (0 none, 1 mean, 2 sum), which does not warn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from . import activations as A
from . import embedding as E
from . import losses_more as LM
from . import vector_ops as V

__all__ = ["TOP_LEVEL", "install_methods"]


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``torch.embedding``: the rows of ``weight`` at ``indices`` (-1: no padding row)."""
    return E.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,
           log_target: bool = False) -> Tensor:
    """``torch.kl_div`` with the reduction given by PyTorch's enum (unreduced by default,
    as PyTorch 2.13's top-level form is)."""
    if not isinstance(reduction, int):
        raise TypeError("kl_div(): argument 'reduction' (position 3) must be int, not "
                        f"{type(reduction).__name__}")
    names = {0: "none", 1: "mean", 2: "sum"}
    if reduction not in names:
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    loss = LM.kl_div(input, target, reduction="none", log_target=log_target)
    if reduction == 0:
        return loss
    return loss.mean() if reduction == 1 else loss.sum()


def _inplace(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def apply(input: Tensor, *args: Any) -> Tensor:
        return fn(input, *args, inplace=True)

    apply.__name__ = fn.__name__ + "_"
    apply.__doc__ = f"``{fn.__name__}`` writing its result into ``input``."
    return apply


TOP_LEVEL: dict[str, Any] = {
    "celu": A.celu, "celu_": _inplace(A.celu), "selu": A.selu, "selu_": _inplace(A.selu),
    "prelu": A.prelu, "hardshrink": A.hardshrink, "threshold": A.threshold,
    "threshold_": _inplace(A.threshold), "cosine_similarity": V.cosine_similarity,
    "pairwise_distance": V.pairwise_distance, "embedding": embedding, "kl_div": kl_div,
}


def install_methods() -> None:
    """Attach ``Tensor.hardshrink`` and ``Tensor.prelu``."""
    # (the stub class declares these methods; here they are installed, with their own types)
    Tensor.hardshrink = A.hardshrink  # type: ignore[method-assign,assignment]
    Tensor.prelu = A.prelu  # type: ignore[method-assign,assignment]
