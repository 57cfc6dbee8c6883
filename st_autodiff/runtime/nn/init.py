"""``nn.init``: fill a tensor in place with starting values for training.

Every function writes under ``no_grad`` (so it works on parameters that require grad),
returns the tensor it filled, and draws from the default generator (or ``generator``)
exactly as PyTorch does, so a seeded run starts from the same numbers.  The scale rules
are the usual ones: Xavier/Glorot keeps the variance of activations equal in both
directions from ``fan_in + fan_out``; Kaiming/He scales by ``gain / sqrt(fan)``.

>>> import st_autodiff as torch
>>> w = torch.empty(2, 3)
>>> torch.nn.init.constant_(w, 0.5)
tensor([[0.5000, 0.5000, 0.5000],
        [0.5000, 0.5000, 0.5000]])
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..factory import empty_like, from_numpy
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_",
    "normal_", "ones_", "orthogonal_", "trunc_normal_", "uniform_", "xavier_normal_",
    "xavier_uniform_", "zeros_",
]

_LINEAR_LIKE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                "conv_transpose2d", "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations at unit scale after ``nonlinearity``."""
    if nonlinearity in _LINEAR_LIKE:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: dims 1 and 0 times the size of one receptive field."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    field = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * field, tensor.shape[0] * field


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with values drawn uniformly from ``[a, b)``.

    The draw is a ``[0, 1)`` fraction per element (exact in the tensor's dtype), mapped to
    ``[a, b)`` as PyTorch's CPU kernel maps it: ``a`` and ``b`` rounded to the dtype, then
    ``x * (b - a) + a`` in double precision, rounded once.
    """
    with no_grad():
        if (a, b) == (0.0, 1.0) or not tensor.is_floating_point():
            return tensor.uniform_(a, b, generator=generator)
        x = empty_like(tensor, device="cpu").uniform_(0.0, 1.0, generator=generator).numpy()
        lo, hi = x.dtype.type(a), x.dtype.type(b)
        mapped = x.astype(np.float64) * np.float64(hi - lo) + np.float64(lo)
        values = from_numpy(mapped.astype(x.dtype))
        return tensor.copy_(values.to(tensor.device))  # one in-place write


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with values drawn from ``N(mean, std**2)``."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: ``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: ``N(0, std**2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _empty_noop(tensor: Tensor) -> bool:
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He uniform: ``U(-b, b)`` with ``b = sqrt(3) * gain / sqrt(fan)``.

    ``nn.Linear`` uses ``a = sqrt(5)``, which makes ``b = 1 / sqrt(fan_in)``.
    """
    if _empty_noop(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He normal: ``N(0, std**2)`` with ``std = gain / sqrt(fan)``."""
    if _empty_noop(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Fill with ``N(mean, std**2)`` restricted to ``[a, b]``, by rejection, drawing as
    PyTorch 2.13 draws (so a seeded run gets the same numbers).

    When ``[a, b]`` holds more than 30% of the mass: a normal draw for every element, and
    whole-tensor redraws whose values replace the ones still outside ``[a, b]``.  Otherwise
    uniform proposals in ``[a, b]``, each accepted when ``log(u)`` of a second uniform draw
    is at most the log density relative to its peak on ``[a, b]``.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        mass = cdf((b - mean) / std) - cdf((a - mean) / std)
        if mass > 0.3:
            values = _rejected_normal(tensor, mean, std, a, b, generator)
        else:
            values = _rejected_uniform(tensor, mean, std, a, b, generator)
        return tensor.copy_(from_numpy(values).to(tensor.device))


def _draw(tensor: Tensor, kind: str, lo: float, hi: float, generator: Any) -> np.ndarray[Any, Any]:
    """One draw for every element of ``tensor`` (on the CPU), as a NumPy array."""
    t = empty_like(tensor, device="cpu")
    if kind == "normal":
        normal_(t, lo, hi, generator)
    else:
        uniform_(t, lo, hi, generator)
    return t.numpy()


def _rejected_normal(tensor: Tensor, mean: float, std: float, a: float, b: float,
                     generator: Any) -> np.ndarray[Any, Any]:
    result = _draw(tensor, "normal", mean, std, generator)
    dt = result.dtype.type
    lo, hi = dt(a), dt(b)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            return result
        result = np.where(outside, _draw(tensor, "normal", mean, std, generator), result)


def _rejected_uniform(tensor: Tensor, mean: float, std: float, a: float, b: float,
                      generator: Any) -> np.ndarray[Any, Any]:
    peak = max(a, min(mean, b))
    log_peak = -0.5 * ((peak - mean) / std) ** 2

    def log_density(x: np.ndarray[Any, Any]) -> np.ndarray[Any,
                    Any]:  # relative to the peak, in x's dtype
        dt = x.dtype.type
        result: np.ndarray[Any, Any] = ((x - dt(mean)) / dt(std)) ** 2 * dt(-0.5) - dt(log_peak)
        return result

    def rejected(candidates: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        u = _draw(tensor, "uniform", 0.0, 1.0, generator)
        result: np.ndarray[Any, Any] = np.log(u) > log_density(candidates)
        return result

    result = _draw(tensor, "uniform", a, b, generator)
    pending = rejected(result)
    while pending.any():
        candidates = _draw(tensor, "uniform", a, b, generator)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, rejected(candidates), pending)
    return result


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (the trailing dims flattened): the Q of a QR
    factorisation of a standard normal draw, its columns' signs fixed by R's diagonal so
    that the result is uniformly distributed."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols), device="cpu").normal_(0, 1, generator=generator)
        m = flat.numpy()
        if rows < cols:
            m = m.T
        q, r = _qr(m)
        q = q * np.sign(np.diagonal(r))
        if rows < cols:
            q = q.T
        values = from_numpy(np.ascontiguousarray(q).reshape(tuple(tensor.shape)))
        tensor.copy_(values.to(tensor.device))
        return tensor.mul_(gain)


def _qr(m: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The reduced QR of ``m`` in its own precision (LAPACK ``geqrf``/``orgqr`` through SciPy
    when installed, as PyTorch computes it; NumPy's otherwise)."""
    try:
        import scipy.linalg  # noqa: PLC0415
    except ImportError:
        q, r = np.linalg.qr(m)
        return q.astype(m.dtype), r.astype(m.dtype)
    return scipy.linalg.qr(m, mode="economic", check_finite=False)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the main diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        values = np.eye(*tuple(tensor.shape), dtype=tensor._data.dtype)
        return tensor.copy_(from_numpy(values).to(tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta, so the convolution
    copies its input channels (``groups`` blocks of output channels)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    n = min(out_per_group, shape[1])
    values = np.zeros(shape, dtype=tensor._data.dtype)
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(n):
            values[(g * out_per_group + d, d) + centre] = 1
    with no_grad():
        return tensor.copy_(from_numpy(values).to(tensor.device))
