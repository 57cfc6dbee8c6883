"""Batch normalisation for the eager runtime: ``F.batch_norm``, ``nn.BatchNorm1d/2d``.

The forward is one ``NativeBatchNormBackward0`` node over (input, weight, bias), saving
what PyTorch saves: the batch mean and inverse standard deviation in training
(``_saved_result1``/``_saved_result2``), the running statistics in evaluation.  In training
the running statistics are updated in place with the unbiased batch variance, as PyTorch
does: ``running = (1 - momentum) * running + momentum * batch``.  Statistics are computed
once per forward in double precision (two passes) and rounded to the input's dtype; the
backward reuses the saved ones.

The backward is the closed form: with ``xhat = (x - mean) * invstd`` over ``M`` values
per channel, ``gx = w * invstd / M * (M g - sum(g) - xhat * sum(g xhat))`` in training and
``gx = w * invstd * g`` in evaluation; ``gw = sum(g xhat)``, ``gb = sum(g)`` (evaluated in
PyTorch's CPU arrangement, the sums accumulated in double precision).  Under
``create_graph`` the same formula is evaluated with recorded Tensor operations (the batch
statistics recomputed from ``x``) inside one ``NativeBatchNormBackwardBackward0`` node
over (grad, input, weight), as PyTorch records it; that node's own backward differentiates
the same composition, so derivatives of every order are exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import reductions as R
from .. import shape_ops as S
from ..device import xp_of
from ..engine import grad
from ..factory import empty, ones, tensor, zeros
from ..function import MultiRuleNode, node_class
from ..grad_mode import enable_grad, no_grad
from ..inplace import check_inplace, write
from ..tensor import Tensor, plain
from ..tensor_ops import needs_grad, record, record_multi
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "batch_norm", "torch_batch_norm"]


def _axes(ndim: int) -> tuple[int, ...]:
    return (0, *range(2, ndim))


def _bshape(ndim: int) -> tuple[int, ...]:
    return (1, -1) + (1,) * (ndim - 2)


def _rows3(a: Any) -> Any:
    """``(N, C, ...)`` as ``(N, C, M)`` (a view): every reduction below is over axes 0 and 2."""
    return a.reshape(a.shape[0], a.shape[1], math.prod(a.shape[2:]))


def _batch_moments(x: Any) -> tuple[Any, Any]:
    """Per-channel mean and biased variance of ``x`` in double precision (two passes, as
    PyTorch's CPU kernel accumulates them)."""
    x64 = _rows3(x).astype(np.float64)
    m = x64.shape[0] * x64.shape[2]
    mean = np.einsum("ncm->c", x64) / m
    centred = x64 - mean[:, None]
    return mean, np.einsum("ncm,ncm->c", centred, centred) / m


def _stats_arrays(x: Any, training: bool, rm: Any, rv: Any, eps: float,
                  moments: tuple[Any, ...] | None = None) -> tuple[Any, Any]:
    """Mean and inverse standard deviation per channel, as arrays of ``x``'s dtype
    (``moments``: the batch's double-precision mean and variance, when known)."""
    if training:
        mean, var = _batch_moments(x) if moments is None else moments
    else:
        mean, var = rm.astype(np.float64), rv.astype(np.float64)
    return mean.astype(x.dtype), (1.0 / np.sqrt(var + eps)).astype(x.dtype)


def _rule_bn(ops: Any, g: Any, out: Any, x: Any, w: Any, b: Any, rm: Any = None,
             rv: Any = None, training: bool = True, eps: float = 1e-5, need: tuple[Any, ...] = (),
             results: tuple[Any, ...] = (), **_: Any) -> tuple[Any, ...]:
    stats = (results[0]._data, results[1]._data) if training and results else None
    if ops.tensors:
        return batch_norm_backward(g, x, w, rm, rv, training, eps, need, stats)
    return _grads_arrays(g, x, w, rm, rv, training, eps, need, stats)


def _grads_arrays(g: Any, x: Any, w: Any, rm: Any, rv: Any, training: bool, eps: float,
                  need: tuple[Any, ...], stats: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
    """``(gx, gw, gb)`` on arrays, ``None`` where not needed.  ``stats``: the forward's saved
    mean and invstd.  PyTorch's CPU arrangement of the closed form: with ``xc = x - mean``
    and ``dotp = sum(g xc)``, ``gx = (g - sum(g)/M - xc dotp invstd^2/M) invstd w``,
    ``gw = dotp invstd``, ``gb = sum(g)``; the two sums accumulate in double precision."""
    bs = _bshape(x.ndim)
    mean, invstd = _stats_arrays(x, training, rm, rv, eps) if stats is None else stats
    xc = x - mean.reshape(bs)
    g3 = _rows3(g)
    sum_g = np.einsum("ncm->c", g3, dtype=np.float64)
    dotp = np.einsum("ncm,ncm->c", g3, _rows3(xc), dtype=np.float64)
    inv = invstd.astype(np.float64)
    scale = invstd if w is None else invstd * w
    gx = None
    if need[0]:
        if training:
            m = x.size // x.shape[1]
            gx = g - (sum_g / m).astype(g.dtype).reshape(bs)
            gx -= xc * (dotp * inv * inv / m).astype(g.dtype).reshape(bs)
            gx *= scale.reshape(bs)
        else:
            gx = g * scale.reshape(bs)
    gw = (dotp * inv).astype(g.dtype) if need[1] else None
    return gx, gw, sum_g.astype(g.dtype) if need[2] else None


def _grads_tensors(g: Tensor, x: Tensor, w: Tensor | None, rm: Any, rv: Any, training: bool,
                   eps: float, need: tuple[Any, ...]) -> tuple[Any, ...]:
    """The same gradients from recorded Tensor operations (differentiable again)."""
    axes, bs = _axes(x.ndim), _bshape(x.ndim)
    if training:
        mean = R.mean(x, axes, keepdim=True)
        centred = x - mean
        var = R.mean(centred * centred, axes, keepdim=True)
    else:
        centred = x - plain(rm.reshape(bs))
        var = plain(rv.reshape(bs))
    invstd = (var + eps) ** -0.5
    xhat = centred * invstd
    sum_g = R.sum(g, axes, keepdim=True)
    sum_gx = R.sum(g * xhat, axes, keepdim=True)
    scale = invstd if w is None else invstd * S.reshape(w, bs)
    gx = None
    if need[0]:
        if training:
            m = x.numel() // x.shape[1]
            gx = scale * (g - sum_g / m - xhat * (sum_gx / m))
        else:
            gx = g * scale
    return (gx, S.reshape(sum_gx, (-1,)) if need[1] else None,
            S.reshape(sum_g, (-1,)) if need[2] else None)


def batch_norm_backward(g: Tensor, x: Tensor, w: Tensor | None, rm: Any, rv: Any,
                        training: bool, eps: float, need: tuple[Any, ...],
                        stats: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
    """``(gx, gw, gb)`` as Tensors from one ``NativeBatchNormBackwardBackward0`` node."""
    arrays = _grads_arrays(g._data, x._data, None if w is None else w._data, rm, rv, training,
                           eps, need, stats)
    datas = tuple(a for a in arrays if a is not None)
    if needs_grad((g, x, w)):
        params = {"rm": rm, "rv": rv, "training": training, "eps": eps, "need": need}
        outs = iter(record_multi(_BN_BACKWARD, datas, (g, x, w), params))
    else:
        outs = iter(plain(d) for d in datas)
    return tuple(next(outs) if a is not None else None for a in arrays)


def _rule_bn_backward(ops: Any, gg: tuple[Any, ...], out: Any, g: Any, x: Any, w: Any,
                      rm: Any = None, rv: Any = None, training: bool = True, eps: float = 1e-5,
                      need: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    """The derivative of ``(gx, gw, gb)`` by ``(g, x, w)``: the closed form written with
    recorded Tensor operations, differentiated by the engine (recorded in Tensor mode)."""
    it = iter(gg)
    cots = [next(it) if k else None for k in need]
    ins: list[Any]  # (g, x, w) as Tensors; only ``w`` may be None
    if ops.tensors:
        # Fresh aliases: ``g`` may itself depend on ``x`` or ``w``, and only the partial
        # derivatives through this node's own inputs belong here.
        ins = [None if a is None else S.view_as(a, a) for a in (g, x, w)]
    else:
        ins = [None if a is None else plain(a).requires_grad_() for a in (g, x, w)]
        cots = [None if c is None else plain(c) for c in cots]
    with enable_grad():
        outs = _grads_tensors(ins[0], ins[1], ins[2], rm, rv, training, eps, need)
    used = [(o, c) for o, c in zip(outs, cots) if o is not None and c is not None]
    wrt = [t for t in ins if t is not None and t.requires_grad]
    found = iter(grad([o for o, _ in used], wrt, [c for _, c in used], allow_unused=True,
                      create_graph=ops.tensors, materialize_grads=True) if used and wrt
                 else [None] * len(wrt))
    res = [next(found) if t is not None and t.requires_grad else None for t in ins]
    return tuple(r if ops.tensors or r is None else r._data for r in res)


_BN_BACKWARD = node_class("NativeBatchNormBackwardBackward0", _rule_bn_backward, (0, 1, 2),
                          (("grad_out", 0, None), ("input", 1, None), ("weight", 2, None)),
                          False, MultiRuleNode)


def _p(name: str) -> Any:
    return lambda args, params: params[name]


def _result(k: int) -> Any:
    return lambda args, params: params["results"][k]


_BN = node_class("NativeBatchNormBackward0", _rule_bn, (0, 1, 2),
                 (("eps", _p("eps"), None), ("input", 0, None), ("result1", _result(0), None),
                  ("result2", _result(1), None), ("running_mean", _p("rm_tensor"), None),
                  ("running_var", _p("rv_tensor"), None), ("training", _p("training"), None),
                  ("weight", 1, None)), False)


def _check_len(t: Tensor | None, name: str, c: int) -> None:
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) of ``input`` to zero mean and unit variance, then scale
    by ``weight`` and shift by ``bias`` (``NativeBatchNormBackward0``).

    In training the batch statistics are used and the running ones, when given, are
    updated in place; in evaluation the running statistics are used.
    """
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    shape = tuple(input.shape)
    c = shape[1]
    if training:
        per_channel = input.numel() // c if c else 0
        if per_channel == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
    else:
        for t, name in ((running_mean, "running_mean"), (running_var, "running_var")):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var"),
                    (weight, "weight"), (bias, "bias")):
        _check_len(t, name, c)
    x = input._data
    rm = None if running_mean is None else running_mean._data
    rv = None if running_var is None else running_var._data
    moments = _batch_moments(x) if training else None
    mean, invstd = _stats_arrays(x, training, rm, rv, eps, moments)
    bs = _bshape(x.ndim)
    alpha = invstd if weight is None else invstd * weight._data
    beta = -mean * alpha if bias is None else bias._data - mean * alpha
    data = x * alpha.reshape(bs)
    data += beta.reshape(bs)
    data = data.astype(x.dtype, copy=False)
    if training and (running_mean is not None or running_var is not None):
        _update(moments, x.size // c, running_mean, running_var, momentum)
    if not needs_grad((input, weight, bias)):
        return plain(data)
    empty_stat = xp_of(x).zeros(0, x.dtype)
    results = (plain(mean), plain(invstd)) if training else (plain(empty_stat),
                                                             plain(empty_stat))
    need = (input._requires_grad, weight is not None and weight._requires_grad,
            bias is not None and bias._requires_grad)
    frozen = (None, None) if rm is None or rv is None else (rm.copy(), rv.copy())
    params = {"rm": frozen[0], "rv": frozen[1], "training": training, "eps": eps,
              "need": need, "results": results, "rm_tensor": running_mean,
              "rv_tensor": running_var}
    return record(_BN, data, (input, weight, bias), params)


def _update(moments: Any, n: int, running_mean: Tensor | None, running_var: Tensor | None,
            momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch`` (unbiased variance), from the
    batch's double-precision ``moments`` over ``n`` values per channel; written in place with
    a version bump, as ``copy_`` would."""
    mean, var = moments
    for t, batch in ((running_mean, mean), (running_var, var * (n / (n - 1)))):
        if t is not None:
            new = (1 - momentum) * t._data.astype(np.float64) + momentum * batch
            with no_grad():
                check_inplace(t)
            write(t, new.astype(t._data.dtype))


class _BatchNorm(Module):
    """Shared body of ``BatchNorm1d``/``BatchNorm2d``."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device,
                                                       dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device,
                                                     dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Fresh running statistics; weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            count = self.num_batches_tracked
            with no_grad():
                check_inplace(count)
            write(count, count._data + 1)
            if self.momentum is None:  # a cumulative average of every batch seen
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None,
                          self.running_var if track else None, self.weight, self.bias,
                          use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over ``(N, C)`` or ``(N, C, L)``, statistics per channel ``C``.

    >>> import st_autodiff as torch
    >>> torch.nn.BatchNorm1d(4)
    BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over ``(N, C, H, W)``, statistics per channel ``C``."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


def torch_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                     running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                     momentum: float, eps: float, cudnn_enabled: bool = True) -> Tensor:
    """``torch.batch_norm``: ``F.batch_norm`` with PyTorch's top-level argument order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


torch_batch_norm.__name__ = torch_batch_norm.__qualname__ = "batch_norm"
