"""``repr(tensor)``: the same text PyTorch prints.

One formatter per tensor decides how every element is written, from all (or, for big
tensors, the summarised) finite nonzero values:

* integer-valued floats print as ``1.`` unless their range calls for scientific form;
* other floats print with ``precision`` decimals (``1.5000``), or in scientific form when
  the largest magnitude exceeds 1e8, the smallest is below 1e-4, or they span more than a
  factor of 1000;
* every element is padded to the widest one, rows wrap at ``linewidth`` columns, and
  tensors with more than ``threshold`` elements show ``edgeitems`` items at each end.

Then come the suffixes: ``dtype=`` (except for float32, int64 and bool), ``device=``,
``grad_fn=<Name>`` or ``requires_grad=True``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PrintOptions", "format_tensor", "set_printoptions"]


@dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Change how tensors print (``profile`` is ``default``, ``short`` or ``full``)."""
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
                   "full": (4, math.inf, 3, 80)}
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = presets[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


class _Formatter:
    """Chooses the notation and width shared by all elements of one tensor."""

    def __init__(self, values: np.ndarray[Any, Any], floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            for v in values.ravel().tolist():
                self.width = max(self.width, len(str(v)))
            return
        flat = values.astype(np.float64).ravel()
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size:
            mags = np.abs(vals)
            lo, hi = float(mags.min()), float(mags.max())
            self.int_mode = bool(np.all(vals == np.ceil(vals)))
            wide = hi / lo > 1000.0 or hi > 1.0e8
            p = OPTIONS.precision
            if self.int_mode:
                self.sci_mode = wide
                texts = ([f"{v:.{p}e}" for v in vals.tolist()] if wide
                         else [f"{v:.0f}." for v in vals.tolist()])
            else:
                self.sci_mode = wide or lo < 1.0e-4
                texts = ([f"{v:.{p}e}" for v in vals.tolist()] if self.sci_mode
                         else [f"{v:.{p}f}" for v in vals.tolist()])
            self.width = max(len(t) for t in texts)
        if OPTIONS.sci_mode is not None:
            self.sci_mode = OPTIONS.sci_mode

    def format(self, value: Any) -> str:
        p = OPTIONS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{p}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{p}f}"
        return text.rjust(self.width)


def _summarised(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Only the edge items of every dimension (what a summarised print shows)."""
    e = OPTIONS.edgeitems
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * e:
        parts = [_summarised(a[i]) for i in list(range(e)) + list(range(len(a) - e, len(a)))]
    else:
        parts = [_summarised(a[i]) for i in range(len(a))]
    return np.stack(parts) if parts else a


def _vector(a: np.ndarray[Any, Any], indent: int, summarise: bool, fmt: _Formatter) -> str:
    e = OPTIONS.edgeitems
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / (fmt.width + 2))))
    if summarise and a.shape[0] > 2 * e:
        items = ([fmt.format(v) for v in a[:e].tolist()] + [" ..."]
                 + [fmt.format(v) for v in a[-e:].tolist()])
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray[Any, Any], indent: int, summarise: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarise, fmt)
    e = OPTIONS.edgeitems
    if summarise and a.shape[0] > 2 * e:
        rows = ([_nested(a[i], indent + 1, summarise, fmt) for i in range(e)] + ["..."]
                + [_nested(a[i], indent + 1, summarise, fmt)
                   for i in range(len(a) - e, len(a))])
    else:
        rows = [_nested(a[i], indent + 1, summarise, fmt) for i in range(a.shape[0])]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def _with_suffixes(body: str, suffixes: list[str], indent: int) -> str:
    parts = [body]
    last = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    parts.append(")")
    return "".join(parts)


def format_array(a: np.ndarray[Any, Any], indent: int) -> str:
    """The bracketed body of a non-empty tensor's repr."""
    summarise = a.size > OPTIONS.threshold
    floating = a.dtype.kind == "f"
    fmt = _Formatter(_summarised(a) if summarise else a, floating)
    return _nested(a, indent, summarise, fmt)


def format_tensor(t: Any, dtype_suffix: bool = True) -> str:
    """The full ``tensor(...)`` text of a Tensor."""
    from .dtypes import bool_, get_default_dtype, int64

    a = np.asarray(t._host())
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    plain = t.dtype in (get_default_dtype(), int64, bool_)
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        body = "[]"
        plain = t.dtype is get_default_dtype()  # no element shows an empty tensor's dtype
    else:
        body = format_array(a, indent)
    if not plain and dtype_suffix:
        suffixes.append(f"dtype={t.dtype}")
    fn = t._grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
