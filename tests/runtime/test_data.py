"""``st_autodiff.utils.data`` without PyTorch.

The cases in ``data_cases.py`` must give what torch 2.13 gave (``data/torch_data.json``,
made by ``data/make_fixtures.py``): shuffles and splits from the same seed, sampler draws,
``Tensor.random_``, collation reprs, worker seeding and worker ordering.  The rest checks
behaviour directly: lengths, worker info and init functions, errors from workers,
persistent workers, option errors.
"""

from __future__ import annotations

import doctest
import importlib
import json
import os
import time
from pathlib import Path

import pytest

import st_autodiff as torch
import st_autodiff.utils.data as data
from st_autodiff.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset

from .data_cases import CASES

# Python 3.12+ warns that fork() in a process with threads (NumPy's BLAS pool) may deadlock;
# worker processes are forked as PyTorch's DataLoader forks them on Linux
pytestmark = pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded, use of fork:DeprecationWarning")

REFERENCE = json.loads((Path(__file__).parent / "data" / "torch_data.json").read_text())


def as_json(value: object) -> object:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_torch(name: str) -> None:
    assert as_json(CASES[name](torch)) == REFERENCE[name]


def test_namespace_access() -> None:
    assert torch.utils.data.DataLoader is DataLoader
    assert torch.utils.data.TensorDataset is data.TensorDataset


def test_len_and_batch_sampler() -> None:
    ds = TensorDataset(torch.zeros(10, 2))
    assert len(DataLoader(ds, batch_size=3)) == 4
    assert len(DataLoader(ds, batch_size=3, drop_last=True)) == 3
    sampler = data.BatchSampler(data.SequentialSampler(ds), 4, False)
    loader = DataLoader(ds, batch_sampler=sampler)
    assert len(loader) == 3 and [b[0].shape[0] for b in loader] == [4, 4, 2]


class Squares(Dataset):
    def __len__(self) -> int:
        return 7

    def __getitem__(self, i: int) -> tuple:
        info = data.get_worker_info()
        return i * i, os.getpid(), -1 if info is None else info.id


def record_init(worker_id: int) -> None:
    info = data.get_worker_info()
    assert info is not None and info.id == worker_id and info.num_workers == 2
    assert info.seed == torch.initial_seed()


def test_workers_are_processes_and_keep_order() -> None:
    loader = DataLoader(Squares(), batch_size=2, num_workers=2, worker_init_fn=record_init)
    batches = list(loader)
    assert [b[0].tolist() for b in batches] == [[0, 1], [4, 9], [16, 25], [36]]
    assert [b[2].tolist() for b in batches] == [[0, 0], [1, 1], [0, 0], [1]]
    pids = {p for b in batches for p in b[1].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert data.get_worker_info() is None


def test_persistent_workers_serve_two_epochs() -> None:
    torch.manual_seed(0)
    loader = DataLoader(Squares(), batch_size=3, shuffle=True, num_workers=2,
                        persistent_workers=True)
    first, second = [sorted(v for b in loader for v in b[0].tolist()) for _ in range(2)]
    assert first == second == [i * i for i in range(7)]


class Failing(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        if i == 2:
            raise KeyError("missing sample")
        return i


def test_worker_exception_is_raised_with_its_traceback() -> None:
    loader = DataLoader(Failing(), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1]
    with pytest.raises(KeyError) as info:
        next(it)
    text = str(info.value)
    assert "Caught KeyError in DataLoader worker process 1." in text
    assert "Original Traceback (most recent call last):" in text and "missing sample" in text


def test_single_process_exception_is_the_original() -> None:
    with pytest.raises(KeyError, match="missing sample"):
        list(DataLoader(Failing(), batch_size=2))


class Count(IterableDataset):
    def __iter__(self):  # noqa: ANN204
        return iter(range(5))

    def __len__(self) -> int:
        return 3


def test_iterable_length_warning() -> None:
    loader = DataLoader(Count(), batch_size=None)
    assert len(loader) == 3
    with pytest.warns(UserWarning, match="was reported to be 3"):
        assert list(loader) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_workers": -1}, "num_workers option should be non-negative"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching"),
    ({"sampler": [0], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
    ({"multiprocessing_context": "fork"}, "multiprocessing_context can only be used"),
])
def test_option_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DataLoader(TensorDataset(torch.zeros(3)), **kwargs)


def test_frozen_attributes_and_pin_memory_warning() -> None:
    loader = DataLoader(TensorDataset(torch.zeros(3)), pin_memory=True)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after "
                                         "DataLoader is initialized"):
        loader.batch_size = 2
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="'pin_memory' argument is set as true"):
            iter(loader)


def test_datasets() -> None:
    a, b = TensorDataset(torch.arange(3)), TensorDataset(torch.arange(10, 12))
    both = a + b
    assert isinstance(both, data.ConcatDataset) and len(both) == 5
    assert both[3][0].item() == 10 and both[-1][0].item() == 11
    with pytest.raises(ValueError, match="absolute value of index"):
        both[-6]
    sub = data.Subset(both, [4, 0])
    assert [s[0].item() for s in sub] == [11, 0] and len(sub) == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(torch.zeros(2), torch.zeros(3))
    stacked = data.StackDataset(x=a, y=range(3))
    assert stacked[1]["y"] == 1 and len(stacked) == 3
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset"):
        Dataset()[0]
    with pytest.warns(UserWarning) as caught:
        parts = data.random_split(range(2), [0.9, 0.05, 0.05])
    assert [len(p) for p in parts] == [2, 0, 0]
    assert [str(w.message) for w in caught] == [
        f"Length of split at index {i} is 0. This might result in an empty dataset."
        for i in (1, 2)]


def test_random_sampler_argument_errors() -> None:
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        data.RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, "
                                         "but got num_samples=0"):
        data.RandomSampler(range(3), num_samples=0)


@pytest.mark.parametrize("name", ["st_autodiff.runtime.data.dataset",
                                  "st_autodiff.runtime.data.collate",
                                  "st_autodiff.runtime.data.loader", "st_autodiff.utils.data"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_persistent_workers_after_an_unfinished_pass() -> None:
    loader = DataLoader(Squares(), batch_size=2, num_workers=2, persistent_workers=True)
    first = iter(loader)
    assert next(first)[0].tolist() == [0, 1]  # the rest of this pass is left in flight
    assert [b[0].tolist() for b in loader] == [[0, 1], [4, 9], [16, 25], [36]]
    stream = DataLoader(ShardedCount(), batch_size=2, num_workers=2, persistent_workers=True)
    assert [[b.tolist() for b in stream] for _ in range(2)] == [[[0, 2], [1, 3], [4], [5]]] * 2


class ShardedCount(IterableDataset):
    def __iter__(self):  # noqa: ANN204
        info = data.get_worker_info()
        return iter(range(info.id, 6, 2))


class Slow(Dataset):
    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> int:
        time.sleep(5)
        return i


def test_worker_timeout() -> None:
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(iter(DataLoader(Slow(), num_workers=2, timeout=0.3)))
    assert time.perf_counter() - start < 3
    with pytest.raises(AssertionError, match="requires timeout == 0"):
        iter(DataLoader(Slow(), timeout=0.3))


class Crashing(Dataset):
    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> int:
        os._exit(3)


def test_dead_worker_is_reported() -> None:
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) [0-9, ]+\) exited "
                                           r"unexpectedly"):
        list(DataLoader(Crashing(), num_workers=2))


def test_unpicklable_batch_is_an_error_not_a_hang() -> None:
    loader = DataLoader(range(4), batch_size=2, num_workers=2,
                        collate_fn=lambda batch: (lambda: batch))
    with pytest.raises(Exception, match="in DataLoader worker process 0") as info:
        next(iter(loader))
    assert "pickle" in str(info.value).lower()


def test_collate_fast_and_general_paths_agree() -> None:
    plain_batch = [torch.arange(3) + i for i in range(4)]
    grad_batch = [torch.ones(2, requires_grad=True) for _ in range(2)]
    mixed = [torch.ones(2), torch.ones(2, dtype=torch.float64)]
    assert data.default_collate(plain_batch).tolist() == torch.stack(plain_batch).tolist()
    out = data.default_collate(grad_batch)
    assert type(out.grad_fn).__name__ == "StackBackward0"
    assert data.default_collate(mixed).dtype == torch.stack(mixed).dtype
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        data.default_collate([torch.ones(2), torch.ones(3)])
