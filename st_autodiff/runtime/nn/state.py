"""Loading a module's state: ``Module.load_state_dict`` and what it reports.

Each module in the tree loads its own parameters and persistent buffers from the keys
under its dotted prefix, copying values in place under ``no_grad`` (or, with
``assign=True``, replacing the objects).  Keys that match nothing are *unexpected*;
entries with no key are *missing*; with ``strict`` both are errors, reported together
with shape and type mismatches in one ``RuntimeError`` worded as PyTorch words it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..grad_mode import no_grad
from ..tensor import Tensor
from .parameter import Parameter

if TYPE_CHECKING:
    from .module import Module

__all__ = ["IncompatibleKeys", "load_state_dict"]


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` could not match (``missing_keys``, ``unexpected_keys``)."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")

    def __str__(self) -> str:
        return repr(self)


def load_state_dict(root: Module, state: Any, strict: bool, assign: bool) -> IncompatibleKeys:
    """Load ``state`` into ``root`` and every module below it (see the module docstring)."""
    if not isinstance(state, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    for prefix, module in root.named_modules(remove_duplicate=False):
        _load_own(module, state, f"{prefix}." if prefix else "", assign, missing, unexpected,
                  errors)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(root).__name__, "\n\t".join(errors)))
    return IncompatibleKeys(missing, unexpected)


def _load_own(module: Module, state: Mapping[str, Any], prefix: str, assign: bool,
              missing: list[str], unexpected: list[str], errors: list[str]) -> None:
    """Load ``module``'s own entries (not its children's) from ``state``."""
    own = {name: v for name, v in module._parameters.items() if v is not None}
    own.update((name, v) for name, v in module._buffers.items()
               if v is not None and name not in module._non_persistent_buffers_set)
    for name, current in own.items():
        key = prefix + name
        if key not in state:
            missing.append(key)
            continue
        value = state[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                          f"or Tensor-like object from checkpoint but received {type(value)}")
        elif value.shape != current.shape:
            errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                          "from checkpoint, the shape in current model is "
                          f"{current.shape}.")
        elif assign:
            keep_parameter = isinstance(current, Parameter) and not isinstance(value, Parameter)
            setattr(module, name,
                    Parameter(value, current.requires_grad) if keep_parameter else value)
        else:
            with no_grad():
                current.copy_(value)
    for key in state:
        if key.startswith(prefix):
            head = key[len(prefix):].split(".", 1)[0]
            if head not in module._modules and head not in own:
                unexpected.append(key)
