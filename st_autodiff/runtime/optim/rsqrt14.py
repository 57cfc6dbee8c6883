"""The results of the x86 ``VRSQRT14PS`` instruction (approximate ``1 / sqrt(x)``), in NumPy.

On AVX-512 machines PyTorch's CPU ``sqrt`` of float32 tensors goes through Intel MKL, which
starts from ``VRSQRT14PS`` and takes one Newton step (see ``rounding.sqrt``); its result is
then off by one ulp from the correctly rounded square root for about 0.7% of inputs.  To
reproduce those bits the instruction's output is needed exactly.  It was measured on every
float32 in [0.5, 2) (one exponent of each parity; other inputs differ only by a power of two):
the output is piecewise constant with 56138 pieces.  ``_PIECES`` holds, compressed, each
piece's length and each step down of the output (in units of 2**7 of its bit pattern).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

import numpy as np

__all__ = ["rsqrt14"]

_FIRST_OUTPUT = 0x3FB50280  # the output bits for input 0.5
_COUNT = 56138
_PIECES = (
    "eNrt3Ytu2zoQRdFoDPT///jeomlq2aZkSRYpPtbZiUwNyeHMURKjAYp8TV8AAAAAAAAAAAAAAAAAAAAAAKBuggcAAAAA"
    "AMBvP8BTnnIUPO3A0zicPbJWPkotOlWLTrmuU7XsXRG7c0XjcZXqQAc64LUOcsffR6LJHb32xQl96YsT+iq1Izb9Hjk+"
    "GLe1W7V61atePZk+eo3EvFGtIy54Skael6e077X1HTq2Q8c80nFJjyIxk16/JXrWmrzZ9cdh/emPw5+viYfY0nXatGrP"
    "2hFW6ZQfVum0rVW3lbkoNheq4JMK+aSK0yu8JdbkHUXxE9XTUz2cUs/IX9mxuO71Ll/EOSOewyXn+Cq+R25v1+z5vHJ3"
    "29Vzju9291h9JGPvd32+oseTxuzaSb46xzxpef7IXQ0ZVNRiRVxWUS0VTat5zZgpP8MNM3lnIrFyLcuxqywc4Qhf82e5"
    "vfx8e11XPlZHFbrSga7q6+D2suLd677Vtb7qQvW6qLOL538dbh8d3+lUHTp19A7v99vG+3fUMFa1DlRdvqLXe5HrIvwQ"
    "qf+rY/r3P6zSrM19Mpsrb+iGh7o5Pe/63qO0lDV4ICsPpvjv62sCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AACnEjwAAMC7PwAAAAAAAAAA8Nt/AADg3R8AAHj3BwAA3v0BAEB37/5t5la1qlXNEVWrutXvmTNODtlkqy4bP2STzXdz"
    "69liZ7bc8foq0oEOVKoDHejg6I71VSJtRfjhqYp4hiK5IrGyJsedE51Y74l8dKITx/kOjIeZfeMrdvaXhRe84CgveHFO"
    "lkhmjtUd04mjc7O1llf38upe97pfHsXq+u0zZ6y4aq/KdKUylenq6so+j56XqZ1K9cw9Pet5bPeWrmfHZOCNzmTgTXt1"
    "vXuvqP+qA7XrQAdqP3Y9P9rbOWN06RzncLOncyI5vyXHOaNac+lbhSrUd7UVxvT748/l+VWwQJAHnv+Vwfh+/Rd++Cgb"
    "raQMVmh6HCtm3/+z2VyhjKknjbBNI0dCfz6fLonQCUul6DAF21pP8e5qUbeLODT4858eb2IpkGmm+IE1z2iZGeVnHn4Q"
    "rN1tXnj0TsrRUrLh+pRLoUtWVFOIdhnSf7sbKiQiIiIiIiIiIvpIfgdFREREREREREREREREREREREREREREREQD6Vc8"
    "aYqU0tFdiwsnrrk2iT3/qhJPj5E9t9n2jFEMyz3/K/fcfm6m+WAptP2uquVKY7LSkgumn+CulyN7Bj6Ea55/pYd8/0Gv"
    "+97R7oZtnA2e//clMU6+HJm5NLeOlKWjNwv+juYkQgeW1LhI2YxU9kMg7n/m+4f0cFPcZl7Y3FJFi5eVqXGXM8Xz72t5"
    "TPOPtbsyAUcMdQTnrj1ifp8afXwjFXukqryQ+efT7ZmhjKk1wjaN7A9tHuzfkSdH3wWx2/Mvn+Phmh72uXi8ji1mz/06"
    "v/NS/oUHnn89xcxGr4PScw7u/2Bu1PEYnv+i4srd5oVSskHKVmpeC67Ed2+oL9GIJ2uBeeeq0F9kjo5O6aoZlg3eDBER"
    "EXlDJyIiIiIiIiIiIiKiBd1YQERERETUi/4HEtEBGA=="
)
_blocks: Any = None


def _table() -> tuple[Any, Any]:
    """Each piece's first input (as ``mantissa + (odd exponent) << 23``) and its output bits."""
    raw = zlib.decompress(base64.b64decode("".join(_PIECES)))
    lengths = np.frombuffer(raw[: 2 * (_COUNT - 1)], dtype=np.uint16).astype(np.int64)
    drops = np.frombuffer(raw[2 * (_COUNT - 1):], dtype=np.uint8).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    outputs = (_FIRST_OUTPUT - 128 * np.concatenate([[0], np.cumsum(drops)])).astype(np.uint32)
    return starts, outputs


def _block_table() -> Any:
    """The output for the first input of each block of 256 and for the rest of the block.

    Every piece starts at a multiple of 256 or one past it, so within a block the output
    can change only after its first input."""
    global _blocks
    if _blocks is None:
        starts, outputs = _table()
        first = np.arange(1 << 16, dtype=np.int64) << 8
        at = np.searchsorted(starts, np.stack([first, first + 255]), side="right") - 1
        _blocks = np.ascontiguousarray(outputs[at].T).reshape(-1)  # [2k]: first, [2k+1]: rest
    return _blocks


_KEY_MASK = np.uint32(0x1FFFE)
_LOW8 = np.uint32(255)
_EXP_HALF = np.uint32(0x7F800000)
_BIAS = np.uint32(63 << 23)
_U7, _U1 = np.uint32(7), np.uint32(1)


def rsqrt14(x: Any) -> Any:
    """``VRSQRT14PS`` of positive finite float32 values ``x`` (a float32 array)."""
    x = np.asarray(x, dtype=np.float32)
    tiny = x < np.float32(2.0**-126)  # subnormal: scale up by 2**64, scale the result by 2**32
    any_tiny = bool(np.logical_or.reduce(tiny, axis=None))  # ``tiny.any()``, no wrapper
    if not any_tiny and x.ndim:
        # speedcore: the steps below folded into bit operations.  The table index is the
        # low 24 bits (mantissa and the exponent's parity); the result's exponent moves by
        # 63 - (biased exponent >> 1), i.e. by 63 << 23 minus the exponent's high 7 bits.
        bits = x.view(np.uint32)
        key = ((bits >> _U7) & _KEY_MASK) | ((bits & _LOW8) != 0)
        out = _block_table()[key] + _BIAS - ((bits >> _U1) & _EXP_HALF)
        return out.view(np.float32)
    scaled = np.where(tiny, np.where(tiny, x, 0) * np.float32(2.0**64), x) if any_tiny else x
    bits = scaled.view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 126  # 0 for [0.5, 1)
    odd = exponent & 1
    index = (bits & np.uint32(0x7FFFFF)) + (odd.astype(np.uint32) << np.uint32(23))
    rest = ((index & np.uint32(255)) != 0).astype(np.uint32)
    base = _block_table()[((index >> np.uint32(8)) << np.uint32(1)) | rest]
    shift = -((exponent - odd) >> 1)
    if any_tiny:
        shift = shift + np.where(tiny, 32, 0)
    # scale by 2**shift by moving the exponent field (the results are normal numbers)
    return (base.view(np.int32) + (shift.astype(np.int32) << 23)).view(np.float32)
