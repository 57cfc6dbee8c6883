"""The names family (sorting, counting, triangles, diagonals, grids, ``nn.init`` extras)
without PyTorch: values, dtypes, ``grad_fn`` names and gradients against what PyTorch
2.13.0 gave (stored in ``names_values.json``), every gradient against central
differences in float64 (first and second order), and the error messages PyTorch raises.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pytest

import st_autodiff as torch

from .names_cases import CASES, DIFFERENTIABLE, EDGES, VALUES, edge_repr, leaves, run_case

STORED = json.loads(VALUES.read_text())["cases"]
STORED_EDGES = json.loads(VALUES.read_text())["edges"]


def same(got: Any, exp: Any, tol: float = 1e-12) -> bool:
    """Equal structure; numbers within ``tol`` (relative and absolute); 'nan' matches."""
    if isinstance(got, dict) and isinstance(exp, dict):
        return got.keys() == exp.keys() and all(same(got[k], exp[k], tol) for k in got)
    if isinstance(got, list) and isinstance(exp, list):
        return len(got) == len(exp) and all(same(a, b, tol) for a, b in zip(got, exp))
    if isinstance(got, float) and isinstance(exp, float):
        return abs(got - exp) <= tol * (1 + abs(exp))
    return type(got) is type(exp) and got == exp


def test_the_checker_fails_on_a_difference() -> None:
    assert same({"a": [1.0, "nan"]}, {"a": [1.0, "nan"]})
    assert not same({"a": [1.0, 2.0]}, {"a": [1.0, 2.0 + 1e-9]})
    assert not same([1, 2], [1, 2.0])
    assert not same({"grad_fn": "SortBackward0"}, {"grad_fn": "SortBackward1"})


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_stored_torch_output(name: str) -> None:
    """Outputs (type, dtype, shape, values, grad_fn) and input gradients as torch gave."""
    assert same(run_case(torch, name), STORED[name])


@pytest.mark.parametrize("expr", EDGES)
def test_edge_repr_matches_stored_torch(expr: str) -> None:
    assert edge_repr(torch, expr) == STORED_EDGES[expr]


# --- gradients against central differences ------------------------------------------------


def _weights(out: Any, k: int) -> np.ndarray:
    return np.cos(np.arange(out.numel()) * 0.7 + k).reshape(tuple(out.shape))


def _loss(name: str, xs: list, square: bool) -> Any:
    """``sum(w_k * out_k)`` (or ``out_k**2``) over the case's differentiable outputs."""
    fn = CASES[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fn(torch, *xs)
    outs = [o for o in (result if isinstance(result, tuple) else (result,))
            if o.dtype == torch.float64]
    total = torch.tensor(0.0, dtype=torch.float64)
    for k, o in enumerate(outs):
        term = o * o if square else o
        total = total + (term * torch.tensor(_weights(o, k))).sum()
    return total


def _numeric_grad(f: Any, arrays: list, eps: float = 1e-6) -> list:
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            hi = [b.copy() for b in arrays]
            lo = [b.copy() for b in arrays]
            hi[i][j] += eps
            lo[i][j] -= eps
            g[j] = (f(hi) - f(lo)) / (2 * eps)
        grads.append(g)
    return grads


def _float_inputs(name: str) -> list:
    return [a for a in CASES[name][1] if a.dtype.kind == "f"]


def _value(name: str, arrays: list, square: bool) -> float:
    with torch.no_grad():
        xs = [torch.tensor(a) for a in arrays]
        return float(_loss(name, xs, square))


#: central differences need finite inputs (the NaN cases are checked against torch above)
#: and no ties (median_ties, mode_float, topk_partial_sort), where the function has a kink
FINITE = [n for n in DIFFERENTIABLE if "grads" in STORED[n]
          and not any(np.isnan(a).any() for a in CASES[n][1])
          and n not in ("median_ties", "mode_float", "topk_partial_sort")]


@pytest.mark.parametrize("name", FINITE)
def test_gradient_matches_central_differences(name: str) -> None:
    xs = leaves(torch, name)
    loss = _loss(name, xs, square=True)
    grads = torch.autograd.grad(loss, xs, allow_unused=True)
    numeric = _numeric_grad(lambda arrays: _value(name, arrays, True), _float_inputs(name))
    for g, n in zip(grads, numeric, strict=True):
        got = np.zeros_like(n) if g is None else g.numpy()
        np.testing.assert_allclose(got, n, rtol=1e-6, atol=1e-7)


SECOND_ORDER = ["sort", "topk", "kthvalue", "median_dim", "median_all", "triu_k", "roll_dims",
                "rot90_k", "repeat_interleave_t", "diag_vec_k", "diag_embed_dims", "diag_mat",
                "cross", "fill_diagonal_", "frac", "meshgrid_xy", "cartesian_prod", "lerp_tensor",
                "clamp_min_tensor", "cumprod", "cummax", "logcumsumexp", "std_mean", "var_mean",
                "aminmax", "copysign", "block_diag", "combinations", "deg2rad", "addmv", "baddbmm",
                "addbmm", "tensordot", "kron", "trapezoid_x"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_order_matches_central_differences(name: str) -> None:
    """The gradient of ``<grad(loss), u>``, the first gradient built with create_graph."""
    xs = leaves(torch, name)
    u = [np.sin(np.arange(x.numel()) + 1.0).reshape(tuple(x.shape)) for x in xs]

    def first(arrays: list, create: bool) -> Any:
        ts = [torch.tensor(a, requires_grad=True) for a in arrays]
        gs = torch.autograd.grad(_loss(name, ts, True), ts, create_graph=create)
        return ts, sum((g * torch.tensor(w)).sum() for g, w in zip(gs, u, strict=True))

    ts, inner = first(_float_inputs(name), True)
    second = torch.autograd.grad(inner, ts, allow_unused=True)
    numeric = _numeric_grad(lambda arrays: float(first(arrays, False)[1]),
                            _float_inputs(name))
    for g, n in zip(second, numeric, strict=True):
        got = np.zeros_like(n) if g is None else g.numpy()
        np.testing.assert_allclose(got, n, rtol=1e-5, atol=1e-6)


# --- structure, reprs, in-place -----------------------------------------------------------


def test_return_type_repr_and_fields() -> None:
    r = torch.sort(torch.tensor([3, 1, 2]))
    assert repr(r) == ("torch.return_types.sort(\nvalues=tensor([1, 2, 3]),\n"
                       "indices=tensor([1, 2, 0]))")
    values, indices = r
    assert values is r.values and indices is r.indices and r[1] is indices
    k = torch.kthvalue(torch.tensor([3.0, 1.0, 2.0]), 2)
    assert repr(k) == "torch.return_types.kthvalue(\nvalues=tensor(2.),\nindices=tensor(2))"
    assert type(torch.nanmedian(torch.tensor([[1.0]]), 0)).__name__ == "nanmedian"


def test_indices_never_require_grad() -> None:
    x = torch.tensor([[0.3, -1.0, 2.0]], requires_grad=True)
    for r in (torch.sort(x), torch.topk(x, 2), torch.median(x, 1), torch.mode(x, 1)):
        assert r.values.requires_grad and not r.indices.requires_grad
        assert r.indices.dtype == torch.int64 and r.indices.grad_fn is None


def test_inplace_triangle_keeps_identity_and_bumps_version() -> None:
    x = torch.ones(3, 3)
    y = x.triu_(1)
    assert y is x and x._version == 1
    assert x.tolist() == [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    a = torch.ones(2, 2, requires_grad=True)
    b = a * 2
    b.tril_()
    assert type(b.grad_fn).__name__ == "TrilBackward0"


def test_meshgrid_without_indexing_warns() -> None:
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grids = torch.meshgrid(torch.arange(2), torch.arange(3))
    assert [tuple(g.shape) for g in grids] == [(2, 3), (2, 3)]


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3() -> None:
    a = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg"):
        c = torch.cross(a, a.roll(1, 0))
    assert c.tolist() == [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]


# errors, as PyTorch 2.13.0 words them
ERRORS = [
    (lambda: torch.bincount(torch.tensor([1, 2, -1])), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda: torch.bincount(torch.tensor([1.0])), NotImplementedError,
     "\"bincount_cpu\" not implemented for 'Float'"),
    (lambda: torch.bincount(torch.tensor([1, 2]), torch.tensor([1.0])), RuntimeError,
     "weights should be 1-d and have the same length as input"),
    (lambda: torch.histc(torch.tensor([1, 2])), NotImplementedError,
     "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda: torch.searchsorted(torch.tensor([1.0, 2]), torch.tensor([1.0]), side="x"),
     RuntimeError, "torch.searchsorted(): side can only be 'left' or 'right' but got x"),
    (lambda: torch.unique(torch.tensor([1, 2]), dim=3), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
    (lambda: torch.triu(torch.tensor([1])), RuntimeError,
     "triu: input tensor must have at least 2 dimensions"),
    (lambda: torch.topk(torch.tensor([1.0, 2]), 3), RuntimeError,
     "selected index k out of range"),
    (lambda: torch.kthvalue(torch.tensor([1.0, 2]), 3), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 0"),
    (lambda: torch.frac(torch.tensor([1])), NotImplementedError,
     "\"frac_cpu\" not implemented for 'Long'"),
    (lambda: torch.roll(torch.ones(2, 2), (1, 2)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:0"),
    (lambda: torch.roll(torch.ones(2, 2), 1, (0, 1)), RuntimeError,
     "shifts and dimensions must align. shifts: 1, dims:2"),
    (lambda: torch.median(torch.ones(2, 0), 1), IndexError,
     "median(): Expected reduction dim 1 to have non-zero size."),
    (lambda: torch.diag(torch.ones(2, 2, 2)), RuntimeError,
     "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: torch.bitwise_and(torch.ones(2), torch.ones(2)), NotImplementedError,
     "\"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda: torch.heaviside(torch.ones(2), torch.ones(2, dtype=torch.int64)), RuntimeError,
     "heaviside is not yet implemented for tensors with different dtypes."),
    (lambda: torch.sort(torch.ones(2), dim=2), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 2)"),
    (lambda: torch.ones(2).fill_diagonal_(1), RuntimeError, "dimensions must larger than 1"),
    (lambda: torch.ones(2, 3, 4).fill_diagonal_(1), RuntimeError,
     "all dimensions of input must be of equal length"),
    (lambda: torch.nn.init.orthogonal_(torch.ones(3)), ValueError,
     "Only tensors with 2 or more dimensions are supported"),
    (lambda: torch.nn.init.eye_(torch.ones(3)), ValueError,
     "Only tensors with 2 dimensions are supported"),
    (lambda: torch.nn.init.dirac_(torch.ones(3, 3)), ValueError,
     "Only tensors with 3, 4, or 5 dimensions are supported"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_error_messages(k: int) -> None:
    fn, kind, message = ERRORS[k]
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == message


# --- nn.init --------------------------------------------------------------------------------

#: nn.init draws by PyTorch 2.13.0 after ``torch.manual_seed(0)`` on ``torch.empty(shape)``.
#: The default generator's float32 normals can differ from PyTorch's in the last bit, so
#: the comparison allows 2e-7 relative (1e-6 after the float32 QR of ``orthogonal_``,
#: whose LAPACK may round differently from PyTorch's).
INIT_TORCH = {
    "trunc_normal_std": ((2, 3), lambda t: torch.nn.init.trunc_normal_(t, std=0.02),
                         [[0.0308199227, -0.00586857833, -0.0435757861],
                          [0.0113686258, -0.0216904469, -0.0279719085]]),
    "trunc_normal_narrow": ((6,), lambda t: torch.nn.init.trunc_normal_(t, a=1.0, b=1.5),
                            [1.24812829, 1.0844295, 1.04423869, 1.06601524, 1.15371144,
                             1.31703937]),
    "orthogonal": ((3, 3), lambda t: torch.nn.init.orthogonal_(t),
                   [[0.911134839, 0.0751304179, 0.405201823],
                    [0.33609271, -0.704463243, -0.625118732],
                    [0.238484323, 0.705752909, -0.667111754]]),
    "orthogonal_wide": ((2, 4), lambda t: torch.nn.init.orthogonal_(t, gain=2.0),
                        [[1.12306547, -0.213848576, -1.58788407, 0.414268076],
                         [-0.781196535, -1.53620028, -0.0817355439, 1.01150382]]),
    "eye": ((2, 3), lambda t: torch.nn.init.eye_(t), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    "dirac_groups": ((4, 2, 3), lambda t: torch.nn.init.dirac_(t, 2),
                     [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
}


@pytest.mark.parametrize("name", sorted(INIT_TORCH))
def test_init_draws_match_stored_torch_values(name: str) -> None:
    shape, fill, expected = INIT_TORCH[name]
    torch.manual_seed(0)
    t = torch.empty(*shape)
    out = fill(t)
    assert out is t and t.dtype == torch.float32
    rtol = 1e-6 if name.startswith("orthogonal") else 2e-7
    np.testing.assert_allclose(t.numpy(), np.array(expected, np.float32), rtol=rtol, atol=1e-7)


def test_orthogonal_is_orthogonal_and_trunc_normal_stays_in_range() -> None:
    torch.manual_seed(3)
    w = torch.nn.init.orthogonal_(torch.empty(5, 2, 4, dtype=torch.float64), gain=0.5)
    m = w.reshape(5, 8).numpy()
    np.testing.assert_allclose(m @ m.T, 0.25 * np.eye(5), atol=1e-12)
    t = torch.nn.init.trunc_normal_(torch.empty(2000), mean=0.5, std=2.0, a=-1.0, b=1.0)
    assert float(t.min()) >= -1.0 and float(t.max()) <= 1.0
    alpha, beta = (-1.0 - 0.5) / 2.0, (1.0 - 0.5) / 2.0

    def pdf(z: float) -> float:
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def cdf(z: float) -> float:
        return (1 + math.erf(z / math.sqrt(2))) / 2

    expected_mean = 0.5 + 2.0 * (pdf(alpha) - pdf(beta)) / (cdf(beta) - cdf(alpha))
    assert abs(float(t.mean()) - expected_mean) < 0.05
    assert math.isclose(torch.nn.init.calculate_gain("leaky_relu", 0.2),
                        math.sqrt(2.0 / 1.04))


def test_std_sort_replay_sorts_and_is_stable_up_to_16() -> None:
    """The replay of ``std::sort`` gives a sorting permutation at every length, and the
    stable order for up to 16 elements (its insertion-sort range)."""
    from st_autodiff.runtime.introsort import std_sort_order

    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 5, 16, 17, 40, 300):
        keys = rng.integers(0, 4, n).tolist()
        order = std_sort_order(keys, lambda x, y: x < y)
        assert sorted(order) == list(range(n))
        assert [keys[i] for i in order] == sorted(keys)
        if n <= 16:
            assert order == sorted(range(n), key=lambda i: keys[i])
    from st_autodiff.runtime.introsort import std_nth_element_order, std_partial_sort_order

    for n in (1, 3, 4, 17, 90):
        keys = rng.integers(0, 5, n).tolist()
        for k in {0, n // 2, n - 1}:
            order = std_nth_element_order(keys, k, lambda x, y: x < y)
            assert sorted(order) == list(range(n)) and keys[order[k]] == sorted(keys)[k]
            head = std_partial_sort_order(keys, k, lambda x, y: x < y)[:k]
            assert [keys[i] for i in head] == sorted(keys)[:k]
    worst = list(range(200, 0, -1)) * 3  # many partition levels
    assert [worst[i] for i in std_sort_order(worst, lambda x, y: x < y)] == sorted(worst)


def test_stride_and_storage_offset() -> None:
    """As PyTorch 2.13.0 gives them for a contiguous (2, 3) tensor and its views."""
    x = torch.arange(6.0).reshape(2, 3)
    assert x.stride() == (3, 1) and x.t().stride() == (1, 3) and x.stride(-1) == 1
    assert x.storage_offset() == 0 and x[1:].storage_offset() == 3
    assert x[:, 2].storage_offset() == 2 and x[1, 1:].stride() == (1,)


@pytest.mark.parametrize("fill", [
    lambda t: torch.nn.init.trunc_normal_(t), lambda t: torch.nn.init.orthogonal_(t),
    lambda t: torch.nn.init.eye_(t), lambda t: torch.nn.init.dirac_(t.view(2, 3, 1)),
    lambda t: torch.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
    lambda t: torch.nn.init.xavier_normal_(t), lambda t: torch.nn.init.constant_(t, 0.5),
])
def test_init_fills_leaves_that_require_grad(fill: Any) -> None:
    """As on ``nn.Parameter``s: written under no_grad, still a leaf that requires grad."""
    w = torch.empty(2, 3, requires_grad=True)
    fill(w)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None


GAINS_TORCH = [  # calculate_gain as PyTorch 2.13.0 returns it
    (("linear",), 1), (("conv_transpose3d",), 1), (("sigmoid",), 1), (("tanh",), 5.0 / 3),
    (("relu",), math.sqrt(2.0)), (("leaky_relu",), math.sqrt(2.0 / (1 + 0.01**2))),
    (("leaky_relu", 0.2), math.sqrt(2.0 / 1.04)), (("selu",), 0.75),
]


def test_calculate_gain() -> None:
    for args, expected in GAINS_TORCH:
        assert torch.nn.init.calculate_gain(*args) == expected
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        torch.nn.init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        torch.nn.init.calculate_gain("gelu")


@pytest.mark.parametrize("make", [
    lambda x: torch.vander(x[0], 4), lambda x: torch.vander(x[0], increasing=True),
    lambda x: torch.corrcoef(x), lambda x: torch.cov(x, correction=0),
])
def test_composites_torch_cannot_differentiate_match_central_differences(make: Any) -> None:
    """PyTorch 2.13 fails in backward through ``vander`` and ``corrcoef``: checked here
    against central differences only."""
    base = np.array([[0.3, -1.1, 0.8, 1.7], [0.9, 0.2, -0.4, 1.1], [1.5, -0.6, 0.1, 0.4]])
    w = np.cos(np.arange(16.0))

    def f(arrays: list) -> float:
        with torch.no_grad():
            out = make(torch.tensor(arrays[0]))
        return float((out * torch.tensor(w[:out.numel()].reshape(tuple(out.shape)))).sum())

    x = torch.tensor(base, requires_grad=True)
    out = make(x)
    (g,) = torch.autograd.grad((out * torch.tensor(w[:out.numel()].reshape(tuple(out.shape))))
                               .sum(), x)
    np.testing.assert_allclose(g.numpy(), _numeric_grad(f, [base])[0], rtol=1e-6, atol=1e-7)


def test_inplace_shape_methods() -> None:
    """``t_``/``transpose_``/``squeeze_``/``unsqueeze_`` as in PyTorch 2.13.0: same tensor,
    new shape, version bumped, PyTorch's node names, gradients through the old shape."""
    y = torch.arange(6.0).reshape(2, 3)
    assert y.t_() is y and tuple(y.shape) == (3, 2) and y._version == 1
    assert y.stride() == (1, 3) and y.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    a = w * 2
    a.transpose_(0, 1)
    assert a.grad_fn.name() == "TransposeBackward1"
    (a * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert w.grad.tolist() == [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]]
    for args, name in (((), "SqueezeBackward3"), ((1,), "SqueezeBackward4"),
                       (((1,),), "SqueezeBackward5")):
        b = torch.ones(2, 1, 3, requires_grad=True) * 2
        b.squeeze_(*args)
        assert b.grad_fn.name() == name and tuple(b.shape) == (2, 3)
    c = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        c.unsqueeze_(0)
    d = c * 1
    d.unsqueeze_(-1)
    assert d.grad_fn.name() == "UnsqueezeBackward1" and tuple(d.shape) == (2, 3, 1)
