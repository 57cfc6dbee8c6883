"""``torch.save`` / ``torch.load`` without PyTorch: checkpoints written by torch 2.13 load
here (``data/torch_*.pt``, made by ``data/make_fixtures.py``, with the values PyTorch saw
in ``data/torch_expected.json``), and our own files round-trip and have PyTorch's layout.
"""

from __future__ import annotations

import doctest
import importlib
import io
import json
import pickle
import pickletools
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import st_autodiff as torch
from st_autodiff import nn

DATA = Path(__file__).parent / "data"
EXPECTED = json.loads((DATA / "torch_expected.json").read_text())


def describe(value: object) -> object:
    """The same JSON view ``make_fixtures.py`` writes, taken of our loaded objects."""
    if isinstance(value, torch.Tensor):
        a = value.detach().numpy()
        return {"tensor": str(value.dtype), "shape": list(value.shape),
                "stride": [s // a.itemsize for s in a.strides] if a.size else None,
                "values": value.detach().tolist(), "requires_grad": value.requires_grad,
                "parameter": isinstance(value, nn.Parameter)}
    if isinstance(value, dict):
        return {str(k): describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if isinstance(value, bytes):
        return list(value)
    return value if isinstance(value, (int, float, str, type(None))) else repr(value)


def strip(view: object) -> object:
    """Drop what only PyTorch reports (storage offsets) and strides of empty tensors."""
    if isinstance(view, dict):
        if "tensor" in view:
            out = {k: v for k, v in view.items() if k != "offset"}
            if 0 in view["shape"]:
                out["stride"] = None
            return out
        return {k: strip(v) for k, v in view.items()}
    if isinstance(view, list):
        return [strip(v) for v in view]
    return view


def test_torch_tensors_load_with_their_values_dtypes_and_strides() -> None:
    got = torch.load(DATA / "torch_tensors.pt")
    assert describe(got) == strip(EXPECTED["tensors"])
    assert type(got["param"]) is nn.Parameter and got["param"].requires_grad
    assert type(got["frozen"]) is nn.Parameter and not got["frozen"].requires_grad
    assert got["leaf"].is_leaf and got["leaf"].requires_grad
    assert isinstance(got["size"], torch.Size) and got["dtype"] is torch.float64
    assert got["nested"][1][0].dtype is torch.float32


def test_torch_views_share_their_storage_after_load() -> None:
    got = torch.load(str(DATA / "torch_tensors.pt"))
    got["base"].mul_(0.0).add_(1.0)
    assert got["slice"].tolist() == [1.0] * 6
    assert got["grid_t"].tolist() == [[1.0] * 3] * 4
    assert got["strided"].tolist() == [1.0] * 4
    assert got["f64"].tolist() == [[1.5, -2.25], [3.0, 1e-300]]  # others untouched


def test_torch_state_dict_loads_into_our_model() -> None:
    state = torch.load(DATA / "torch_model.pt")
    assert isinstance(state, OrderedDict)
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert describe(dict(state)) == strip(EXPECTED["model"])
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model.load_state_dict(state)
    x = torch.linspace(-1, 1, 15).reshape(5, 3)
    np.testing.assert_allclose(model(x).detach().numpy(), EXPECTED["model_out"], rtol=1e-5,
                               atol=1e-6)  # the outputs PyTorch printed before saving


def test_torch_optimizer_state_loads() -> None:
    state = torch.load(io.BytesIO((DATA / "torch_optim.pt").read_bytes()))
    assert describe(state) == strip(EXPECTED["optim"])
    assert state["param_groups"][0]["betas"] == (0.9, 0.999)
    assert sorted(state["state"]) == [0, 1, 2, 3]


def roundtrip(obj: object, **load_args: object) -> object:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_args)


def test_roundtrip_keeps_values_dtypes_flags_and_types() -> None:
    torch.manual_seed(0)
    obj = {"f": torch.randn(3, 2), "i": torch.tensor([1, -5]), "b": torch.tensor([True]),
           "h": torch.tensor([1.5], dtype=torch.float16), "s": torch.tensor(3.0),
           "p": nn.Parameter(torch.ones(2)), "g": torch.zeros(2, requires_grad=True),
           "list": [1, 2.5, "x", None, (torch.arange(3),)], "size": torch.Size([4]),
           "dt": torch.int32, "dev": torch.device("cpu"), "bytes": b"\x01\x02"}
    back = roundtrip(obj)
    assert describe(back) == describe(obj)
    assert type(back["p"]) is nn.Parameter and back["p"].requires_grad
    assert back["g"].requires_grad and back["g"].is_leaf
    assert back["dev"] == torch.device("cpu") and back["dt"] is torch.int32


def test_non_leaf_saves_as_leaf_that_requires_grad() -> None:
    x = torch.ones(2, requires_grad=True)
    back = roundtrip(x * 2)
    assert back.is_leaf and back.requires_grad and back.tolist() == [2.0, 2.0]


def test_views_saved_with_their_base_share_one_storage(tmp_path: Path) -> None:
    base = torch.arange(12.0)
    obj = {"base": base, "t": base.view(3, 4).t(), "tail": base[6:], "step": base[::5]}
    path = tmp_path / "views.pt"
    torch.save(obj, path)
    assert [n for n in zipfile.ZipFile(path).namelist() if "/data/" in n] == ["views/data/0"]
    back = torch.load(path)
    assert back["t"].tolist() == base.view(3, 4).t().tolist()
    assert back["t"].numpy().strides == (4, 16)  # (1, 4) in elements, as saved
    back["base"].zero_()
    assert back["tail"].tolist() == [0.0] * 6 and back["step"].tolist() == [0.0] * 3


def test_archive_layout_is_pytorchs(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.pth"
    torch.save({"w": torch.ones(3), "b": torch.zeros(1, dtype=torch.int64)}, path)
    z = zipfile.ZipFile(path)
    assert z.namelist() == ["ckpt/data.pkl", "ckpt/.format_version", "ckpt/.storage_alignment",
                            "ckpt/byteorder", "ckpt/data/0", "ckpt/data/1", "ckpt/version",
                            "ckpt/.data/serialization_id"]
    assert z.read("ckpt/version") == b"3\n" and z.read("ckpt/byteorder") == b"little"
    assert z.read("ckpt/data/1") == np.zeros(1, "<i8").tobytes()
    raw = path.read_bytes()
    for info in z.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        start = info.header_offset + 30 + len(info.filename) + len(raw_extra(raw, info))
        assert start % 64 == 0, info.filename
    ops = [(op.name, arg) for op, arg, _ in pickletools.genops(z.read("ckpt/data.pkl"))]
    assert ("GLOBAL", "torch._utils _rebuild_tensor_v2") in ops
    assert ("GLOBAL", "torch FloatStorage") in ops and ("GLOBAL", "torch LongStorage") in ops
    assert ops[0] == ("PROTO", 2)
    ident = z.read("ckpt/.data/serialization_id")
    assert len(ident) == 40 and ident.isdigit()


def raw_extra(raw: bytes, info: zipfile.ZipInfo) -> bytes:
    """The extra field of a record's local header (where the alignment padding is)."""
    off = info.header_offset
    name_len = int.from_bytes(raw[off + 26:off + 28], "little")
    extra_len = int.from_bytes(raw[off + 28:off + 30], "little")
    return raw[off + 30 + name_len:off + 30 + name_len + extra_len]


def test_file_object_archive_is_named_archive() -> None:
    buf = io.BytesIO()
    torch.save(torch.ones(1), buf)
    assert zipfile.ZipFile(buf).namelist()[0] == "archive/data.pkl"


def test_module_and_optimizer_state_roundtrip() -> None:
    torch.manual_seed(1)
    model = nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(4, 3)).sum().backward()
    opt.step()
    saved = roundtrip({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3})
    fresh = nn.Linear(3, 2)
    fresh.load_state_dict(saved["model"])
    assert fresh.weight.tolist() == model.weight.tolist()
    opt2 = torch.optim.Adam(fresh.parameters(), lr=0.5)
    opt2.load_state_dict(saved["opt"])
    assert opt2.param_groups[0]["lr"] == 0.1 and saved["epoch"] == 3
    state = opt2.state[fresh.weight]
    assert state["exp_avg"].tolist() == opt.state[model.weight]["exp_avg"].tolist()


def test_map_location_forms() -> None:
    x = torch.tensor([1.0, 2.0])
    for where in ("cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s):
        back = roundtrip(x, map_location=where)
        assert back.tolist() == [1.0, 2.0] and back.device.type == "cpu"
    seen = []
    roundtrip(x, map_location=lambda s, loc: seen.append(loc))
    assert seen == ["cpu"]


class Custom:
    def __init__(self) -> None:
        self.value = 5


def test_weights_only_refuses_other_globals() -> None:
    buf = io.BytesIO()
    torch.save({"obj": Custom()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
        torch.load(buf)
    name = f"{__name__}.Custom"
    assert (f"WeightsUnpickler error: Unsupported global: GLOBAL {name} was not an allowed "
            f"global by default. Please use `torch.serialization.add_safe_globals([{name}])`"
            in str(info.value))
    buf.seek(0)
    assert torch.load(buf, weights_only=False)["obj"].value == 5
    buf.seek(0)
    with torch.serialization.safe_globals([Custom]):
        assert torch.load(buf)["obj"].value == 5
    assert torch.serialization.get_safe_globals() == []


def test_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.pt"
    path.write_bytes(b"hello")
    with pytest.raises(pickle.UnpicklingError, match="invalid load key, 'h'"):
        torch.load(path)


def test_docstring_examples() -> None:
    result = doctest.testmod(importlib.import_module("st_autodiff.runtime.serialization"))
    assert result.failed == 0 and result.attempted > 0


def relocated(blob: bytes, location: str) -> io.BytesIO:
    """A copy of a checkpoint whose storages claim to live on ``location``."""
    src = zipfile.ZipFile(io.BytesIO(blob))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X" + len(location).to_bytes(
                    4, "little") + location.encode())
            dst.writestr(name, data)
    out.seek(0)
    return out


def test_cuda_checkpoint_needs_a_gpu_or_map_location() -> None:
    buf = io.BytesIO()
    torch.save({"w": torch.tensor([1.0, 2.0])}, buf)
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA "
                                               r"device but torch.cuda.is_available\(\) is "
                                               r"False"):
            torch.load(relocated(buf.getvalue(), "cuda:0"))
    for where in ("cpu", torch.device("cpu"), {"cuda:0": "cpu"}):
        back = torch.load(relocated(buf.getvalue(), "cuda:0"), map_location=where)
        assert back["w"].tolist() == [1.0, 2.0] and back["w"].device.type == "cpu"


def test_other_pickle_protocols_roundtrip() -> None:
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3), "t": (1, "x")}, buf, pickle_protocol=4)
    buf.seek(0)
    back = torch.load(buf)
    assert back["w"].tolist() == [0, 1, 2] and back["t"] == (1, "x")


def test_serialization_id_folds_crcs_as_torch_does() -> None:
    from st_autodiff.runtime.serialization import _hash_combine

    z = zipfile.ZipFile(DATA / "torch_model.pt")
    combined = 0
    for info in z.infolist()[:-1]:  # every record before the id itself
        combined = _hash_combine(combined, info.CRC)
    assert z.read(z.infolist()[-1].filename)[20:] == f"{combined:020d}".encode()
    first, second = io.BytesIO(), io.BytesIO()
    torch.save({"a": torch.ones(2)}, first)
    torch.save({"a": torch.ones(2)}, second)
    assert first.getvalue() == second.getvalue()  # deterministic, like torch's files


def test_our_state_dict_file_is_torchs_record_for_record() -> None:
    """The model's state saved here equals torch 2.13's file in every record but the id."""
    state = torch.load(DATA / "torch_model.pt")
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model.load_state_dict(state)
    for obj in (model.state_dict(), state):
        buf = io.BytesIO()
        torch.save(obj, buf)
        ours, theirs = zipfile.ZipFile(buf), zipfile.ZipFile(DATA / "torch_model.pt")
        names = [n.split("/", 1)[1] for n in theirs.namelist()]
        assert [n.split("/", 1)[1] for n in ours.namelist()] == names
        for name in names[:-1]:
            assert ours.read(f"archive/{name}") == theirs.read(f"torch_model/{name}"), name


@pytest.mark.parametrize("name", ["torch_tensors", "torch_model", "torch_optim"])
def test_load_then_save_gives_torchs_records_back(name: str) -> None:
    """Views keep sharing their storage through a load, so a re-save is torch's file again."""
    buf = io.BytesIO()
    torch.save(torch.load(DATA / f"{name}.pt"), buf)
    ours, theirs = zipfile.ZipFile(buf), zipfile.ZipFile(DATA / f"{name}.pt")
    names = [n.split("/", 1)[1] for n in theirs.namelist()]
    assert [n.split("/", 1)[1] for n in ours.namelist()] == names
    for record in names[:-1]:
        assert ours.read(f"archive/{record}") == theirs.read(f"{name}/{record}"), record
