"""Random numbers that match PyTorch's CPU generator draw for draw.

PyTorch's CPU generator is a 32-bit Mersenne Twister seeded like ``init_genrand`` with the
low 32 bits of the seed, which is also how NumPy's legacy ``RandomState(seed)`` seeds it,
so ``RandomState`` supplies the raw 32-bit words and this module turns them into values
the way PyTorch does:

* uniform float32/float16: one word, its low 24 (11) bits scaled by 2**-24 (2**-11);
  float64: two words joined high-first, the low 53 bits scaled by 2**-53;
* normal, fewer than 16 values (or not float32/float64): Box-Muller in double precision on
  two uniform doubles, the sine half cached for the next value;
* normal, 16 or more values: all uniforms drawn first, then Box-Muller on blocks of 16
  (first 8 with the next 8); a ragged tail redraws 16 uniforms for the last 16 values;
* ``randint``: one word (two for ranges over 2**32) modulo the range; ``randperm``:
  Fisher-Yates swaps from the front, one word per position.

Float32 normals are computed here with NumPy's float32 math; PyTorch's vectorised
kernels can differ from it in the last bit.  A fresh process is seeded from the OS, like
PyTorch; ``manual_seed`` makes runs reproducible.
"""

from __future__ import annotations

import math
import secrets
from typing import Any

import numpy as np

from . import dtypes

__all__ = ["Generator", "default_generator", "initial_seed", "manual_seed", "seed"]


class Generator:
    """A random number generator with PyTorch's CPU algorithm (see the module docstring)."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = dtypes.device(device)
        self.manual_seed(secrets.randbits(63))

    def manual_seed(self, seed: int) -> Generator:
        """Restart the sequence from ``seed``; returns the generator."""
        self._seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self._state = np.random.RandomState(self._seed & 0xFFFFFFFF)
        self._next_normal: float | None = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Seed from the OS and return the new seed."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def get_state(self) -> tuple[Any, ...]:
        return (self._seed, self._state.get_state(), self._next_normal)

    def set_state(self, state: tuple[Any, ...]) -> None:
        self._seed, inner, self._next_normal = state
        self._state = np.random.RandomState()
        self._state.set_state(inner)

    # --- raw draws ---------------------------------------------------------------------

    def words(self, n: int) -> np.ndarray[Any, Any]:
        """``n`` raw 32-bit outputs of the twister."""
        # speedcore: the twister's raw outputs directly (the same words as ``randint`` over
        # [0, 2**32), without its per-call checks)
        raw = getattr(self._state, "_bit_generator", None)
        words: np.ndarray[Any, Any]
        if raw is not None:
            words = raw.random_raw(n)
            return words
        words = self._state.randint(0, 2**32, size=n, dtype=np.uint64)
        return words

    def uniform(self, n: int, dtype: dtypes.dtype) -> np.ndarray[Any, Any]:
        """``n`` uniform values in [0, 1) of ``dtype``, drawn as PyTorch draws them."""
        if dtype is dtypes.float64:
            w = self.words(2 * n)
            joined = (w[0::2] << np.uint64(32)) | w[1::2]
            mantissa = (joined & np.uint64((1 << 53) - 1)).astype(np.float64)
            u: np.ndarray[Any, Any] = mantissa * 2.0**-53
            return u
        bits = 11 if dtype is dtypes.float16 else 24
        w = self.words(n)
        return ((w & np.uint64((1 << bits) - 1)).astype(np.float64) * 2.0**-bits).astype(
            dtype.np)

    def normal(self, n: int, dtype: dtypes.dtype) -> np.ndarray[Any, Any]:
        """``n`` standard normal values of ``dtype``."""
        if n >= 16 and dtype in (dtypes.float32, dtypes.float64):
            return self._normal_blocks(n, dtype)
        out = np.empty(n, dtype.np)
        # the uniforms of every pair this call starts, drawn at once (the same words in the
        # same order as one draw per pair: the twister's stream does not depend on sizes)
        pairs = -(-(n - (self._next_normal is not None)) // 2)
        us = self.uniform(2 * pairs, dtypes.float64).tolist() if pairs > 0 else []
        k = 0
        for i in range(n):
            if self._next_normal is not None:
                out[i], self._next_normal = self._next_normal, None
                continue
            u1, u2 = us[k], us[k + 1]
            k += 2
            radius = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            self._next_normal = radius * math.sin(theta)
            out[i] = radius * math.cos(theta)
        return out

    def _normal_blocks(self, n: int, dtype: dtypes.dtype) -> np.ndarray[Any, Any]:
        data = self.uniform(n, dtype)
        full = n - n % 16  # speedcore: every whole block at once (elementwise, same values)
        _box_muller_16(data[:full].reshape(-1, 16), dtype)
        if n % 16:
            tail = data[n - 16:]
            tail[:] = self.uniform(16, dtype)
            _box_muller_16(tail, dtype)
        return data


def _box_muller_16(block: np.ndarray[Any, Any], dtype: dtypes.dtype) -> None:
    """Turn each row of 16 uniforms into 16 normals in place (pairs ``j`` and ``j + 8``)."""
    t = dtype.np.type
    u1 = t(1) - block[..., :8]
    u2 = block[..., 8:]
    radius = np.sqrt(t(-2) * np.log(u1))
    theta = (t(2.0 * math.pi) * u2) if dtype is dtypes.float32 else 2.0 * math.pi * u2
    block[..., :8], block[..., 8:] = radius * np.cos(theta), radius * np.sin(theta)


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (like ``torch.manual_seed``) and return it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> tuple[Any, ...]:
    return default_generator.get_state()


def set_rng_state(state: tuple[Any, ...]) -> None:
    default_generator.set_state(state)


def _gen(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator


def uniform_data(shape: tuple[Any, ...], dtype: dtypes.dtype, low: float = 0.0, high: float = 1.0,
                 generator: Generator | None = None) -> np.ndarray[Any, Any]:
    """An array of uniform values in ``[low, high)``."""
    n = int(math.prod(shape))
    u = _gen(generator).uniform(n, dtype if dtype.is_floating_point else dtypes.float32)
    if (low, high) != (0.0, 1.0):
        u = (u * (high - low) + low).astype(u.dtype)
    return u.reshape(shape).astype(dtype.np, copy=False)


def normal_data(shape: tuple[Any, ...], dtype: dtypes.dtype, mean: float = 0.0, std: float = 1.0,
                generator: Generator | None = None) -> np.ndarray[Any, Any]:
    """An array of normal values with ``mean`` and ``std``."""
    n = int(math.prod(shape))
    z = _gen(generator).normal(n, dtype)
    if (mean, std) != (0.0, 1.0):
        z = (z * std + mean).astype(z.dtype)
    return z.reshape(shape)


def randint_data(low: int, high: int, shape: tuple[Any, ...], generator: Generator | None = None
                 ) -> np.ndarray[Any, Any]:
    """Integers in ``[low, high)`` (PyTorch's draw: a word modulo the range)."""
    n = int(math.prod(shape))
    span = high - low
    gen = _gen(generator)
    if span <= 2**32:
        w = gen.words(n)
    else:
        w2 = gen.words(2 * n)
        w = (w2[0::2] << np.uint64(32)) | w2[1::2]
    return ((w % np.uint64(span)).astype(np.int64) + low).reshape(shape)


def randperm_data(n: int, generator: Generator | None = None) -> np.ndarray[Any, Any]:
    """A random permutation of ``0..n-1``: Fisher-Yates swaps, one word per position."""
    gen = _gen(generator)
    out = np.arange(n, dtype=np.int64)
    if n < 2:
        return out
    words = gen.words(n - 1)
    for i in range(n - 1):
        j = i + int(words[i] % np.uint64(n - i))
        out[i], out[j] = out[j], out[i]
    return out
