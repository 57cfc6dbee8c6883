"""Transformers: ``nn.TransformerEncoderLayer``/``TransformerEncoder``, the decoder
counterparts ``TransformerDecoderLayer``/``TransformerDecoder``, and ``nn.Transformer``.

A layer is self-attention and a two-layer feed-forward block, each wrapped in a residual
connection with layer norm after it (``norm_first=False``, the original design) or before
it (``norm_first=True``).  Submodules are created in PyTorch's order (``self_attn``,
``linear1``, ``dropout``, ``linear2``, ``norm1``, ``norm2``, ``dropout1``, ``dropout2``),
so a seeded layer starts from PyTorch's numbers and prints the same.

``TransformerEncoder`` stacks deep copies of one layer.  PyTorch can run an evaluation
batch with a key padding mask as nested tensors (``enable_nested_tensor``); the visible
effect is that padded positions come out as zeros before the final norm, and this module
reproduces that effect under the same conditions.  It also gives PyTorch's warning when a
layer rules the nested route out.

>>> import st_autodiff as torch
>>> layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8)
>>> layer(torch.zeros(3, 1, 4)).shape
torch.Size([3, 1, 4])
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import functional as RF
from ..dtypes import get_default_dtype
from ..function import node_class
from ..grad_mode import STATE
from ..tensor import Tensor, plain
from ..tensor_ops import array_ops_for, record
from . import functional as F
from .attention import MultiheadAttention, _canonical_mask
from .containers import ModuleList
from .init import xavier_uniform_
from .layers import Dropout, Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer", "generate_square_subsequent_mask"]

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _rule_gelu(ops: Any, g: Any, out: Any, x: Any, approximate: str = "none") -> tuple[Any, ...]:
    """``d gelu``: ``Phi(x) + x phi(x)``; for the tanh form, the derivative of
    ``x/2 (1 + tanh(u))`` with ``u = sqrt(2/pi) (x + 0.044715 x^3)``."""
    if approximate == "tanh":
        t = ops.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
        du = _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * x * x)
        return (g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du),)
    cdf = 0.5 * (1.0 + ops.erf(x * (1.0 / math.sqrt(2.0))))
    pdf = ops.exp(-0.5 * x * x) * (1.0 / math.sqrt(2.0 * math.pi))
    return (g * (cdf + x * pdf),)


_GELU = node_class("GeluBackward0", _rule_gelu, (0,),
                   (("approximate", lambda a, p: p["approximate"], None), ("self", 0, None)),
                   False)


def _gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU, used only when ``nn.functional`` has none of its own (``GeluBackward0``)."""
    x: Any = input._data
    if approximate == "tanh":
        data = 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    else:
        data = 0.5 * x * (1.0 + array_ops_for(x).erf(x / math.sqrt(2.0)))
    data = data.astype(x.dtype, copy=False)
    if STATE.enabled and input._requires_grad:
        return record(_GELU, data, (input,), {"approximate": approximate})
    return plain(data)


gelu: Callable[..., Tensor] = getattr(F, "gelu", None) or _gelu


def _activation(name: Any) -> Any:
    if name == "relu":
        return F.relu
    if name == "gelu":
        return gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a layer norm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation(activation)
        if activation is F.relu or type(activation).__name__ == "ReLU":
            self.activation_relu_or_gelu = 1
        elif activation is gelu or type(activation).__name__ == "GELU":
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               src_mask, "src_mask", src)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src, False)
        x = src
        if self.norm_first:
            x = RF.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                         is_causal))
            x = RF.add(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(RF.add(x, self._sa_block(x, src_mask, src_key_padding_mask,
                                                    is_causal)))
            x = self.norm2(RF.add(x, self._ff_block(x)))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                             need_weights=False, is_causal=is_causal)[0]
        y: Tensor = self.dropout1(out)
        return y

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        y: Tensor = self.dropout2(x)
        return y


def _why_not_nested(layer: Any) -> str:
    """PyTorch's reason why a layer cannot take the nested-tensor route ("" if it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                "inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm``."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               mask, "mask", src)
        mask = _canonical_mask(mask, "mask", None, "", src, False)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        causal = bool(is_causal)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=causal,
                           src_key_padding_mask=src_key_padding_mask)
        if padded is not None:  # the nested route leaves padded positions at zero
            keep = plain(np.logical_not(padded)[..., None].astype(output.dtype.np))
            output = RF.mul(output, keep.to(output.device))
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_padding(self, src: Tensor, mask: Tensor | None,
                        key_padding: Tensor | None) -> np.ndarray[Any, Any] | None:
        """The padded positions when PyTorch would run this call as nested tensors."""
        if not self.use_nested_tensor or key_padding is None or mask is not None:
            return None
        if self.training or src.dim() != 3 or not self.layers:
            return None
        if STATE.enabled and (src.requires_grad
                              or any(p.requires_grad for p in self.parameters())):
            return None
        padded = np.isneginf(key_padding._host())
        if tuple(padded.shape) != tuple(src.shape[:2]):
            return None
        if self.mask_check and (np.diff(padded.astype(np.int8), axis=1) < 0).any():
            return None  # padding not only at the end of a row: PyTorch takes the dense route
        return padded


# --- decoder and the whole model -------------------------------------------------------------

def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """A ``(sz, sz)`` float mask with ``-inf`` above the diagonal (no peeking ahead)."""
    dt = dtype if dtype is not None else get_default_dtype()
    data = np.triu(np.full((sz, sz), -np.inf), 1).astype(dt.np)
    return plain(data).to(device) if device is not None else plain(data)


def _is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """The causal hint: as given, or (when ``None``) whether ``mask`` is the causal mask."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    if tuple(mask.shape) != (size, size):
        return False
    causal = np.triu(np.full((size, size), -np.inf), 1)
    values = mask._host()
    if values.dtype == np.bool_:
        values = np.where(values, -np.inf, 0.0)
    return bool((values == causal).all())


class TransformerDecoderLayer(Module):
    """Masked self-attention, attention to the encoder's output (``memory``) and a
    feed-forward block, each with a residual and a layer norm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        for k in (1, 2, 3):
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for k in (1, 2, 3):
            setattr(self, f"dropout{k}", Dropout(dropout))
        self.activation = _activation(activation) if isinstance(activation, str) else activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        sa = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        ca = (memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = RF.add(x, self._attend(self.self_attn, self.norm1(x), None, *sa, self.dropout1))
            x = RF.add(x, self._attend(self.multihead_attn, self.norm2(x), memory, *ca,
                                       self.dropout2))
            x = RF.add(x, self._ff_block(self.norm3(x)))
        else:
            x = self.norm1(RF.add(x, self._attend(self.self_attn, x, None, *sa, self.dropout1)))
            x = self.norm2(RF.add(x, self._attend(self.multihead_attn, x, memory, *ca,
                                                  self.dropout2)))
            x = self.norm3(RF.add(x, self._ff_block(x)))
        return x

    @staticmethod
    def _attend(attn: Module, x: Tensor, memory: Tensor | None, mask: Tensor | None,
                key_padding_mask: Tensor | None, is_causal: bool, dropout: Module) -> Tensor:
        kv = x if memory is None else memory
        out = attn(x, kv, kv, attn_mask=mask, key_padding_mask=key_padding_mask,
                   is_causal=is_causal, need_weights=False)[0]
        y: Tensor = dropout(out)
        return y

    def _ff_block(self, x: Tensor) -> Tensor:
        y: Tensor = self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))
        return y


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` applied in turn, then ``norm``."""

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        seq_len = tgt.shape[1 if batch_first and tgt.dim() == 3 else 0]
        causal = _is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=causal, memory_is_causal=memory_is_causal)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """An encoder-decoder transformer: ``TransformerEncoder`` over ``src`` and
    ``TransformerDecoder`` over ``tgt`` attending to the encoder's output.

    Every parameter with more than one dimension is re-drawn Xavier-uniform after
    construction, in parameter order, as PyTorch does.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = F.relu, custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        shared = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                  batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer: Module = TransformerEncoderLayer(*shared, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*shared, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        out: Tensor = self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                   tgt_key_padding_mask=tgt_key_padding_mask,
                                   memory_key_padding_mask=memory_key_padding_mask,
                                   tgt_is_causal=tgt_is_causal,
                                   memory_is_causal=memory_is_causal)
        return out
