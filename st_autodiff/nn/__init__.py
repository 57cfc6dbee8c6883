"""``st_autodiff.nn``: the public face of ``runtime/nn`` (spelled like ``torch.nn``).

>>> import st_autodiff.nn as nn
>>> nn.Linear(3, 5)
Linear(in_features=3, out_features=5, bias=True)
"""

from __future__ import annotations

from ..runtime.nn import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Identity,
    L1Loss,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from . import functional, init

__all__ = [
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleList", "Parameter", "ReLU", "Sequential",
    "Sigmoid", "Softmax", "Tanh", "functional", "init",
]

# --- layers part (issue 12): activations, containers, embedding, losses; the names are
# listed once, as LAYERS_PART in the runtime module this face re-exports --------------------
from ..runtime import nn as _layers_source  # noqa: E402

globals().update({_name: getattr(_layers_source, _name) for _name in _layers_source.LAYERS_PART})
__all__ += _layers_source.LAYERS_PART
# conv (issue 12): convolution, pooling and batch normalisation layers.
from ..runtime.nn import (  # noqa: E402
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv1d,
    Conv2d,
    MaxPool1d,
    MaxPool2d,
)

__all__ += [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "MaxPool1d",
    "MaxPool2d",
]
# --- rnn part (issue 12): recurrent layers, layer norm, attention, transformer encoder ---
from ..runtime.nn.attention import MultiheadAttention, NonDynamicallyQuantizableLinear  # noqa: E402
from ..runtime.nn.normalization import LayerNorm  # noqa: E402
from ..runtime.nn.rnn import GRU, LSTM, RNN, RNNBase  # noqa: E402
from ..runtime.nn.rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase  # noqa: E402
from ..runtime.nn.transformer import (  # noqa: E402
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "LayerNorm", "MultiheadAttention",
            "NonDynamicallyQuantizableLinear", "RNN", "RNNBase", "RNNCell", "RNNCellBase",
            "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
            "TransformerEncoderLayer"]
# --- end rnn part ---
# --- optim part (issue 12): torch.nn.utils ---
from . import utils  # noqa: E402

__all__ += ["utils"]
# --- eagernn part: the missing nn pieces (listed once, as MORE_PART in the runtime module) ---
globals().update({_name: getattr(_layers_source, _name) for _name in _layers_source.MORE_PART})
__all__ += _layers_source.MORE_PART
