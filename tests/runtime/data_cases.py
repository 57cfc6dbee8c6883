"""``torch.utils.data`` cases written once for either library (``lib`` is ``torch`` or
``st_autodiff``): each seeds itself and returns plain Python values.

``data/make_fixtures.py`` runs them under real torch 2.13 into ``data/torch_data.json``;
``test_data.py`` compares st_autodiff's results with that file and ``test_data_torch.py``
with live torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

Pair = namedtuple("Pair", "a b")


def data_of(lib: Any) -> Any:
    return importlib.import_module(lib.__name__ + ".utils.data")


class Noisy:
    """A map-style dataset whose samples draw from torch, NumPy and ``random``: in workers
    they show each worker's seeding."""

    def __init__(self, lib_name: str, n: int = 6) -> None:
        self.lib_name, self.n = lib_name, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        lib = importlib.import_module(self.lib_name)
        info = data_of(lib).get_worker_info()
        return {"i": i, "worker": -1 if info is None else info.id, "torch": lib.rand(2),
                "numpy": float(np.random.rand()), "python": random.random()}


class Stream:
    """An iterable dataset that each worker shards by its id (worker k: k, k+2, ...).

    Made an ``IterableDataset`` of either library by ``make_stream``; defined at module
    level so that worker processes started by spawn or forkserver can unpickle it."""

    def __init__(self, lib_name: str, n: int) -> None:
        self.lib_name, self.n = lib_name, n

    def __iter__(self) -> Any:
        info = data_of(importlib.import_module(self.lib_name)).get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n + 3 * info.id, info.num_workers))


class TorchStream(Stream, importlib.import_module("torch.utils.data").IterableDataset
                  if importlib.util.find_spec("torch") else object):
    """``Stream`` as a torch ``IterableDataset`` (a plain object where torch is absent)."""


class OurStream(Stream, data_of(importlib.import_module("st_autodiff")).IterableDataset):
    """``Stream`` as an st_autodiff ``IterableDataset``."""


def make_stream(lib: Any, n: int) -> Any:
    return (OurStream if lib.__name__ == "st_autodiff" else TorchStream)(lib.__name__, n)


def rounded(values: list) -> list:
    return [round(float(v), 6) for v in values]


def shuffle(lib: Any) -> dict:
    d = data_of(lib)
    lib.manual_seed(3)
    ds = d.TensorDataset(lib.arange(12).float(), lib.arange(12) * 2)
    out = {"plain": [b[1].tolist() for b in d.DataLoader(ds, batch_size=5, shuffle=True)],
           "drop": [b[1].tolist() for b in d.DataLoader(ds, batch_size=5, shuffle=True,
                                                         drop_last=True)],
           "unshuffled": [b[0].tolist() for b in d.DataLoader(ds, batch_size=5)]}
    out["rand_after"] = rounded(lib.rand(3).tolist())
    g = lib.Generator().manual_seed(7)
    loader = d.DataLoader(ds, batch_size=4, shuffle=True, generator=g)
    out["generator"] = [[b[1].tolist() for b in loader] for _ in range(2)]
    out["rand_untouched"] = rounded(lib.rand(2).tolist())
    return out


def samplers(lib: Any) -> dict:
    d = data_of(lib)
    lib.manual_seed(5)
    return {
        "replacement": list(d.RandomSampler(range(7), replacement=True, num_samples=40)),
        "num_samples": list(d.RandomSampler(range(5), num_samples=12)),
        "subset": list(d.SubsetRandomSampler([10, 20, 30, 40])),
        "batches": list(d.BatchSampler(d.SequentialSampler(range(7)), 3, False)),
        "batches_drop": list(d.BatchSampler(range(7), 3, True)),
        "random_int64": int(lib.empty((), dtype=lib.int64).random_().item()),
        "random_to": lib.empty(5, dtype=lib.int64).random_(10).tolist(),
        "random_from_to": lib.empty(5, dtype=lib.int32).random_(-3, 3).tolist(),
        "random_float": lib.empty(3).random_().tolist(),
        "random_bool": lib.empty(4, dtype=lib.bool).random_().tolist(),
        "weighted": list(d.WeightedRandomSampler([0.1, 0.9, 0.0, 0.7], 30)),
        "weighted_generator": list(d.WeightedRandomSampler(
            lib.tensor([1.0, 3.0]), 12, generator=lib.Generator().manual_seed(4))),
        "weighted_loader": [b[0].tolist() for b in d.DataLoader(
            d.TensorDataset(lib.arange(5)), batch_size=3,
            sampler=d.WeightedRandomSampler([1, 2, 3, 4, 5], 7))],
        "rand_after_weighted": rounded(lib.rand(2).tolist()),
    }


def splits(lib: Any) -> dict:
    d = data_of(lib)
    lib.manual_seed(2)
    return {"fractions": [s.indices for s in d.random_split(range(11), [0.5, 0.3, 0.2])],
            "lengths": [list(s) for s in d.random_split(
                range(10), [3, 7], generator=lib.Generator().manual_seed(42))]}


def _ordered(value: Any) -> str:
    """An OrderedDict's type and items (its repr changed in Python 3.12)."""
    return f"{type(value).__name__} {list(value.items())!r}"


def collation(lib: Any) -> dict:
    d = data_of(lib)
    return {
        "mixed": repr(d.default_collate([(1, 2.0, "a", {"k": np.array([1, 2])}),
                                         (3, 4.0, "b", {"k": np.array([3, 4])})])),
        "namedtuple": repr(d.default_collate([Pair(1, lib.ones(2)), Pair(2, lib.zeros(2))])),
        "ordered": _ordered(d.default_collate([OrderedDict(a=1, b=[True, 1.5]),
                                               OrderedDict(a=2, b=[False, 2.5])])),
        "numpy_scalars": repr(d.default_collate([np.float32(1.5), np.float32(2)])),
        "no_batching": repr(list(d.DataLoader([np.array([1, 2]), np.array([3, 4])],
                                              batch_size=None))),
        "list_dataset": repr(list(d.DataLoader([(1, 2), (3, 4), (5, 6)], batch_size=2))),
    }


def workers(lib: Any) -> dict:
    d = data_of(lib)
    lib.manual_seed(11)
    rows = []
    for b in d.DataLoader(Noisy(lib.__name__), batch_size=2, num_workers=2):
        rows.append([b["i"].tolist(), b["worker"].tolist(), rounded(b["torch"].flatten()),
                     rounded(b["numpy"].tolist()), rounded(b["python"].tolist())])
    lib.manual_seed(11)
    order = [b["i"].tolist() for b in d.DataLoader(Noisy(lib.__name__), batch_size=2,
                                                      shuffle=True, num_workers=2)]
    stream = make_stream(lib, 7)
    return {"rows": rows, "shuffled": order,
            "stream": [b.tolist() for b in d.DataLoader(stream, batch_size=2, num_workers=2)],
            "stream_drop": [b.tolist() for b in d.DataLoader(stream, batch_size=2,
                                                              num_workers=2, drop_last=True)],
            "stream_single": [b.tolist() for b in d.DataLoader(stream, batch_size=2)]}


CASES: dict[str, Callable[[Any], dict]] = {
    "shuffle": shuffle, "samplers": samplers, "splits": splits, "collation": collation,
    "workers": workers,
}
