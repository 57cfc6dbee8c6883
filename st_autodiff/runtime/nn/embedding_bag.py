"""``F.embedding_bag`` and ``nn.EmbeddingBag``: sums, means or maxima of bags of embedding
rows, without materialising the bags as PyTorch's one kernel does not either.

Composed of recorded ops: the looked-up rows (``embedding``), then for ``sum``/``mean`` the
rows (times ``1/count`` for ``mean``, 0 for entries equal to ``padding_idx``) summed per bag
(a ``sum`` over a reshape when the bags have one length, else ``index_add``), and for
``max`` a gather into ``(bags, longest bag, dim)`` padded with ``-inf`` and a maximum over
the bag (empty bags give zeros, as PyTorch). So its graph ends in ``SumBackward1``,
``IndexAddBackward0`` or ``WhereBackward0`` where PyTorch shows ``EmbeddingBagBackward0``.

>>> import st_autodiff as torch
>>> torch.nn.EmbeddingBag(10, 3)
EmbeddingBag(10, 3, mode='mean')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functional as RF
from .. import shape_ops as S
from ..conditional import where
from ..factory import empty, zeros
from ..grad_mode import no_grad
from ..tensor import Tensor, plain
from . import init
from .embedding import embedding
from .module import Module
from .parameter import Parameter

__all__ = ["EmbeddingBag", "embedding_bag"]


def _bags(offsets: list[int], n: int, include_last_offset: bool) -> list[tuple[int, int]]:
    ends = offsets[1:] + ([] if include_last_offset else [n])
    starts = offsets[:-1] if include_last_offset else offsets
    return list(zip(starts, ends))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Reduce the rows of ``weight`` named by each bag of ``input`` (rows of a 2-d input,
    or the slices of a 1-d input that ``offsets`` start)."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            kind = "<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else type(offsets)
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {kind}")
        starts = list(range(0, input.numel(), input.shape[1])) if input.shape[1] else [
            0] * input.shape[0]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in np.asarray(offsets._host())]
        if starts and starts[0] != 0:  # (PyTorch's message ends with the 0-d tensor's type)
            kind = "LongTensor" if offsets.dtype.name == "int64" else "IntTensor"
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{starts[0]}\n[ torch.{kind}{{}} ]")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    n_rows = weight.shape[0]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n_rows
    idx = np.asarray(input._host()).astype(np.int64)
    bad = np.nonzero((idx < 0) | (idx >= n_rows))[0]
    if len(bad):
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in "
                           f"the valid range [0, {n_rows})")
    rows = embedding(input, weight, None, max_norm, norm_type, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = RF.mul(rows, per_sample_weights.unsqueeze(1))
    keep = idx != (-1 if padding_idx is None else padding_idx)
    bags = _bags(starts, len(idx), include_last_offset)
    if mode == "max":
        return _bag_max(rows, bags, keep)
    lengths = np.array([hi - lo for lo, hi in bags], dtype=np.int64)
    owner = np.repeat(np.arange(len(bags)), lengths)  # the bag of each looked-up row
    scale = keep[:len(owner)].astype(np.dtype(weight._data.dtype))  # 0: a padding entry
    if mode == "mean":
        counts = np.bincount(owner, weights=scale, minlength=len(bags))
        scale /= np.maximum(counts, 1)[owner].astype(scale.dtype)
    if len(owner) < len(idx):  # (entries after the last offset belong to no bag)
        rows = rows[:len(owner)]
    if mode == "mean" or not scale.all():
        rows = RF.mul(rows, plain(scale[:, None]).to(weight.device))
    if len(bags) and (lengths == lengths[0]).all() and lengths[0] > 0:
        return rows.reshape(len(bags), int(lengths[0]), -1).sum(1)  # bags of one length
    out = zeros((len(bags), weight.shape[1]), dtype=weight.dtype, device=weight.device)
    return out.index_add(0, plain(owner).to(weight.device), rows)


def _bag_max(rows: Tensor, bags: list[tuple[int, int]], keep: np.ndarray[Any, Any]) -> Tensor:
    """Each bag's elementwise maximum (zeros for an empty bag)."""
    n, width = rows.shape
    members = [np.nonzero(keep[lo:hi])[0] + lo for lo, hi in bags]
    longest = max([len(m) for m in members] + [1])
    table = np.full((len(bags), longest), n, dtype=np.int64)
    for b, m in enumerate(members):
        table[b, :len(m)] = m
    padded = S.cat([rows, rows.new_full((1, width), float("-inf"))], 0)
    best = padded[plain(table)].max(dim=1).values
    empty_bag = plain(np.array([len(m) == 0 for m in members])[:, None]).to(rows.device)
    return where(empty_bag, rows.new_zeros(()), best)


class EmbeddingBag(Module):
    """``embedding_bag`` with a learned table ``weight`` (standard normal; the
    ``padding_idx`` row zero)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Draw a standard normal weight and zero the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                weight: Any = self.weight
                weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An ``EmbeddingBag`` holding ``embeddings`` (2-d); ``freeze`` turns off its
        gradient."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                  mode=mode, sparse=sparse, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
