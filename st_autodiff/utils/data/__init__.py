"""``st_autodiff.utils.data``: the public face of ``runtime/data`` (spelled like
``torch.utils.data``).

>>> import st_autodiff as torch
>>> from st_autodiff.utils.data import DataLoader, TensorDataset
>>> len(DataLoader(TensorDataset(torch.zeros(10, 2)), batch_size=4))
3
"""

from __future__ import annotations

from ...runtime.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    WorkerInfo,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)
from . import dataloader, dataset, sampler  # torch.utils.data.sampler, ... as modules

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
    "default_collate", "default_convert",
    "dataloader", "dataset", "get_worker_info", "random_split", "sampler",
]
