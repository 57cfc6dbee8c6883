"""``Optimizer``: the parameter groups, per-parameter state and the shared API of optimizers.

An optimizer holds ``param_groups`` (a list of dicts: ``'params'`` plus one entry per
setting, filled from ``defaults``) and ``state`` (a dict from parameter to its buffers).
``step()`` updates every parameter that has a gradient, in place and outside the graph;
``zero_grad()`` clears gradients (to ``None`` by default, as in PyTorch 2).

Updates work on the raw arrays: each parameter's storage is changed in place and its
version counter bumped, so a graph that saved the old value notices, exactly as after
``param.add_(...)`` under ``no_grad``.  Arithmetic follows PyTorch's single-tensor
formulas step for step in the parameter's dtype.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable
from copy import deepcopy
from typing import Any

import numpy as np

from ..device import is_device, xp_of
from ..grad_mode import enable_grad
from ..tensor import Tensor, plain
from .batched import update_group

__all__ = ["Optimizer"]


def _typename(obj: Any) -> str:
    return obj.type() if isinstance(obj, Tensor) else type(obj).__qualname__


def array_of(t: Tensor) -> Any:
    """``t``'s storage as an array that can be updated in place."""
    return t._array()


def grad_array(p: Tensor) -> Any:
    """The raw gradient of parameter ``p`` (``None`` when it has none)."""
    g = p._grad
    return None if g is None else g._data


def new_buffer(like: Any) -> Tensor:
    """A state tensor owning a zero-filled array shaped like ``like``."""
    if isinstance(like, np.ndarray):
        return plain(np.zeros_like(like))
    return plain(xp_of(like).zeros_like(like) if is_device(like) else like * 0)


def copy_buffer(value: Any) -> Tensor:
    """A state tensor owning a copy of ``value``."""
    return plain(value.copy() if not isinstance(value, np.generic) else np.array(value))


class Optimizer:
    """Base class of optimizers (see the module docstring); subclasses define ``step``."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own settings (missing ones from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{_typename(p)}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        taken = {id(p) for g in self.param_groups for p in g["params"]}
        if taken & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: ``None`` by default, else zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; ``closure`` re-evaluates the loss first if given."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            # speedcore: a group of elementwise updates runs once on all its parameters
            params = [p for p in group["params"] if p._grad is not None]
            grads = [p._grad._data for p in params]
            if update_group(self, params, grads, group):
                for p in params:
                    p._bump()
                continue
            for p, g in zip(params, grads):
                self._update(p, g, group)
                p._bump()
        return loss

    def _update(self, p: Tensor, grad: Any, group: dict[str, Any]) -> None:
        """Change ``p``'s storage in place from its raw gradient ``grad`` (buffers live in
        ``self.state[p]``)."""
        raise NotImplementedError

    # --- saving and restoring -----------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: buffers}, 'param_groups': [settings with param indices]}``."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore settings and buffers saved by ``state_dict``: buffers are copied (in the
        parameter's dtype, except ``step``), each group takes the saved settings."""
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(a["params"]) != len(b["params"]) for a, b in zip(saved, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        by_index: dict[int, Tensor] = {}
        groups = []
        for old, group in zip(saved, self.param_groups):
            by_index.update(zip(old["params"], group["params"]))
            groups.append(dict(old, params=group["params"]))  # the saved settings only
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for k, buffers in state_dict["state"].items():
            if k in by_index:
                p = by_index[k]
                state[p] = {key: value if key == "step" else _cast_like(p, value)
                            for key, value in deepcopy(buffers).items()}
            else:
                state[k] = deepcopy(buffers)
        self.__setstate__({"state": state, "param_groups": groups})

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                            if key != "params")
        return text + ")"


def _cast_like(param: Tensor, value: Any) -> Any:
    """A saved buffer (or a list or dict of them) in a floating parameter's dtype."""
    if isinstance(value, Tensor):
        if param.is_floating_point() and value.is_floating_point():
            return value.to(param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_like(param, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(param, v) for v in value)
    return value


def check_non_negative(value: float, what: str) -> None:
    """PyTorch's ``ValueError`` for a negative setting (``Invalid learning rate: -1``)."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")
