"""``DataLoader``: batches from a dataset, in the main process or in worker processes.

Randomness follows PyTorch: each pass (each ``iter(loader)``) first draws a 63-bit base
seed from ``generator`` (the default generator when none) and only then does the sampler
draw its own seed, so batches, shuffles and worker seeds match PyTorch's under the same
``manual_seed``.  With ``num_workers > 0`` the work is done by real worker processes
(``workers.py``); batches still come back in sampler order.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .. import random as rng
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, fresh_seed

if TYPE_CHECKING:
    from .workers import MultiProcessIter

__all__ = ["DataLoader", "Fetcher"]

_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")
_NO_PIN = ("'pin_memory' argument is set as true but no accelerator is found, then device "
           "pinned memory won't be used.")


class _InfiniteConstantSampler(Sampler):
    """``None`` forever: the index stream of an iterable dataset."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class Fetcher:
    """Turns one entry of the index stream into a collated batch (or a single sample)."""

    def __init__(self, dataset: Any, iterable: bool, auto_collation: bool,
                 collate_fn: Callable[[Any], Any], drop_last: bool) -> None:
        self.dataset = dataset
        self.iterable = iterable
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False
        self._it = iter(dataset) if iterable else None

    def fetch(self, index: Any) -> Any:
        """The batch for ``index``; ``StopIteration`` when an iterable dataset runs out."""
        if self.iterable:
            return self.collate_fn(self._next_items(index))
        if self.auto_collation:
            many = getattr(self.dataset, "__getitems__", None)
            data = many(index) if many else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)

    def _next_items(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return next(self._it)  # type: ignore[arg-type]
        data = []
        for _ in index:
            try:
                data.append(next(self._it))  # type: ignore[arg-type]
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return data


class DataLoader:
    """Iterate a dataset in batches: sampling, collation, optional worker processes.

    >>> import st_autodiff as torch
    >>> from st_autodiff.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(torch.arange(5), torch.arange(5) * 10)
    >>> [b[1].tolist() for b in DataLoader(ds, batch_size=2)]
    [[0, 10], [20, 30], [40]]
    """

    _initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler | Iterable[Any] | None = None,
                 batch_sampler: Sampler | Iterable[Any] | None = None, num_workers: int = 0,
                 collate_fn: Callable[[Any], Any] | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], Any] | None = None,
                 multiprocessing_context: Any = None,
                 generator: rng.Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        prefetch_factor = _check_workers(num_workers, timeout, prefetch_factor,
                                         persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _context(multiprocessing_context, num_workers)
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterable_len: int | None = None
        self._iterator: MultiProcessIter | None = None
        self._initialized = True
        _check_worker_count(num_workers)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._initialized and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def _fetcher(self, dataset: Any = None) -> Fetcher:
        return Fetcher(self.dataset if dataset is None else dataset, self._iterable,
                       self._auto_collation, self.collate_fn, self.drop_last)

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        from .workers import MultiProcessIter

        _check_worker_count(self.num_workers)
        if not self.persistent_workers:
            return MultiProcessIter(self)
        if self._iterator is None:
            self._iterator = MultiProcessIter(self)
        else:
            self._iterator.reset()
        return self._iterator

    def __len__(self) -> int:
        if not self._iterable:
            return len(self._index_sampler)
        n = self._iterable_len = len(self.dataset)  # type: ignore[arg-type]
        if self.batch_size is not None:
            n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        return n


def _check_workers(num_workers: int, timeout: float, prefetch_factor: int | None,
                   persistent: bool) -> int | None:
    """PyTorch's checks of the worker options; the prefetch factor to use."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_worker_count(num_workers: int) -> None:
    """PyTorch's warning when there are more workers than CPUs this process may use."""
    if not num_workers:
        return
    masked = hasattr(os, "sched_getaffinity")
    cpus = len(os.sched_getaffinity(0)) if masked else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    if cpus is None:
        advice = ("DataLoader is not able to compute a suggested max number of worker in "
                  "current system.")
    else:
        advice = (f"Our suggested max number of worker in current system is {cpus}"
                  f"{'' if masked else ' (`cpuset` is not taken into account)'}, which is "
                  f"smaller than what this DataLoader is going to create.")
    warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. "
                  f"{advice} Please be aware that excessive worker creation might get "
                  f"DataLoader running slow or even freeze, lower the worker number to avoid "
                  f"potential slowness/freeze if necessary.", stacklevel=3)


def _check_iterable_options(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    if shuffle not in {False, None}:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")


def _context(ctx: Any, num_workers: int) -> Any:
    """A multiprocessing context from a start-method name or a context (``None`` = default)."""
    import multiprocessing as mp

    if ctx is None:
        return None
    if num_workers == 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    if isinstance(ctx, str):
        methods = mp.get_all_start_methods()
        if ctx not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got multiprocessing_context={ctx!r}")
        ctx = mp.get_context(ctx)
    if not isinstance(ctx, mp.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or "
                        f"a string specifying the start method, but got "
                        f"multiprocessing_context={ctx}")
    return ctx


class BaseIter:
    """What every pass shares: the base seed, the index stream, the length warning."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._num_yielded = 0
        if loader.pin_memory:
            from .. import cuda

            if not cuda.is_available():
                warnings.warn(_NO_PIN, stacklevel=3)
        self._sampler_iter = iter(loader._index_sampler)
        self._base_seed = fresh_seed(loader.generator)

    def __iter__(self) -> BaseIter:
        return self

    def __len__(self) -> int:
        return len(self._loader._index_sampler)

    def _next_index(self) -> Any:
        return next(self._sampler_iter)

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        loader = self._loader
        expected = loader._iterable_len
        if loader._iterable and expected is not None and self._num_yielded > expected:
            msg = (f"Length of IterableDataset {loader.dataset} was reported to be {expected}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have "
                   f"been fetched. ")
            if loader.num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data


class _SingleProcessIter(BaseIter):
    """Batches fetched in this process, one per ``next``."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._fetcher = loader._fetcher()

    def _next_data(self) -> Any:
        return self._fetcher.fetch(self._next_index())
