"""Checkpoints cross between st_autodiff and real PyTorch in both directions.

Our files load in ``torch.load`` with its default ``weights_only=True`` (and ``mmap=True``,
which needs PyTorch's 64-byte alignment); PyTorch's files load here with the same values,
dtypes, strides, flags and storage sharing.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

import st_autodiff as st

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def sample(lib: object, dtype: str) -> object:
    values = [[0, 1, 0], [1, 1, 0]] if dtype == "bool" else [[1.5, -2.0, 3.0], [4.0, 5.0, -6.0]]
    if dtype.startswith("int") or dtype == "uint8":
        values = [[abs(int(v)) for v in row] for row in values]
    return lib.tensor(values, dtype=getattr(lib, dtype))


def same(ours: object, theirs: object) -> None:
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("dtype", DTYPES)
def test_each_dtype_both_ways(dtype: str) -> None:
    buf = io.BytesIO()
    st.save({"x": sample(st, dtype)}, buf)
    theirs = torch.load(io.BytesIO(buf.getvalue()))
    same(sample(st, dtype), theirs["x"])
    buf = io.BytesIO()
    torch.save({"x": sample(torch, dtype)}, buf)
    ours = st.load(io.BytesIO(buf.getvalue()))
    same(ours["x"], sample(torch, dtype))


def test_ours_to_torch_views_parameters_flags_mmap(tmp_path: Path) -> None:
    base = st.arange(12.0)
    obj = {"base": base, "t": base.view(3, 4).t(), "tail": base[5:], "p": st.nn.Parameter(
        st.ones(2)), "g": st.zeros(3, requires_grad=True), "n": [1, "a", (2.5, None)],
        "size": st.Size([2, 3]), "dt": st.float16, "s": st.tensor(7)}
    path = tmp_path / "ours.pt"
    st.save(obj, path)
    for mmap in (False, True):
        got = torch.load(path, mmap=mmap)
        assert got["t"].stride() == (1, 4) and got["tail"].storage_offset() == 5
        assert got["t"].untyped_storage().data_ptr() == got["base"].untyped_storage().data_ptr()
        assert type(got["p"]) is torch.nn.Parameter and got["p"].requires_grad
        assert got["g"].requires_grad and got["g"].is_leaf
        assert got["n"] == [1, "a", (2.5, None)] and got["size"] == torch.Size([2, 3])
        assert got["dt"] is torch.float16 and got["s"].item() == 7 and got["s"].dim() == 0
        same(obj["t"], got["t"])


def test_torch_to_ours_views_and_sharing() -> None:
    base = torch.arange(10.0)
    buf = io.BytesIO()
    torch.save([base, base[2:8:2], base.view(2, 5).t()], buf)
    a, b, c = st.load(io.BytesIO(buf.getvalue()))
    assert b.tolist() == [2.0, 4.0, 6.0] and c.tolist() == base.view(2, 5).t().tolist()
    a.add_(100.0)
    assert b.tolist() == [102.0, 104.0, 106.0] and c[0].tolist() == [100.0, 105.0]


def test_model_and_optimizer_checkpoints_cross_over() -> None:
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    topt = torch.optim.Adam(tm.parameters(), lr=0.01)
    x = torch.linspace(-1, 1, 8).reshape(2, 4)
    tm(x).sum().backward()
    topt.step()
    buf = io.BytesIO()
    torch.save({"model": tm.state_dict(), "opt": topt.state_dict()}, buf)
    ckpt = st.load(io.BytesIO(buf.getvalue()))
    sm = st.nn.Sequential(st.nn.Linear(4, 3), st.nn.ReLU(), st.nn.Linear(3, 1))
    sm.load_state_dict(ckpt["model"])
    sopt = st.optim.Adam(sm.parameters(), lr=0.5)
    sopt.load_state_dict(ckpt["opt"])
    sx = st.tensor(x.numpy())
    np.testing.assert_allclose(sm(sx).detach().numpy(), tm(x).detach().numpy(), rtol=1e-6)
    assert sopt.param_groups[0]["lr"] == 0.01
    # and back: our state dicts load into torch
    buf = io.BytesIO()
    st.save({"model": sm.state_dict(), "opt": sopt.state_dict()}, buf)
    back = torch.load(io.BytesIO(buf.getvalue()))
    tm2 = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    tm2.load_state_dict(back["model"])
    for p, q in zip(tm.parameters(), tm2.parameters()):
        assert torch.equal(p, q)
    topt2 = torch.optim.Adam(tm2.parameters(), lr=0.5)
    topt2.load_state_dict(back["opt"])
    for p, q in zip(tm.parameters(), tm2.parameters()):
        for key in ("exp_avg", "exp_avg_sq", "step"):
            assert torch.equal(topt.state[p][key], topt2.state[q][key])


def test_stored_fixtures_match_what_torch_loads() -> None:
    data = Path(__file__).parent / "data"
    for name in ("torch_tensors.pt", "torch_model.pt", "torch_optim.pt"):
        theirs, ours = torch.load(data / name), st.load(data / name)
        flat_t, flat_o = [], []
        walk(theirs, flat_t)
        walk(ours, flat_o)
        assert len(flat_t) == len(flat_o) > 0
        for t, o in zip(flat_t, flat_o):
            if hasattr(t, "detach"):
                same(o, t)
            else:
                assert repr(t) == repr(o)


def walk(obj: object, out: list) -> None:
    if isinstance(obj, dict):
        for v in obj.values():
            walk(v, out)
    elif isinstance(obj, (list, tuple)) and not hasattr(obj, "numel"):
        for v in obj:
            walk(v, out)
    else:
        out.append(obj)


def test_protocol_4_file_loads_in_torch() -> None:
    # torch's weights-only reader refuses protocol 4's FRAME opcode in its own files too
    buf = io.BytesIO()
    st.save({"w": st.arange(3.0), "p": st.nn.Parameter(st.ones(1))}, buf, pickle_protocol=4)
    got = torch.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert got["w"].tolist() == [0.0, 1.0, 2.0] and type(got["p"]) is torch.nn.Parameter


def test_bfloat16_checkpoint_is_refused_clearly() -> None:
    buf = io.BytesIO()
    torch.save({"x": torch.ones(2, dtype=torch.bfloat16)}, buf)
    with pytest.raises(TypeError, match="cannot load a bfloat16 tensor"):
        st.load(io.BytesIO(buf.getvalue()))


def test_data_pkl_and_storages_are_byte_identical_to_torchs() -> None:
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    sm = st.nn.Sequential(st.nn.Linear(3, 2), st.nn.Tanh(), st.nn.Linear(2, 1))
    sm.load_state_dict({k: st.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tb, sb = torch.arange(6.0), st.arange(6.0)
    pairs = [(tm.state_dict(), sm.state_dict()),
             ({"b": tb, "v": tb[1:4], "p": torch.nn.Parameter(torch.ones(2)), "n": [1, "x"]},
              {"b": sb, "v": sb[1:4], "p": st.nn.Parameter(st.ones(2)), "n": [1, "x"]})]
    for theirs, ours in pairs:
        a, b = io.BytesIO(), io.BytesIO()
        torch.save(theirs, a)
        st.save(ours, b)
        za, zb = zipfile.ZipFile(a), zipfile.ZipFile(b)
        assert za.namelist() == zb.namelist()
        for name in za.namelist():
            if not name.endswith("serialization_id"):
                assert za.read(name) == zb.read(name), name
