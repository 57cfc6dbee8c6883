"""``st_autodiff.nn.functional``: the public face of ``runtime/nn/functional.py``.

>>> import st_autodiff as torch
>>> import st_autodiff.nn.functional as F
>>> F.softmax(torch.tensor([0.0, 0.0]), dim=0)
tensor([0.5000, 0.5000])
"""

from __future__ import annotations

from ..runtime.nn.functional import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    l1_loss,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    sigmoid,
    softmax,
    tanh,
)

__all__ = [
    "binary_cross_entropy_with_logits", "cross_entropy", "dropout", "l1_loss", "linear",
    "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh",
]

# --- layers part (issue 12): activations, containers, embedding, losses; the names are
# listed once, as LAYERS_PART in the runtime module this face re-exports --------------------
from ..runtime.nn import functional as _layers_source  # noqa: E402

globals().update({_name: getattr(_layers_source, _name) for _name in _layers_source.LAYERS_PART})
__all__ += _layers_source.LAYERS_PART
# conv (issue 12): convolution, pooling and batch normalisation.
from ..runtime.nn.functional import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    batch_norm,
    conv1d,
    conv2d,
    max_pool1d,
    max_pool2d,
)

__all__ += [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "avg_pool1d", "avg_pool2d", "batch_norm", "conv1d", "conv2d", "max_pool1d", "max_pool2d",
]
# --- rnn part (issue 12): layer norm and attention ---
from ..runtime.nn.attention import (  # noqa: E402
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ..runtime.nn.normalization import layer_norm  # noqa: E402

__all__ += ["layer_norm", "multi_head_attention_forward", "scaled_dot_product_attention"]
# --- end rnn part ---
# --- eagernn part: the missing nn pieces (listed once, as MORE_PART in the runtime module) ---
globals().update({_name: getattr(_layers_source, _name) for _name in _layers_source.MORE_PART})
__all__ += _layers_source.MORE_PART
