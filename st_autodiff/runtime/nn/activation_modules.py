"""Activation modules (``nn.GELU``, ``nn.ELU``, ``nn.PReLU`` ...) over ``activations``.

Each keeps its settings as attributes of PyTorch's names and prints them in its repr the
way PyTorch does (``ELU(alpha=1.0)``, ``Softplus(beta=1.0, threshold=20.0)``,
``Softshrink(0.5)``).  ``PReLU`` owns a learnable weight, one per channel.

>>> import st_autodiff as torch
>>> torch.nn.LeakyReLU(0.2, inplace=True)
LeakyReLU(negative_slope=0.2, inplace=True)
"""

from __future__ import annotations

from typing import Any

from ..factory import empty
from ..tensor import Tensor
from . import activations as A
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "CELU", "ELU", "GELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
    "LogSigmoid", "Mish", "PReLU", "ReLU6", "SELU", "SiLU", "Softmax2d", "Softmin", "Softplus",
    "Softshrink", "Softsign", "Tanhshrink", "Threshold",
]


def _inplace(flag: bool) -> str:
    return "inplace=True" if flag else ""


class GELU(Module):
    """``x * Phi(x)``; ``approximate='tanh'`` for the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return A.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class _InplaceOnly(Module):
    """An activation whose only setting is ``inplace``."""

    _fn: Any = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        out: Tensor = type(self)._fn(input, inplace=self.inplace)
        return out

    def extra_repr(self) -> str:
        return _inplace(self.inplace)


class SiLU(_InplaceOnly):
    """``x * sigmoid(x)``."""

    _fn = staticmethod(A.silu)


class Mish(_InplaceOnly):
    """``x * tanh(softplus(x))``."""

    _fn = staticmethod(A.mish)


class ReLU6(_InplaceOnly):
    """``min(max(x, 0), 6)``."""

    _fn = staticmethod(A.relu6)


class SELU(_InplaceOnly):
    """The self-normalising ELU."""

    _fn = staticmethod(A.selu)


class Hardsigmoid(_InplaceOnly):
    """``relu6(x + 3) / 6``."""

    _fn = staticmethod(A.hardsigmoid)


class Hardswish(_InplaceOnly):
    """``x * relu6(x + 3) / 6``."""

    _fn = staticmethod(A.hardswish)


class _Stateless(Module):
    """An activation without settings."""

    _fn: Any = None

    def forward(self, input: Tensor) -> Tensor:
        out: Tensor = type(self)._fn(input)
        return out


class Softsign(_Stateless):
    """``x / (1 + |x|)``."""

    _fn = staticmethod(A.softsign)


class Tanhshrink(_Stateless):
    """``x - tanh(x)``."""

    _fn = staticmethod(A.tanhshrink)


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``."""

    _fn = staticmethod(A.logsigmoid)


class ELU(Module):
    """``x`` where positive, ``alpha (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""

    def forward(self, input: Tensor) -> Tensor:
        return A.celu(input, self.alpha, self.inplace)


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                          else "")


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return A.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0,
                 inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class Threshold(Module):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return (f"threshold={self.threshold}, value={self.value}"
                + (", inplace=True" if self.inplace else ""))


class Softshrink(Module):
    """Shrinks ``x`` towards 0 by ``lambd``."""

    _fn = staticmethod(A.softshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Zeroes ``x`` where ``|x| <= lambd``."""

    _fn = staticmethod(A.hardshrink)


class Softmin(Module):
    """``softmax(-x)`` along ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return A.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` is learnt, one per channel
    (``num_parameters``) or one for all, starting at ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Fill the weight with ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softmax2d(Module):
    """``softmax`` over the channels (dim -3) of a ``(C, H, W)`` or ``(N, C, H, W)`` input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        from .functional import softmax

        return softmax(input, -3, _stacklevel=5)
