"""The names family against live PyTorch: every case of ``names_cases`` (outputs,
dtypes, ``grad_fn`` names, gradients), the stored reference file being current, reprs,
error messages, warnings and ``nn.init`` draws under the same seed."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import numpy as np
import pytest

import st_autodiff

from .names_cases import CASES, EDGES, VALUES, edge_repr, run_case
from .test_names import ERRORS, same

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_torch(name: str) -> None:
    assert same(run_case(st_autodiff, name), run_case(torch, name))


def test_stored_values_are_what_this_torch_gives() -> None:
    stored = json.loads(VALUES.read_text())
    for name in CASES:
        assert same(stored["cases"][name], run_case(torch, name), tol=0.0), name
    assert stored["edges"] == {e: edge_repr(torch, e) for e in EDGES}


REPRS = [
    "torch.sort(torch.tensor([[3., 1., 2.], [0., -1., 5.]]), descending=True)",
    "torch.topk(torch.tensor([3., 1., 2., 7.]), 2, largest=False)",
    "torch.median(torch.tensor([[3., 1., 2.], [0., -1., 5.]]), 1, keepdim=True)",
    "torch.mode(torch.tensor([1, 2, 2, 3]))",
    "torch.kthvalue(torch.tensor([3., 1., 2.]), 1)",
    "torch.unique(torch.tensor([3, 1, 3]), return_counts=True)",
    "torch.triu_indices(3, 3)",
    "torch.bincount(torch.tensor([0, 2, 2]), minlength=4)",
    "torch.histc(torch.tensor([0.5, 1.5, 1.7, 3.0]), bins=3, min=0, max=3)",
    "torch.tensor([[1., 2.], [3., 4.]], requires_grad=True).sort(0).values",
    "torch.tensor([[1., 2.], [3., 4.]], requires_grad=True).triu(1)",
    "torch.tensor([[1., 2.], [3., 4.]], requires_grad=True).roll(1, 1)",
    "torch.tensor([1., 2.], requires_grad=True).diag()",
]


@pytest.mark.parametrize("expr", EDGES)
def test_edge_matches_torch(expr: str) -> None:
    assert edge_repr(st_autodiff, expr) == edge_repr(torch, expr)


@pytest.mark.parametrize("expr", REPRS)
def test_repr_matches_torch(expr: str) -> None:
    got = repr(eval(expr, {"torch": st_autodiff}))
    assert got == repr(eval(expr, {"torch": torch}))


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_error_matches_torch(k: int) -> None:
    """The stored message of ``ERRORS[k]`` is what PyTorch says for the same call."""
    fn, kind, message = ERRORS[k]
    code = fn.__code__
    env = dict(fn.__globals__, torch=torch)
    with pytest.raises(kind) as info:
        eval(code, env)
    assert str(info.value) == message


def _warnings(lib: Any, code: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(code, {"torch": lib})
    # PyTorch appends where in its C++ sources a warning was raised: not part of the message
    return [re.sub(r" \(Triggered internally at [^)]*\)", "", f"{w.category.__name__}: "
                   f"{w.message}") for w in caught]


@pytest.mark.parametrize("code", [
    "torch.meshgrid(torch.arange(2), torch.arange(3))",
    "torch.cross(torch.ones(3, 2), torch.ones(3, 2))",
    "torch.nn.init.trunc_normal_(torch.empty(3), mean=5.0)",
])
def test_warning_matches_torch(code: str) -> None:
    assert _warnings(st_autodiff, code) == _warnings(torch, code)


def _draw(lib: Any, shape: tuple, fill: Any, dtype: str) -> np.ndarray:
    lib.manual_seed(0)
    t = lib.empty(*shape, dtype=getattr(lib, dtype))
    fill(lib, t)
    return t.detach().numpy().copy()


INIT_LIVE = [
    ((64, 33), lambda L, t: L.nn.init.trunc_normal_(t, std=0.02)),
    ((200,), lambda L, t: L.nn.init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=3.0)),
    ((300,), lambda L, t: L.nn.init.trunc_normal_(t, a=1.0, b=1.5)),
    ((5, 3, 2), lambda L, t: L.nn.init.orthogonal_(t, gain=2.0)),
    ((16, 40), lambda L, t: L.nn.init.orthogonal_(t)),
    ((8, 5, 3), lambda L, t: L.nn.init.kaiming_normal_(t, mode="fan_out",
                                                       nonlinearity="relu")),
    ((8, 5), lambda L, t: L.nn.init.xavier_normal_(t, gain=L.nn.init.calculate_gain("tanh"))),
    ((3, 5), lambda L, t: L.nn.init.eye_(t)),
    ((4, 2, 3, 3), lambda L, t: L.nn.init.dirac_(t, 2)),
]


@pytest.mark.parametrize("k", range(len(INIT_LIVE)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_draw_matches_torch(k: int, dtype: str) -> None:
    """Same seed, same numbers: float64 to 1e-12; float32 to the last bits (the generator's
    float32 normals and the float32 QR may round differently)."""
    shape, fill = INIT_LIVE[k]
    ours = _draw(st_autodiff, shape, fill, dtype)
    theirs = _draw(torch, shape, fill, dtype)
    tol = 1e-12 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_every_added_method_and_name_exists_in_torch() -> None:
    """No Tensor method or torch.* name of the family that PyTorch lacks (``Tensor.isin``
    is not one, for instance)."""
    from st_autodiff.runtime import tensor_more_methods as methods
    from st_autodiff.runtime.namespace import NAMES

    added = [n for names in methods._FROM.values() for n in names.split()]
    added += list(methods._INPLACE) + list(methods._INPLACE_VIEWS)
    assert [n for n in added if not hasattr(torch.Tensor, n)] == []
    assert [n for n in NAMES if not hasattr(torch, n)] == []
