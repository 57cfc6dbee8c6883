"""Type rules of the fft ops (see ``ir/infer``): the shape by the transform's rule (the
halved axis of ``fft_r2c`` keeps ``n // 2 + 1`` bins, ``fft_c2r`` gives ``n`` values
there; ``cmul``/``cdiv`` broadcast), the dtype as NumPy 2 gives it: float32 (and float16)
inputs give float32 parts (NumPy keeps complex64), everything else float64."""

from __future__ import annotations

from typing import Any

import numpy as np

from .infer_core import array, dtype_of, shape_of
from .ops import Op


def _dtype(inputs: tuple[Any, ...]) -> np.dtype[Any]:
    kinds = [dtype_of(v) for v in inputs if not (isinstance(v, (int, float)) and v == 0)]
    single = all(dt in (np.float32, np.float16) for dt in kinds) and kinds
    return np.dtype(np.float32 if single else np.float64)


def _part(dt: np.dtype[Any], shape: tuple[int, ...] | None) -> Any:
    return array(dt, shape)


def _fft(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    arrays = [v for v in inputs if not (isinstance(v, (int, float)) and v == 0)]
    shapes: list[Any] = [shape_of(v) for v in arrays]  # None where unknown
    dt = _dtype(inputs)
    if any(s is None for s in shapes):  # the dtype is known, the shape is not
        return _part(dt, None) if op is Op.FFT_C2R else (_part(dt, None), _part(dt, None))
    shape = list(np.broadcast_shapes(*shapes)) if len(shapes) > 1 else list(shapes[0])
    axes = params["axes"]
    if op is Op.FFT_R2C:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    if op is Op.FFT_C2R:
        shape[axes[-1]] = params["n"]
        return _part(dt, tuple(shape))
    return (_part(dt, tuple(shape)), _part(dt, tuple(shape)))


def _cmul(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shapes: list[Any] = [shape_of(v) for v in inputs]  # None where unknown
    dt = np.result_type(*[v if isinstance(v, (int, float)) else dtype_of(v) for v in inputs])
    shape = None if any(s is None for s in shapes) else tuple(np.broadcast_shapes(*shapes))
    return (_part(dt, shape), _part(dt, shape))


RULES = {Op.FFT_C2C: _fft, Op.FFT_R2C: _fft, Op.FFT_C2R: _fft, Op.CMUL: _cmul, Op.CDIV: _cmul}
