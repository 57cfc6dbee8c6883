"""``torch.testing.assert_close``: compare tensors, numbers and nested containers of them.

Tolerances default by dtype as in PyTorch (``rtol``/``atol``: float16 1e-3/1e-5, float32
1.3e-6/1e-5, float64 1e-7/1e-7, integers and bool exact); Python floats count as
float64.  Elements match when ``|actual - expected| <= atol + rtol * |expected|`` (NaNs
match each other only with ``equal_nan``).  Failures raise ``AssertionError`` with
PyTorch's message layout: the attribute that differs, or the mismatch count and the
greatest absolute and relative differences with their index; inside sequences and
mappings the failing item is named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .function import TensorBase

__all__ = ["assert_close"]

_TOLS = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    """A failed comparison; ``path`` collects the container items around it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[Any] = []


def _tols(dtype_name: str, rtol: float | None, atol: float | None) -> tuple[float, float]:
    if rtol is not None and atol is not None:
        return rtol, atol
    return _TOLS.get(dtype_name, (0.0, 0.0))


def _num(v: Any) -> str:
    return repr(v)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg: str | Callable[[str], str] | None = None
                 ) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see module)."""
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype)
    except _Mismatch as exc:
        text = exc.message
        if exc.path:
            text += "\n\nThe failure occurred for item " + "".join(
                f"[{k!r}]" for k in reversed(exc.path))
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise AssertionError(text) from None


def _compare(a: Any, e: Any, rtol: Any, atol: Any, equal_nan: bool, check_device: bool,
             check_dtype: bool) -> None:
    if isinstance(a, TensorBase) and isinstance(e, TensorBase):
        _tensors(a, e, rtol, atol, equal_nan, check_device, check_dtype)
        return
    if _is_number(a) and _is_number(e):
        _scalars(a, e, rtol, atol, equal_nan)
        return
    if isinstance(a, Mapping) and isinstance(e, Mapping):
        if set(a) != set(e):
            raise _Mismatch(f"The keys of the mappings do not match:\n{sorted(a)} != "
                            f"{sorted(e)}")
        for k in e:
            _item(k, a[k], e[k], rtol, atol, equal_nan, check_device, check_dtype)
        return
    if (isinstance(a, Sequence) and isinstance(e, Sequence) and not isinstance(a, str)
            and not isinstance(e, str)):
        if len(a) != len(e):
            raise _Mismatch(f"The length of the sequences mismatch: {len(a)} != {len(e)}")
        for i, (x, y) in enumerate(zip(a, e, strict=True)):
            _item(i, x, y, rtol, atol, equal_nan, check_device, check_dtype)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type "
                    f"{_type_name(a)} and {_type_name(e)}.")


def _item(key: Any, a: Any, e: Any, *rest: Any) -> None:
    try:
        _compare(a, e, *rest)
    except _Mismatch as exc:
        exc.path.append(key)
        raise


def _type_name(v: Any) -> str:
    if isinstance(v, TensorBase):
        return "<class 'torch.Tensor'>"
    return str(type(v))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, bool, np.number, np.bool_))


def _scalars(a: Any, e: Any, rtol: Any, atol: Any, equal_nan: bool) -> None:
    if type(a) is not type(e) and isinstance(a, float) != isinstance(e, float):
        raise _Mismatch(f"The (d)types do not match: {type(a)} != {type(e)}.")
    exact = not isinstance(e, float)
    r, t = (0.0, 0.0) if exact else _tols("float64", rtol, atol)
    if rtol is not None:
        r, t = rtol, atol
    diff = abs(a - e)
    both_nan = equal_nan and a != a and e != e
    if both_nan or diff <= t + r * abs(e):
        return
    rel = diff / abs(e) if e != 0 else (float("nan") if diff != diff else float("inf"))
    word = "equal" if exact else "close"
    text = (f"Scalars are not {word}!\n\nExpected {e!r} but got {a!r}.\n"
            f"Absolute difference: {_num(diff)}")
    text += "" if exact else f" (up to {t} allowed)"
    text += f"\nRelative difference: {_num(rel)}"
    text += "" if exact else f" (up to {r} allowed)"
    raise _Mismatch(text)


def _tensors(a: Any, e: Any, rtol: Any, atol: Any, equal_nan: bool, check_device: bool,
             check_dtype: bool) -> None:
    if a.shape != e.shape:
        raise _Mismatch(f"The values for attribute 'shape' do not match: {a.shape} != "
                        f"{e.shape}.")
    if check_device and a.device != e.device:
        raise _Mismatch(f"The values for attribute 'device' do not match: {a.device} != "
                        f"{e.device}.")
    if check_dtype and a.dtype != e.dtype:
        raise _Mismatch(f"The values for attribute 'dtype' do not match: {a.dtype} != "
                        f"{e.dtype}.")
    x, y = a.detach()._host(), e.detach()._host()
    from .dtypes import promote_types

    common = promote_types(a.dtype, e.dtype).np
    if common.kind == "b":
        common = np.dtype(np.int64)
    x, y = x.astype(common), y.astype(common)
    exact = common.kind != "f"
    # the looser of the two dtypes' defaults (they differ only without check_dtype)
    ta, te = _tols(a.dtype.name, rtol, atol), _tols(e.dtype.name, rtol, atol)
    r, t = max(ta[0], te[0]), max(ta[1], te[1])
    with np.errstate(all="ignore"):
        ok = np.isclose(x, y, rtol=r, atol=t, equal_nan=equal_nan) if not exact \
            else np.abs(x - y) <= t + r * np.abs(y)
        if exact and r == 0 and t == 0:
            ok = x == y
        if ok.all():
            return
        if x.ndim == 0:
            _scalars(x.item(), y.item(), rtol if rtol is not None else r,
                     atol if atol is not None else t, equal_nan)
            return
        diff = np.abs(x - y) if not exact else np.abs(x.astype(np.int64) - y.astype(np.int64))
        if not exact and equal_nan:
            diff = np.where(np.isnan(x) & np.isnan(y), 0, diff).astype(common)
        rel = diff / np.abs(y).astype(common if not exact else np.float64)
    n_bad, n = int((~ok).sum()), ok.size
    word = "equal" if exact else "close"
    ia, ir = _argmax(diff), _argmax(rel)
    da, dr = diff.flat[ia].item(), rel.flat[ir].item()
    text = (f"Tensor-likes are not {word}!\n\nMismatched elements: {n_bad} / {n} "
            f"({n_bad / n:.1%})\nGreatest absolute difference: {_num(da)} at index "
            f"{_index(ia, x.shape)}")
    text += "" if exact else f" (up to {t} allowed)"
    text += f"\nGreatest relative difference: {_num(dr)} at index {_index(ir, x.shape)}"
    text += "" if exact else f" (up to {r} allowed)"
    raise _Mismatch(text)


def _argmax(v: np.ndarray[Any, Any]) -> int:
    """The index of the largest value, NaN counting as the largest (as torch.max does)."""
    flat = v.reshape(-1)
    nan = np.isnan(flat) if flat.dtype.kind == "f" else None
    if nan is not None and nan.any():
        return int(np.argmax(nan))
    return int(np.argmax(flat))


def _index(i: int, shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(int(k)) for k in np.unravel_index(i, shape)) + \
        ("," if len(shape) == 1 else "") + ")"

