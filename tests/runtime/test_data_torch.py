"""``st_autodiff.utils.data`` against live PyTorch: every case of ``data_cases.py`` (shuffles,
splits, samplers, ``random_``, collation, worker seeding and order) gives the same result
under both libraries, and the stored reference file is still what torch gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import st_autodiff as st

from .data_cases import CASES

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def as_json(value: object) -> object:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_live_torch(name: str) -> None:
    assert as_json(CASES[name](st)) == as_json(CASES[name](torch))


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("n", [3, 5, 33])
def test_shuffle_orders_over_seeds_and_sizes(seed: int, n: int) -> None:
    def orders(lib: object) -> list:
        d = __import__(lib.__name__ + ".utils.data", fromlist=["DataLoader"])
        lib.manual_seed(seed)
        ds = d.TensorDataset(lib.arange(n))
        out = [[b[0].tolist() for b in d.DataLoader(ds, batch_size=4, shuffle=True)]
               for _ in range(2)]
        out.append([s.indices for s in d.random_split(range(n), [0.6, 0.4])])
        return out + [lib.rand(2).tolist()]

    assert orders(st) == orders(torch)


def test_stored_reference_is_current() -> None:
    stored = json.loads((Path(__file__).parent / "data" / "torch_data.json").read_text())
    assert {name: as_json(case(torch)) for name, case in CASES.items()} == stored
