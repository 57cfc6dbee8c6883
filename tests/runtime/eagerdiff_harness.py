"""Differential programs for the eager runtime: a program is Python source run with ``torch``
bound to either PyTorch or st_autodiff; ``observe`` records everything a tutorial could
print about it (values, dtypes, shapes, ``requires_grad``, ``is_leaf``, ``grad_fn`` names and
``next_functions``, gradients from ``backward`` and ``autograd.grad`` including double
backward, hook order, and the error type and message where one is raised).

``gen_program`` builds a random program from a Hypothesis ``draw`` function.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

FLOAT_DTYPES = ("float32", "float64")
SHAPES: tuple[tuple[int, ...], ...] = ((), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (4,), (2, 3, 4))


def node_tree(fn: Any, depth: int = 3) -> Any:
    if fn is None:
        return None
    name = type(fn).__name__
    if depth == 0:
        return name
    try:
        nxt = fn.next_functions
    except Exception as e:  # noqa: BLE001
        return [name, f"!{type(e).__name__}"]
    return [name, [[node_tree(f, depth - 1), i] for f, i in nxt]]


def describe(torch: Any, x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        try:
            fn = x.grad_fn
        except RuntimeError as e:  # PyTorch: a multi-output view whose base changed in place
            fn = None
            return {"grad_fn_error": str(e).split(".")[0]}
        d: dict[str, Any] = {
            "dtype": str(x.dtype).replace("torch.", ""),
            "shape": list(x.shape),
            "requires_grad": x.requires_grad,
            "is_leaf": x.is_leaf,
            "grad_fn": node_tree(fn),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                vals = x.detach().tolist()
            except RuntimeError:  # PyTorch's efficient zero tensors have no storage
                vals = torch.zeros(tuple(x.shape), dtype=x.dtype).tolist()
            d["value"] = np.array(vals, dtype=np.float64 if x.dtype != torch.bool else bool)
        return d
    if isinstance(x, (tuple, list)):
        kind = type(x).__name__ if type(x).__name__ in ("tuple", "list") else "tuple"
        return [kind] + [describe(torch, e) for e in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, dict):
        return {k: describe(torch, v) for k, v in x.items()}
    return repr(type(x).__name__)


def run_program(torch: Any, src: str) -> dict[str, Any]:
    """Run ``src``; return its ``out`` dict described, or the error it raised."""
    env: dict[str, Any] = {"torch": torch, "F": torch.nn.functional, "nn": torch.nn,
                           "out": {}, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np_err = np.seterr(all="ignore")
        try:
            exec(src, env)  # noqa: S102
            err = None
        except Exception as e:  # noqa: BLE001
            err = [type(e).__name__, str(e).split("\n")[0]]
        finally:
            np.seterr(**np_err)
    res = {k: describe(torch, v) for k, v in env["out"].items()}
    if err is not None:
        res["error"] = err
    return res


def diff(a: Any, b: Any, path: str = "", rtol: float = 1e-4, atol: float = 1e-5) -> list[str]:
    """Differences between two observations (``a`` ours, ``b`` torch)."""
    out: list[str] = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                mine, theirs = a.get(k, "<missing>"), b.get(k, "<missing>")
                out.append(f"{path}.{k}: ours={mine!r} torch={theirs!r}")
            else:
                out += diff(a[k], b[k], f"{path}.{k}", rtol, atol)
        return out
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_, b_ = np.asarray(a), np.asarray(b)
        if a_.shape != b_.shape:
            return [f"{path}: shape {a_.shape} vs {b_.shape}"]
        if a_.dtype == bool or b_.dtype == bool:
            if not np.array_equal(a_, b_):
                out.append(f"{path}: {a_} vs {b_}")
            return out
        if not np.allclose(a_, b_, rtol=rtol, atol=atol, equal_nan=True):
            out.append(f"{path}: {a_.tolist()} vs {b_.tolist()}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {a!r} vs {b!r}"]
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f"{path}[{i}]", rtol, atol)
        return out
    if isinstance(a, float) and isinstance(b, float):
        if not (a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= atol + rtol * abs(b)):
            out.append(f"{path}: {a!r} vs {b!r}")
        return out
    if type(a) is not type(b) or a != b:
        out.append(f"{path}: ours={a!r} torch={b!r}")
    return out


# --- documented differences (docs/eager_runtime.md, "Known differences") ----------------------

#: ops whose node names differ by design (composite functions recording several nodes,
#: PyTorch's own overload numbering of ops the runtime records through another node), ops
#: whose shape-mismatch messages are the generic matmul ones, and the missing losses
KNOWN_EXCLUDE: tuple[str, ...] = (
    # composite functions recording several nodes (docs: known differences)
    "addcmul", "addcdiv", "lerp", "dist(", "outer", "trace", "nansum", "cumsum", "cumprod",
    # records the remainder / fmod through another overload; floor division has no node
    "fmod", "remainder", " % ", " // ",
    # PyTorch raises in the double backward ("not implemented"); the runtime differentiates
    "hardsigmoid",
    # einsum records PyTorch's permute/bmm chain differently (values agree)
    "einsum",
    # 0-d and degenerate inputs where the runtime accepts what PyTorch refuses (or the
    # reverse): listed as open in the eagerdiff report
    ".mT", "movedim", "squeeze(", "mean((", "nonzero", "permute(*reversed",
    "binary_cross_entropy_with_logits",
    # open (see the eagerdiff report): tensordot's node chain, the index kthvalue picks
    # among ties, F.linear with a 1-d weight, soft_margin_loss broadcasting a 0-d input
    "tensordot", "kthvalue", "F.linear", "soft_margin",
    # not provided
    "unfold", "renorm", "glu", "poisson_nll", "gaussian_nll", "triplet", "cosine_embedding",
    "multi_margin",
    "hinge_embedding",
)


def known_difference(d: str) -> bool:
    """A reported difference that docs/eager_runtime.md lists: node names of graphs built
    by ``create_graph=True`` (the table rules' elementary ops)."""
    return re.match(r"\.(grads2?|s)(\[\d+\])?\.grad_fn", d) is not None


def both_raise_differently(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Both libraries raised, with another type or message (error texts for malformed
    shapes are compared exactly only in the regression tests of the ones fixed); or
    PyTorch's backward of a loss with a float32 input and a float64 target (``huber_loss``
    ...) failing with "Found dtype Double but expected Float", a PyTorch bug the runtime
    does not copy (it returns the gradient)."""
    if "error" in b and "error" not in a and b["error"][1].startswith("Found dtype "):
        return True
    return "error" in a and "error" in b and a["error"] != b["error"]


# --- random programs -------------------------------------------------------------------------


def _lit(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> str:
    if dtype == "bool":
        v = rng.integers(0, 2, size=shape).astype(bool)
        return f"torch.tensor({v.tolist()!r})"
    if dtype == "int64":
        v = rng.integers(-3, 4, size=shape)
        return f"torch.tensor({v.tolist()!r})"
    v = np.array(np.round(rng.uniform(-2, 2, size=shape), 2))
    v[np.abs(v) < 0.05] = 0.3
    return f"torch.tensor({v.tolist()!r}, dtype=torch.{dtype})"


UNARY = ['exp', 'tanh', 'sigmoid', 'relu', 'abs', 'neg', 'sin', 'cos', 'square', 'sign', 'floor',
    'reciprocal', 'sqrt', 'log', 'expm1', 'log1p', 'rsqrt', 'erf', 'atan', 'sinh', 'trunc']
UNARY_F = ['F.relu({x})', 'F.gelu({x})', 'F.silu({x})', 'F.softplus({x})', 'F.elu({x})',
    'F.leaky_relu({x}, 0.1)', 'F.hardtanh({x})', 'F.logsigmoid({x})', 'F.relu6({x})',
    'F.hardswish({x})', 'F.mish({x})', 'F.hardsigmoid({x})', 'F.softsign({x})',
    'F.tanhshrink({x})', 'F.selu({x})', 'F.celu({x})']
BINARY = ['{x} + {y}', '{x} - {y}', '{x} * {y}', '{x} / {y}', 'torch.maximum({x}, {y})',
    'torch.minimum({x}, {y})', '{x} ** 2', '2.0 - {x}', '{x} / 3', '3 / {x}',
    'torch.atan2({x}, {y})', '{x} ** {y}', '{x} // {y}', '{x} % {y}',
    'torch.add({x}, {y}, alpha=2)', 'torch.sub({x}, {y}, alpha=0.5)', '{x} > {y}', '{x} == {y}',
    'torch.where({x} > 0, {x}, {y})', 'torch.lerp({x}, {y}, 0.3)', 'torch.hypot({x}, {y})',
    'torch.addcmul({x}, {x}, {y}, value=0.5)', 'torch.addcdiv({x}, {x}, {y}, value=0.5)',
    '{x} @ {y}', 'torch.matmul({x}, {y})', 'torch.fmod({x}, {y})', 'torch.remainder({x}, {y})',
    'torch.xlogy({x}, {y})', 'torch.copysign({x}, {y})', '{x}.pow(3)', 'torch.pow(2, {x})',
    'torch.true_divide({x}, {y})', "torch.div({x}, {y}, rounding_mode='floor')",
    "torch.div({x}, {y}, rounding_mode='trunc')", '{x} & {y}', '{x} | {y}', '~{x}',
    'torch.logical_and({x}, {y})', 'torch.dist({x}, {y})', 'torch.cross({x}, {y}, dim=-1)']
REDUCE = ['{x}.sum()', '{x}.sum({d})', '{x}.sum({d}, keepdim=True)', '{x}.mean()', '{x}.mean({d})',
    '{x}.mean({d}, keepdim=True)', '{x}.prod()', '{x}.prod({d})', '{x}.max()', '{x}.min()',
    '{x}.max({d})', '{x}.min({d}, keepdim=True)', '{x}.amax({d})', '{x}.amin({d}, keepdim=True)',
    '{x}.argmax()', '{x}.argmax({d})', '{x}.std()', '{x}.var({d})', '{x}.std({d}, keepdim=True)',
    '{x}.var(unbiased=False)', '{x}.norm()', '{x}.norm(dim={d})', '{x}.norm(p=1)',
    'torch.logsumexp({x}, {d})', '{x}.cumsum({d})', '{x}.cumprod({d})', 'torch.softmax({x}, {d})',
    'torch.log_softmax({x}, {d})', 'F.softmax({x}, dim={d})', 'F.normalize({x}, dim={d})',
    '{x}.sort({d})', '{x}.sort({d}, descending=True)[0]', '{x}.topk(1, {d})', '{x}.median()',
    '{x}.median({d})', '{x}.all()', '{x}.any({d})', '{x}.count_nonzero()',
    '{x}.sum(dtype=torch.float64)', 'torch.cummax({x}, {d})', '{x}.flip({d})', '{x}.roll(1, {d})',
    '{x}.unbind({d})', '{x}.chunk(2, {d})', '{x}.split(1, {d})', '{x}.split([1, 1], {d})',
    '{x}.nansum()', '{x}.var_mean({d})', 'torch.std_mean({x})', '{x}.aminmax()',
    '{x}.mean(({d}, -1))', '{x}.sum(({d},))', '{x}.logcumsumexp({d})', 'F.log_softmax({x}, {d})',
    '{x}.kthvalue(1, {d})', '{x}.mode({d})', 'torch.trace({x})', '{x}.diagonal()', '{x}.diag()',
    '{x}.tril()', '{x}.triu(1)', '{x}.renorm(2, {d}, 1.0)']
SHAPEOPS = ['{x}.t()', '{x}.T', '{x}.mT', '{x}.reshape(-1)', '{x}.view(-1)', '{x}.flatten()',
    '{x}.unsqueeze(0)', '{x}.squeeze()', '{x}.squeeze({d})', '{x}.transpose(0, -1)',
    '{x}.permute(*reversed(range({x}.dim())))', '{x}.expand(2, *{x}.shape)',
    '{x}.repeat(2, *([1] * {x}.dim()))', '{x}[0]', '{x}[..., 1:]', '{x}[::2]', '{x}[-1]',
    '{x}[None]', '{x}[{x} > 0]', '{x}[torch.tensor([0, 0])]', '{x}[[1, 0]]', '{x}[:, [0, 2]]',
    '{x}[..., 0]', '{x}.narrow(0, 0, 1)', '{x}.select(0, 1)', 'torch.cat([{x}, {y}])',
    'torch.cat([{x}, {y}], {d})', 'torch.stack([{x}, {y}])', 'torch.stack([{x}, {y}], -1)',
    '{x}.contiguous()', '{x}.clone()', '{x}.detach()', '{x}.float()', '{x}.double()', '{x}.long()',
    '{x}.to(torch.float32)', '{x}.bool()', '{x}.type_as({y})', '{x}.masked_fill({y} > 0, 0.5)',
    '{x}.clamp(-0.5, 0.5)', '{x}.clamp(min=0)', '{x}.clamp(max={y})', '{x}.clamp_min(0.1)',
    'torch.clip({x}, -1, 1)', '{x}.gather({d}, torch.zeros_like({x}, dtype=torch.long))',
    "torch.einsum('ij,jk->ik', {x}, {y})", "torch.einsum('...i,...i->...', {x}, {y})",
    "torch.einsum('ij->ji', {x})", 'torch.bmm({x}, {y})', 'torch.mm({x}, {y})',
    'torch.mv({x}, {y})', 'torch.outer({x}, {y})', 'torch.dot({x}, {y})', '{x}.unfold(0, 2, 1)',
    '{x}.movedim(0, -1)', '{x}.index_select({d}, torch.tensor([0]))',
    'torch.take({x}, torch.tensor([0, 1]))', '{x}.masked_select({x} > 0)', 'torch.nonzero({x})',
    '{x}.view_as({y})', '{x}.reshape_as({y})', '{x}.expand_as({y})',
    'torch.broadcast_tensors({x}, {y})', '{x}.split(2)', 'torch.tensordot({x}, {y}, 1)',
    '{x}.new_zeros(2)', 'torch.zeros_like({x})', '{x}.abs_()', '{x}.mul_(2)', '{x}.add_({y})',
    '{x}.clamp_(0, 1)', '{x}.zero_()', '{x}.fill_(2.0)', '{x}.sigmoid_()', '{x}.exp_()',
    '{x}.relu_()', '{x}.copy_({y})', '{x}.masked_fill_({x} > 0, 1.0)',
    '{x}.index_add(0, torch.tensor([0]), {y})',
    '{x}.scatter(0, torch.zeros_like({x}, dtype=torch.long), {y})',
    '{x}.scatter_add(0, torch.zeros_like({x}, dtype=torch.long), {x})', 'torch.diff({x})',
    '{x}.repeat_interleave(2)', '{x}.tile((2,))', 'torch.atleast_2d({x})',
    'torch.flatten({x}, 0, -1)', '{x}.unflatten(0, (1, -1))', 'torch.squeeze({x}, 0)',
    '{x}.baddbmm({y}, {y})']
LOSSES = ['F.mse_loss({x}, {y}{r})', 'F.l1_loss({x}, {y}{r})', 'F.smooth_l1_loss({x}, {y}{r})',
    'F.huber_loss({x}, {y}{r}, delta=0.5)',
    'F.binary_cross_entropy(torch.sigmoid({x}), torch.sigmoid({y}).detach(){r})',
    'F.binary_cross_entropy_with_logits({x}, torch.sigmoid({y}).detach(){r})',
    'F.cross_entropy({x}, torch.tensor([0, 2]){r})',
    'F.cross_entropy({x}, torch.tensor([0, 2]){r}, label_smoothing=0.1)',
    'F.nll_loss(F.log_softmax({x}, -1), torch.tensor([1, 0]){r})',
    'F.cross_entropy({x}, torch.softmax({y}, -1){r})',
    'F.kl_div(F.log_softmax({x}, -1), torch.softmax({y}, -1){r})',
    'F.soft_margin_loss({x}, torch.sign({y}){r})', 'F.cosine_similarity({x}, {y})',
    'F.pairwise_distance({x}, {y})', 'F.poisson_nll_loss({x}, {y}.abs(){r})',
    'F.gaussian_nll_loss({x}, {y}, {y}.abs() + 0.1{r})',
    'F.hinge_embedding_loss({x}, torch.sign({y}){r})',
    'F.margin_ranking_loss({x}, {y}, torch.sign({y}){r})',
    'F.cross_entropy({x}, torch.tensor([0, -100]){r})',
    'F.multi_margin_loss({x}, torch.tensor([0, 2]){r})',
    'F.cosine_embedding_loss({x}, {y}, torch.tensor([1, -1]){r})', 'F.linear({x}, {y})',
    'F.dropout({x}, 0.0)', 'F.layer_norm({x}, {x}.shape[-1:])', 'F.pad({x}, (1, 2))',
    'F.one_hot(torch.tensor([0, 2]), 3)', 'F.embedding(torch.tensor([0, 1, 0]), {x})',
    'F.glu({x}.repeat(1, 2))', 'F.softmin({x}, -1)',
    'F.triplet_margin_loss({x}, {y}, {x}.flip(0){r})']
REDUCTIONS = ["", ", reduction='mean'", ", reduction='sum'", ", reduction='none'"]


ALL_DTYPES = FLOAT_DTYPES + ("float32", "float64", "int64", "bool")


def gen_program(draw: Callable[[Any], Any], st: Any, dtypes: tuple[str, ...] = ALL_DTYPES,
                exclude: tuple[str, ...] = (),
                shapes: tuple[tuple[int, ...], ...] = SHAPES) -> str:
    """Random program: leaves, a few ops, a scalar loss, backward, ``autograd.grad`` with
    ``create_graph`` and a second derivative."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    lines: list[str] = []
    names: list[str] = []
    n_leaves = draw(st.integers(1, 3))
    leaves: list[str] = []
    for i in range(n_leaves):
        shape = draw(st.sampled_from(shapes))
        dtype = draw(st.sampled_from(dtypes))
        rg = dtype in FLOAT_DTYPES and draw(st.booleans() if i else st.just(True))
        name = f"a{i}"
        lines.append(f"{name} = {_lit(rng, shape, dtype)}" + (".requires_grad_()" if rg else ""))
        names.append(name)
        leaves.append(name)
        if rg:
            if draw(st.booleans()):
                lines.append(f"{name}.register_hook(lambda g, n='{name}': hooks.append(n))")
    lines.insert(0, "hooks = []")
    n_ops = draw(st.integers(1, 5))
    for j in range(n_ops):
        kind = draw(st.sampled_from(["unary", "unaryf", "binary", "reduce", "shape", "shape",
                                     "loss"]))
        x = draw(st.sampled_from(names))
        y = draw(st.sampled_from(names))
        d = draw(st.sampled_from([0, -1, 1]))
        if kind == "unary":
            expr = f"torch.{draw(st.sampled_from(UNARY))}({x})"
        elif kind == "unaryf":
            expr = draw(st.sampled_from(UNARY_F)).format(x=x)
        elif kind == "binary":
            expr = draw(st.sampled_from(BINARY)).format(x=x, y=y)
        elif kind == "reduce":
            expr = draw(st.sampled_from(REDUCE)).format(x=x, d=d)
        elif kind == "shape":
            expr = draw(st.sampled_from(SHAPEOPS)).format(x=x, y=y, d=d)
        else:
            red = draw(st.sampled_from(REDUCTIONS))
            expr = draw(st.sampled_from(LOSSES)).format(x=x, y=y, r=red)
        if any(e in expr for e in exclude):
            expr = f"{x}.clone()"
        name = f"v{j}"
        lines.append(f"{name} = {expr}")
        lines.append(f"out['{name}'] = {name}")
        lines.append(f"if isinstance({name}, tuple): {name} = {name}[0]")
        lines.append(f"if not isinstance({name}, torch.Tensor): {name} = torch.tensor(0.)")
        names.append(name)
    loss_kind = draw(st.sampled_from(["sum", "sq"]))
    lines.append(f"fl = [t for t in ({', '.join(names)},) if t.requires_grad]")
    term = "(t * t).sum()" if loss_kind == "sq" else "t.sum()"
    lines.append(f"L = sum({term} for t in fl) if fl else None")
    lines.append("out['L'] = L")
    lr = [n for n in leaves]
    lines.append(f"lv = [t for t in ({', '.join(lr)},) if t.requires_grad]")
    mode = draw(st.sampled_from(["backward", "grad", "double"]))
    if mode == "backward":
        lines.append("if L is not None and L.requires_grad:")
        lines.append("    L.backward()")
        lines.append("    out['grads'] = [t.grad for t in lv]")
    elif mode == "grad":
        lines.append("if L is not None and L.requires_grad:")
        lines.append("    out['grads'] = torch.autograd.grad(L, lv, allow_unused=True)")
    else:
        lines.append("if L is not None and L.requires_grad:")
        lines.append("    gs = torch.autograd.grad(L, lv, create_graph=True, allow_unused=True)")
        lines.append("    out['grads'] = gs")
        lines.append("    gg = [g for g in gs if g is not None and g.requires_grad]")
        lines.append("    if gg:")
        lines.append("        s = sum((g * g).sum() for g in gg)")
        lines.append("        out['s'] = s")
        lines.append("        out['grads2'] = torch.autograd.grad(s, lv, allow_unused=True)")
    lines.append("out['hooks'] = list(hooks)")
    return "\n".join(lines) + "\n"
