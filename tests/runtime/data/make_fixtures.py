"""Write the torch-made checkpoints that ``tests/runtime/test_serialization.py`` reads.

Needs real PyTorch (2.13 made the files in this folder):

    PYTHONPATH=. /tmp/torchvenv/bin/python tests/runtime/data/make_fixtures.py

Writes ``torch_tensors.pt`` (dtypes, views sharing a storage, a parameter, a tensor that
requires grad, plain Python values), ``torch_model.pt`` (a small model's ``state_dict``),
``torch_optim.pt`` (Adam's ``state_dict`` after two steps), ``torch_expected.json``
(the values, shapes, strides and storage offsets PyTorch sees, for the tests to compare)
and ``torch_data.json`` (what ``tests/runtime/data_cases.py`` gives under torch: shuffles,
splits, samplers, collation, worker seeding).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent), str(HERE.parents[2])]  # data_cases; this st_autodiff
from data_cases import CASES  # noqa: E402  (tests/runtime/data_cases.py)


def tensors() -> dict:
    base = torch.arange(12, dtype=torch.float32) / 4
    return {
        "base": base,
        "slice": base[3:9],
        "grid_t": base.view(3, 4).t(),
        "strided": base[1::3],
        "f64": torch.tensor([[1.5, -2.25], [3.0, 1e-300]], dtype=torch.float64),
        "f16": torch.tensor([0.5, -1.0, 65504.0], dtype=torch.float16),
        "i64": torch.tensor([-(2**62), 0, 7]),
        "i32": torch.tensor([1, -2, 3], dtype=torch.int32),
        "i16": torch.tensor([-300, 300], dtype=torch.int16),
        "i8": torch.tensor([-128, 127], dtype=torch.int8),
        "u8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
        "param": torch.nn.Parameter(torch.tensor([1.0, 2.0])),
        "frozen": torch.nn.Parameter(torch.tensor([3.0]), requires_grad=False),
        "leaf": torch.tensor([0.25, 0.75], requires_grad=True),
        "nested": [torch.tensor([1, 2]), (torch.tensor(3.0), {"deep": torch.ones(2, 2)})],
        "python": {"int": 7, "float": 0.125, "str": "hello", "none": None, "bool": True,
                   "bytes": b"\x00\xff", "tuple": (1, "a")},
        "size": torch.Size([2, 3]),
        "dtype": torch.float64,
    }


def describe(value: object) -> object:
    """A JSON view of what was saved: tensors by dtype, shape, stride, offset and values."""
    if isinstance(value, torch.Tensor):
        return {"tensor": str(value.dtype), "shape": list(value.shape),
                "stride": list(value.stride()), "offset": value.storage_offset(),
                "values": value.detach().tolist(), "requires_grad": value.requires_grad,
                "parameter": isinstance(value, torch.nn.Parameter)}
    if isinstance(value, dict):
        return {str(k): describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if isinstance(value, bytes):
        return list(value)
    return value if isinstance(value, (int, float, str, type(None))) else repr(value)


def main() -> None:
    torch.manual_seed(0)
    data = tensors()
    torch.save(data, HERE / "torch_tensors.pt")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    torch.save(model.state_dict(), HERE / "torch_model.pt")
    x = torch.linspace(-1, 1, 15).reshape(5, 3)
    saved_model = describe(dict(model.state_dict()))
    saved_out = model(x).detach().tolist()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()
    torch.save(opt.state_dict(), HERE / "torch_optim.pt")
    expected = {
        "tensors": describe(data),
        "model": saved_model,
        "model_out": saved_out,
        "optim": describe(opt.state_dict()),
        "torch_version": torch.__version__,
    }
    (HERE / "torch_expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    cases = {name: case(torch) for name, case in CASES.items()}
    (HERE / "torch_data.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
