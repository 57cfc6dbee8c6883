"""``torch.utils.data`` for the eager runtime: datasets, samplers, collation, ``DataLoader``.

The public face is ``st_autodiff.utils.data``; shuffles, splits and worker seeds follow
PyTorch's generator use, so the same ``manual_seed`` gives the same batches.
"""

from __future__ import annotations

from ..random_int import install_random_
from .collate import default_collate, default_convert
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .loader import DataLoader
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .workers import WorkerInfo, get_worker_info

install_random_()

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
    "default_collate", "default_convert",
    "get_worker_info", "random_split",
]
