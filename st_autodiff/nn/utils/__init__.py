"""``st_autodiff.nn.utils``: the public face of ``runtime/nn/utils`` (like ``torch.nn.utils``)."""

from __future__ import annotations

from ...runtime.nn.utils import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)
from . import rnn

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "rnn", "vector_to_parameters"]
