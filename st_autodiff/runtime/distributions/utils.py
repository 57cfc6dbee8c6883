"""Helpers shared by the distributions: broadcasting parameters, lazily derived
parameters, probs/logits conversions, the runtime ops they are written with, and random draws.

Every formula in this package is a composition of the runtime's differentiable functions
(``functional``, ``special``) or of table ops run through ``tensor_ops.apply_op`` (Cholesky,
``solve``, ``diagonal``, ``tril``, ``take_along_axis``, ``gammainc``), so gradients come from
the shared rule table; nothing here writes a derivative of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import numpy as np

from ...autograd import Function
from ...ir.ops import Op
from .. import dtypes, factory, special
from .. import functional as F
from ..device import is_device, to_device, xp_of
from ..grad_mode import is_grad_enabled
from ..random import default_generator, normal_data, uniform_data
from ..tensor import Tensor, plain
from ..tensor_ops import apply_op

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]

lgamma = special.gammaln
digamma = special.digamma


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (NaN where ``y`` is NaN), with ``d/dx = 0`` and
    ``d/dy = 0`` where ``x == 0``.

    Written as ``x * log(where(x == 0, 1, y))`` rather than with ``special.xlogy``, whose
    rule (shared with the compiler) gives ``d/dx = log(y)`` at ``x == 0``: at a density's
    boundary (``Gamma(1, r).log_prob(0)``, ``Poisson(0).log_prob(0)``, a Dirichlet value on
    the simplex's edge) that is ``-inf`` where PyTorch's ``xlogy`` gives 0 and the gradient
    users see is finite.  (At ``x == y == 0`` PyTorch's ``d/dy`` is ``0 / 0 = nan``; here it
    is 0, the derivative of ``xlogy(0, y) = 0`` along ``y``.)"""
    safe = F.where((x == 0) & (y == y), 1.0, y)
    return x * F.log(safe)


def softplus(x: Tensor) -> Tensor:
    """``log(1 + exp(x))`` as ``logaddexp(x, 0)``: its gradient is ``sigmoid(x)`` everywhere."""
    return F.logaddexp(x, factory.zeros_like(x))


def logsigmoid(x: Tensor) -> Tensor:
    return -softplus(-x)


def diagonal(x: Tensor) -> Tensor:
    """The diagonal of the last two dimensions."""
    result: Tensor = apply_op(Op.DIAGONAL, x, offset=0, axis1=-2, axis2=-1)
    return result


def tril(x: Tensor) -> Tensor:
    result: Tensor = apply_op(Op.TRIL, x, k=0)
    return result


def cholesky(x: Tensor) -> Tensor:
    result: Tensor = apply_op(Op.CHOLESKY, x)
    return result


def solve_lower(lower: Tensor, b: Tensor) -> Tensor:
    """``lower^{-1} b`` for a lower-triangular ``lower`` and a batch of vectors ``b``.

    Only the lower triangle is read (``tril`` first), so the upper triangle gets a zero
    gradient as with a triangular solve."""
    result: Tensor = apply_op(Op.SOLVE, tril(lower), b.unsqueeze(-1)).squeeze(-1)
    return result


def take_last(x: Tensor, index: Tensor) -> Tensor:
    """``x[..., index]`` along the last dimension (``gather(-1, index)``)."""
    result: Tensor = apply_op(Op.TAKE_ALONG_AXIS, x, index, axis=-1)
    return result


class _NoDerivative(Function):
    """A zero whose backward raises PyTorch's error for an argument without a derivative."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, what: str) -> Tensor:
        ctx.what = what
        return factory.zeros_like(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        raise NotImplementedError(f"the derivative for '{ctx.what}' is not implemented.")


def gammainc(a: Tensor, x: Tensor) -> Tensor:
    """The regularised lower incomplete gamma function.  It is not differentiable in ``a``:
    as in PyTorch, a backward that reaches ``a`` raises ``NotImplementedError``."""
    out: Tensor = apply_op(Op.GAMMAINC, a.detach(), x)
    if a.requires_grad and is_grad_enabled():
        out = out + _NoDerivative.apply(a, "igamma: input")
    return out


_T = TypeVar("_T")


class lazy_property(Generic[_T]):  # noqa: N801  (PyTorch's spelling)
    """A parameter computed on first access from another one (``logits`` from ``probs``),
    then stored on the instance, where ``__repr__`` and validation see it."""

    def __init__(self, wrapped: Callable[[Any], _T]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> lazy_property[_T]: ...

    @overload
    def __get__(self, instance: object, obj_type: Any = None) -> _T: ...

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value

    if TYPE_CHECKING:  # the instance's own value replaces it (no __set__ at run time)
        def __set__(self, instance: object, value: _T) -> None: ...


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors of one broadcast shape; Python numbers take the first tensor's dtype (the
    default float dtype when all are numbers)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    if len(tensors) + sum(_is_number(v) for v in values) != len(values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    dt = tensors[0].dtype if tensors else dtypes.get_default_dtype()
    dev = tensors[0].device if tensors else None  # numbers join the tensors' device
    # a 0-d array, not a Python float: ``tensor(0.1, dtype=float64)`` rounds through float32
    ts = [v if isinstance(v, Tensor) else factory.tensor(np.array(float(v), dt.np), device=dev)
          for v in values]
    shape = tuple(np.broadcast_shapes(*(tuple(t.shape) for t in ts)))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in ts)


def as_float_tensor(v: Any) -> Tensor:
    """A tensor of the default float dtype for a Python number; tensors pass through."""
    return v if isinstance(v, Tensor) else factory.tensor(float(v))


def finfo(t: Tensor) -> Any:
    return np.finfo(t.dtype.np)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept in ``[eps, 1 - eps]`` of their dtype."""
    eps = float(finfo(probs).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (binary) or log-probabilities of clamped probabilities."""
    ps = clamp_probs(probs)
    return F.log(ps) - F.log1p(-ps) if is_binary else F.log(ps)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid`` (binary) or ``softmax`` over the last dimension."""
    return F.sigmoid(logits) if is_binary else F.softmax(logits, -1)


# --- random draws ------------------------------------------------------------------------

def _on_device_of(data: Any, like: Tensor) -> Tensor:
    """Host draws placed where ``like`` lives (one host-to-device copy, as ``randn``)."""
    return plain(data if not is_device(like._data) else to_device(data))


def standard_normal(shape: tuple[int, ...], like: Tensor) -> Tensor:
    """Standard normal values drawn from the PyTorch-compatible default generator, on
    ``like``'s device."""
    return _on_device_of(normal_data(tuple(shape), like.dtype), like)


def standard_uniform(shape: tuple[int, ...], like: Tensor, low: float = 0.0,
                     high: float = 1.0) -> Tensor:
    """Uniform values in ``[low, high)`` from the default generator, on ``like``'s device."""
    return _on_device_of(uniform_data(tuple(shape), like.dtype, low, high), like)


def numpy_rng() -> np.random.Generator:
    """A NumPy generator seeded from the default generator's stream, for the samplers
    PyTorch writes itself (gamma, Poisson, binomial): reproducible under
    ``manual_seed``, but not PyTorch's draws."""
    return np.random.default_rng(default_generator.words(4))


def rng_for(data: Any) -> Any:
    """``numpy_rng()`` for host parameters; for device ones the device library's own
    generator (``cupy.random.default_rng``), seeded from the same stream, so the draws are
    made on the device from device parameters (never copied to the host)."""
    if not is_device(data):
        return numpy_rng()
    w = [int(v) for v in default_generator.words(2)]  # host words: no device sync
    return xp_of(data).random.default_rng(w[0] << 32 | w[1])
