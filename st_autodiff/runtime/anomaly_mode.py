"""Anomaly detection: ``torch.autograd.detect_anomaly`` / ``set_detect_anomaly`` (part
"autograd", issue 12).

While the mode is on, every graph node remembers the Python stack that created it (the
node counter ``next_seq`` is wrapped wherever the runtime calls it, so each new sequence
number is paired with ``traceback.extract_stack()``), and every node's backward is
wrapped: a backward that fails warns "Error detected in NAME. Traceback of forward call
that caused the error:" with the user's frames, and with ``check_nan`` a gradient
containing NaN raises "Function 'NAME' returned nan values in its Kth output." as in
PyTorch.  The wrappers are removed when the mode is switched off, so normal runs pay
nothing.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from types import FunctionType
from typing import Any

import numpy as np

from . import function as _function
from .device import is_device, xp_of
from .function import Node

__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
           "set_detect_anomaly"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STATE = {"enabled": False, "check_nan": True}
_STACKS: dict[int, list[Any]] = {}
_UNDO: list[tuple[Any, str, Any]] = []


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _STATE["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return _STATE["check_nan"]


def _set(enabled: bool, check_nan: bool) -> None:
    was = _STATE["enabled"]
    _STATE["enabled"], _STATE["check_nan"] = enabled, check_nan
    if enabled and not was:
        _install()
    elif was and not enabled:
        _remove()


class set_detect_anomaly:  # noqa: N801  (spelled like torch)
    """Switch anomaly detection on or off; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _set(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _set(self.prev, self.prev_check_nan)


class detect_anomaly:  # noqa: N801
    """A context in which anomaly detection is on (warns that it slows things down)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(self.prev, self.prev_check_nan)


def _user_frames() -> list[Any]:
    return [f for f in traceback.extract_stack()[:-2]
            if not f.filename.startswith(_PACKAGE)]


def _recording_seq(original: Callable[[], int]) -> Callable[[], int]:
    def next_seq() -> int:
        seq = original()
        _STACKS[seq] = _user_frames()
        return seq

    return next_seq


def _has_nan(g: Any) -> bool:
    data = getattr(g, "_data", g)
    kind = getattr(getattr(data, "dtype", None), "kind", "")
    if kind not in "fc" or kind == "":
        return False
    if is_device(data):  # one read of a device flag per gradient, as PyTorch's check makes
        return bool(xp_of(data).isnan(data).any())
    return bool(np.isnan(np.asarray(data)).any())


def _checked_backward(fn: Any) -> Any:
    @functools.wraps(fn)
    def backward(node: Node, grads: list[Any], ops: Any) -> Any:
        try:
            out = fn(node, grads, ops)
            if _STATE["check_nan"]:
                for i, g in enumerate(out):
                    if g is not None and _has_nan(g):
                        raise RuntimeError(f"Function '{node.name()}' returned nan values in "
                                           f"its {i}th output.")
            return out
        except Exception:
            frames = _STACKS.get(getattr(node, "_seq", -1), [])
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                          "caused the error:\n" + "".join(traceback.format_list(frames)).rstrip(),
                          UserWarning, stacklevel=2)
            raise

    return backward


def _install() -> None:
    original = _function.next_seq
    wrapper = _recording_seq(original)
    mod: Any  # a module that imported next_seq
    for name, mod in list(sys.modules.items()):
        if name.startswith("st_autodiff") and mod is not None \
                and vars(mod).get("next_seq") is original:
            _UNDO.append((mod, "next_seq", original))
            mod.next_seq = wrapper
    seen: set[type] = set()
    todo = [Node]
    while todo:
        cls = todo.pop()
        if "backward" in vars(cls) and isinstance(vars(cls)["backward"], FunctionType):
            _UNDO.append((cls, "backward", vars(cls)["backward"]))
            cls.backward = _checked_backward(  # type: ignore[method-assign]  # wraps, undone
                vars(cls)["backward"])
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)


def _remove() -> None:
    while _UNDO:
        owner, attr, original = _UNDO.pop()
        setattr(owner, attr, original)
    _STACKS.clear()
