"""Eager-runtime checks written once, run on any device of any torch-like module.

Each case is ``case(T, dev) -> dict of NumPy arrays``: ``T`` is ``st_autodiff`` (or real
``torch``), ``dev`` is ``"cpu"`` or ``"cuda"``.  Inputs and initial weights come from a
fixed NumPy generator and are placed with ``.to(dev)``, so every (module, device) pair
starts from the same numbers; results are read back with ``.detach().cpu().numpy()``.
Used by ``tests/backends/test_eager_standin.py`` (the CPU device stand-in against the
host) and ``tests/gpu/test_eager_cuda.py`` (CuPy against the host and against PyTorch
CUDA).  Everything is float64 so device and host agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Case = Callable[[Any, str], dict[str, np.ndarray]]
CASES: dict[str, Case] = {}


def case(fn: Case) -> Case:
    CASES[fn.__name__] = fn
    return fn


def _host(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _data(T: Any, dev: str, *shape: int, seed: int = 0, scale: float = 1.0,  # noqa: N803
          grad: bool = False) -> Any:
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    t = T.tensor(a, dtype=T.float64).to(dev)
    return t.requires_grad_(True) if grad else t


def _init(T: Any, module: Any, seed: int = 1, scale: float = 0.3) -> Any:  # noqa: N803
    """Fixed float64 weights (same numbers in every library), then the module itself."""
    rng = np.random.default_rng(seed)
    module = module.double()
    with T.no_grad():
        for _name, p in sorted(module.named_parameters()):
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * scale, dtype=T.float64))
    return module


def _train(T: Any, model: Any, opt: Any, loss_fn: Callable[[], Any], steps: int) -> dict:  # noqa: N803
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    out = {"losses": _host(T.stack(losses))}
    for name, p in sorted(model.named_parameters()):
        out[name] = _host(p)
    return out


@case
def elementwise_and_reductions(T: Any, dev: str) -> dict:  # noqa: N803
    x = _data(T, dev, 5, 4, grad=True)
    y = ((x.sin() * x.exp()).sum(1).softmax(0)[2] + x.mean() + (x @ x.T).trace() + x.norm()
         + x.logsumexp(1).sum() + x.var(0).sum() + x.abs().max() + x.cumsum(1)[:, -1].prod()
         + T.where(x > 0, x.tanh(), x.sigmoid()).sum() + x.clamp(-0.5, 0.5).pow(3).sum())
    y.backward()
    assert x.grad.device.type == dev
    return {"y": _host(y), "grad": _host(x.grad)}


@case
def shapes_and_indexing(T: Any, dev: str) -> dict:  # noqa: N803
    x = _data(T, dev, 6, 5, grad=True)
    idx = T.tensor([0, 2, 2, 5]).to(dev)
    col = T.tensor([[1], [0], [4], [3], [2], [2]]).to(dev)
    parts = [x[idx] ** 2, x.gather(1, col).expand(6, 5), x.t().reshape(6, 5),
             x[1:4].flip(0).repeat(2, 1)]
    z = T.cat(parts, 0)
    s = T.stack([x, x * 2], 0).permute(1, 2, 0).sum((0, 1))
    m = x.masked_fill(x < 0, 0.0).sum() + x[x > 0.5].sum() + x.max(1).values.sum()
    y = (z * z).mean() + s.sum() + m + x.unsqueeze(0).squeeze().diagonal().sum()
    y.backward()
    return {"y": _host(y), "grad": _host(x.grad), "argmax": _host(x.argmax(1)),
            "sorted": _host(x.sort(1).values), "topk": _host(x.topk(2, 1).indices)}


@case
def device_moves(T: Any, dev: str) -> dict:  # noqa: N803
    x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    y = x.to(dev)
    assert y.device.type == dev
    if dev == "cuda":
        assert y.grad_fn.name() == "ToCopyBackward0" and str(y.device) == "cuda:0"
    z = (y * y).sum().cpu() + y.cpu().sum()
    z.backward()
    assert x.grad.device.type == "cpu"
    return {"z": _host(z), "grad": _host(x.grad), "item": np.asarray(y.sum().item()),
            "tolist": np.asarray(y.tolist())}


@case
def mlp_adam_mse(T: Any, dev: str) -> dict:  # noqa: N803
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))).to(dev)
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    x, y = _data(T, dev, 32, 8, seed=2), _data(T, dev, 32, 1, seed=3)
    return _train(T, model, opt, lambda: nn.functional.mse_loss(model(x), y), 5)


@case
def cnn_sgd_cross_entropy(T: Any, dev: str) -> dict:  # noqa: N803
    nn = T.nn
    model = _init(T, nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, stride=2), nn.Tanh(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4, 3))).to(dev)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    x = _data(T, dev, 4, 2, 10, 10, seed=4)
    target = T.tensor([0, 2, 1, 2]).to(dev)
    return _train(T, model, opt, lambda: nn.functional.cross_entropy(model(x), target), 3)


@case
def lstm_adamw(T: Any, dev: str) -> dict:  # noqa: N803
    nn = T.nn
    lstm = _init(T, nn.LSTM(3, 5, num_layers=2, batch_first=True)).to(dev)
    head = _init(T, nn.Linear(5, 1), seed=5).to(dev)
    model = nn.ModuleDict({"lstm": lstm, "head": head})
    opt = T.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = _data(T, dev, 2, 6, 3, seed=6), _data(T, dev, 2, 1, seed=7)

    def loss() -> Any:
        out, _state = lstm(x)
        return ((head(out[:, -1]) - y) ** 2).mean()

    return _train(T, model, opt, loss, 3)


@case
def embedding_layernorm_nll(T: Any, dev: str) -> dict:  # noqa: N803
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Embedding(7, 6), nn.LayerNorm(6), nn.GELU(),
                                   nn.Dropout(0.0), nn.Linear(6, 7))).to(dev)
    opt = T.optim.RMSprop(model.parameters(), lr=1e-2)
    tokens = T.tensor([[0, 3, 6], [2, 2, 5]]).to(dev)
    target = T.tensor([[3, 6, 1], [2, 5, -100]]).to(dev)

    def loss() -> Any:
        logits = model(tokens)
        return nn.functional.cross_entropy(logits.reshape(-1, 7), target.reshape(-1),
                                           ignore_index=-100, label_smoothing=0.0)

    return _train(T, model, opt, loss, 3)


@case
def optimizers(T: Any, dev: str) -> dict:  # noqa: N803
    out = {}
    makers = {"sgd": lambda ps: T.optim.SGD(ps, lr=0.1, momentum=0.5, weight_decay=0.01),
              "adam_amsgrad": lambda ps: T.optim.Adam(ps, lr=0.1, amsgrad=True),
              "adamw": lambda ps: T.optim.AdamW(ps, lr=0.1),
              "rmsprop": lambda ps: T.optim.RMSprop(ps, lr=0.01, momentum=0.9),
              "adagrad": lambda ps: T.optim.Adagrad(ps, lr=0.1)}
    for name, make in makers.items():
        w = _data(T, dev, 3, 4, seed=8).requires_grad_(True)
        opt = make([w])
        for _ in range(3):
            opt.zero_grad()
            ((w - 1.0) ** 4).sum().backward()
            opt.step()
        out[name] = _host(w)
    return out


@case
def compare_save_and_copy(T: Any, dev: str) -> dict:  # noqa: N803
    import copy
    import io

    x = _data(T, dev, 4, 3, seed=9)
    flags = T.stack([(x > 0).any(1), (x == x).all(1), T.isclose(x, x * (1 + 1e-9)).all(1),
                     x.isfinite().all(1)]).to(T.float64)
    model = _init(T, T.nn.Sequential(T.nn.Linear(3, 2), T.nn.Tanh())).to(dev)
    buf = io.BytesIO()
    T.save(model.state_dict(), buf)
    buf.seek(0)
    state = T.load(buf)
    assert all(v.device.type == dev for v in state.values())
    twin = copy.deepcopy(model)
    assert all(p.device.type == dev for p in twin.parameters())
    twin.load_state_dict(state)
    assert T.equal(twin(x), model(x))
    return {"flags": _host(flags), "out": _host(twin(x))}


@case
def second_order(T: Any, dev: str) -> dict:  # noqa: N803
    """Double backward: the rules' own constants (``eye``, index grids) live on ``dev``."""
    x = _data(T, dev, 4, 4, seed=10, grad=True)
    y = ((x.sort(1).values[:, :2] ** 3).sum() + (x.diagonal() ** 3).sum()
         + (x.topk(2, 0).values ** 3).sum() + (T.einsum("ii->i", x) ** 3).sum()
         + (x.cummax(1).values ** 3).sum() + (x.kthvalue(2, 1).values ** 3).sum())
    (g,) = T.autograd.grad(y, x, create_graph=True)
    (h,) = T.autograd.grad((g * g).sum(), x)
    return {"y": _host(y), "g": _host(g), "h": _host(h)}


@case
def distributions(T: Any, dev: str) -> dict:  # noqa: N803
    """Densities and their gradients on ``dev``; draws (the device library's own generator
    for gamma, Poisson and binomial, so no values to compare) stay on ``dev`` and
    reparameterised ones give finite gradients."""
    D = T.distributions  # noqa: N806
    loc = _data(T, dev, 3, seed=11, grad=True)
    conc = (_data(T, dev, 3, seed=12).abs() + 0.5).requires_grad_(True)
    value = _data(T, dev, 3, seed=13).abs() + 0.1
    counts = value.round()
    lp = (D.Normal(loc, 2.0).log_prob(value).sum() + D.Gamma(conc, 1.5).log_prob(value).sum()
          + D.Beta(conc, 2.0).log_prob(value / 4).sum()
          + D.StudentT(conc, loc).log_prob(value).sum() + D.Poisson(conc).log_prob(counts).sum()
          + D.Binomial(5, logits=loc).log_prob(counts.clamp(max=5)).sum()
          + D.Bernoulli(logits=loc).log_prob((value > 0.5).double()).sum()
          + D.Categorical(logits=loc).log_prob(T.tensor(1).to(dev))
          + D.Dirichlet(conc).log_prob(value / value.sum()))
    g_loc, g_conc = T.autograd.grad(lp, (loc, conc))
    T.manual_seed(0)
    tril = T.eye(3, dtype=T.float64).to(dev) * 2
    drawn = [D.Normal(loc, 2.0).rsample((4,)), D.Gamma(conc, 1.5).rsample((4,)),
             D.Dirichlet(conc).rsample((2,)), D.Beta(conc, 2.0).rsample(),
             D.StudentT(conc, loc).rsample(), D.Uniform(loc - 1, loc + 1).rsample((4,)),
             D.MultivariateNormal(loc, scale_tril=tril).rsample((2,))]
    counted = [D.Poisson(conc).sample((4,)), D.Binomial(5, logits=loc).sample((4,)),
               D.NegativeBinomial(3, logits=loc).sample((4,)),
               D.Bernoulli(logits=loc).sample((4,)), D.Categorical(logits=loc).sample((4,))]
    assert all(d.device.type == dev for d in drawn + counted)
    assert all(bool((c >= 0).all()) for c in counted)
    r_loc, r_conc = T.autograd.grad(sum((d ** 2).sum() for d in drawn), (loc, conc))
    finite = T.stack([r_loc.isfinite().all(), r_conc.isfinite().all()]).double()
    return {"lp": _host(lp), "g_loc": _host(g_loc), "g_conc": _host(g_conc),
            "finite": _host(finite)}


@case
def order_statistics(T: Any, dev: str) -> dict:  # noqa: N803
    """``median``/``nanmedian`` (all, and along a dim) and ``mode`` pick on the device."""
    a = np.random.default_rng(14).integers(0, 3, (4, 6)).astype(np.float64)
    a[1, 2] = a[3, 0] = np.nan
    x = T.tensor(a, dtype=T.float64).to(dev).requires_grad_(True)
    clean = T.tensor(np.nan_to_num(a), dtype=T.float64).to(dev).requires_grad_(True)
    med, nmed = x.median(1), x.nanmedian(0)
    mode = clean.mode(1)
    y = (clean.median() + x.nanmedian() + nmed.values.sum() + mode.values.sum()
         + clean.median(0).values.sum())
    y.backward()
    return {"y": _host(y), "grad_x": _host(x.grad), "grad_clean": _host(clean.grad),
            "median": _host(med.values), "median_idx": _host(med.indices),
            "nanmedian_idx": _host(nmed.indices), "mode_idx": _host(mode.indices),
            "int_mode": _host(T.tensor(np.nan_to_num(a)).to(dev).long().mode(0).values),
            "median_nan": _host(x.median())}


@case
def counting_and_filling(T: Any, dev: str) -> dict:  # noqa: N803
    """Set and counting ops, ``repeat_interleave`` with tensor repeats and ``fill_diagonal_``
    on ``dev`` (results of data-dependent size read their size once, as PyTorch does)."""
    ints = T.tensor([[1, 1, 2], [1, 1, 2], [3, 0, 0]]).to(dev)
    values, inverse, counts = T.unique_consecutive(ints, return_inverse=True,
                                                   return_counts=True, dim=0)
    flat = T.unique_consecutive(ints.flatten(), return_counts=True)
    reps = T.tensor([2, 0, 3]).to(dev)
    x = _data(T, dev, 3, 4, seed=15, grad=True)
    y = x.repeat_interleave(reps, dim=0)
    z = x * 1.0
    z.fill_diagonal_(5.0)
    tall = _data(T, dev, 7, 3, seed=16).fill_diagonal_(-1.0, wrap=True)
    ((y * y).sum() + (z * z).sum()).backward()
    return {"values": _host(values), "inverse": _host(inverse), "counts": _host(counts),
            "flat": _host(flat[0]), "flat_counts": _host(flat[1]),
            "positions": _host(T.repeat_interleave(reps)), "tall": _host(tall),
            "nonzero": _host(T.stack([T.count_nonzero(ints), *T.count_nonzero(ints, dim=1)])),
            "isin": _host(T.isin(ints, 1)), "isin_t": _host(T.isin(ints, reps)),
            "bits": _host(T.stack([T.bitwise_and(ints, 2), T.bitwise_left_shift(ints, 1),
                                   ints ^ 3, ~ints])),
            "grad": _host(x.grad)}


@case
def checks_and_cross(T: Any, dev: str) -> dict:  # noqa: N803
    """``linalg.cross`` (its index constants saved on ``dev``), ``gradcheck`` (slow, fast
    and second order) and anomaly detection's NaN check on device tensors."""
    import warnings

    a, b = _data(T, dev, 4, 3, seed=17, grad=True), _data(T, dev, 4, 3, seed=18, grad=True)
    c = T.linalg.cross(a, b)
    (c * c).sum().backward()
    ok = [T.autograd.gradcheck(lambda x, y: T.linalg.cross(x, y).sin(), (a, b)),
          T.autograd.gradcheck(lambda x: x.exp().sum(0), (a,), fast_mode=True),
          T.autograd.gradgradcheck(lambda x: (x ** 3).sum(1), (a,))]
    x = T.tensor([0.0, -1.0], dtype=T.float64).to(dev).requires_grad_(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.autograd.detect_anomaly():
            try:
                x.sqrt().sum().backward()
                raised = ""
            except RuntimeError as e:
                raised = str(e)
    assert "returned nan values" in raised, raised
    return {"c": _host(c), "grad_a": _host(a.grad), "grad_b": _host(b.grad),
            "ok": np.asarray(ok, dtype=np.float64)}


@case
def init_views_and_sampler(T: Any, dev: str) -> dict:  # noqa: N803
    """``nn.init.eye_``/``dirac_`` and ``storage_offset`` of views on ``dev``; a weighted
    sampler over device weights (one certain choice, so every library draws the same)."""
    w = T.empty(3, 4, dtype=T.float64).to(dev)
    T.nn.init.eye_(w)
    k = T.empty(4, 2, 3, 3, dtype=T.float64).to(dev)
    T.nn.init.dirac_(k, groups=2)
    x = _data(T, dev, 4, 6, seed=19)
    offsets = [x[1:, 2:].storage_offset(), x.t()[3].storage_offset(), x[2].storage_offset()]
    weights = T.tensor([0.0, 0.0, 1.0, 0.0], dtype=T.float64).to(dev)
    picks = list(T.utils.data.WeightedRandomSampler(weights, 5))
    return {"eye": _host(w), "dirac": _host(k), "offsets": np.asarray(offsets, np.float64),
            "picks": np.asarray(picks, np.float64)}


@case
def tensor_valued_fills_and_bounds(T: Any, dev: str) -> dict:  # noqa: N803
    """``masked_fill``/``index_fill`` with a 0-d device value and ``clamp`` with tensor
    bounds (NaN included) compute on ``dev`` (no host read of the value)."""
    x = _data(T, dev, 3, 4, seed=20, grad=True)
    v = T.tensor(0.25, dtype=T.float64).to(dev).requires_grad_(True)
    lo = T.tensor([-0.5, float("nan"), -0.2, -1.0], dtype=T.float64).to(dev)
    filled = x.masked_fill(x > 0.3, v) + x.index_fill(1, T.tensor([0, 2]).to(dev), v)
    clamped = x.clamp(min=lo) + x.clamp(max=lo.nan_to_num(0.1))
    mask = T.tensor([[True, False], [False, True]]).to(dev)
    ints = T.tensor([[1, 5], [7, 2]]).to(dev).masked_fill(mask, T.tensor(9).to(dev))
    (filled.sum() + clamped.nan_to_num(0.0).sum()).backward()
    return {"filled": _host(filled), "clamped": _host(clamped), "ints": _host(ints),
            "grad_x": _host(x.grad), "grad_v": _host(v.grad)}


@case
def embedding_options(T: Any, dev: str) -> dict:  # noqa: N803
    """``embedding`` backward with ``padding_idx`` and ``scale_grad_by_freq`` on ``dev``."""
    w = _data(T, dev, 6, 3, seed=21, grad=True)
    idx = T.tensor([[0, 2, 2, 5], [1, 2, 0, 0]]).to(dev)
    y = T.nn.functional.embedding(idx, w, padding_idx=2, scale_grad_by_freq=True)
    z = T.nn.functional.embedding(idx, w)
    ((y * y).sum() + (z ** 3).sum()).backward()
    return {"y": _host(y), "grad": _host(w.grad)}


@case
def clipping_renorm_and_lbfgs(T: Any, dev: str) -> dict:  # noqa: N803
    """``clip_grad_norm_`` (several norms), ``embedding(max_norm=...)`` and ``LBFGS`` with
    parameters on ``dev``."""
    out = {}
    for p in (2.0, 1.0, float("inf"), 0.5):
        w = _data(T, dev, 3, 4, seed=22, grad=True)
        ((w * 3).sin().sum() * 4).backward()
        out[f"norm_{p}"] = _host(T.nn.utils.clip_grad_norm_([w], 0.7, norm_type=p))
        out[f"grad_{p}"] = _host(w.grad)
    emb = _data(T, dev, 5, 3, seed=23, scale=3.0)
    idx = T.tensor([1, 3, 3]).to(dev)
    out["looked_up"] = _host(T.nn.functional.embedding(idx, emb, max_norm=1.5))
    out["renormed"] = _host(emb)
    x = _data(T, dev, 4, seed=24, grad=True)
    target = _data(T, dev, 4, seed=25)
    opt = T.optim.LBFGS([x], lr=0.5, max_iter=6, line_search_fn="strong_wolfe")

    def closure() -> Any:
        opt.zero_grad()
        loss = ((x - target) ** 2 * T.arange(1, 5).to(dev)).sum() + (x ** 4).sum()
        loss.backward()
        return loss

    opt.step(closure)
    out["lbfgs"] = _host(x)
    return out


@case
def attention_masks(T: Any, dev: str) -> dict:  # noqa: N803
    """Scaled dot-product and multi-head attention with boolean masks on ``dev`` (no fully
    masked row: PyTorch's CUDA kernels and its CPU one disagree there)."""
    F = T.nn.functional  # noqa: N806
    q, k = _data(T, dev, 2, 2, 3, 4, seed=26, grad=True), _data(T, dev, 2, 2, 5, 4, seed=27)
    v = _data(T, dev, 2, 2, 5, 4, seed=28)
    keep = T.tensor(np.random.default_rng(29).random((3, 5)) > 0.4).to(dev)
    keep[1, :3] = False
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    mha = _init(T, T.nn.MultiheadAttention(4, 2, batch_first=True)).to(dev)
    x = _data(T, dev, 2, 5, 4, seed=30)
    pad = T.tensor([[False] * 4 + [True], [False] * 5]).to(dev)
    out, w = mha(x, x, x, key_padding_mask=pad)
    (y.sum() + (out ** 2).sum()).backward()
    return {"y": _host(y), "grad_q": _host(q.grad), "out": _host(out), "w": _host(w),
            "grad_in_proj": _host(mha.in_proj_weight.grad)}


def _is_ours(T: Any) -> bool:  # noqa: N803
    """Whether ``T`` is st_autodiff (whose RNN nodes are its host ones on every device;
    PyTorch CUDA's are cuDNN's and the ``_thnn_fused`` cells', docs/backends_eager.md)."""
    return T.__name__ == "st_autodiff"


def _rnn_train(T: Any, model: Any, loss_fn: Callable[[], Any], inputs: list[Any],  # noqa: N803
               steps: int) -> dict:
    """First-step gradients of every parameter and of ``inputs``, then ``steps`` SGD steps
    (losses and final parameters)."""
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    out: dict[str, np.ndarray] = {}
    losses = []
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        if step == 0:  # (copies: the host's ``.numpy()`` shares the gradients' storage)
            for name, p in sorted(model.named_parameters()):
                out["grad_" + name] = _host(p.grad).copy()
            for k, t in enumerate(inputs):
                out[f"grad_input{k}"] = _host(t.grad).copy()
        opt.step()
        losses.append(loss.detach())
    out["losses"] = _host(T.stack(losses))
    for name, p in sorted(model.named_parameters()):
        out[name] = _host(p)
    return out


@case
def rnn_layers_training(T: Any, dev: str) -> dict:  # noqa: N803
    """Two-layer bidirectional batch-first LSTM, two-layer GRU (given ``h0``) and a tanh
    RNN trained together on ``dev``: the fused step nodes run on the device arrays."""
    nn = T.nn
    model = nn.ModuleDict({
        "lstm": _init(T, nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True),
                      seed=40),
        "gru": _init(T, nn.GRU(3, 4, num_layers=2), seed=41),
        "rnn": _init(T, nn.RNN(3, 4, batch_first=True), seed=42)}).to(dev)
    x = _data(T, dev, 2, 5, 3, seed=43, grad=True)       # (batch, time, features)
    xt = _data(T, dev, 5, 2, 3, seed=44, grad=True)      # (time, batch, features)
    h0 = _data(T, dev, 2, 2, 4, seed=45, scale=0.5, grad=True)

    def loss() -> Any:
        out, (h, c) = model["lstm"](x)
        g_out, g_h = model["gru"](xt, h0)
        r_out, r_h = model["rnn"](x)
        if _is_ours(T):  # the host's graph: the GRU's and RNN's steps end in fused nodes
            assert h.grad_fn.name() == "StackBackward0"
            assert g_out.grad_fn.name() == "StackBackward0"
            assert r_out.grad_fn.name() == "TransposeBackward1"
        return ((out ** 2).mean() + (h * c).sum() + (g_out ** 2).sum() + g_h.sum()
                + (r_out * x[..., :1]).sum() + (r_h ** 2).sum())

    return _rnn_train(T, model, loss, [x, xt, h0], 2)


@case
def rnn_cells_training(T: Any, dev: str) -> dict:  # noqa: N803
    """``LSTMCell`` and ``GRUCell`` stepped over a sequence in a Python loop on ``dev``."""
    nn = T.nn
    model = nn.ModuleDict({"lstm": _init(T, nn.LSTMCell(3, 4), seed=46),
                           "gru": _init(T, nn.GRUCell(4, 5), seed=47)}).to(dev)
    xs = _data(T, dev, 4, 2, 3, seed=48, grad=True)
    h0 = _data(T, dev, 2, 4, seed=49, scale=0.5, grad=True)
    c0 = _data(T, dev, 2, 4, seed=50, scale=0.5, grad=True)

    def loss() -> Any:
        h, c, g = h0, c0, None
        total = 0
        for t in range(xs.shape[0]):
            h, c = model["lstm"](xs[t], (h, c))
            g = model["gru"](h, g)
            total = total + (g ** 2).sum() + (c * h).sum()
        if _is_ours(T):
            assert c.grad_fn.name() == "AddBackward0" and g.grad_fn.name() == "AddBackward0"
        return total

    return _rnn_train(T, model, loss, [xs, h0, c0], 2)
