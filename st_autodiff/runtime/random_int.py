"""``Tensor.random_``: integers drawn from PyTorch's CPU generator, draw for draw.

PyTorch fills element by element from one twister output per value, or two joined
high-first for 64-bit types (int64, float64) and for ranges of 2**32 or more:

* ``random_()``: integer types get the draw modulo ``max + 1`` (so int64 takes 63 bits),
  floating types the draw modulo ``2**digits + 1`` (24 for float32, 53 for float64, 11 for
  float16), bool the draw's lowest bit;
* ``random_(to)`` / ``random_(from, to)``: ``from`` plus the draw modulo ``to - from``.

``torch.utils.data`` relies on this: ``RandomSampler`` and ``DataLoader`` seed themselves
with ``torch.empty((), dtype=torch.int64).random_()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .random import Generator, _gen
from .tensor import Tensor

__all__ = ["install_random_", "random_", "random_data"]

_DIGITS = {"float16": 11, "float32": 24, "float64": 53}
_WIDE = ("int64", "float64")


def _draws(gen: Generator, n: int, wide: bool) -> list[int]:
    """``n`` draws: single 32-bit words, or pairs joined high word first."""
    if not wide:
        return [int(w) for w in gen.words(n)]
    w = gen.words(2 * n)
    return [(int(w[2 * i]) << 32) | int(w[2 * i + 1]) for i in range(n)]


def random_data(shape: tuple[Any, ...], dtype: dtypes.dtype, low: int | None = None,
                high: int | None = None, generator: Generator | None = None
                ) -> np.ndarray[Any, Any]:
    """Values for ``random_`` on a tensor of ``shape`` and ``dtype`` (see the module doc)."""
    n = int(np.prod(shape))
    gen = _gen(generator)
    name = dtype.np.name
    if high is not None:
        low = low or 0
        span = high - low
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        vals = [low + d % span for d in _draws(gen, n, span >= 2**32)]
    elif name == "bool":
        vals = [d & 1 for d in _draws(gen, n, False)]
    elif name in _DIGITS:
        vals = [d % (2 ** _DIGITS[name] + 1) for d in _draws(gen, n, name in _WIDE)]
    else:
        top = int(np.iinfo(dtype.np).max) + 1
        vals = [d % top for d in _draws(gen, n, name in _WIDE)]
    return np.array(vals, dtype=np.float64 if name in _DIGITS else np.int64).astype(
        dtype.np).reshape(shape)


def random_(self: Tensor, from_: int | None = None, to: int | None = None, *,
            generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """Fill with integers from the generator (``random_()``, ``random_(to)``,
    ``random_(from, to)``)."""
    from .inplace import inplace
    from .methods import _RANDOM, _constant

    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if from_ is not None and to is None:
        from_, to = 0, from_
    low = None if to is None else int(from_ or 0)
    high = None if to is None else int(to)
    return inplace(self, _constant(_RANDOM["UniformBackward0"],
                                   lambda t: random_data(t._data.shape, t.dtype, low, high,
                                                         generator)))


def install_random_() -> None:
    """Attach ``random_`` to ``Tensor`` (if no other part has)."""
    if not hasattr(Tensor, "random_"):
        # installs the method tensor_api declares
        Tensor.random_ = random_  # type: ignore[method-assign,assignment]
