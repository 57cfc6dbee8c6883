"""Samplers: the order in which a ``DataLoader`` reads a map-style dataset.

``RandomSampler`` without a generator seeds a fresh one, per pass, from the default
generator with ``empty((), dtype=int64).random_()`` and then draws ``randperm`` from it, as
PyTorch does, so ``manual_seed(s)`` gives PyTorch's shuffles.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from .. import random as rng
from ..random_int import random_data

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]


class Sampler:
    """The base class: an iterable of indices (or of index lists), usually with a length."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def fresh_seed(generator: rng.Generator | None = None) -> int:
    """PyTorch's ``int(torch.empty((), dtype=torch.int64).random_(generator=g).item())``."""
    return int(random_data((), dtypes.int64, generator=generator))


class RandomSampler(Sampler):
    """Indices in random order: permutations, or draws with ``replacement``."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: rng.Generator | None = None
                 ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = self.generator
        if gen is None:
            gen = rng.Generator().manual_seed(fresh_seed())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from rng.randint_data(0, n, (32,), gen).tolist()
            yield from rng.randint_data(0, n, (self.num_samples % 32,), gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.randperm_data(n, gen).tolist()
        yield from rng.randperm_data(n, gen).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order (one ``randperm`` per pass)."""

    def __init__(self, indices: Sequence[int], generator: rng.Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in rng.randperm_data(len(self.indices), self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


def weighted_draws(weights: np.ndarray[Any, Any], n: int,
                   generator: rng.Generator | None) -> list[int]:
    """PyTorch's ``multinomial(weights, n, replacement=True)`` for ``n > 1``: one uniform
    double per draw, placed by binary search in the running sum of the weights (summed in
    order, then divided by the total)."""
    if not (weights >= 0).all():  # NaN included, as PyTorch words it
        raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                           "< 0)")
    if not np.isfinite(weights).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                           "= infinity or NaN)")
    cumulative = np.cumsum(weights)  # summed in order, as PyTorch sums
    if cumulative[-1] <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    draws = rng._gen(generator).uniform(n, dtypes.float64)
    picks: list[int] = np.searchsorted(cumulative / cumulative[-1], draws,
                                       side="left").tolist()
    return picks


class WeightedRandomSampler(Sampler):
    """Indices drawn with probabilities proportional to ``weights``.

    Draws with replacement of two or more samples follow PyTorch's ``multinomial`` exactly;
    PyTorch takes other draws from exponential variates that this runtime does not
    reproduce, so those are refused rather than given in a different order.
    """

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True,
                 generator: rng.Generator | None = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        # weights on a device are copied to the host once, here (PyTorch's sampler reads its
        # draws back with ``tolist()`` on every pass instead)
        data = np.asarray(weights.cpu().numpy() if hasattr(weights, "cpu") else weights,
                          dtype=np.float64)
        if data.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(data.shape)}")
        self.weights = data
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        if not self.replacement or self.num_samples == 1:
            raise NotImplementedError("WeightedRandomSampler draws only with replacement and "
                                      "num_samples > 1 (PyTorch's other draws use exponential "
                                      "variates that st_autodiff does not reproduce)")
        yield from weighted_draws(self.weights, self.num_samples, self.generator)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler: Iterable[Any], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
