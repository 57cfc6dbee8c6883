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

# --- rnn part (issue 12): layer norm and attention ---
from ..runtime.nn.attention import (  # noqa: E402
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ..runtime.nn.normalization import layer_norm  # noqa: E402

__all__ += ["layer_norm", "multi_head_attention_forward", "scaled_dot_product_attention"]
# --- end rnn part ---
