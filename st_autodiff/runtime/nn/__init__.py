"""Neural-network building blocks for the eager runtime, spelled like ``torch.nn``.

``Parameter`` and ``Module`` (``module.py``; loading state in ``state.py``), layers
(``layers.py``), containers (``containers.py``), losses (``loss.py``), the functional
forms (``functional.py``, whose fused graph nodes live in ``nodes.py``) and ``init``.
The public face is ``st_autodiff.nn``.
"""

from __future__ import annotations

from . import functional, init
from .containers import ModuleList, Sequential
from .layers import Dropout, Identity, Linear, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss
from .module import Module
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Identity", "L1Loss", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleList", "Parameter", "ReLU", "Sequential",
    "Sigmoid", "Softmax", "Tanh", "functional", "init",
]

# --- layers part (issue 12): activations, containers, embedding, losses -----------------------
from . import activation_modules as _layers_activations  # noqa: E402
from . import containers_more as _layers_containers  # noqa: E402
from .activation_modules import *  # noqa: E402, F403
from .containers_more import *  # noqa: E402, F403
from .embedding import Embedding as Embedding  # noqa: E402
from .loss import BCELoss as BCELoss  # noqa: E402
from .loss import HuberLoss as HuberLoss  # noqa: E402
from .loss import KLDivLoss as KLDivLoss  # noqa: E402
from .loss import MarginRankingLoss as MarginRankingLoss  # noqa: E402
from .loss import NLLLoss as NLLLoss  # noqa: E402
from .loss import SmoothL1Loss as SmoothL1Loss  # noqa: E402
from .loss import SoftMarginLoss as SoftMarginLoss  # noqa: E402

#: The public names this part adds (the public face re-exports them).
LAYERS_PART = [*_layers_activations.__all__, *_layers_containers.__all__, "BCELoss",
               "Embedding", "HuberLoss", "KLDivLoss", "MarginRankingLoss", "NLLLoss",
               "SmoothL1Loss", "SoftMarginLoss"]
__all__ += LAYERS_PART
# conv (issue 12): convolution, pooling and batch normalisation layers.
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: E402
from .conv import Conv1d, Conv2d  # noqa: E402
from .pooling import (  # noqa: E402
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)

__all__ += [  # conv (issue 12)
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "MaxPool1d",
    "MaxPool2d",
]
# --- optim part (issue 12): torch.nn.utils (gradient clipping, parameter vectors) ---
from . import utils  # noqa: E402

__all__ += ["utils"]
# eagernn: the missing nn pieces (normalisation, resampling, padding, transposed conv ...)
from . import conv_transpose as _more_conv_t  # noqa: E402
from . import embedding_bag as _more_bag  # noqa: E402
from . import layers_more as _more_layers  # noqa: E402
from . import losses_extra as _more_losses  # noqa: E402
from . import norm_more as _more_norm  # noqa: E402
from . import pool_distance as _more_pool  # noqa: E402
from . import unfold_fold as _more_unfold  # noqa: E402
from . import upsample as _more_upsample  # noqa: E402
from .conv_transpose import ConvTranspose1d as ConvTranspose1d  # noqa: E402
from .conv_transpose import ConvTranspose2d as ConvTranspose2d  # noqa: E402
from .embedding_bag import EmbeddingBag as EmbeddingBag  # noqa: E402
from .layers_more import GLU as GLU  # noqa: E402
from .layers_more import Bilinear as Bilinear  # noqa: E402
from .layers_more import CircularPad1d as CircularPad1d  # noqa: E402
from .layers_more import CircularPad2d as CircularPad2d  # noqa: E402
from .layers_more import CircularPad3d as CircularPad3d  # noqa: E402
from .layers_more import ConstantPad1d as ConstantPad1d  # noqa: E402
from .layers_more import ConstantPad2d as ConstantPad2d  # noqa: E402
from .layers_more import ConstantPad3d as ConstantPad3d  # noqa: E402
from .layers_more import Dropout1d as Dropout1d  # noqa: E402
from .layers_more import Dropout2d as Dropout2d  # noqa: E402
from .layers_more import ReflectionPad1d as ReflectionPad1d  # noqa: E402
from .layers_more import ReflectionPad2d as ReflectionPad2d  # noqa: E402
from .layers_more import ReflectionPad3d as ReflectionPad3d  # noqa: E402
from .layers_more import ReplicationPad1d as ReplicationPad1d  # noqa: E402
from .layers_more import ReplicationPad2d as ReplicationPad2d  # noqa: E402
from .layers_more import ReplicationPad3d as ReplicationPad3d  # noqa: E402
from .layers_more import ZeroPad1d as ZeroPad1d  # noqa: E402
from .layers_more import ZeroPad2d as ZeroPad2d  # noqa: E402
from .layers_more import ZeroPad3d as ZeroPad3d  # noqa: E402
from .losses_extra import CosineEmbeddingLoss as CosineEmbeddingLoss  # noqa: E402
from .losses_extra import GaussianNLLLoss as GaussianNLLLoss  # noqa: E402
from .losses_extra import HingeEmbeddingLoss as HingeEmbeddingLoss  # noqa: E402
from .losses_extra import MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss  # noqa: E402
from .losses_extra import MultiMarginLoss as MultiMarginLoss  # noqa: E402
from .losses_extra import PoissonNLLLoss as PoissonNLLLoss  # noqa: E402
from .losses_extra import TripletMarginLoss as TripletMarginLoss  # noqa: E402
from .norm_more import GroupNorm as GroupNorm  # noqa: E402
from .norm_more import InstanceNorm1d as InstanceNorm1d  # noqa: E402
from .norm_more import InstanceNorm2d as InstanceNorm2d  # noqa: E402
from .norm_more import InstanceNorm3d as InstanceNorm3d  # noqa: E402
from .norm_more import RMSNorm as RMSNorm  # noqa: E402
from .pool_distance import CosineSimilarity as CosineSimilarity  # noqa: E402
from .pool_distance import LPPool1d as LPPool1d  # noqa: E402
from .pool_distance import LPPool2d as LPPool2d  # noqa: E402
from .pool_distance import PairwiseDistance as PairwiseDistance  # noqa: E402
from .pool_distance import TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss  # noqa: E402
from .unfold_fold import Fold as Fold  # noqa: E402
from .unfold_fold import Unfold as Unfold  # noqa: E402
from .upsample import PixelShuffle as PixelShuffle  # noqa: E402
from .upsample import PixelUnshuffle as PixelUnshuffle  # noqa: E402
from .upsample import Upsample as Upsample  # noqa: E402
from .upsample import UpsamplingBilinear2d as UpsamplingBilinear2d  # noqa: E402
from .upsample import UpsamplingNearest2d as UpsamplingNearest2d  # noqa: E402

#: The public names the eagernn part adds.
MORE_PART = [n for m in (_more_bag, _more_conv_t, _more_layers, _more_losses,
                                 _more_norm, _more_pool, _more_unfold, _more_upsample)
             for n in m.__all__ if n[0].isupper()]
__all__ += MORE_PART
