"""``nn.functional.embedding`` and ``nn.Embedding``: rows of a weight matrix picked by index.

The lookup is one node, ``EmbeddingBackward0``, saving what PyTorch saves (``indices``,
``padding_idx``, ``scale_grad_by_freq``, ``sparse``, ``weight_sym_argsize_0``).  Its
gradient adds each output row's gradient into the weight row it came from; rows picked at
``padding_idx`` get none, and with ``scale_grad_by_freq`` each contribution is divided by
how often its index occurs in the batch.  In a ``create_graph`` backward the same sum is
written as a product with a constant 0/1 matrix, so it is recorded and differentiable.

``max_norm`` renormalises, in place and without recording, every looked-up row whose
``norm_type``-norm exceeds it (to ``max_norm / (norm + 1e-7)`` times itself), as PyTorch's
``embedding_renorm_`` does.  ``nn.Embedding`` starts from a standard normal draw (the
default generator, as PyTorch draws it) with the padding row zeroed.

>>> import st_autodiff as torch
>>> emb = torch.nn.Embedding(10, 3, padding_idx=0)
>>> emb
Embedding(10, 3, padding_idx=0)
>>> emb(torch.tensor([[0, 2]])).shape
torch.Size([1, 2, 3])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir.kernels import index_add_
from ..device import is_device, xp_of
from ..factory import empty
from ..function import node_class
from ..grad_mode import no_grad
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Embedding", "embedding"]

_NO_PADDING = 2**64 - 1  # PyTorch saves padding_idx=-1 (none) as an unsigned value


def _device_coef(xp: Any, flat: Any, num: int, padding_idx: int,
                 scale_grad_by_freq: bool) -> Any:
    """Each picked row's float64 weight in the gradient (0 at ``padding_idx``, 1 / count
    with ``scale_grad_by_freq``), computed on the device of ``flat``."""
    coef = xp.ones(flat.shape, dtype=np.float64)
    if padding_idx >= 0:
        coef = xp.where(flat == padding_idx, 0.0, coef)
    if scale_grad_by_freq:
        counts = xp.zeros(num, dtype=np.float64)
        index_add_(counts, (flat,), xp.ones(flat.shape, dtype=np.float64))
        coef = coef / counts[flat]
    return coef


def _device_grad(xp: Any, g: Any, indices: Any, num: int, dim: int, padding_idx: int,
                 scale_grad_by_freq: bool) -> Any:
    """``_rule_embedding`` on device arrays, with no copy of the indices to the host: the
    same float64 coefficients, counts accumulated with ``add.at`` (``bincount`` would read
    the largest index on the host)."""
    flat = (indices._data if isinstance(indices, Tensor) else indices).reshape(-1)
    coef = _device_coef(xp, flat, num, padding_idx, scale_grad_by_freq)
    g2 = g.reshape(-1, dim)
    out_g = xp.zeros((num, dim), dtype=g2.dtype)
    index_add_(out_g, (flat,), g2 * coef.astype(g2.dtype)[:, None])
    return out_g


def _rule_embedding(ops: Any, g: Any, out: Any, weight: Any, indices: Any,
                    padding_idx: int = -1, scale_grad_by_freq: bool = False,
                    **_: Any) -> tuple[Any, ...]:
    """Each output row's gradient summed into the weight row it was picked from."""
    num, dim = ops.static_shape(weight)
    if not ops.tensors and ops.xp is not np:  # a device graph: the indices stay there
        return (_device_grad(ops.xp, g, indices, num, dim, padding_idx, scale_grad_by_freq),
                None)
    if ops.tensors and isinstance(indices, Tensor) and is_device(indices._data):
        # create_graph on a device: the 0/1 pick matrix made there (no host copy)
        xp = xp_of(indices._data)
        flat = indices._data.reshape(-1)
        g2 = g.reshape(-1, dim)
        pick = xp.zeros((flat.size, num), dtype=g2.dtype.np)
        pick[xp.arange(flat.size), flat] = _device_coef(xp, flat, num, padding_idx,
                                                        scale_grad_by_freq)
        return (plain(pick.T) @ g2, None)
    if isinstance(indices, Tensor):
        idx = np.asarray(indices._host())
    else:  # a raw array: NumPy, or CuPy (copied to the host)
        idx = indices.get() if hasattr(indices, "get") else np.asarray(indices)
    flat = idx.reshape(-1)
    coef = np.ones(flat.shape, dtype=np.float64)
    if padding_idx >= 0:
        coef[flat == padding_idx] = 0.0
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num)
        coef = coef / counts[flat]
    g2 = g.reshape(-1, dim)
    if ops.tensors:
        pick = np.zeros((flat.size, num), dtype=g2.dtype.np)
        pick[np.arange(flat.size), flat] = coef
        picks: Any = plain(pick.T)
        return (picks.to(g2.device) @ g2, None)
    xp = ops.xp  # NumPy, or CuPy for a GPU weight
    out_g = xp.zeros((num, dim), dtype=g2.dtype)
    index_add_(out_g, (xp.asarray(flat),), g2 * xp.asarray(coef.astype(g2.dtype))[:, None])
    return (out_g, None)


_EMBEDDING = node_class(
    "EmbeddingBackward0", _rule_embedding, (0,),
    (("indices", 1, None),
     ("padding_idx", lambda a, p: p["padding_idx"] % 2**64, None),
     ("scale_grad_by_freq", lambda a, p: p["scale_grad_by_freq"], None),
     ("sparse", lambda a, p: p["sparse"], None),
     ("weight_sym_argsize_0", lambda a, p: a[0].shape[0], None)), False)


def _check_indices(input: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    kind = input._data.dtype
    if kind not in (np.int64, np.int32):
        name = input.dtype._tensor_type
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got torch.{name} instead "
                           "(while checking arguments for embedding)")


def _renorm(weight: Tensor, idx: np.ndarray[Any, Any], max_norm: float, norm_type: float) -> None:
    """Scale down, in place, the looked-up rows whose norm exceeds ``max_norm``."""
    rows = np.unique(idx)
    w = weight._data
    if is_device(w):  # every looked-up row scaled (by 1 when small): no host read of norms
        xp = xp_of(w)
        rows = xp.asarray(rows)
        norms = xp.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
        w[rows] = w[rows] * scale[:, None]
        weight._bump()
        return
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[rows[big]] = w[rows[big]] * scale[:, None]
        weight._bump()


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at ``input``'s indices: shape ``input.shape + (dim,)``."""
    wshape = weight._data.shape  # (the array's: cheaper than Tensor.shape's Size)
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= wshape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -wshape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = wshape[0] + padding_idx
    else:
        padding_idx = -1
    _check_indices(input)
    if len(wshape) != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = np.asarray(input._host())
    # (``idx.min()``, ``idx.max()`` without NumPy's Python wrappers: per-op cost)
    if idx.size and (np.minimum.reduce(idx, axis=None) < 0
                     or np.maximum.reduce(idx, axis=None) >= wshape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        with no_grad():
            _renorm(weight, idx, max_norm, norm_type)
    data = weight._data[input._data]
    if needs_grad((weight,)):
        params = {"padding_idx": padding_idx, "scale_grad_by_freq": scale_grad_by_freq,
                  "sparse": sparse}
        return record(_EMBEDDING, data, (weight, input), params)
    return plain(data)


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``.

    ``weight`` starts standard normal, with the ``padding_idx`` row (if any) zero; that row
    gets no gradient.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Draw a standard normal weight and zero the padding row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                weight: Any = self.weight
                weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An ``Embedding`` holding ``embeddings`` (2-d); ``freeze`` turns off its gradient."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
