"""Attention: ``scaled_dot_product_attention``, ``multi_head_attention_forward`` and
``nn.MultiheadAttention``.

``scaled_dot_product_attention(q, k, v)`` is ``softmax(q k^T * scale + mask) v``.  Like
PyTorch on the CPU it takes one of two routes: four-dimensional inputs with one head size
and no dropout run as one fused node, ``ScaledDotProductFlashAttentionForCpuBackward0``
(edges to ``q``, ``k``, ``v``); everything else is composed from recorded ops (the "math"
route, whose last node is the matrix product's).  Both give a row whose every key is
masked out zeros instead of NaN, as PyTorch's safe softmax does.  The fused nodes, twice
differentiable, live in ``attention_nodes.py``.

``multi_head_attention_forward`` follows PyTorch's algorithm: packed or separate input
projections, heads folded into the batch, boolean masks turned into ``-inf`` additive
masks (``True`` means *masked* here, the opposite of ``scaled_dot_product_attention``),
and, when weights are wanted, explicit batched products so the weights can be returned
(averaged over heads unless ``average_attn_weights=False``); a masked score is one
``BaddbmmBackward0`` node, as in PyTorch.

>>> import st_autodiff as torch
>>> mha = torch.nn.MultiheadAttention(4, 2)
>>> out, weights = mha(torch.ones(3, 1, 4), torch.ones(3, 1, 4), torch.ones(3, 1, 4))
>>> out.shape, weights.shape
(torch.Size([3, 1, 4]), torch.Size([1, 3, 3]))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import functional as RF
from .. import shape_ops as S
from ..device import is_device, xp_of
from ..factory import empty, zeros
from ..tensor import Tensor, plain
from . import attention_nodes, init, nodes
from . import functional as F
from .layers import Linear
from .module import Module
from .parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear",
           "multi_head_attention_forward", "scaled_dot_product_attention"]


# --- scaled dot-product attention -------------------------------------------------------------

def _additive_mask(attn_mask: Tensor | None, is_causal: bool, q: Tensor, k: Tensor
                   ) -> Tensor | None:
    """The mask as a float tensor to add to the scores (``-inf`` where a key is masked)."""
    L, S_ = q.shape[-2], k.shape[-2]
    dt = q.dtype
    mask = None
    if is_causal:
        keep = np.tril(np.ones((L, S_), dtype=bool))
        mask = plain(np.where(keep, 0.0, -np.inf).astype(dt.np)).to(q.device)
    if attn_mask is not None:
        if attn_mask.dtype.name == "bool":
            extra = _where_mask(attn_mask, 0.0, -np.inf, dt.np).to(q.device)
        else:
            extra = attn_mask
        mask = extra if mask is None else RF.add(mask, extra)
    return mask


def _dead_rows(mask: Tensor | None, shape: tuple[Any, ...]) -> Tensor | None:
    """Where every key of a query row is masked out (those rows give zeros)."""
    if mask is None:
        return None
    if is_device(mask._data):  # no host read: the mask goes along even where all False
        xp = xp_of(mask._data)
        dead_rows = (xp.broadcast_to(mask._data, shape) == -np.inf).all(axis=-1, keepdims=True)
        return plain(xp.broadcast_to(dead_rows, shape).copy())
    m = np.broadcast_to(mask._host(), shape)
    dead = np.isneginf(m).all(axis=-1, keepdims=True)
    return plain(np.broadcast_to(dead, shape).copy()) if dead.any() else None


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query key^T * scale + mask) value`` over the last two dimensions.

    A boolean ``attn_mask`` marks the keys each query may attend to (``True`` = attend);
    a float mask is added to the scores.  ``is_causal`` masks keys after the query's
    position.  ``scale`` defaults to ``1/sqrt(query.size(-1))``.  Dropout with
    probability ``dropout_p`` is applied to the attention weights.
    """
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        raise NotImplementedError("scaled_dot_product_attention: enable_gqa with fewer key "
                                  "heads than query heads is not supported by st_autodiff")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    mask = _additive_mask(attn_mask, is_causal, query, key)
    scores_shape = np.broadcast_shapes(tuple(query.shape[:-1]) + (key.shape[-2],),
                                       tuple(mask.shape) if mask is not None else ())
    dead = _dead_rows(mask, scores_shape)
    if dead is not None:
        dead = dead.to(query.device)
    fused = (query.dim() == key.dim() == value.dim() == 4 and dropout_p == 0.0
             and query.shape[-1] == key.shape[-1] == value.shape[-1]
             and query.shape[:2] == key.shape[:2] == value.shape[:2]
             and (mask is None or not mask.requires_grad)
             and query.dtype.name in ("float32", "float64"))
    if fused:
        return attention_nodes.flash(query, key, value, mask, dead, scale, is_causal)
    root = math.sqrt(scale)
    scores = RF.matmul(nodes.mul_scalar(query, root),
                       nodes.mul_scalar(S.transpose(key, -2, -1), root))
    if mask is not None:
        scores = RF.add(scores, mask)
    weights = attention_nodes.safe_softmax(scores)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p, True)
    return RF.matmul(weights, value)


# --- multi-head attention ---------------------------------------------------------------------

def _canonical_mask(mask: Tensor | None, name: str, other: Tensor | None, other_name: str,
                    target: Any, check_other: bool = True) -> Tensor | None:
    """A boolean mask (``True`` = masked) as an additive float mask of ``target``'s dtype."""
    if mask is None:
        return None
    kind = mask.dtype.name
    if kind != "bool" and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and other.dtype.name != kind:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", UserWarning, stacklevel=4)
    if kind == "bool":
        return _where_mask(mask, -np.inf, 0.0, target.dtype.np).to(target.device)
    return mask


def _where_mask(mask: Tensor, yes: float, no: float, dtype: Any) -> Tensor:
    """A boolean mask as ``yes``/``no`` values of ``dtype``, computed where the mask lives."""
    if is_device(mask._data):
        return plain(xp_of(mask._data).where(mask._data, yes, no).astype(dtype))
    return plain(np.where(mask._host(), yes, no).astype(dtype))


def _packed_in_projection(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None
                          ) -> tuple[Tensor, Tensor, Tensor]:
    """The query, key and value projections from one stacked ``(3E, E)`` weight."""
    E = q.shape[-1]

    def split_rows(proj: Tensor, n: int) -> tuple[Any, ...]:
        lead = tuple(proj.shape[:-1])
        parts = S.view(proj, *lead, n, E)
        parts = S.contiguous(S.squeeze(S.transpose(S.unsqueeze(parts, 0), 0, -2), -2))
        return tuple(S.select(parts, 0, i) for i in range(n))

    if k is v:
        if q is k:
            return split_rows(F.linear(q, w, b), 3)
        w_q, w_kv = S.split(w, [E, 2 * E])
        b_q, b_kv = (None, None) if b is None else S.split(b, [E, 2 * E])
        return (F.linear(q, w_q, b_q), *split_rows(F.linear(k, w_kv, b_kv), 2))
    w_q, w_k, w_v = S.chunk(w, 3)
    b_q, b_k, b_v = (None, None, None) if b is None else S.chunk(b, 3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _check_mha_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any,
                      attn_mask: Any, num_heads: int) -> bool:
    """Whether the call is batched; PyTorch's shape assertions otherwise."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _pad_last(mask: Tensor | None) -> Tensor | None:
    """``mask`` with one more key column that takes part (a zero in an additive mask)."""
    if mask is None:
        return None
    extra = zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)
    return S.cat([mask, extra], -1)


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention over sequence-first ``(L, N, E)`` (or unbatched ``(L, E)``)
    inputs; returns the output and the attention weights (or ``None``)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static keys/values are not "
                                  "supported by st_autodiff")
    batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (S.unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = S.unsqueeze(key_padding_mask, 0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                       "attn_mask", query)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal hint alone is passed on
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query, False)
        is_causal = False if key_padding_mask is not None else is_causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            name = "q" if q_proj_weight is None else "k" if k_proj_weight is None else "v"
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 "None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else S.chunk(in_proj_bias, 3)
        q = F.linear(query, q_proj_weight, b_q)
        k = F.linear(key, k_proj_weight, b_k)
        v = F.linear(value, v_proj_weight, b_v)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _packed_in_projection(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = S.unsqueeze(attn_mask, 0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    if bias_k is not None and bias_v is not None:  # one learned key and value more
        k = S.cat([k, S.repeat(bias_k, 1, bsz, 1)])
        v = S.cat([v, S.repeat(bias_v, 1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    heads = bsz * num_heads
    q = S.transpose(S.view(q, tgt_len, heads, head_dim), 0, 1)
    k = S.transpose(S.view(k, k.shape[0], heads, head_dim), 0, 1)
    v = S.transpose(S.view(v, v.shape[0], heads, head_dim), 0, 1)
    if add_zero_attn:  # and an all-zero key and value
        zero = zeros((heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = S.cat([k, zero], 1), S.cat([v, zero], 1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for d, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[d] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{d}] to be {want}, but got "
                                     f"{key_padding_mask.shape[d]}")
        kpm = S.reshape(S.expand(S.view(key_padding_mask, bsz, 1, 1, src_len),
                                 -1, num_heads, -1, -1), heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else RF.add(attn_mask, kpm)
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = RF.mul(q, math.sqrt(1.0 / float(head_dim)))
        if attn_mask is None:
            scores = RF.bmm(q_scaled, S.transpose(k, -2, -1))
        else:
            scores = attention_nodes.baddbmm(attn_mask, q_scaled, S.transpose(k, -2, -1))
        weights = RF.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, dropout_p)
        out = RF.bmm(weights, v)
        out = S.reshape(S.transpose(out, 0, 1), tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias)
        out = S.view(out, tgt_len, bsz, out.shape[1])
        weights = S.view(weights, bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = RF.mean(weights, 1)
        if not batched:
            out, weights = S.squeeze(out, 1), S.squeeze(weights, 0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = S.unsqueeze(attn_mask, 0)
        else:
            attn_mask = S.view(attn_mask, bsz, num_heads, -1, src_len)
    q = S.view(q, bsz, num_heads, tgt_len, head_dim)
    k = S.view(k, bsz, num_heads, src_len, head_dim)
    v = S.view(v, bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = S.reshape(S.permute(out, 2, 0, 1, 3), bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = S.view(out, tgt_len, bsz, out.shape[1])
    return (out if batched else S.squeeze(out, 1)), None


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives attention's output projection."""


class MultiheadAttention(Module):
    """Attention from ``query`` to ``key``/``value`` in ``num_heads`` parallel heads.

    The query, key and value projections are one ``in_proj_weight`` of shape
    ``(3 * embed_dim, embed_dim)`` (Xavier-uniform, zero bias) when ``kdim`` and ``vdim``
    equal ``embed_dim``, else three separate weights; ``out_proj`` maps the heads back.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k: Parameter | None = Parameter(empty((1, 1, embed_dim), **kw))
            self.bias_v: Parameter | None = Parameter(empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        batched = query.dim() == 3
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = S.transpose(query, 1, 0)
                else:
                    query, key = S.transpose(query, 1, 0), S.transpose(key, 1, 0)
                    value = key
            else:
                query, key, value = (S.transpose(t, 1, 0) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            return S.transpose(out, 1, 0), weights
        return out, weights
